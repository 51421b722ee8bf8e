#!/usr/bin/env python3
"""Generate the instance-type catalogs the translated AWS provider tests run with (tests/upstream/catalogs/aws-*.json).

aws/karpenter-provider-aws's tests launch from its fake EC2 API (`pkg/fake/zz_generated.describe_instance_types.go`
at v1.14.1: 17 real instance types), or from one instance type a test defines itself. Each type's labels and
allocatable resources are taken from Karpenter's own instance-type reference (the source of the bundled catalog,
`website/content/en/<release>/reference/instance-types.md`, AL2023 and default block devices), so the catalogs
say what the provider computes for those types:
- v1.14 reference (aws/karpenter-provider-aws@1d927085, the bundled catalog's source) for every type it lists;
- v1.5 reference at v1.6.0 for `dl1.24xlarge`, which later references no longer list;
- the provider's test-defined types (`test`, suite_test.go L704) from the test's own `InstanceTypeInfo`.

    python scripts/gen_upstream_aws_catalogs.py [--check] [MIRROR]   # MIRROR: a git dir of aws/karpenter-provider-aws

The JSON files are committed; `--check` exits 1 if they differ from what the mirror gives (tests/upstream runs it
when the mirror is on the machine). Format: the `instance-types` table
of `karplint simulate --instance-types` (`{name: {"labels": {...}, "allocatable": {...}}}`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from gen_instance_types import parse  # noqa: E402  (the reference's table parser)

OUT = REPO / "tests" / "upstream" / "catalogs"
FAKE_TYPES = ("c6g.large", "dl1.24xlarge", "g4ad.16xlarge", "g4dn.8xlarge", "g5.12xlarge", "inf2.24xlarge",
              "inf2.xlarge", "m5.large", "m5.metal", "m5.xlarge", "m6idn.32xlarge", "m7i-flex.large", "t3.large",
              "t4g.medium", "t4g.small", "t4g.xlarge", "trn1.2xlarge")
# pkg/fake/zz_generated.describe_instance_types.go `defaultDescribeInstanceTypeOfferingsOutput`: the zones each fake type
# is offered in (the t4g types are offered in none).
FAKE_ZONES = {"c6g.large": "a", "dl1.24xlarge": "ab", "g4ad.16xlarge": "ab", "g4dn.8xlarge": "ab", "g5.12xlarge": "ab",
              "inf2.24xlarge": "a", "inf2.xlarge": "a", "m5.large": "abc", "m5.metal": "ab", "m5.xlarge": "ab",
              "m6idn.32xlarge": "abc", "m7i-flex.large": "a", "t3.large": "ab", "trn1.2xlarge": "a"}
REFERENCES = (("1d927085dd81a9df9301e613f371dac5b4d16bfe", "website/content/en/v1.14/reference/instance-types.md"),
              ("v1.6.0", "website/content/en/v1.5/reference/instance-types.md"))


SOURCE = {"repo": "aws/karpenter-provider-aws", "tag": "v1.14.1", "license": "Apache-2.0",
          "path": "pkg/fake/zz_generated.describe_instance_types.go (types, zones), pkg/providers/instancetype/"
                  "suite_test.go (test-defined types); labels and allocatable from website/content/en/v1.14/reference/"
                  "instance-types.md@1d927085dd81a9df9301e613f371dac5b4d16bfe (dl1.24xlarge: en/v1.5 at v1.6.0)",
          "generated_by": "scripts/gen_upstream_aws_catalogs.py"}
VERSIONS = {
    "aws-fake.json": "the AWS provider's fake EC2 instance types",
    "aws-fake-spot-1a.json": "the fake types' offerings when spot is priced for m5.large in test-zone-1a alone",
    "aws-fake-local-zone.json": "the fake types offered in the local zone test-zone-1a-local",
    "aws-fake-windows.json": "the fake types under a Windows AMI family (PrivateIPv4Address capacity)",
    "aws-test-type.json": "the type `test` of suite_test.go L704",
    "aws-a1-medium.json": "a1.medium alone (suite_test.go L3145)",
}


def _entry(found: dict) -> dict:
    return {"labels": dict(sorted(found["labels"].items())), "allocatable": dict(sorted(found["resources"].items()))}


def _ipv4_per_interface(mirror: str) -> dict[str, int]:
    """pkg/providers/instancetype/zz_generated.vpclimits.go `Limits`: IPv4 addresses per interface, by type."""
    text = subprocess.run(["git", "-C", mirror, "show", "v1.14.1:pkg/providers/instancetype/zz_generated.vpclimits.go"],
                          check=True, capture_output=True, text=True).stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r'"([^"]+)": \{\s*Interface:\s*\d+,\s*IPv4PerInterface:\s*(\d+)',
                                                          text)}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv[1:] if a != "--check"]
    mirror = args[0] if args else "/work/.mirror/aws+karpenter-provider-aws/repo"
    refs = [parse(subprocess.run(["git", "-C", mirror, "show", f"{tag}:{path}"], check=True, capture_output=True,
                                 text=True).stdout) for tag, path in REFERENCES]
    ipv4 = _ipv4_per_interface(mirror)
    fake = {}
    for name in FAKE_TYPES:
        found = next(r[name] for r in refs if name in r)
        fake[name] = _entry(found)
        # Labels added after the reference a type is taken from: the provider at v1.14.1 gives them to every type
        # (types.go computeRequirements: instance-capability-flex is whether the family name contains "flex").
        fake[name]["labels"].setdefault("karpenter.k8s.aws/instance-capability-flex", str("flex" in name).lower())
    catalogs = {
        "aws-fake.json": fake,
        # suite_test.go L704: a type the VPC resource controller's limits do not know: 2 vCPUs, 8 GiB, amd64;
        # under a Windows AMI its vpc.amazonaws.com/PrivateIPv4Address capacity is 0 (types.go privateIPv4Address).
        "aws-test-type.json": {"test": {"labels": {"kubernetes.io/arch": "amd64", "karpenter.k8s.aws/instance-cpu": "2",
                                                   "karpenter.k8s.aws/instance-memory": "8192"},
                                        "allocatable": {"vpc.amazonaws.com/PrivateIPv4Address": "0"}}},
        # suite_test.go L2441, L2467: the spot price history holds m5.large in test-zone-1a alone, so that is the
        # only spot offering; on-demand is offered in every zone of the type (types without a zone are left out).
        "aws-fake-spot-1a.json": {name: dict(entry, offerings=[
            {"karpenter.sh/capacity-type": ct, "topology.kubernetes.io/zone": f"test-zone-1{z}"}
            for ct in ("on-demand", "spot") for z in FAKE_ZONES[name]
            if ct == "on-demand" or (name, z) == ("m5.large", "a")]) for name, entry in fake.items() if name in FAKE_ZONES},
        # suite_test.go L1077: the node class's only subnet is in test-zone-1a-local, and only m5.large is offered
        # there (the provider offers a type in the zones of the class's subnets; types with none are left out).
        "aws-fake-local-zone.json": {"m5.large": dict(fake["m5.large"], offerings=[
            {"karpenter.sh/capacity-type": ct, "topology.kubernetes.io/zone": "test-zone-1a-local"}
            for ct in ("on-demand", "spot")])},
        # suite_test.go L688: under a Windows AMI family the provider gives each type that can run Windows (amd64)
        # vpc.amazonaws.com/PrivateIPv4Address, its IPv4 addresses per interface minus one (types.go
        # NewInstanceType, privateIPv4Address; the VPC resource controller's limits).
        "aws-fake-windows.json": {name: dict(entry, allocatable=dict(
            entry["allocatable"], **({"vpc.amazonaws.com/PrivateIPv4Address": str(ipv4[name] - 1)}
                                     if entry["labels"].get("kubernetes.io/arch") == "amd64" else {})))
            for name, entry in fake.items()},
        # suite_test.go L3145: a1.medium alone (DescribeInstanceTypes returns only it).
        "aws-a1-medium.json": {"a1.medium": _entry(refs[0]["a1.medium"])},
    }
    stale = []
    for file, table in catalogs.items():
        document = {"karplint-catalog": 1, "source": dict(SOURCE, version=f"{file}: {VERSIONS[file]}"), "types": table}
        text = json.dumps(document, indent=1, sort_keys=True) + "\n"
        if check:
            if not (OUT / file).is_file() or (OUT / file).read_text(encoding="utf-8") != text:
                stale.append(file)
        else:
            (OUT / file).write_text(text, encoding="utf-8")
    if stale:
        print(f"not what {Path(__file__).name} generates: {', '.join(stale)}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
