"""KPL914: a DaemonSet selecting karpenter.sh/registered or /initialized, left out of the overhead before v1.14.0."""

from __future__ import annotations

from karplint.testing import lint

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {name: agent}
  template:
    metadata:
      labels: {name: agent}
    spec:
      nodeSelector:
        karpenter.sh/initialized: "true"
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - key: karpenter.sh/registered
                    operator: In
                    values: ["true"]
                  - key: karpenter.sh/initialized
                    operator: DoesNotExist
      containers:
        - name: agent
          image: agent
"""


def _found(text=DAEMONSET, version="1.0.6"):
    return [(f.code, f.severity, f.line, f.column) for f in lint({"ds.yaml": text}, karpenter_version=version)
            if f.code == "KPL914"]


def test_lifecycle_selectors_are_reported_before_the_fix():
    assert _found() == [("KPL914", "warning", 13, 9), ("KPL914", "warning", 19, 26)]
    found = [f for f in lint({"ds.yaml": DAEMONSET}, karpenter_version="0.32.10") if f.code == "KPL914"]
    assert found[0].message.startswith("DaemonSet `agent` selects `karpenter.sh/initialized`, which Karpenter "
                                       "0.32.10 does not count when it plans a node\nhelp: select Karpenter's nodes "
                                       "with `karpenter.sh/nodepool` (operator `Exists`) instead")


def test_nothing_from_the_release_that_counts_them():
    assert _found(version="1.14.0") == []
    assert _found(version=None) == []  # (the default release, 1.14.1)


def test_other_workloads_and_other_labels_are_not_its_business():
    assert _found(DAEMONSET.replace("kind: DaemonSet", "kind: Deployment")) == []
    assert _found(DAEMONSET.replace("karpenter.sh/initialized: \"true\"", "karpenter.sh/nodepool: default")
                  .replace("karpenter.sh/registered", "example.com/role")) == []
