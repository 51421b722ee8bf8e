"""KPL410-KPL412 ask whether pods can land on NodePools: thousands of NodePools by thousands of distinct pods were
minutes (SECURITY.md, "Time and memory bombs"). Each rule has a budget of pod-NodePool verdicts; past it, KPL004
says which pods or NodePools were not checked, never a silent pass."""

from __future__ import annotations

import time

from karplint.provisioning import placement
from karplint.testing import lint

POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: p{i}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
{tgp}      requirements: [{{key: kubernetes.io/arch, operator: In, values: [amd64]}}]
"""

# Distinct scheduling signatures (a toleration each) that land on every NodePool.
POD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: d{i}
spec:
  selector: {{matchLabels: {{app: d{i}}}}}
  template:
    metadata:
      labels: {{app: d{i}}}
{annotations}    spec:
      terminationGracePeriodSeconds: 3600
      tolerations: [{{key: k{i}, operator: Exists}}]
      containers: [{{name: c, image: nginx:1.27}}]
"""


def _files(pools: int, pods: int, tgp: bool) -> dict[str, str]:
    return {
        "pools.yaml": "---\n".join(POOL.format(i=i, tgp="      terminationGracePeriod: 10m\n" if tgp else "")
                                   for i in range(pools)),
        "apps.yaml": "---\n".join(POD.format(i=i, annotations="" if tgp else (
            "      annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n")) for i in range(pods)),
    }


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _found(files, codes):
    return [(f.code, f.file, f.line) for f in lint(files) if f.code in codes]


def test_do_not_disrupt_pods_by_nodepools_are_budgeted(monkeypatch):
    """10 NodePools by 12 distinct pods, with a budget of 50 verdicts: KPL410 judges 5 pods and names the 6th;
    KPL411 (12 pods per NodePool) judges 4 NodePools and names the 5th."""
    monkeypatch.setattr(placement, "MAX_PLACEMENT_CHECKS", 50, raising=False)
    files = _files(10, 12, tgp=False)
    apps, pools = files["apps.yaml"], files["pools.yaml"]
    found = _found(files, ("KPL004", "KPL410", "KPL411"))
    assert [x for x in found if x[0] == "KPL410"] == [
        ("KPL410", "apps.yaml", _line(apps, f"name: d{i}\n") + 6) for i in range(5)]
    assert [x for x in found if x[0] == "KPL411"] == [
        ("KPL411", "pools.yaml", _line(pools, f"name: p{i}\n") + 3) for i in range(4)]
    assert sorted(x for x in found if x[0] == "KPL004") == [
        ("KPL004", "apps.yaml", _line(apps, "name: d5\n")), ("KPL004", "pools.yaml", _line(pools, "name: p4\n"))]
    messages = sorted(f.message for f in lint(files) if f.code == "KPL004")
    assert messages == [
        "Deployment/d5 and the pods after it were not checked against the NodePools without terminationGracePeriod "
        "(KPL410): too large (over karplint's budget of 50 pod-NodePool verdicts per rule and run)",
        "NodePool `p4` and the NodePools after it were not checked against the run's pods (KPL411): too large "
        "(over karplint's budget of 50 pod-NodePool verdicts per rule and run)"]


def test_grace_periods_by_nodepools_are_budgeted(monkeypatch):
    """KPL412: each NodePool scans the pods' signatures (12) and those landing (12): two NodePools fit in 50."""
    monkeypatch.setattr(placement, "MAX_PLACEMENT_CHECKS", 50, raising=False)
    files = _files(10, 12, tgp=True)
    pools = files["pools.yaml"]
    assert _found(files, ("KPL004", "KPL412")) == [
        ("KPL412", "pools.yaml", _line(pools, "name: p0\n") + 5),
        ("KPL412", "pools.yaml", _line(pools, "name: p1\n") + 5),
        ("KPL004", "pools.yaml", _line(pools, "name: p2\n"))]


def test_the_default_budget_bounds_the_time():
    """320 NodePools by 320 distinct do-not-disrupt pods: both rules stop at the default budget and say where
    (before: every one of the 205,000 verdicts asked, growing with the product: 2,000 NodePools by 2,000 pods took
    100 s, 10,000 by 10,000 would take most of an hour)."""
    started = time.monotonic()
    found = _found(_files(320, 320, tgp=False), ("KPL004",))
    assert time.monotonic() - started < 10
    assert [x[1] for x in found] == ["apps.yaml", "pools.yaml"]
