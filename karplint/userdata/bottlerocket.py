"""Bottlerocket userData: TOML settings, `settings.kubernetes.node-taints`, and what Karpenter keeps of them.

Pure text in, results out; offsets index the analysed string (plus `base`).

Sources: bottlerocket-os/bottlerocket `sources/models/modeled-types/src/kubernetes.rs`; aws/karpenter-provider-aws
`pkg/providers/amifamily/bootstrap/bottlerocket*.go` at v1.14.1; and those named in the tables below:
* the TOML is decoded by Karpenter with go-toml v2 into a typed struct (`bottlerocketsettings.go`): a value of the
  wrong type for a field Karpenter knows fails the launch ("invalid UserData"); keys Karpenter does not know under
  `[settings.kubernetes]` are dropped (logged), other `[settings.*]` tables are kept, keys outside `settings` dropped;
* Karpenter always replaces cluster-name, api-server, cluster-certificate, max-pods, cluster-dns-ip and
  node-taints (wholesale: NodePool taints + startupTaints + `karpenter.sh/unregistered:NoExecute`);
* Bottlerocket itself validates node-taints keys/values with its own regexes; kubelet then applies its rules to
  the joined `key=value:Effect,…` string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from karplint.model.versions import Version
from karplint.userdata import bottlerocket_releases as releases
from karplint.userdata.kubelet import Label, parse_taints, validate_node_labels, validate_taint
from karplint.userdata.placeholders import Placeholder

# --------------------------------------------------------------------------------------------- data tables

# [settings.kubernetes] keys Karpenter's typed decode knows, with their Go types: everything else under
# [settings.kubernetes] is dropped from the rendered userData. Source: aws/karpenter-provider-aws
# pkg/providers/amifamily/bootstrap/bottlerocketsettings.go (`BottlerocketKubernetes` at v1.14.1). Order = struct
# field order (go-toml v2 output order). Older releases keep fewer keys: bottlerocket_releases.py.
KARPENTER_KUBERNETES_FIELDS: dict[str, str] = {
    "api-server": "str",
    "cloud-provider": "str",
    "cluster-certificate": "str",
    "cluster-name": "str",
    "cluster-dns-ip": "str",
    "credential-providers": "map[object]",
    "node-labels": "map[str]",
    "node-taints": "map[list[str]]",
    "max-pods": "int",
    "static-pods": "map[object]",
    "eviction-hard": "map[str]",
    "eviction-soft": "map[str]",
    "eviction-soft-grace-period": "map[str]",
    "eviction-max-pod-grace-period": "int",
    "kube-reserved": "map[str]",
    "system-reserved": "map[str]",
    "allowed-unsafe-sysctls": "list[str]",
    "server-tls-bootstrap": "bool",
    "registry-qps": "int",
    "registry-burst": "int",
    "event-qps": "int",
    "event-burst": "int",
    "kube-api-qps": "int",
    "kube-api-burst": "int",
    "container-log-max-size": "str",
    "container-log-max-files": "int",
    "cpu-manager-policy": "str",
    "cpu-manager-policy-options": "list[str]",
    "cpu-manager-reconcile-period": "str",
    "memory-manager-policy": "str",
    "topology-manager-scope": "str",
    "topology-manager-policy": "str",
    "topology-manager-policy-options": "table",
    "image-gc-high-threshold-percent": "str",
    "image-gc-low-threshold-percent": "str",
    "ids-per-pod": "int",
    "cpu-cfs-quota-enforced": "bool",
    "shutdown-grace-period": "str",
    "shutdown-grace-period-for-critical-pods": "str",
    "cluster-domain": "str",
    "seccomp-default": "bool",
    "pod-pids-limit": "int",
    "device-ownership-from-security-context": "bool",
    "single-process-oom-kill": "bool",
    "container-log-max-workers": "int",
    "container-log-monitor-interval": "str",
    "hostname-override-source": "str",
    "log-level": "int",
}

# Sub-struct field orders for the rendered TOML (same file).
KARPENTER_CREDENTIAL_PROVIDER_FIELDS = ("enabled", "cache-duration", "image-patterns", "environment")
KARPENTER_STATIC_POD_FIELDS = ("enabled", "manifest")
KARPENTER_BOOTSTRAP_COMMAND_FIELDS = ("commands", "mode", "essential")

# Every [settings.kubernetes] key Bottlerocket's settings model knows (kebab-case of `KubernetesSettingsV1`), the
# union of the stored versions of bottlerocket-os/bottlerocket-settings-sdk
# bottlerocket-settings-models/settings-extensions/kubernetes/src/lib.rs (2363566c and the newest stored one).
BOTTLEROCKET_KUBERNETES_SETTINGS: frozenset[str] = frozenset({
    "cluster-name", "cluster-certificate", "api-server", "node-labels", "node-taints", "static-pods",
    "authentication-mode", "bootstrap-token", "standalone-mode", "eviction-hard", "eviction-soft",
    "eviction-soft-grace-period", "eviction-max-pod-grace-period", "kube-reserved", "system-reserved",
    "allowed-unsafe-sysctls", "server-tls-bootstrap", "cloud-provider", "registry-qps", "registry-burst", "event-qps",
    "event-burst", "kube-api-qps", "kube-api-burst", "container-log-max-size", "container-log-max-files",
    "container-log-max-workers", "container-log-monitor-interval", "cpu-cfs-quota-enforced", "cpu-manager-policy",
    "cpu-manager-reconcile-period", "cpu-manager-policy-options", "topology-manager-scope", "topology-manager-policy",
    "topology-manager-policy-options", "pod-pids-limit", "image-gc-high-threshold-percent",
    "image-gc-low-threshold-percent", "image-minimum-gc-age", "image-maximum-gc-age", "provider-id", "log-level",
    "credential-providers", "server-certificate", "server-key", "shutdown-grace-period",
    "shutdown-grace-period-for-critical-pods", "memory-manager-reserved-memory", "memory-manager-policy",
    "reserved-cpus", "memory-swap-behavior", "hostname-override-source", "seccomp-default",
    "device-ownership-from-security-context", "single-process-oom-kill", "static-pods-enabled", "max-pods",
    "cluster-dns-ip", "cluster-domain", "node-ip", "pod-infra-container-image", "hostname-override", "ids-per-pod",
    "max-parallel-image-pulls", "kubelet-extra-config",
})

# What Karpenter (amiFamily Bottlerocket) always writes over the user's value (`bottlerocket.go` at v1.14.1).
KARPENTER_REPLACED_SETTINGS: dict[str, str] = {
    "cluster-name": "the cluster name",
    "api-server": "the cluster endpoint",
    "cluster-certificate": "the cluster CA bundle",
    "max-pods": "spec.kubelet.maxPods or the instance type's pod density (Karpenter schedules with it)",
    "cluster-dns-ip": "spec.kubelet.clusterDNS or the kube-dns service IP",
    "node-taints": "the NodePool's taints + startupTaints + karpenter.sh/unregistered:NoExecute (wholesale)",
}

# The cluster's identity among them (info, not warning: Karpenter writes the values of the cluster it serves, so a
# user value for that cluster changes nothing, and karplint cannot know whether it names another).
KARPENTER_CLUSTER_IDENTITY = frozenset({"cluster-name", "api-server", "cluster-certificate"})
IDENTITY_NOTE = ("\nnote: it writes the value of the cluster it serves: this changes nothing unless it names "
                 "another cluster")

# node-labels Karpenter writes into every Bottlerocket userData it renders (`pkg/providers/launchtemplate/testdata/br_userdata_merged.golden` at v1.14.1;
# mergo.MergeWithOverwrite: Karpenter's value wins). NodePool template labels are merged the same way.
KARPENTER_NODE_LABELS: dict[str, str] = {
    "karpenter.sh/nodepool": "the NodePool's name",
    "karpenter.sh/capacity-type": "the launched capacity type",
    "karpenter.k8s.aws/ec2nodeclass": "the EC2NodeClass's name",
    "karpenter.sh/do-not-sync-taints": "true (Karpenter >= v1.5)",
}

# Bottlerocket's modeled types (bottlerocket-os/bottlerocket sources/models/modeled-types/src/kubernetes.rs).
BOTTLEROCKET_LABEL_KEY = re.compile(r"^([A-Za-z0-9.-]{1,253}/)?[A-Za-z0-9](([A-Za-z0-9._-]{0,61})?[A-Za-z0-9])?$")
BOTTLEROCKET_TAINT_VALUE = re.compile(r"^([A-Za-z0-9](([A-Za-z0-9._-]{0,61})?[A-Za-z0-9])?)?:[A-Za-z0-9]{1,253}$")

UNREGISTERED = ("karpenter.sh/unregistered", "", "NoExecute")


# --------------------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Issue:
    kind: str
    severity: str
    message: str
    start: int
    end: int


@dataclass
class NodeTaint:
    key: str
    value: str
    effect: str
    start: int
    end: int


@dataclass
class BottlerocketSettings:
    text: str
    base: int
    data: dict | None  # None: not TOML
    error: Issue | None = None
    positions: dict[tuple, tuple[int, int]] = field(default_factory=dict)  # key path -> offsets of the key
    node_taints: list[NodeTaint] = field(default_factory=list)  # as Bottlerocket would register them (valid only)

    def span(self, path: tuple) -> tuple[int, int]:
        """Offsets (in the analysed string) of the key at `path`, or its nearest located ancestor."""
        p = tuple(path)
        while p:
            if p in self.positions:
                return self.positions[p]
            p = p[:-1]
        first = len(self.text) - len(self.text.lstrip())
        line_end = self.text.find("\n", first)
        return self.base + first, self.base + (line_end if line_end >= 0 else len(self.text))

    def kubernetes(self) -> dict:
        k = ((self.data or {}).get("settings") or {})
        k = k.get("kubernetes") if isinstance(k, dict) else None
        return k if isinstance(k, dict) else {}


# --------------------------------------------------------------------------------------------- parsing

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def _toml() -> Any:
    """tomllib (tomli before Python 3.11), imported when Bottlerocket TOML is decoded, not with this module."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


# Keys and table headers decoded per TOML document. Bottlerocket settings have dozens; 16 KiB of EC2 userData holds
# at most a few thousand `a=1` lines.
MAX_TOML_ENTRIES = 1000


def parse_settings(text: str, base: int = 0) -> BottlerocketSettings:
    """TOML-decode `text`; a syntax error becomes an `Issue` at its line and column."""
    res = BottlerocketSettings(text, base, None)
    from karplint.readers.toml_limits import (MAX_KEY_PARTS, long_number_line, out_of_range_integer, too_complex,
                                              too_many_entries)

    line = too_complex(text)
    if line is not None:  # tomllib's cost grows with the square of a key's parts: not decoded, not verified
        off = _offset_of(text, line, 1)
        res.error = Issue("toml-budget", "info", f"settings not analysed: a key with more than {MAX_KEY_PARTS} dotted "
                          f"parts\nnote: line {line} of the userData", base + off, base + off + 1)
        return res
    line = too_many_entries(text, MAX_TOML_ENTRIES)
    if line is not None:  # tomllib and the checks after it grow faster than the entries: not decoded, not verified
        off = _offset_of(text, line, 1)
        res.error = Issue("toml-budget", "info", f"settings not analysed: more than {MAX_TOML_ENTRIES:,} keys and table "
                          f"headers (too large)\nnote: line {line} of the userData passes the bound",
                          base + off, base + off + 1)
        return res
    toml = _toml()
    try:
        res.data = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_POS.search(msg)
        off = 0
        if m:
            off = _offset_of(text, int(m.group(1)), int(m.group(2)))
        reason = _TOML_POS.sub("", msg).strip()
        res.error = Issue("toml", "error", f"not valid TOML: {reason} (line {m.group(1) if m else '?'} of the userData)",
                          base + off, base + min(len(text), off + 1))
        return res
    except ValueError:  # tomllib's int() of a decimal number past Python's 4,300 digits
        huge = True
    except Exception as exc:  # a TOML library bug must not take the run down
        res.error = Issue("toml", "error", f"not valid TOML: {exc}", base, base + 1)
        return res
    else:
        huge = out_of_range_integer(res.data)
    if huge:  # (hexadecimal ones: no message could print them)
        res.data = None
        line = long_number_line(text)
        off = _offset_of(text, line, 1)
        res.error = Issue("toml", "error", f"not valid TOML: an integer outside 64 bits (line {line} of the userData)",
                          base + off, base + min(len(text), off + 1))
        return res
    res.positions = locate_keys(text, base)
    return res


def _offset_of(text: str, line: int, column: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return min(len(text), pos + max(0, column - 1))


_BARE = r"[A-Za-z0-9_-]+"
_KEY_PART = re.compile(r"\s*(" + _BARE + r"|\"(?:[^\"\\]|\\.)*\"|'[^']*')\s*")


def _split_key(s: str, pos: int) -> tuple[list[tuple[str, int, int]], int]:
    """Parse a dotted key at s[pos:]: [(name, start, end)], position after it."""
    parts = []
    while True:
        m = _KEY_PART.match(s, pos)
        if not m:
            return parts, pos
        raw = m.group(1)
        name = raw[1:-1] if raw[0] in "\"'" else raw
        if raw[0] == '"':
            try:
                name = _toml().loads(f"k = {raw}")["k"]
            except Exception:
                pass
        parts.append((name, m.start(1), m.end(1)))
        pos = m.end()
        if pos < len(s) and s[pos] == ".":
            pos += 1
            continue
        return parts, pos


def locate_keys(text: str, base: int = 0) -> dict[tuple, tuple[int, int]]:
    """Offsets of every table header and key of a TOML text that parsed (first definition wins).

    A line scanner: table headers set the current table, `key = value` lines add keys, inline tables and
    multi-line arrays/strings are walked just enough not to mistake their content for keys."""
    out: dict[tuple, tuple[int, int]] = {}
    table: tuple = ()
    i, n = 0, len(text)
    depth = 0  # open [ / { of a value spanning lines
    in_ml: str | None = None  # inside a multi-line string
    while i < n:
        nl = text.find("\n", i)
        end = n if nl < 0 else nl
        line = text[i:end]
        if in_ml:
            close = line.find(in_ml)
            if close >= 0:
                in_ml = None
        elif depth > 0:
            depth = _scan_value(line, 0, depth, out, None, base, i)[0]
        else:
            stripped = line.lstrip()
            lead = len(line) - len(stripped)
            if stripped.startswith("[["):
                parts, _ = _split_key(line, lead + 2)
                table = tuple(p[0] for p in parts)
                if parts:
                    out.setdefault(table, (base + i + parts[-1][1], base + i + parts[-1][2]))
            elif stripped.startswith("["):
                parts, _ = _split_key(line, lead + 1)
                table = tuple(p[0] for p in parts)
                for k in range(len(parts)):
                    out.setdefault(table[:k + 1], (base + i + parts[k][1], base + i + parts[k][2]))
            elif stripped and not stripped.startswith("#"):
                parts, pos = _split_key(line, lead)
                if parts and pos < len(line) and line[pos] == "=":
                    path = table
                    for name, s, e in parts:
                        path = path + (name,)
                        out.setdefault(path, (base + i + s, base + i + e))
                    depth, in_ml = _scan_value(line, pos + 1, 0, out, path, base, i)
        i = end + 1
    return out


def _scan_value(line: str, pos: int, depth: int, out: dict, path: tuple | None, base: int,
                line_off: int) -> tuple[int, str | None]:
    """Track bracket depth through a value; record keys of inline tables at depth 1. Returns (depth, open ml)."""
    j = pos
    n = len(line)
    stack_keys: list[tuple] = []
    while j < n:
        c = line[j]
        if c == "#":
            break
        if line.startswith('"""', j) or line.startswith("'''", j):
            q = line[j:j + 3]
            close = line.find(q, j + 3)
            if close < 0:
                return depth, q
            j = close + 3
            continue
        if c in "\"'":
            close = j + 1
            while close < n and line[close] != c:
                close += 2 if (c == '"' and line[close] == "\\") else 1
            j = close + 1
            continue
        if c in "[{":
            depth += 1
            if c == "{" and path is not None:
                stack_keys.append(path)
                parts, p2 = _split_key(line, j + 1)
                if parts and p2 < n and line[p2] == "=":
                    sub = path
                    for name, s, e in parts:
                        sub = sub + (name,)
                        out.setdefault(sub, (base + line_off + s, base + line_off + e))
        elif c in "]}":
            depth = max(0, depth - 1)
        elif c == "," and stack_keys and path is not None:
            parts, p2 = _split_key(line, j + 1)
            if parts and p2 < n and line[p2] == "=":
                sub = stack_keys[-1]
                for name, s, e in parts:
                    sub = sub + (name,)
                    out.setdefault(sub, (base + line_off + s, base + line_off + e))
        j += 1
    return depth, None


# --------------------------------------------------------------------------------------------- checks


def looks_like_toml_settings(text: str) -> bool:
    return bool(re.search(r"^\s*\[\s*settings\b", text, re.M)) or bool(re.search(r"^\s*settings\.", text, re.M))


def check(settings: BottlerocketSettings, *, karpenter_merges: bool, release: Version | None = None) -> list[Issue]:
    """Problems of parsed settings. `karpenter_merges`: amiFamily Bottlerocket (Karpenter decodes and rewrites the
    TOML); False for Custom (Bottlerocket reads it verbatim). `release`: the Karpenter release that merges it (None:
    the newest karplint knows)."""
    issues: list[Issue] = []
    kept = releases.kubernetes_keys(release) if release is not None else frozenset(KARPENTER_KUBERNETES_FIELDS)
    data = settings.data
    if data is None:
        return [settings.error] if settings.error else []
    s = data.get("settings")
    if karpenter_merges:
        for key in data:
            if key != "settings":
                issues.append(Issue("outside-settings", "warning",
                                    f"`{key}` is outside the `settings` table: Karpenter drops it\n"
                                    "note: Karpenter renders only `settings` into the userData", *settings.span((key,))))
    if s is None:
        return issues
    if not isinstance(s, dict):
        issues.append(Issue("type", "error", "`settings` must be a table", *settings.span(("settings",))))
        return issues
    tables = releases.kept_settings_tables(release) if karpenter_merges and release is not None else None
    for table in s if tables is not None else ():
        if table not in tables:
            issues.append(Issue("unknown", "warning",
                                f"Karpenter {release} drops [settings.{table}]\nhelp: upgrade to Karpenter "
                                f"{releases.UNTYPED_SETTINGS_SINCE} or later, which keeps every settings table\n"
                                f"note: its userData merge keeps only {', '.join(sorted(tables))}",
                                *settings.span(("settings", table))))
    k8s = s.get("kubernetes")
    if k8s is None:
        return issues
    if not isinstance(k8s, dict):
        issues.append(Issue("type", "error", "`settings.kubernetes` must be a table" +
                            ("\nnote: Karpenter cannot decode the userData (invalid UserData) and launches nothing"
                             if karpenter_merges else ""), *settings.span(("settings", "kubernetes"))))
        return issues
    for key, value in k8s.items():
        path = ("settings", "kubernetes", key)
        span = settings.span(path)
        if karpenter_merges:
            if key in KARPENTER_REPLACED_SETTINGS:
                identity = key in KARPENTER_CLUSTER_IDENTITY
                issues.append(Issue("replaced", "info" if identity else "warning",
                                    f"settings.kubernetes.{key} is never used: Karpenter replaces it\n"
                                    f"help: remove it\nnote: Karpenter writes {KARPENTER_REPLACED_SETTINGS[key]}"
                                    + (IDENTITY_NOTE if identity else ""), *span))
            if key in KARPENTER_KUBERNETES_FIELDS and key not in kept:
                since = releases.kept_since(key, release)
                issues.append(Issue("unknown", "warning",
                                    f"Karpenter {release} drops settings.kubernetes.{key}"
                                    + (f"\nhelp: upgrade to Karpenter {since} or later, which keeps it" if since else "")
                                    + "\nnote: its userData merge renders only the settings.kubernetes keys it knows",
                                    *span))
            elif key not in KARPENTER_KUBERNETES_FIELDS:
                if key in BOTTLEROCKET_KUBERNETES_SETTINGS:
                    msg = (f"Karpenter drops settings.kubernetes.{key}: its userData merge does not know it\n"
                           "help: set it another way (e.g. amiFamily: Custom with a complete TOML) or check a newer "
                           "Karpenter\nnote: Karpenter logs 'Unknown parameter in userData K8s settings'")
                else:
                    close = _close_setting(key)
                    hint = f"\nhelp: did you mean `{close}`?" if close else ""
                    msg = (f"settings.kubernetes.{key} is not a Bottlerocket setting: Karpenter drops it"
                           f"{hint}")
                issues.append(Issue("unknown", "warning", msg, *span))
            else:
                problem = _type_problem(value, KARPENTER_KUBERNETES_FIELDS[key])
                if problem and key != "node-taints":
                    issues.append(Issue("type", "error",
                                        f"settings.kubernetes.{key} {problem}\n"
                                        "note: Karpenter's typed decode fails ('invalid UserData') and no node can be "
                                        "launched", *span))
        elif key not in BOTTLEROCKET_KUBERNETES_SETTINGS:
            close = _close_setting(key)
            hint = f"\nhelp: did you mean `{close}`?" if close else ""
            issues.append(Issue("unknown", "warning",
                                f"settings.kubernetes.{key} is not a known Bottlerocket setting{hint}", *span))
    if "node-taints" in k8s:
        issues.extend(check_node_taints(settings, karpenter_merges=karpenter_merges))
    labels = k8s.get("node-labels")
    if isinstance(labels, dict):
        issues.extend(check_node_labels(settings, labels, karpenter_merges=karpenter_merges))
    return issues


def check_node_labels(settings: BottlerocketSettings, labels: dict, *, karpenter_merges: bool) -> list[Issue]:
    """`settings.kubernetes.node-labels`: keys Karpenter overwrites, and labels the kubelet refuses at start
    (`--node-labels "${NODE_LABELS}"`: restricted kubernetes.io / k8s.io keys, invalid keys or values)."""
    issues = []
    for key, value in labels.items():
        span = settings.span(("settings", "kubernetes", "node-labels", key))
        if karpenter_merges and key in KARPENTER_NODE_LABELS:
            issues.append(Issue("replaced", "warning", f"node-labels {key!r} is never used: Karpenter overwrites it"
                                f"\nnote: Karpenter writes {KARPENTER_NODE_LABELS[key]}", *span))
            continue
        if not isinstance(value, str):
            continue  # a type error (KPL244 under Karpenter)
        for err in validate_node_labels([Label(str(key), value, 0, 0)]):
            issues.append(Issue("labels-value", "error", f"node-labels {key}: the kubelet exits at start\n"
                                f"note: the kubelet says: {err.message}", *span))
    return issues


def _close_setting(key: str) -> str | None:
    import difflib

    m = difflib.get_close_matches(key, sorted(BOTTLEROCKET_KUBERNETES_SETTINGS), n=1, cutoff=0.8)
    return m[0] if m else None


_TOML_KIND = {str: "a string", int: "an integer", float: "a float", bool: "a boolean", list: "an array",
              dict: "a table"}


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    for t, name in _TOML_KIND.items():
        if isinstance(v, t):
            return name
    return "a date/time"


def _type_problem(value: Any, want: str) -> str | None:
    ok = {
        "str": lambda v: isinstance(v, str),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "list[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "map[str]": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
        "map[list[str]]": lambda v: isinstance(v, dict) and all(
            isinstance(x, list) and all(isinstance(y, str) for y in x) for x in v.values()),
        "map[object]": lambda v: isinstance(v, dict) and all(isinstance(x, dict) for x in v.values()),
        "table": lambda v: isinstance(v, dict),
    }[want]
    if ok(value):
        return None
    expected = {"str": "a string", "int": "an integer", "bool": "a boolean", "list[str]": "an array of strings",
                "map[str]": "a table of strings", "map[list[str]]": "a table of string arrays",
                "map[object]": "a table of tables", "table": "a table"}[want]
    return f"is {_kind(value)} but Karpenter expects {expected}"


def check_node_taints(settings: BottlerocketSettings, *, karpenter_merges: bool) -> list[Issue]:
    """`settings.kubernetes.node-taints`: shape (Bottlerocket's deserializer and Karpenter's typed decode), then
    Bottlerocket's regexes, then the kubelet's rules on the joined `--register-with-taints` value."""
    issues: list[Issue] = []
    base_path = ("settings", "kubernetes", "node-taints")
    taints = settings.kubernetes().get("node-taints")
    where = settings.span(base_path)
    fatal_for = ("Karpenter cannot decode the userData ('invalid UserData') and launches no node"
                 if karpenter_merges else "Bottlerocket rejects the userData and the node never joins")
    if isinstance(taints, list):
        shape = "an array of tables" if all(
            isinstance(t, dict) for t in taints) else "an array"
        issues.append(Issue("taints-shape", "error",
                            f"settings.kubernetes.node-taints is {shape}, not a table\n"
                            "help: write a table of \"key\" = [\"value:Effect\", ...]\n"
                            f"note: {fatal_for}", *where))
        return issues
    if not isinstance(taints, dict):
        issues.append(Issue("taints-shape", "error",
                            f"settings.kubernetes.node-taints is {_kind(taints)}, not a table\n"
                            "help: write a table of \"key\" = [\"value:Effect\", ...]\n"
                            f"note: {fatal_for}", *where))
        return issues
    seen: set[tuple[str, str]] = set()
    valid: list[NodeTaint] = []
    for key, values in taints.items():
        path = base_path + (key,)
        span = settings.span(path)
        if isinstance(values, dict):
            issues.append(Issue("taints-shape", "error",
                                f"node-taints key {key!r} is a table\n"
                                f"help: quote a key containing '.' or '/' (\"{key}.…\" = [...])\nnote: {fatal_for}",
                                *span))
            continue
        if isinstance(values, str):
            if karpenter_merges:
                issues.append(Issue("taints-shape", "error",
                                    f"node-taints {key!r} is a single string (the pre-1.6.0 form)\n"
                                    f"help: write \"{key}\" = [\"{values}\"]\n"
                                    f"note: Karpenter decodes node-taints as a table of string arrays: {fatal_for}",
                                    *span))
                continue
            values = [values]
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            issues.append(Issue("taints-shape", "error",
                                f"node-taints {key!r} must be an array of \"value:Effect\" strings\n"
                                f"note: {fatal_for}", *span))
            continue
        if not values:
            issues.append(Issue("taints-value", "error",
                                f"node-taints {key!r} is an empty array\n"
                                "note: Bottlerocket rejects it (\"empty taint value\")", *span))
            continue
        if not BOTTLEROCKET_LABEL_KEY.match(key):
            issues.append(Issue("taints-value", "error", f"node-taints key {key!r} is not a valid Kubernetes label key"
                                "\nnote: Bottlerocket rejects the userData", *span))
            continue
        for v in values:
            if not BOTTLEROCKET_TAINT_VALUE.match(v):
                hint = ""
                if "=" in v or v.count(":") != 1:
                    hint = "\nhelp: write \"value:Effect\" (the key is the TOML key, no `key=` inside the list)"
                issues.append(Issue("taints-value", "error",
                                    f"node-taints {key!r} value {v!r} is not \"value:Effect\"{hint}\n"
                                    "note: Bottlerocket rejects the userData", *span))
                continue
            value, _, effect = v.partition(":")
            kubelet_errs = validate_taint(key, value, effect)
            if kubelet_errs:
                issues.append(Issue("taints-value", "error",
                                    f"node-taints {key}={v}: the kubelet exits\n"
                                    f"note: Bottlerocket accepts it, but the kubelet says: {'; '.join(kubelet_errs)}",
                                    *span))
                continue
            if (key, effect) in seen:
                issues.append(Issue("taints-value", "error", f"node-taints {key!r} repeats effect {effect}: the kubelet "
                                    "exits\nnote: duplicated taints with the same key and effect", *span))
                continue
            seen.add((key, effect))
            valid.append(NodeTaint(key, value, effect, *span))
    settings.node_taints = valid
    if karpenter_merges:
        # Karpenter replaces node-taints before Bottlerocket sees them: only its own typed decode can fail.
        issues = [i if i.kind != "taints-value" else Issue(i.kind, "warning", i.message + "\nnote: Karpenter replaces "
                  "node-taints, so this value never reaches the node", i.start, i.end) for i in issues]
    return issues


def joined_node_taints(taints: dict) -> str:
    """`NODE_TAINTS` as schnauzer's `join_node_taints` renders it: `key=value:Effect,key=:Effect,…`."""
    out = []
    for key, values in taints.items():
        for v in values if isinstance(values, list) else [values]:
            value, _, effect = str(v).partition(":")
            out.append(f"{key}={value}:{effect}")
    return ",".join(out)


def registered_taints(settings: BottlerocketSettings) -> list[tuple[str, str, str]] | None:
    """(key, value, effect) Bottlerocket registers when it reads this TOML verbatim (Custom); None if it fails."""
    if settings.data is None:
        return None
    issues = check_node_taints(settings, karpenter_merges=False) if "node-taints" in settings.kubernetes() else []
    if any(i.severity == "error" for i in issues):
        return None
    taints = settings.kubernetes().get("node-taints") or {}
    if not isinstance(taints, dict):
        return None
    parsed, errors = parse_taints(joined_node_taints(taints))
    if any(e.fatal for e in errors):
        return None
    return [(t.key, t.value, t.effect) for t in parsed]


# --------------------------------------------------------------------------------------------- rendering


@dataclass
class KarpenterBottlerocketOptions:
    cluster_name: str = "${CLUSTER_NAME}"
    api_server: str = "${CLUSTER_ENDPOINT}"
    cluster_certificate: str = "${CLUSTER_CA_BUNDLE}"
    cluster_dns_ip: str | None = "${CLUSTER_DNS_IP}"
    max_pods: int | str = "${MAX_PODS}"
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[tuple[str, str, str]] = field(default_factory=list)  # (key, value, effect), unregistered included
    kubelet: dict = field(default_factory=dict)  # EC2NodeClass spec.kubelet (camelCase)


# spec.kubelet field -> settings.kubernetes key Karpenter sets from it (bottlerocket.go).
NODECLASS_KUBELET_TO_SETTINGS: dict[str, str] = {
    "systemReserved": "system-reserved",
    "kubeReserved": "kube-reserved",
    "evictionHard": "eviction-hard",
    "evictionSoft": "eviction-soft",
    "evictionSoftGracePeriod": "eviction-soft-grace-period",
    "evictionMaxPodGracePeriod": "eviction-max-pod-grace-period",
    "imageGCHighThresholdPercent": "image-gc-high-threshold-percent",
    "imageGCLowThresholdPercent": "image-gc-low-threshold-percent",
    "cpuCFSQuota": "cpu-cfs-quota-enforced",
}


def karpenter_settings(user: dict | None, opts: KarpenterBottlerocketOptions) -> dict:
    """The `settings` Karpenter renders: the user's other tables, its typed kubernetes table with replacements."""
    settings_raw = dict((user or {}).get("settings") or {}) if isinstance((user or {}).get("settings"), dict) else {}
    user_k8s = settings_raw.get("kubernetes") if isinstance(settings_raw.get("kubernetes"), dict) else {}
    k8s = {k: v for k, v in user_k8s.items() if k in KARPENTER_KUBERNETES_FIELDS}
    k8s["cluster-name"] = opts.cluster_name
    k8s["api-server"] = opts.api_server
    k8s["cluster-certificate"] = opts.cluster_certificate
    labels = dict(k8s.get("node-labels") or {}) if isinstance(k8s.get("node-labels"), dict) else {}
    labels.update(opts.labels)
    if labels:
        k8s["node-labels"] = labels
    k8s["max-pods"] = opts.max_pods
    if opts.cluster_dns_ip:
        k8s["cluster-dns-ip"] = opts.cluster_dns_ip
    for src, dst in NODECLASS_KUBELET_TO_SETTINGS.items():
        if src in opts.kubelet and opts.kubelet[src] is not None:
            v = opts.kubelet[src]
            k8s[dst] = str(v) if dst.startswith("image-gc") else v
    taints: dict[str, list[str]] = {}
    for key, value, effect in opts.taints:
        taints.setdefault(key, []).append(f"{value}:{effect}")
    k8s["node-taints"] = taints
    settings_raw["kubernetes"] = k8s
    return settings_raw


def dump_settings_toml(settings: dict) -> str:
    """go-toml v2 output for Karpenter's `BottlerocketConfig{settings}`: a table's plain values first, then its
    sub-tables; struct fields in declaration order, map keys sorted; literal (single-quoted) strings."""
    lines: list[str] = []
    _emit_table(("settings",), settings, lines, struct_order=None)
    return "\n".join(lines) + "\n"


def _order(path: tuple, table: dict) -> list:
    if path == ("settings", "kubernetes"):
        return [k for k in KARPENTER_KUBERNETES_FIELDS if k in table]
    if len(path) == 4 and path[:3] == ("settings", "kubernetes", "credential-providers"):
        return [k for k in KARPENTER_CREDENTIAL_PROVIDER_FIELDS if k in table]
    if len(path) == 4 and path[:3] == ("settings", "kubernetes", "static-pods"):
        return [k for k in KARPENTER_STATIC_POD_FIELDS if k in table]
    if len(path) == 3 and path[:2] == ("settings", "bootstrap-commands"):
        return [k for k in KARPENTER_BOOTSTRAP_COMMAND_FIELDS if k in table]
    return sorted(table)


def _emit_table(path: tuple, table: dict, lines: list[str], struct_order=None) -> None:
    if lines and lines[-1] != "" and not lines[-1].startswith("["):
        lines.append("")
    lines.append("[" + ".".join(_toml_key(p) for p in path) + "]")
    keys = _order(path, table)
    subtables = []
    for k in keys:
        v = table[k]
        if isinstance(v, dict):
            subtables.append(k)
        elif v is not None:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    if path == ("settings",):
        # go-toml writes [settings] then its tables (sorted map keys); kubernetes is a struct among them
        pass
    for k in subtables:
        _emit_table(path + (k,), table[k], lines)


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(k: str) -> str:
    if _BARE_KEY.match(k):
        return k
    return _toml_string(k)


def _toml_string(s: str) -> str:
    if "'" not in s and not any(ord(c) < 32 or ord(c) == 127 for c in s):
        return f"'{s}'"
    out = []
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 32 or ord(c) == 127:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _toml_value(v: Any) -> str:
    if isinstance(v, Placeholder):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return _toml_string(str(v))
