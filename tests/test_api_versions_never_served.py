"""A Karpenter kind under a known version of its own group that no release ever served it at (KPL802):
`karpenter.sh/v1` Provisioner, `karpenter.k8s.aws/v1` AWSNodeTemplate. Reported nowhere before (the triple was
unknown to karplint.model.versions.API_SERVED, so taken as served, and no schema applied)."""

from __future__ import annotations

import pytest

from karplint.testing import lint

# jimmynguyen13/eks-karpenter-terraform @ 1643569 (no licence file; a few lines quoted to test against),
# k8s/karpenter/provisioner-spot.yaml lines 1-9 and 41-48: v1alpha5/v1alpha1 kinds written with the v1 apiVersions.
PROVISIONER_V1 = """\
apiVersion: karpenter.sh/v1
kind: Provisioner
metadata:
  name: spot
spec:
  requirements:
    - key: "karpenter.sh/capacity-type"
      operator: In
      values: ["spot"]
---
apiVersion: karpenter.k8s.aws/v1
kind: AWSNodeTemplate
metadata:
  name: aws-spot
spec:
  amiFamily: Bottlerocket
  subnetSelector:
    karpenter.sh/discovery: eks-karpenter-demo
"""


@pytest.mark.parametrize("version", [None, "0.32.10", "1.14.1"])
def test_removed_kinds_under_the_v1_apiversions_are_reported(version):
    got = [(f.code, f.severity, f.line, f.column) for f in lint({"provisioner-spot.yaml": PROVISIONER_V1},
                                                               karpenter_version=version) if f.code == "KPL802"]
    assert got == [("KPL802", "error", 1, 13), ("KPL802", "error", 11, 13)]
    f = next(f for f in lint({"p.yaml": PROVISIONER_V1}, karpenter_version=version) if f.code == "KPL802")
    assert f.message.startswith("no Karpenter release serves Provisioner as karpenter.sh/v1\n")
    assert "Provisioner is served as karpenter.sh/v1alpha5 (Karpenter 0.4–0.32)" in f.message


def test_a_version_older_than_the_kinds_is_reported_a_newer_one_is_not():
    text = ("apiVersion: karpenter.sh/v1alpha5\nkind: NodePool\nmetadata:\n  name: a\n---\n"
            "apiVersion: karpenter.sh/v1\nkind: NodeOverlay\nmetadata:\n  name: b\n")  # (a later release may serve it)
    got = [(f.code, f.line, f.column, f.message.split("\n")[0]) for f in lint(text) if f.code == "KPL802"]
    assert got == [("KPL802", 1, 13, "no Karpenter release serves NodePool as karpenter.sh/v1alpha5")]


# aws/karpenter-provider-aws#646 (v0.3.2): the Provisioner's karpenter.sh versions before v1alpha5 were served by early
# releases (v1alpha3 0.2.9-0.3.3, v1alpha4 0.3.4-0.4.0; v1alpha5 from 0.4.1), so they are not misspelt versions.
EARLY_PROVISIONER = """\
apiVersion: karpenter.sh/{version}
kind: Provisioner
metadata:
  name: default
spec:
  ttlSecondsAfterEmpty: 30
"""


@pytest.mark.parametrize(("version", "release", "expected"), [
    ("v1alpha3", "0.3.2", []),
    ("v1alpha3", "0.4.0", [("KPL801", 1, 13)]),
    ("v1alpha4", "0.4.0", []),
    ("v1alpha4", "0.4.1", [("KPL801", 1, 13)]),
    ("v1alpha5", "0.4.1", []),
    ("v1alpha5", "0.4.0", [("KPL801", 1, 13)]),
    ("v1alpha3", None, [("KPL803", 1, 13)]),
])
def test_early_provisioner_versions_are_judged_by_the_releases_that_served_them(version, release, expected):
    found = lint({"p.yaml": EARLY_PROVISIONER.format(version=version)}, karpenter_version=release)
    assert [(f.code, f.line, f.column) for f in found if f.code.startswith("KPL80")] == expected
