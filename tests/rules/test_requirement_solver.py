"""The requirement combiner behind KPL605/KPL607 agrees with brute force over a small label domain."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from karplint.rules.references import _combine, _Requirement

VALUES = ["0", "1", "2", "3", "4", "5", "a"]
ABSENT = None
# Every value a node label could take that matters for these requirements: canonical integers around the
# bounds, strings that are not integers, and no label at all.
DOMAIN = [str(i) for i in range(-2, 8)] + ["a", "b", ABSENT]


def _holds(op: str, values: list[str], label: str | None) -> bool:
    if op == "In":
        return label is not None and label in values
    if op == "NotIn":
        return label is None or label not in values
    if op == "Exists":
        return label is not None
    if op == "DoesNotExist":
        return label is None
    try:
        n, v = int(values[0]), int(label)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return {"Gt": v > n, "Gte": v >= n, "Lt": v < n, "Lte": v <= n}[op]


requirement = st.one_of(
    st.tuples(st.sampled_from(["In", "NotIn"]), st.lists(st.sampled_from(VALUES), min_size=1, max_size=3)),
    st.tuples(st.sampled_from(["Exists", "DoesNotExist"]), st.just([])),
    st.tuples(st.sampled_from(["Gt", "Gte", "Lt", "Lte"]), st.lists(st.sampled_from(VALUES[:6]), min_size=1,
                                                                       max_size=1)),
)


@settings(max_examples=250, deadline=None)
@given(st.lists(requirement, min_size=1, max_size=4))
def test_problem_iff_no_label_value_satisfies_all(reqs):
    combined = _combine([_Requirement("k", op, vals, ("r", i), "requirement") for i, (op, vals) in enumerate(reqs)])
    satisfiable = any(all(_holds(op, vals, label) for op, vals in reqs) for label in DOMAIN)
    assert (combined["k"].problem() is None) is satisfiable, reqs


@settings(max_examples=150, deadline=None)
@given(st.lists(requirement, min_size=1, max_size=4),
       st.sets(st.sampled_from(VALUES), min_size=1, max_size=3).map(frozenset))
def test_universe_means_every_node_carries_one_of_its_values(reqs, universe):
    combined = _combine([_Requirement("k", op, vals, ("r", i), "requirement") for i, (op, vals) in enumerate(reqs)])
    if combined["k"].problem() is not None:
        return  # contradictory on its own (KPL605), KPL607 never asks
    satisfiable = any(all(_holds(op, vals, label) for op, vals in reqs) for label in universe)
    assert (combined["k"].problem(universe) is None) is satisfiable, (reqs, universe)
