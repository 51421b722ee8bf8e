"""`karplint diff`'s capacity part (karplint/diff/capacity.py): instance types gained and lost, limits, workloads
that lose or gain their only NodePool. Small pools over a catalog of eight real instance types, exact outputs."""

from __future__ import annotations


import pytest

from karplint.diff.capacity import capacity_change
from karplint.diff.pairs import Pair
from karplint.model import Model
from karplint.provisioning.catalog import Catalog, load
from karplint.readers import loader
from karplint.testing import REPO

TYPES = ("c5.large", "c5.xlarge", "c5a.large", "m5.large", "m5.xlarge", "m6g.large", "m6g.xlarge", "g4dn.xlarge")



@pytest.fixture
def catalog() -> Catalog:
    full = load()
    return Catalog({n: full.types[n] for n in TYPES}, full.source, full.labels)  # (a fresh memo per test)


def _model(text: str, path: str = "k8s/pools.yaml") -> Model:
    docs, _ = loader.load(loader.decode(path, text.encode()))
    m = Model()
    m.add(docs)
    return m


def _pool(name: str = "general", requirements: str = "", extra: str = "", labels: str = "", taints: str = "",
          nodeclass: str = "default") -> str:
    return f"""apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    metadata:
      labels:
        team: core{labels}
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: {nodeclass}}}
      requirements:
        - {{key: kubernetes.io/os, operator: In, values: [linux]}}{requirements}{taints}
{extra}---
"""


NODECLASS = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole
  amiSelectorTerms:
    - alias: {alias}
---
"""


def _families(*families: str) -> str:
    return f"\n        - {{key: karpenter.k8s.aws/instance-family, operator: In, values: [{', '.join(families)}]}}"


def _change(base_text: str, head_text: str, catalog: Catalog, name: str = "general"):
    base, head = _model(base_text), _model(head_text)
    pair = Pair("NodePool", name, None, next((p for p in base.nodepools() if p.name == name), None),
                next((p for p in head.nodepools() if p.name == name), None))
    return capacity_change(pair, base_model=base, head_model=head, catalog=catalog, base_release=None,
                           release=None)


def test_narrowed_families_lose_their_types(catalog):
    got = _change(_pool(requirements=_families("c5", "c5a", "m5")), _pool(requirements=_families("m5")), catalog)
    assert got["types_before"] == 5 and got["types_after"] == 2
    assert got["lost"] == ["c5.large", "c5.xlarge", "c5a.large"] and got["lost_count"] == 3
    assert got["gained"] == [] and got["gained_count"] == 0
    assert got["families_lost"] == ["c5", "c5a"] and got["families_gained"] == []
    assert got["limits"] is None and got["workloads"] is None
    assert got["summary"] == "5 -> 2 instance types (c5, c5a families lost)"


def test_widened_families_gain_types_and_an_architecture(catalog):
    got = _change(_pool(requirements=_families("m5")), _pool(requirements=_families("m5", "m6g")), catalog)
    assert (got["types_before"], got["types_after"]) == (2, 4)
    assert got["gained"] == ["m6g.large", "m6g.xlarge"] and got["lost"] == []
    assert got["families_gained"] == ["m6g"] and got["arch_gained"] == ["arm64"] and got["arch_lost"] == []
    assert got["summary"] == "2 -> 4 instance types (m6g family gained; arm64 architecture gained)"


def test_capacity_type_narrowed_keeps_the_types(catalog):
    spot = "\n        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}"
    on_demand = "\n        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}"
    got = _change(_pool(requirements=_families("m5") + spot), _pool(requirements=_families("m5") + on_demand), catalog)
    assert (got["types_before"], got["types_after"], got["gained"], got["lost"]) == (2, 2, [], [])
    assert got["capacity_types_lost"] == ["spot"] and got["capacity_types_gained"] == []
    assert got["summary"] == "2 instance types (spot capacity lost)"


def test_architecture_requirement_changed(catalog):
    amd = "\n        - {key: kubernetes.io/arch, operator: In, values: [amd64]}"
    arm = "\n        - {key: kubernetes.io/arch, operator: In, values: [arm64]}"
    got = _change(_pool(requirements=_families("m5", "m6g") + amd), _pool(requirements=_families("m5", "m6g") + arm),
                  catalog)
    assert got["lost"] == ["m5.large", "m5.xlarge"] and got["gained"] == ["m6g.large", "m6g.xlarge"]
    assert got["arch_lost"] == ["amd64"] and got["arch_gained"] == ["arm64"]
    assert got["summary"] == ("2 -> 2 instance types (m5 family lost; m6g family gained; amd64 architecture lost; "
                              "arm64 architecture gained)")


def test_a_windows_ami_in_the_nodeclass_empties_a_linux_pool(catalog):
    # The NodePool is the same on both sides; only its EC2NodeClass's alias moved to Windows, whose types are
    # `kubernetes.io/os: windows` (amd64) or have no OS (arm64) (aws/karpenter-provider-aws types.go `getOS`):
    # the pool's `os In [linux]` now admits none of them.
    pool = _pool(requirements=_families("m5", "m6g"))
    got = _change(NODECLASS.format(alias="al2023@latest") + pool, NODECLASS.format(alias="windows2022@latest") + pool,
                  catalog)
    assert (got["types_before"], got["types_after"]) == (4, 0)
    assert got["lost"] == ["m5.large", "m5.xlarge", "m6g.large", "m6g.xlarge"]
    assert got["families_lost"] == ["m5", "m6g"] and got["arch_lost"] == ["amd64", "arm64"]
    assert got["emptied_by"] == "`kubernetes.io/os` leaves none"
    assert got["capacity_types_lost"] == ["on-demand", "spot"]
    assert got["summary"] == "4 -> 0 instance types: `kubernetes.io/os` leaves none"


def test_limit_lowered_below_the_smallest_type_never_launches(catalog):
    reqs = _families("c5", "m5")
    got = _change(_pool(requirements=reqs, extra="  limits:\n    cpu: 100\n    memory: 400Gi\n"),
                  _pool(requirements=reqs, extra="  limits:\n    cpu: \"1\"\n    memory: 400Gi\n"), catalog)
    assert got["types_before"] == got["types_after"] == 4 and got["lost"] == [] and got["gained"] == []
    limits = got["limits"]
    assert limits["before"] == {"cpu": 100, "memory": "400Gi"} and limits["after"] == {"cpu": "1", "memory": "400Gi"}
    assert limits["changes"] == [{
        "resource": "cpu", "before": "100", "after": "1", "change": "lowered",
        "meaning": "Karpenter launches no node that would take the pool's cpu past 1; running nodes are not "
                   "removed, even when they are over it"}]
    assert limits["never_launches"] == ("cpu limit 1 is below the smallest admissible instance type (c5.large, 2 "
                                        "cpu): the pool can never launch a node")
    assert "scheduler.go@6e7eab7#L1068" in limits["source"] and "nodepools.md@bde0065#L418" in limits["source"]
    assert got["summary"] == ("cpu limit lowered 100 -> 1; cpu limit 1 is below the smallest admissible instance "
                              "type (c5.large, 2 cpu): the pool can never launch a node")


def test_limits_raised_removed_and_equal_quantities(catalog):
    reqs = _families("m5")
    got = _change(_pool(requirements=reqs, extra="  limits:\n    cpu: 100\n    memory: 1024Gi\n    nodes: 5\n"),
                  _pool(requirements=reqs, extra="  limits:\n    cpu: \"200\"\n    memory: 1Ti\n"), catalog)
    assert [(c["resource"], c["change"]) for c in got["limits"]["changes"]] == [("cpu", "raised"), ("nodes", "removed")]
    assert "never_launches" not in got["limits"]  # (1024Gi == 1Ti: no change)
    assert got["summary"] == "cpu limit raised 100 -> 200; nodes limit removed"
    # a lowered limit that still admits the pool's smallest type: no "never"
    got = _change(_pool(requirements=reqs, extra="  limits:\n    cpu: 100\n"),
                  _pool(requirements=reqs, extra="  limits:\n    cpu: 2\n"), catalog)
    assert "never_launches" not in got["limits"] and got["summary"] == "cpu limit lowered 100 -> 2"
    got = _change(_pool(requirements=reqs), _pool(requirements=reqs, extra="  limits:\n    nodes: 0\n"), catalog)
    assert got["limits"]["changes"][0]["change"] == "added"
    assert got["limits"]["never_launches"] == "`nodes: 0`: no node may be launched: the pool can never launch a node"


WORKLOAD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
spec:
  template:
    spec:
      nodeSelector:
        accelerator: nvidia
      containers:
        - name: main
          image: trainer:1
          resources: {requests: {cpu: "1", memory: 1Gi}}
---
"""


def test_a_workload_loses_its_only_nodepool(catalog):
    label = "\n        accelerator: nvidia"
    base = _pool(name="general", requirements=_families("m5")) + _pool(name="gpu", labels=label) + WORKLOAD
    head = _pool(name="general", requirements=_families("m5")) + _pool(name="gpu") + WORKLOAD
    got = _change(base, head, catalog, name="gpu")
    assert got["workloads"] == {"unschedulable": [{
        "workload": "Deployment/ml/trainer", "file": "k8s/pools.yaml", "line": 33,
        "why": "NodePool `gpu` no longer can: incompatible requirements, label \"accelerator\" does not have known "
               "values; closest now: NodePool `general`: incompatible requirements, label \"accelerator\" does not "
               "have known values"}], "schedulable": []}
    assert got["types_before"] == got["types_after"] == 8 and got["lost"] == []  # (a custom label removes no type)
    assert got["summary"] == "1 workload no longer schedulable"
    # the other pool did not change what it hosts: nothing to say about it
    assert _change(base, head, catalog, name="general") is None


def test_a_workload_gains_a_nodepool(catalog):
    taint = "\n      taints:\n        - {key: dedicated, value: gpu, effect: NoSchedule}"
    label = "\n        accelerator: nvidia"
    base = _pool(name="gpu", labels=label, taints=taint) + WORKLOAD
    head = _pool(name="gpu", labels=label) + WORKLOAD
    got = _change(base, head, catalog, name="gpu")
    assert got["workloads"]["schedulable"] == [{
        "workload": "Deployment/ml/trainer", "file": "k8s/pools.yaml", "line": 19,
        "why": "NodePool `gpu` can host it now; before, no NodePool could (closest: NodePool `gpu`: did not "
               "tolerate taint `dedicated=gpu:NoSchedule`)"}]
    assert got["workloads"]["unschedulable"] == [] and got["types_before"] == got["types_after"] == 8
    assert got["summary"] == "1 workload newly schedulable"


def test_an_added_pool_hosts_what_nothing_hosted(catalog):
    label = "\n        accelerator: nvidia"
    base = _pool(name="general") + WORKLOAD
    head = _pool(name="general") + _pool(name="gpu", labels=label, requirements=_families("g4dn")) + WORKLOAD
    got = _change(base, head, catalog, name="gpu")
    assert (got["types_before"], got["types_after"]) == (None, 1)
    assert got["workloads"]["schedulable"][0]["why"] == (
        "NodePool `gpu` can host it now; before, no NodePool could (closest: NodePool `general`: incompatible "
        "requirements, label \"accelerator\" does not have known values)")
    assert got["summary"] == "new NodePool: 1 instance type; 1 workload newly schedulable"


def test_unchanged_capacity_is_none(catalog):
    reqs = _families("c5", "m5")
    # weight is behavioural; the requirements reordered are the same set
    base = _pool(requirements=reqs + "\n        - {key: kubernetes.io/arch, operator: In, values: [amd64]}",
                 extra="  weight: 10\n")
    head = _pool(requirements="\n        - {key: kubernetes.io/arch, operator: In, values: [amd64]}" + reqs,
                 extra="  weight: 50\n")
    assert _change(base, head, catalog) is None
    assert _change(base, base, catalog) is None


def test_a_templated_side_is_unknown_never_guessed(catalog):
    templated = "\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: ['{{ .Values.family }}']}"
    got = _change(_pool(requirements=_families("m5")), _pool(requirements=templated), catalog)
    assert got["types_before"] == 2 and got["types_after"] is None and got["lost"] == []
    assert got["types_unknown"] == "after: a requirement is templated"
    assert got["summary"] == "instance types cannot be told (after: a requirement is templated)"
    # templated on both sides and the same: nothing changed about it
    assert _change(_pool(requirements=templated, extra="  weight: 1\n"), _pool(requirements=templated), catalog) is None


def test_a_removed_pool_leaves_its_workload_without_a_nodepool(catalog):
    label = "\n        accelerator: nvidia"
    base = _pool(name="gpu", labels=label, extra="  limits:\n    nvidia.com/gpu: 8\n") + WORKLOAD
    got = _change(base, WORKLOAD, catalog, name="gpu")
    assert (got["types_before"], got["types_after"]) == (8, None)
    assert got["limits"] == {"before": {"nvidia.com/gpu": 8}, "after": None, "changes": [],
                             "source": got["limits"]["source"]}
    assert got["workloads"]["unschedulable"] == [{
        "workload": "Deployment/ml/trainer", "file": "k8s/pools.yaml", "line": 4,
        "why": "NodePool `gpu`, which could host it, is removed; no NodePool is left"}]
    assert got["summary"] == "NodePool removed: its 8 instance types no longer launched by it; 1 workload no longer " \
                             "schedulable"


def test_a_workload_that_changed_itself_is_named_with_a_behavioural_pool_change(catalog):
    moved = WORKLOAD.replace("accelerator: nvidia", "accelerator: tpu")
    label = "\n        accelerator: nvidia"
    got = _change(_pool(name="gpu", labels=label, extra="  weight: 1\n") + WORKLOAD,
                  _pool(name="gpu", labels=label, extra="  weight: 2\n") + moved, catalog, name="gpu")
    assert got["types_before"] == got["types_after"] == 8 and got["gained_count"] == got["lost_count"] == 0
    assert got["workloads"]["unschedulable"][0]["why"] == (
        "NodePool `gpu` no longer can: incompatible requirements, key accelerator, accelerator In [tpu] not in "
        "accelerator In [nvidia] (its own node selection, tolerations or requests changed too)")


def test_a_pool_that_hosts_as_before_asks_only_the_changed_workloads(catalog, monkeypatch):
    import karplint.diff.capacity as capacity

    asked = []
    real = capacity.host
    monkeypatch.setattr(capacity, "host", lambda pod, *a, **k: asked.append(pod.res.name) or real(pod, *a, **k))
    other = WORKLOAD.replace("name: trainer", "name: other")
    base = _pool(name="gpu", extra="  weight: 1\n") + WORKLOAD + other
    head = _pool(name="gpu", extra="  weight: 2\n") + WORKLOAD.replace("cpu: \"1\"", "cpu: \"2\"") + other
    assert _change(base, head, catalog, name="gpu") is None
    assert asked == ["trainer", "trainer"]  # (its base and head pods on the pool; `other` is not asked)


def test_a_spent_budget_says_what_was_not_checked(catalog, monkeypatch):
    import karplint.diff.capacity as capacity
    from karplint.provisioning.placement import PlacementBudget

    monkeypatch.setattr(capacity, "PlacementBudget", lambda: PlacementBudget(1))
    label = "\n        accelerator: nvidia"
    got = _change(_pool(name="gpu", labels=label) + WORKLOAD, _pool(name="gpu") + WORKLOAD, catalog, name="gpu")
    assert got["workloads"] == {"unschedulable": [], "schedulable": [], "unknown": (
        "not every workload was checked: too large (over karplint's budget of 1 pod-NodePool verdicts per rule and "
        "run)")}
    assert got["summary"] == ("workloads: not every workload was checked: too large (over karplint's budget of 1 "
                              "pod-NodePool verdicts per rule and run)")


def test_a_static_pool_is_not_simulated(catalog):
    label = "\n        accelerator: nvidia"
    static = _pool(name="fixed", extra="  replicas: 3\n")
    got = _change(static + _pool(name="gpu", labels=label) + WORKLOAD,
                  static + _pool(name="gpu", requirements=_families("m5"), labels=label) + WORKLOAD, catalog,
                  name="gpu")
    assert (got["types_before"], got["types_after"]) == (8, 2)
    assert got["workloads"] == {"unschedulable": [], "schedulable": [], "unknown": (
        "the base side has NodePools karplint does not simulate (static, or past a budget): whether a workload has "
        "a NodePool there cannot be told")}
    got = _change(_pool(name="fixed", extra="  replicas: 3\n"), _pool(name="fixed", extra="  replicas: 4\n"), catalog,
                  name="fixed")
    assert got is None  # (its instance type is the cloud provider's choice, on both sides: nothing to compare)


def test_host_any_type_gives_the_full_verdict(catalog):
    from karplint.provisioning.simulate import simulate_pools
    from karplint.provisioning.pods import read_pod
    from karplint.provisioning.workloads import daemons, host

    daemonset = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec:
      containers: [{name: a, image: a, resources: {requests: {cpu: "{{ .cpu }}"}}}]
---
"""
    big = WORKLOAD.replace("name: trainer", "name: big").replace('cpu: "1"', 'cpu: "30"')
    model = _model(_pool(name="gpu", labels="\n        accelerator: nvidia") + WORKLOAD + big)
    pods = [read_pod(r) for r in model.workloads()]
    fast_pool, full_pool = simulate_pools(model, catalog)[0], simulate_pools(model, catalog)[0]  # (two memos)
    for pod in pods:
        fast, full = host(pod, fast_pool, [], any_type=True), host(pod, full_pool, [])
        assert (fast.ok, fast.stage, fast.reason) == (full.ok, full.stage, full.reason)
    assert [host(p, fast_pool, [], any_type=True).ok for p in pods] == [True, False]
    assert host(pods[0], fast_pool, [], any_type=True).types == ["c5.large"]
    assert len(host(pods[0], full_pool, []).types) == 8
    # a DaemonSet whose requests cannot be read: "cannot tell", as the full search says, although a type fits
    with_ds = _model(_pool(name="gpu", labels="\n        accelerator: nvidia") + WORKLOAD + daemonset)
    pools = simulate_pools(with_ds, catalog)
    pods = [read_pod(r) for r in with_ds.workloads()]
    ds = daemons(pods)
    full, fast = host(pods[0], pools[0], ds), host(pods[0], pools[0], ds, any_type=True)
    assert full.ok is None and (fast.ok, fast.reason) == (None, full.reason)


def test_real_history_on_demand_removed_from_a_spot_pool():
    # aws-samples/karpenter-blueprints commit 4f96f68 (MIT-0; excerpts and attribution in the fixtures): the
    # `node-spot` pool stops allowing on-demand. Same instance types, on-demand capacity gone; its workload (which
    # tolerates the pool's taint and selects its label) is hosted on both sides.
    fixtures = REPO / "tests/fixtures/diff/capacity"
    base = _model((fixtures / "od-spot-split-base.yaml").read_text(), "blueprints/od-spot-split/od-spot.yaml")
    head = _model((fixtures / "od-spot-split-head.yaml").read_text(), "blueprints/od-spot-split/od-spot.yaml")
    pair = Pair("NodePool", "node-spot", None, next(base.nodepools()), next(head.nodepools()))
    got = capacity_change(pair, base_model=base, head_model=head, catalog=load(), base_release=None, release=None)
    assert (got["types_before"], got["types_after"], got["gained_count"], got["lost_count"]) == (714, 714, 0, 0)
    assert got["capacity_types_lost"] == ["on-demand"] and got["capacity_types_gained"] == []
    assert got["limits"] is None and got["workloads"] is None
    assert got["summary"] == "714 instance types (on-demand capacity lost)"
