"""A pod pinned to a managed node group's or eksctl's label lands on no Karpenter NodePool that does not set the
label (Karpenter never gives its nodes those labels: rules/KPL611.md), so the rules that judge pods on Karpenter
nodes leave it alone."""

from karplint.testing import lint

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata:
      labels: {a: b}
      annotations: {karpenter.sh/do-not-disrupt: "true"}
    spec:
      nodeSelector: {SELECTOR}
      containers: [{name: c, image: i}]
"""


def _loud(selector: str):
    files = {"np.yaml": NODEPOOL, "dep.yaml": DEPLOYMENT.replace("{SELECTOR}", selector)}
    return [(f.code, f.file, f.line) for f in lint(files, karpenter_version="1.14.1") if f.severity != "info"]


def test_pod_pinned_to_a_managed_node_group_is_not_on_karpenter_nodes():
    assert _loud("{eks.amazonaws.com/nodegroup: core}") == []
    assert _loud("{alpha.eksctl.io/nodegroup-name: core}") == []


def test_pod_that_can_land_on_the_nodepool_is_still_judged():
    assert sorted(_loud("{karpenter.sh/capacity-type: on-demand}")) == [("KPL410", "dep.yaml", 9), ("KPL411", "np.yaml", 6)]
