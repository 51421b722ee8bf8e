"""KPL931: v1alpha5 Provisioner labels in a restricted label domain, refused by the validating webhook of the
release (aws/karpenter-provider-aws#1802)."""

from __future__ import annotations

from karplint.testing import lint

PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  labels:
    node.kubernetes.io/node-group: primary
    node-role.kubernetes.io/worker: "true"
    kops.k8s.io/instancegroup: nodes
    example.com/team: a
    kubernetes.io/arch: amd64
    topology.kubernetes.io/zone: us-east-1a
"""


def _kpl931(version):
    return [(f.line, f.column, f.severity, f.message.splitlines()[0])
            for f in lint({"p.yaml": PROVISIONER}, karpenter_version=version) if f.code == "KPL931"]


def test_node_kubernetes_io_is_refused_before_0_11():
    assert _kpl931("0.10.0") == [
        (7, 5, "error", "label domain node.kubernetes.io is restricted for Provisioner labels at Karpenter 0.10.0"),
        (8, 5, "error", "label domain node-role.kubernetes.io is restricted for Provisioner labels at Karpenter 0.10.0"),
    ]


def test_node_kubernetes_io_is_allowed_from_0_11_but_node_role_never():
    assert _kpl931("0.11.0") == [
        (8, 5, "error", "label domain node-role.kubernetes.io is restricted for Provisioner labels at Karpenter 0.11.0"),
    ]
    assert [line for line, *_ in _kpl931("0.32.0")] == [8]


def test_not_judged_where_provisioners_are_not_served_or_before_0_7():
    assert _kpl931(None) == []
    assert _kpl931("1.0.0") == []
    assert _kpl931("0.6.0") == []
