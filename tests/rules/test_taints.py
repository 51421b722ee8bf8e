"""Startup-taint rules (KPL301-KPL305) on fixtures in tests/fixtures/catalog/taints."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import codes, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "taints"
TAINTS = {"select": ["KPL3"]}


def run(name: str, config: dict | None = None, **kw):
    text = (FIXTURES / name).read_text()
    return lint({name: text}, config=config or TAINTS, **kw)


def test_cilium_from_helmrelease_missing_and_effect():
    found = run("cilium_helmrelease_bad.yaml")
    # NodePool `general`: no startup taint; `effect-differs`: NoExecute while the chart's operator taints NoSchedule;
    # `windows`: Cilium does not run there.
    assert codes(found) == [("KPL301", 25, 5), ("KPL303", 50, 19)]
    missing = found[0]
    assert missing.severity == "error"
    assert "HelmRelease kube-system/cilium" in missing.message and "NoSchedule" in missing.message
    assert missing.fix is not None and missing.fix.safety == "unsafe"
    assert "operator.setNodeTaints defaults" in found[1].message
    assert found[1].severity == "warning"


def test_cilium_good():
    assert run("cilium_helmrelease_good.yaml") == []


def test_agent_taint_in_taints():
    found = run("cilium_in_taints_bad.yaml")
    assert codes(found) == [("KPL302", 29, 16)]
    assert found[0].severity == "error" and found[0].fix is not None


def test_agent_taint_in_taints_without_detection():
    # The taint is wrong under `taints` whether or not the agent is visible in the run.
    text = (FIXTURES / "cilium_in_taints_bad.yaml").read_text().split("---\n", 1)[1]
    assert codes(lint(text, config=TAINTS)) == [("KPL302", 14, 16)]


def test_cluster_config_says_cilium():
    found = run("cluster_config_only.yaml", config={"select": ["KPL3"], "cluster": {"cni": "cilium"}})
    assert codes(found) == [("KPL301", 7, 5)]
    assert "[cluster]" in found[0].message
    assert "assumed NoExecute" in found[0].message
    # Without the [cluster] fact nothing is known about the CNI.
    assert run("cluster_config_only.yaml") == []


def test_custom_taint_key_from_configmap():
    found = run("custom_key_configmap_bad.yaml")
    assert codes(found) == [("KPL301", 24, 7)]
    assert "ignore-taint.cluster-autoscaler.kubernetes.io/cilium-agent-not-ready" in found[0].message
    # set-cilium-node-taints is false: no effect is expected, so no KPL303.


def test_ebs_csi_missing_and_unknown_startup_taint():
    found = run("ebs_csi_bad.yaml")
    assert codes(found) == [("KPL304", 25, 7), ("KPL305", 26, 16)]
    assert [f.severity for f in found] == ["warning", "info"]
    assert "Application argocd/aws-ebs-csi-driver" in found[0].message


def test_ebs_csi_good():
    assert run("ebs_csi_good.yaml") == []


def test_daemonset_node_selector_limits_where_agent_runs():
    text = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium
spec:
  template:
    spec:
      nodeSelector:
        cni: cilium
      containers:
        - name: agent
          image: quay.io/cilium/cilium:v1.15.0
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: no-cilium
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: cilium
spec:
  template:
    metadata:
      labels:
        cni: cilium
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
"""
    found = lint(text, config=TAINTS)
    assert codes(found) == [("KPL301", 33, 5)]
    assert found[0].resource["name"] == "cilium"


@pytest.mark.parametrize("values, expected", [
    ("operator:\n  setNodeTaints: false\n", []),
    ("operator:\n  setNodeTaints: true\n", [("KPL303", 12, 19)]),
    ("agentNotReadyTaintKey: example.com/cilium\n", [("KPL301", 10, 7)]),
])
def test_standalone_cilium_values(values, expected):
    nodepool = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
      startupTaints:
        - key: node.cilium.io/agent-not-ready
          effect: NoExecute
"""
    found = lint({"clusters/prod/cilium/values.yaml": values, "np.yaml": nodepool}, config=TAINTS)
    assert codes(found) == expected
