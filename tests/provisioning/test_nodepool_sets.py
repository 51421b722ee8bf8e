"""Which instance types a NodePool can launch: `karplint.provisioning.nodepools` checked against a second,
independent computation written here directly from the JSON catalog (node-label matching, requirement by
requirement, as the Kubernetes API documents operators)."""

from __future__ import annotations

import json

import pytest

from karplint.model import Model
from karplint.provisioning.catalog import load
from karplint.provisioning.nodepools import NodeClassFacts, explain_empty, simulate_pool
from karplint.readers import loader
from karplint.testing import REPO

CATALOG_JSON = REPO / "karplint" / "provisioning" / "instance_types.json"


def _independent(requirements: list[dict], labels: dict | None = None, ami_family: str | None = None) -> set[str]:
    raw = json.loads(CATALOG_JSON.read_text())
    keys = raw["labels"]
    out = set()
    for name, (values, _resources) in raw["types"].items():
        node = {k: v for k, v in zip(keys, values) if v is not None}
        if ami_family is None:
            node.pop("kubernetes.io/os")
        multi = {"karpenter.sh/capacity-type": {"on-demand", "spot", "reserved"}}
        ok = True
        for req in list(requirements) + [{"key": k, "operator": "In", "values": [v]} for k, v in (labels or {}).items()]:
            key, op, vals = req["key"], req["operator"], [str(v) for v in req.get("values", [])]
            if key in multi:
                have = multi[key]
                ok = ok and (bool(have & set(vals)) if op == "In" else bool(have - set(vals)) if op == "NotIn"
                             else op == "Exists")
                continue
            if key not in keys:
                continue  # zones, custom labels: not instance-type properties
            v = node.get(key)
            if op == "In":
                ok = ok and v in vals
            elif op == "NotIn":
                ok = ok and v not in vals
            elif op == "Exists":
                ok = ok and v is not None
            elif op == "DoesNotExist":
                ok = ok and v is None
            elif op in ("Gt", "Lt", "Gte", "Lte"):
                try:
                    n = int(v)
                except (TypeError, ValueError):
                    ok = False
                    continue
                bound = int(vals[0])
                ok = ok and {"Gt": n > bound, "Lt": n < bound, "Gte": n >= bound, "Lte": n <= bound}[op]
        if ok:
            out.add(name)
    return out


def _pool(requirements: list[dict], labels: dict | None = None):
    doc = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
           "spec": {"template": {"metadata": {"labels": labels or {}},
                                 "spec": {"requirements": requirements}}}}
    src = loader.decode("p.yaml", json.dumps(doc).encode())
    docs, _ = loader.load(src)
    model = Model()
    model.add(docs)
    return next(model.nodepools())


CASES = [
    [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
     {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]}],
    [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
     {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["17"]},
     {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}],
    [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Exists"},
     {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "NotIn", "values": ["amd"]}],
    [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "DoesNotExist"},
     {"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["t3", "t3a", "t4g"]},
     {"key": "karpenter.k8s.aws/instance-memory", "operator": "Gte", "values": ["16384"]},
     {"key": "karpenter.k8s.aws/instance-memory", "operator": "Lte", "values": ["65536"]}],
    [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large", "m6g.large", "c7i.2xlarge"]},
     {"key": "karpenter.k8s.aws/instance-hypervisor", "operator": "In", "values": ["nitro"]},
     {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a"]}],
    [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5", "c5"]},
     {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}],
    [{"key": "karpenter.k8s.aws/instance-local-nvme", "operator": "Gt", "values": ["100"]},
     {"key": "karpenter.k8s.aws/instance-cpu-manufacturer", "operator": "In", "values": ["amd"]}],
]


@pytest.mark.parametrize("requirements", CASES)
def test_sets_agree_with_an_independent_computation(requirements):
    sim = simulate_pool(_pool(requirements), load())
    assert sim.unknown is None
    assert {t.name for t in sim.types} == _independent(requirements)


def test_template_labels_constrain_like_requirements():
    labels = {"karpenter.k8s.aws/instance-size": "xlarge", "team": "web"}
    reqs = [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["m"]}]
    sim = simulate_pool(_pool(reqs, labels), load())
    assert {t.name for t in sim.types} == _independent(reqs, labels) and len(sim.types) > 10


def test_windows_family_keeps_amd64_types_only():
    reqs = [{"key": "kubernetes.io/os", "operator": "In", "values": ["windows"]}]
    sim = simulate_pool(_pool(reqs), load(), NodeClassFacts(ami_family="Windows2022", reservations=False))
    assert sim.types and all(t.labels["kubernetes.io/arch"] == "amd64" for t in sim.types)
    linux = simulate_pool(_pool(reqs), load(), NodeClassFacts(ami_family="AL2023", reservations=False))
    assert not linux.types


def test_unconstrained_v1_pool_allows_every_type_both_archs_and_spot():
    sim = simulate_pool(_pool([]), load(), NodeClassFacts(ami_family="AL2023", reservations=False))
    summary = sim.summary()
    a1 = [n for n in load().types if n.startswith("a1.")]  # (AL2023 runs no a1: compatibility.go amiFamilyCheck)
    assert summary["instance_types"] == len(load().types) - len(a1) and len(a1) == 6
    assert summary["arch"] == ["amd64", "arm64"] and summary["capacity_types"] == ["on-demand", "spot"]


def test_min_values_counts_distinct_values_of_the_remaining_types():
    reqs = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
             "values": ["m5", "m5d", "c5", "c5d", "c4", "r4"], "minValues": 5},
            {"key": "karpenter.k8s.aws/instance-hypervisor", "operator": "In", "values": ["nitro"]}]
    sim = simulate_pool(_pool(reqs), load())
    assert sim.min_values_short == {"karpenter.k8s.aws/instance-family": (5, 4)}
    assert sim.compatible and not sim.types  # Strict: nothing launches
    assert simulate_pool(_pool(reqs), load(), strict_min_values=False).types


def test_explanation_names_the_combination_and_an_example():
    sim = simulate_pool(_pool(CASES[5]), load())
    why = explain_empty(sim)
    assert why.keys == ("karpenter.k8s.aws/instance-family", "kubernetes.io/arch")
    assert why.without == ("kubernetes.io/arch",)
    assert load().types[why.example].labels["karpenter.k8s.aws/instance-family"] in ("m5", "c5")
    assert sim.removed_by("kubernetes.io/arch") == len(_independent([]) - _independent([CASES[5][1]]))


def test_templated_requirements_cannot_be_told():
    sim = simulate_pool(_pool([{"key": "kubernetes.io/arch", "operator": "In", "values": ["${ARCH}"]}]), load())
    assert sim.unknown and not sim.empty
