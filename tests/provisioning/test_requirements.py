"""Karpenter's requirement algebra (kubernetes-sigs/karpenter pkg/scheduling/requirement.go, requirements.go),
case by case as its own unit tests state them."""

from __future__ import annotations

import pytest

from karplint.provisioning.requirements import Requirement, Requirements, from_labels


def R(key, op, *values, mv=None):
    return Requirement.new(key, op, list(values), mv)


def test_gt_and_lt_become_inclusive_bounds():
    gt = R("k", "Gt", "3")
    assert (gt.gte, gt.lte, gt.complement) == (4, None, True)
    lt = R("k", "Lt", "3")
    assert (lt.gte, lt.lte) == (None, 2)
    assert gt.has("4") and not gt.has("3") and not gt.has("x")
    assert R("k", "Gte", "3").has("3") and R("k", "Lte", "3").has("3")


def test_gt_maxint_matches_nothing():
    assert R("k", "Gt", str(2**63 - 1)).operator() == "DoesNotExist"


def test_normalized_keys():
    assert R("beta.kubernetes.io/arch", "In", "amd64").key == "kubernetes.io/arch"


@pytest.mark.parametrize("a, b, op, values", [
    (("In", "a", "b"), ("In", "b", "c"), "In", {"b"}),
    (("In", "a", "b"), ("NotIn", "b"), "In", {"a"}),
    (("NotIn", "a"), ("NotIn", "b"), "NotIn", {"a", "b"}),
    (("Exists",), ("DoesNotExist",), "DoesNotExist", set()),
    (("In", "a"), ("In", "b"), "DoesNotExist", set()),
    (("In", "1", "5", "9"), ("Gt", "2"), "In", {"5", "9"}),
])
def test_intersection(a, b, op, values):
    got = R("k", a[0], *a[1:]).intersection(R("k", b[0], *b[1:]))
    assert got.operator() == op and set(got.values) == values


def test_empty_bounds_are_does_not_exist():
    got = R("k", "Gt", "5").intersection(R("k", "Lt", "3"))
    assert got.operator() == "DoesNotExist"


def test_min_values_keep_the_largest():
    got = R("k", "In", "a", "b", mv=1).intersection(R("k", "In", "a", "b", mv=2))
    assert got.min_values == 2


def test_intersects_lets_two_negative_requirements_pass():
    node = Requirements()
    node.add(R("karpenter.k8s.aws/instance-gpu-name", "DoesNotExist"))
    pool = Requirements()
    pool.add(R("karpenter.k8s.aws/instance-gpu-name", "NotIn", "t4"))
    assert node.intersects(pool) is None
    pool2 = Requirements()
    pool2.add(R("karpenter.k8s.aws/instance-gpu-name", "Exists"))
    assert node.intersects(pool2) is not None


def test_compatible_denies_undefined_custom_labels():
    pool = from_labels({"team": "a"})
    pod = from_labels({"tier": "web"})
    assert pool.compatible(pod) == 'label "tier" does not have known values'
    negative = Requirements()
    negative.add(R("tier", "NotIn", "web"))
    assert pool.compatible(negative) is None
    well_known = from_labels({"kubernetes.io/arch": "arm64"})
    assert pool.compatible(well_known) is None  # undefined well-known labels are allowed


def test_operators_that_are_not_karpenters_are_refused():
    with pytest.raises(ValueError):
        R("k", "Equals", "a")
    with pytest.raises(ValueError):
        R("k", "Gt", "x")
