"""Generate karplint/userdata/kubelet_flags.json: kubelet flag names, value types and per-minor availability.

    python scripts/gen_kubelet_flags.py [--src DIR] [--out PATH] [--check]

The flag names and types are parsed from the kubelet's own registration code (never committed here; read it from
kubernetes/kubernetes and save it under DIR, default /tmp/kubelet-flags-src, one sub-directory per source file with
the Go text and a SOURCE.json naming repository, commit and path):

* cmd/kubelet/app/options/options.go: `KubeletFlags.AddFlags` and `AddKubeletConfigFlags` (every flag registered in
  the latter is deprecated in favour of the config file, except the `notDeprecated` set it names);
* pkg/kubelet/config/flags.go: `ContainerRuntimeOptions.AddFlags`;
* staging/src/k8s.io/component-base/logs/api/v1/options.go: `addFlags` (logsapi.AddFlags);
* cmd/kubelet/app/options/globalflags_linux.go: cadvisor flags the kubelet re-registers (types below, from
  google/cadvisor's flag definitions, since the kubelet copies them from the global flag set).

`fs.StringVar`/`BoolVar`/`Int32Var`/`Int64Var`/`DurationVar`/`StringSliceVar` give the type directly; `fs.Var(X, ...)`
gets it from X's constructor (`cliflag.NewMapStringString` -> map-string-string, `utilflag.RegisterWithTaintsVar` ->
taints, ...). `MarkDeprecated` messages are kept.

What changed between minors is not in one source file: HISTORY below lists flags added or removed in 1.24-1.35 with
the release note (kubernetes CHANGELOG) or the source's own deprecation message that says so. The table covers the
minors in MINORS (what EKS AMIs ship for Karpenter v1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "karplint" / "userdata" / "kubelet_flags.json"
SRC = Path("/tmp/kubelet-flags-src")
MINORS = [f"1.{m}" for m in range(25, 35)]

TYPED_VAR = re.compile(r'\bfs\.(String|Bool|Int32|Int64|Int|Uint64|Uint32|Float64|Duration|StringSlice)Var\(\s*'
                       r'[^,]+,\s*(?:"([^"]+)"|(\w+))')
GENERIC_VAR = re.compile(r'\bfs\.VarP?\(\s*(.+?),\s*"([^"]+)"')
ASSIGN = re.compile(r'(\w+)\s*:=\s*([\w.]+)\(')
DEPRECATED = re.compile(r'\bfs\.MarkDeprecated\(\s*"([^"]+)",\s*"([^"]*)"')
CADVISOR = re.compile(r'\b(register|registerDeprecated)\(global,\s*local,\s*"([^"]+)"')
FUNC = re.compile(r'^func\s+(?:\([^)]*\)\s*)?(\w+)', re.M)
NOT_DEPRECATED = re.compile(r'notDeprecated\s*:=\s*map\[string\]bool\{(.*?)\}', re.S)
CONSTANTS = {"LogFlushFreqFlagName": "log-flush-frequency"}

TYPED = {"String": "string", "Bool": "bool", "Int32": "int32", "Int64": "int64", "Int": "int", "Uint64": "uint64",
         "Uint32": "uint32", "Float64": "float64", "Duration": "duration", "StringSlice": "string-slice"}
# fs.Var(X, ...): X's constructor -> value type (k8s.io/component-base/cli/flag, pkg/util/flag, logs api)
VAR_TYPES = [
    ("NewMapStringStringNoSplit", "map-string-string-nosplit"),
    ("NewLangleSeparatedMapStringString", "map-langle"),
    ("NewColonSeparatedMultimapStringString", "multimap-colon"),
    ("NewMapStringString", "map-string-string"),
    ("NewMapStringBool", "map-string-bool"),
    ("RegisterWithTaintsVar", "taints"),
    ("ReservedMemoryVar", "reserved-memory"),
    ("IPVar", "ip"),
    ("ConfigurationMap", "node-labels"),
    ("VerbosityLevelPflag", "verbosity"),
    ("VModuleConfigurationPflag", "vmodule"),
    ("InfoBufferSize", "quantity"),
]
# google/cadvisor flag definitions (flag.Bool/String/Int/Duration) of the flags globalflags_linux.go re-registers.
CADVISOR_TYPES = {
    "docker-root": "string", "housekeeping-interval": "duration", "application-metrics-count-limit": "int",
    "boot-id-file": "string", "container-hints": "string", "containerd": "string", "docker": "string",
    "docker-env-metadata-whitelist": "string", "docker-only": "bool", "docker-tls": "bool", "docker-tls-ca": "string",
    "docker-tls-cert": "string", "docker-tls-key": "string", "enable-load-reader": "bool",
    "event-storage-age-limit": "string", "event-storage-event-limit": "string",
    "global-housekeeping-interval": "duration", "log-cadvisor-usage": "bool", "machine-id-file": "string",
    "storage-driver-user": "string", "storage-driver-password": "string", "storage-driver-host": "string",
    "storage-driver-db": "string", "storage-driver-table": "string", "storage-driver-secure": "bool",
    "storage-driver-buffer-duration": "duration", "containerd-namespace": "string",
}
CHANGELOG = "https://github.com/kubernetes/kubernetes/blob/master/CHANGELOG/CHANGELOG-{}.md"
# Flags outside the parsed sources, or whose availability changed within 1.24-1.35.
# name -> {type, added_in, removed_in, why}
HISTORY: dict[str, dict] = {
    # registered outside the parsed files on every minor
    "version": {"type": "version", "why": "pkg/version/verflag AddFlags (AddGlobalFlags)"},
    "help": {"type": "bool", "why": "cobra's -h/--help on the kubelet command"},
    "windows-service": {"type": "bool", "os": "windows", "why": "options_windows.go addOSFlags (Windows builds only)"},
    "windows-priorityclass": {"type": "string", "os": "windows",
                              "why": "options_windows.go addOSFlags (Windows builds only)"},
    # added
    "config-dir": {"added_in": "1.28", "why": CHANGELOG.format("1.28") + " (kubelet drop-in configuration directory, "
                                                                        "KEP-3983, alpha)"},
    # removed
    "container-runtime": {"type": "string", "removed_in": "1.27",
                          "why": CHANGELOG.format("1.27") + " (the deprecated --container-runtime flag was removed)"},
    "azure-container-registry-config": {
        "type": "string", "removed_in": "1.30",
        "why": CHANGELOG.format("1.28") + " deprecated it (#118596); removed with the in-tree Azure credential "
               "provider, " + CHANGELOG.format("1.30")},
    "keep-terminated-pod-volumes": {"removed_in": "1.31", "why": CHANGELOG.format("1.31")},
    "cloud-config": {"removed_in": "1.34", "why": CHANGELOG.format("1.34")},
    "pod-infra-container-image": {"removed_in": "1.35",
                                  "why": "its MarkDeprecated message: \"will be removed in 1.35\""},
    # klog flags, deprecated in 1.23 (KEP-2845) and removed in 1.26
    **{name: {"type": typ, "removed_in": "1.26", "why": CHANGELOG.format("1.26") + " (klog flags removed, KEP-2845)"}
       for name, typ in (("logtostderr", "bool"), ("alsologtostderr", "bool"), ("log-dir", "string"),
                         ("log-file", "string"), ("log-file-max-size", "uint64"), ("one-output", "bool"),
                         ("skip-headers", "bool"), ("skip-log-headers", "bool"), ("stderrthreshold", "string"),
                         ("add-dir-header", "bool"), ("log-backtrace-at", "string"))},
    # dockershim flags, removed in 1.24 with dockershim
    **{name: {"type": typ, "removed_in": "1.24", "why": CHANGELOG.format("1.24") + " (dockershim removed)"}
       for name, typ in (("docker-endpoint", "string"), ("image-pull-progress-deadline", "duration"),
                         ("network-plugin", "string"), ("cni-conf-dir", "string"), ("cni-bin-dir", "string"),
                         ("cni-cache-dir", "string"), ("network-plugin-mtu", "int32"),
                         ("experimental-dockershim-root-directory", "string"), ("non-masquerade-cidr", "string"))},
    # removed long before 1.24, still common in old manifests
    "allow-privileged": {"type": "bool", "removed_in": "1.15", "why": CHANGELOG.format("1.15")},
}


def _funcs(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group(1)) for m in FUNC.finditer(text)]


def _func_at(funcs: list[tuple[int, str]], pos: int) -> str:
    name = ""
    for start, fn in funcs:
        if start > pos:
            break
        name = fn
    return name


def parse_source(text: str) -> dict[str, dict]:
    """Flags registered in one Go file: name -> {type, deprecated?, config_field?}."""
    flags: dict[str, dict] = {}
    funcs = _funcs(text)
    assigned = {m.group(1): m.group(2) for m in ASSIGN.finditer(text)}
    not_dep: set[str] = set()
    nd = NOT_DEPRECATED.search(text)
    if nd:
        not_dep = set(re.findall(r'"([^"]+)"', nd.group(1)))

    def add(name: str, typ: str, pos: int) -> None:
        entry = flags.setdefault(name, {"type": typ})
        if _func_at(funcs, pos) == "AddKubeletConfigFlags" and name not in not_dep:
            entry["config_field"] = True

    for m in TYPED_VAR.finditer(text):
        name = m.group(2) or CONSTANTS.get(m.group(3) or "")
        if name:
            add(name, TYPED[m.group(1)], m.start())
    for m in GENERIC_VAR.finditer(text):
        expr = m.group(1).strip().lstrip("&")
        expr = assigned.get(expr, expr)
        typ = next((t for key, t in VAR_TYPES if key in expr), None)
        if typ is None:
            raise SystemExit(f"unknown flag value type for --{m.group(2)}: {m.group(1)}")
        add(m.group(2), typ, m.start())
    for m in CADVISOR.finditer(text):
        name = m.group(2).replace("_", "-")
        flags[name] = {"type": CADVISOR_TYPES[name]}
        if m.group(1) == "registerDeprecated":
            flags[name]["deprecated"] = "cadvisor flag mistakenly registered with the kubelet"
    for m in DEPRECATED.finditer(text):
        if m.group(1) in flags:
            flags[m.group(1)]["deprecated"] = m.group(2)
    return flags


def _minor_key(v: str) -> tuple[int, int]:
    a, b = v.split(".")
    return int(a), int(b)


def generate(src: Path) -> dict:
    flags: dict[str, dict] = {}
    sources = []
    for d in sorted(p for p in src.iterdir() if p.is_dir()):
        meta = json.loads((d / "SOURCE.json").read_text())
        for f in sorted(d.glob("*.go")):
            text = f.read_text()
            meta = dict(meta, sha256=hashlib.sha256(text.encode()).hexdigest()[:16])
            for name, info in parse_source(text).items():
                flags.setdefault(name, {}).update(info)
        sources.append(meta)
    for name, hist in HISTORY.items():
        entry = flags.setdefault(name, {})
        for k in ("type", "added_in", "removed_in", "os"):
            if k in hist and (k != "type" or "type" not in entry):
                entry[k] = hist[k]
        entry["history"] = hist["why"]
    missing = [n for n, e in flags.items() if "type" not in e]
    if missing:
        raise SystemExit(f"flags without a type: {missing}")
    return {
        "_comment": "Generated by scripts/gen_kubelet_flags.py from the kubelet's registration code; do not edit.",
        "minors": MINORS,
        "sources": sources,
        "flags": {k: dict(sorted(v.items())) for k, v in sorted(flags.items())},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=SRC)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--check", action="store_true", help="fail if the committed table differs")
    args = ap.parse_args(argv)
    if not args.src.is_dir():
        print(f"{args.src}: no kubelet sources (see this script's docstring)", file=sys.stderr)
        return 2
    table = generate(args.src)
    text = json.dumps(table, indent=1, sort_keys=False) + "\n"
    if args.check:
        if args.out.read_text() != text:
            print(f"{args.out} differs from what the sources in {args.src} give", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text)
    print(f"{args.out}: {len(table['flags'])} flags from {len(table['sources'])} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
