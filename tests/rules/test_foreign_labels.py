"""KPL611: NodePool requirements on labels of EKS managed node groups or eksctl, which Karpenter copies onto its
nodes as custom labels instead of selecting capacity by them."""

from __future__ import annotations

from karplint.testing import lint

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: spot
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: eks.amazonaws.com/capacityType
          operator: In
          values: ["SPOT", "ON_DEMAND"]
        - key: alpha.eksctl.io/nodegroup-name
          operator: In
          values: ["ng-1"]
        - key: eks.amazonaws.com/nodegroup
          operator: NotIn
          values: ["ng-1"]
"""

AUTO_MODE = NODEPOOL.replace("{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}",
                             "{group: eks.amazonaws.com, kind: NodeClass, name: default}")

PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: eks.amazonaws.com/nodegroup
      operator: In
      values: ["workers"]
  providerRef:
    name: default
"""


def _findings(text, version=None):
    return [f for f in lint({"np.yaml": text}, karpenter_version=version) if f.code == "KPL611"]


def test_managed_node_group_and_eksctl_labels_in_nodepool_requirements():
    found = _findings(NODEPOOL)
    assert [(f.severity, f.line, f.column) for f in found] == [("warning", 10, 16), ("warning", 13, 16)]
    assert found[0].message == (
        "`eks.amazonaws.com/capacityType` is a label of EKS managed node groups, not of Karpenter\n"
        "help: write `key: karpenter.sh/capacity-type` with `values: [spot, on-demand]`\n"
        "note: Karpenter does not choose capacity by this key; it labels every node "
        "`eks.amazonaws.com/capacityType=SPOT` or `eks.amazonaws.com/capacityType=ON_DEMAND`, whatever capacity "
        "type it launches")
    assert found[1].message.endswith("which wrongly says they belong to an eksctl node group")


def test_auto_mode_nodepool_keeps_its_own_domain():
    assert [(f.line, f.column) for f in _findings(AUTO_MODE)] == [(13, 16)]


def test_provisioner_at_a_release_that_serves_it():
    found = _findings(PROVISIONER, "0.31.0")
    assert [(f.line, f.column) for f in found] == [(7, 12)]
    assert "a label of your own in spec.labels" in found[0].message
    assert _findings(PROVISIONER, "1.14.1") == []
