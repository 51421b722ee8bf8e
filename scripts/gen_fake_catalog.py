#!/usr/bin/env python3
"""Write tests/upstream/catalogs/fake.json: the instance types Karpenter core's fake cloud provider returns by
default, as a karplint catalog document (the `replace` mode of `instance-types`); and the catalogs of the tests
that build their own instance types with `fake.NewInstanceType` (`DERIVED`).

Reads, offline, from a mirror of kubernetes-sigs/karpenter (git dir; default /work/.mirror/kubernetes-sigs+karpenter/
repo) at a tag (default v1.14.1):
- `pkg/cloudprovider/fake/cloudprovider.go` `GetInstanceTypes`: the default list (`NewInstanceType(name, opts...)`
  with `WithResources`, `WithArchitecture`, `WithOperatingSystems`);
- `pkg/cloudprovider/fake/instancetype.go` `NewInstanceType`: the defaults (cpu 4, memory 4Gi, pods 5; arch amd64;
  OS linux, windows, darwin; five offerings: spot in test-zone-1/2, on-demand in test-zone-1/2/3), the labels
  `size` (large when cpu > 4 and memory > 8Gi, else small), `special` (optional on large types, else none) and
  `integer` (the cpu count), the kube-reserved overhead (100m cpu, 10Mi memory) that allocatable subtracts, and
  the labels it registers as well-known (`v1.WellKnownLabels.Insert`).

The defaults are read from the Go source and checked against what this script knows; a change upstream fails
loudly instead of producing a wrong catalog. `--check` compares with the committed file.

Usage: gen_fake_catalog.py [--mirror DIR] [--tag TAG] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "upstream" / "catalogs" / "fake.json"
MIRROR = Path("/work/.mirror/kubernetes-sigs+karpenter/repo")
TAG = "v1.14.1"
CP, IT = "pkg/cloudprovider/fake/cloudprovider.go", "pkg/cloudprovider/fake/instancetype.go"

ZONE, CAPACITY = "topology.kubernetes.io/zone", "karpenter.sh/capacity-type"
# Go constant -> label / resource name (k8s.io/api core/v1, sigs.k8s.io/karpenter pkg/apis/v1, fake/instancetype.go)
NAMES = {"corev1.ResourceCPU": "cpu", "corev1.ResourceMemory": "memory", "corev1.ResourcePods": "pods",
         "ResourceGPUVendorA": "fake.com/vendor-a", "ResourceGPUVendorB": "fake.com/vendor-b",
         "string(corev1.Linux)": "linux", "string(corev1.Windows)": "windows"}


def git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), *args], capture_output=True, text=True, check=True).stdout


def quantity(text: str) -> Fraction:
    m = re.fullmatch(r"(\d+)(m|Ki|Mi|Gi)?", text)
    if not m:
        raise SystemExit(f"quantity {text!r} not understood")
    scale = {None: 1, "m": Fraction(1, 1000), "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}[m.group(2)]
    return int(m.group(1)) * Fraction(scale)


def show(resource: str, q: Fraction) -> str:
    if resource == "memory":
        mi = q / 1024**2
        if mi.denominator == 1:
            return f"{mi}Mi"
        return str(int(q))
    if resource == "cpu":
        milli = q * 1000
        if milli.denominator != 1:
            raise SystemExit(f"cpu {q} is not whole millicores")
        return str(int(q)) if q.denominator == 1 else f"{milli}m"
    return str(q)


def read_defaults(src: str) -> dict:
    """The defaults of `NewInstanceType`, each checked against the source text."""
    body = src[src.index("func NewInstanceType("):]
    body = body[:body.index("\n}\n")]
    defaults = {}
    for resource, value in re.findall(r'cfg\.Resources\[(corev1\.Resource\w+)\] = resource\.MustParse\("([^"]+)"\)',
                                      body):
        defaults[NAMES[resource]] = value
    offerings = re.findall(r'v1\.CapacityTypeLabelKey:\s*"([\w-]+)",\s*corev1\.LabelTopologyZone:\s*"([\w-]+)"', body)
    arch = re.search(r'cfg\.Architecture = "(\w+)"', body).group(1)
    os_default = re.search(r"cfg\.OperatingSystems = sets\.New\((.*)\)\n", body).group(1)
    oses = [NAMES.get(x.strip(), x.strip().strip('"')) for x in os_default.split(",")]
    overhead = dict(re.findall(r'corev1\.Resource(CPU|Memory):\s*resource\.MustParse\("([^"]+)"\)',
                               body[body.index("KubeReserved"):]))
    expected = {"cpu": "4", "memory": "4Gi", "pods": "5"}
    if defaults != expected or arch != "amd64" or sorted(oses) != ["darwin", "linux", "windows"] or \
            overhead != {"CPU": "100m", "Memory": "10Mi"} or len(offerings) != 5:
        raise SystemExit(f"{IT}: NewInstanceType's defaults changed ({defaults}, {arch}, {oses}, {overhead}, "
                         f"{offerings}): update this script")
    for needle in ('requirements.Get(LabelInstanceSize).Insert("large")',
                   'requirements.Get(ExoticInstanceLabelKey).Insert("optional")',
                   'requirements.Get(LabelInstanceSize).Insert("small")',
                   'cfg.Resources.Cpu().Cmp(resource.MustParse("4")) > 0',
                   'cfg.Resources.Memory().Cmp(resource.MustParse("8Gi")) > 0',
                   "scheduling.NewRequirement(IntegerInstanceLabelKey, corev1.NodeSelectorOpIn, "
                   "fmt.Sprint(cfg.Resources.Cpu().Value()))"):
        if needle not in body:
            raise SystemExit(f"{IT}: `{needle}` is gone: update this script")
    consts = dict(re.findall(r'(\w+)\s*=\s*"([^"]+)"', src[src.index("const ("):src.index(")\n", src.index("const ("))]))
    insert = src[src.index("v1.WellKnownLabels.Insert("):]
    well_known = [consts[c] for c in re.findall(r"(\w+),", insert[:insert.index(")")])]
    return {"resources": defaults, "offerings": offerings, "arch": arch, "os": oses,
            "overhead": {"cpu": overhead["CPU"], "memory": overhead["Memory"]}, "consts": consts,
            "well_known": well_known}


def read_types(src: str) -> list[dict]:
    """`GetInstanceTypes`' default list: name and options of each `NewInstanceType` call."""
    body = src[src.index("func (c *CloudProvider) GetInstanceTypes("):]
    body = body[body.index("return []*cloudprovider.InstanceType{"):body.index("}, nil")]
    out = []
    for m in re.finditer(r'NewInstanceType\("([\w-]+)"', body):
        # the call's text: up to the next NewInstanceType (options are nested calls)
        nxt = body.find("NewInstanceType(", m.end())
        call = body[m.end():nxt if nxt != -1 else len(body)]
        t = {"name": m.group(1), "resources": {}, "arch": None, "os": None}
        for res, value in re.findall(r'(corev1\.Resource\w+|ResourceGPUVendor\w):\s*resource\.MustParse\("([^"]+)"\)',
                                     call):
            t["resources"][NAMES[res]] = value
        arch = re.search(r'WithArchitecture\("(\w+)"\)', call)
        if arch:
            t["arch"] = arch.group(1)
        oses = re.search(r"WithOperatingSystems\(([^\n]*)\),\n", call)
        if oses:
            t["os"] = [NAMES.get(x.strip(), x.strip().strip('"')) for x in oses.group(1).split(",")]
        leftover = re.sub(r"With(Resources|Architecture|OperatingSystems)", "", call)
        if re.search(r"\bWith\w+\(", leftover):
            raise SystemExit(f"{CP}: `{t['name']}` uses an option this script does not read: update it")
        out.append(t)
    return out


def make_type(defaults: dict, name: str, resources: dict | None = None, arch: str | None = None,
              oses: list | None = None, offerings: list | None = None) -> dict:
    """A catalog entry as `NewInstanceType(name, opts...)` builds the instance type."""
    consts = defaults["consts"]
    size, special, integer = (consts["LabelInstanceSize"], consts["ExoticInstanceLabelKey"],
                              consts["IntegerInstanceLabelKey"])
    merged = dict(defaults["resources"])
    merged.update({k: v for k, v in (resources or {}).items() if quantity(v) != 0})
    cpu, mem = quantity(merged["cpu"]), quantity(merged["memory"])
    large = cpu > 4 and mem > 8 * 1024**3
    allocatable = {}
    for k, v in sorted(merged.items()):
        q = quantity(v) - quantity(defaults["overhead"].get(k, "0"))  # InstanceType.Allocatable
        allocatable[k] = show(k, q)
    return {
        "labels": {"kubernetes.io/arch": arch or defaults["arch"]},
        "requirements": {
            "kubernetes.io/os": sorted(oses or defaults["os"]),
            size: ["large"] if large else ["small"],
            special: ["optional"] if large else [],
            integer: [str(-(-cpu.numerator // cpu.denominator))],  # resource.Quantity.Value(): rounded up
        },
        "allocatable": allocatable,
        "capacity": {k: show(k, quantity(v)) for k, v in sorted(merged.items())},  # (what `limits` compare)
        "offerings": [{CAPACITY: ct, ZONE: zone} for ct, zone in (offerings or defaults["offerings"])],
    }


SUITE = "pkg/controllers/provisioning/suite_test.go"
# Instance types tests of kubernetes-sigs/karpenter pkg/controllers/provisioning/suite_test.go build themselves
# (`cloudProvider.InstanceTypes = ...`), by catalog name: (where, [(name, resources, arch, oses, offerings)], with the
# default types too). Three `AddInstanceResources` types are all named "example" upstream: here they are told apart by
# their size (a catalog is keyed by name).
def _examples() -> list:
    return [(f"example-{cpu}cpu-{mem}gi", {"cpu": str(cpu), "memory": f"{mem}Gi"}, "arch", ["linux"],
             [("spot", "test-zone-1")]) for cpu, mem in ((10, 4), (11, 5), (12, 6))]


def _min_values_types(zones_of: dict) -> list:
    return [(name, {"cpu": "4", "memory": "4Gi"}, "arm64", ["linux"], [("spot", z) for z in zones])
            for name, zones in zones_of.items()]


DERIVED = {
    "fake-sidecar-examples": (f"{SUITE} AddInstanceResources (L3442), used from L532", _examples, True),
    "minvalues-instance-types": (f"{SUITE} L2911", lambda: _min_values_types(
        {"instance-type-1": ["test-zone-1-spot"], "instance-type-2": ["test-zone-2-spot"]}), False),
    "minvalues-zones": (f"{SUITE} L3216", lambda: _min_values_types({"instance-type-1": ["test-zone-1", "test-zone-2"]}),
                        False),
}


def build(mirror: Path, tag: str) -> dict[str, dict]:
    """Every catalog: `fake` (the default list) and the `DERIVED` ones."""
    commit = git(mirror, "rev-parse", f"{tag}^{{commit}}").strip()
    defaults = read_defaults(git(mirror, "show", f"{tag}:{IT}"))
    types = {}
    for t in read_types(git(mirror, "show", f"{tag}:{CP}")):
        types[t["name"]] = make_type(defaults, t["name"], t["resources"], t["arch"], t["os"])
    source = {"repo": "kubernetes-sigs/karpenter", "tag": tag, "commit": commit,
              "path": f"{CP} GetInstanceTypes, {IT} NewInstanceType", "license": "Apache-2.0",
              "version": f"Karpenter fake cloud provider {tag}", "generated_by": "scripts/gen_fake_catalog.py"}
    out = {"fake": {"karplint-catalog": 1, "source": source, "well-known-labels": defaults["well_known"],
                    "types": types}}
    for name, (where, entries, with_defaults) in DERIVED.items():
        own = {n: make_type(defaults, n, r, a, o, off) for n, r, a, o, off in entries()}
        out[name] = {"karplint-catalog": 1,
                     "source": dict(source, path=f"{where}; {IT} NewInstanceType",
                                    version=f"Karpenter provisioning suite {tag}"),
                     "well-known-labels": defaults["well_known"],
                     "types": dict(types, **own) if with_defaults else own}
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--tag", default=TAG)
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    args = ap.parse_args()
    bad = 0
    for name, doc in build(args.mirror, args.tag).items():
        path = OUT.with_name(f"{name}.json")
        text = json.dumps(doc, indent=1) + "\n"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path.relative_to(REPO)} differs from what {args.tag} gives: run {Path(__file__).name}")
                bad = 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return bad


if __name__ == "__main__":
    sys.exit(main())
