"""KPL935: a static NodePool (`spec.replicas`) whose `limits.nodes` leaves no node above `replicas` never replaces its
drifted nodes (kubernetes-sigs/karpenter pkg/controllers/disruption/staticdrift.go@v1.14.1: the replacement is reserved
against limits.nodes before it launches; aws/karpenter-provider-aws#8873)."""

from __future__ import annotations

import pytest

from karplint.testing import lint


def nodepool(replicas, limit) -> str:
    limits = "" if limit is None else f"  limits:\n    nodes: {limit}\n"
    return ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: static\nspec:\n"
            f"  replicas: {replicas}\n{limits}  template:\n    spec:\n      nodeClassRef:\n"
            "        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n"
            "      requirements: []\n")


def kpl935(text: str, version: str | None = None):
    return [f for f in lint({"np.yaml": text}, karpenter_version=version) if f.code == "KPL935"]


@pytest.mark.parametrize("limit", ["4", '"4"', "'4'"])
def test_limit_equal_to_replicas_is_reported_at_the_limit(limit):
    [f] = kpl935(nodepool(4, limit))
    assert (f.severity, f.line, f.column) == ("warning", 8, 12)
    assert f.message.splitlines()[0] == "static NodePool: limits.nodes (4) is not above replicas (4)"
    assert "note: so the pool never replaces a drifted node" in f.message


def test_limit_below_replicas_also_says_the_pool_stays_short():
    [f] = kpl935(nodepool(3, 2))
    assert "never reaches its replicas and never replaces a drifted node" in f.message
    assert "at least 4" in f.message


@pytest.mark.parametrize("replicas,limit", [(4, 5), (4, None), (0, 0), ("'{{ .Values.n }}'", 2), (2, "'{{ .n }}'"),
                                            (2, "1.5")])
def test_room_to_replace_or_nothing_to_judge_is_silent(replicas, limit):
    assert kpl935(nodepool(replicas, limit)) == []


def test_dynamic_pool_with_a_node_limit_is_not_judged():
    text = nodepool(1, 1).replace("  replicas: 1\n", "")
    assert kpl935(text) == []


def test_releases_before_static_capacity_are_not_judged():
    assert kpl935(nodepool(4, 4), "1.7.0") == []
    assert len(kpl935(nodepool(4, 4), "1.8.0")) == 1
