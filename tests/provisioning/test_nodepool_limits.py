"""NodePool `spec.limits` in the pool simulation (issue 26): Karpenter drops the instance types whose capacity
exceeds what the limits leave before it tries a pod (kubernetes-sigs/karpenter
pkg/controllers/provisioning/scheduling/scheduler.go@v1.14.1#L716, `filterByRemainingResources` #L1069); with no
node yet, what they leave is the limits themselves ("should schedule if limits would be met",
pkg/controllers/provisioning/suite_test.go@v1.14.1#L765; "should not schedule if limits would be exceeded", #L832)."""

from __future__ import annotations

import json

import pytest

from karplint.provisioning.catalog import ExtraTypesError, extend, load
from karplint.testing import codes, lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: c}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: c}
  amiSelectorTerms:
    - alias: al2023@v20240807
"""
FAMILY_M5 = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}\n"


def nodepool(limits: str, requirements: str = FAMILY_M5) -> str:
    return ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n"
            f"  limits:\n{limits}  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n"
            "        kind: EC2NodeClass\n        name: default\n      requirements:\n" + requirements)


def deployment(requests: str) -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n"
            "  selector: {matchLabels: {app: app}}\n  template:\n    metadata: {labels: {app: app}}\n"
            "    spec:\n      nodeSelector:\n        karpenter.sh/nodepool: general\n"
            "      containers:\n        - name: c\n          image: nginx\n"
            f"          resources: {{requests: {requests}}}\n")


def run(files: dict[str, str]):
    return [f for f in lint({"nodeclass.yaml": NODECLASS, **files}) if f.code.startswith("KPL9")]


def test_a_pod_fits_only_types_above_the_cpu_limit():
    """m5.2xlarge (8 vCPUs) would take 6 cpu, but a `cpu: 4` limit leaves m5.large and m5.xlarge (2 and 4
    vCPUs of capacity: equal to the limit still fits), too small for it. Before: no finding (limits ignored)."""
    found = run({"pool.yaml": nodepool("    cpu: 4\n"), "app.yaml": deployment("{cpu: 6}")})
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].file.endswith("app.yaml")
    assert found[0].message.split("\n")[1].startswith(
        "help: closest is NodePool `general`: requests cpu 6, more than any of its 2 compatible instance types "
        "within its limits offers (largest: m5.xlarge with ")


def test_the_same_pod_fits_when_the_limit_allows_a_larger_type():
    assert run({"pool.yaml": nodepool("    cpu: 8\n"), "app.yaml": deployment("{cpu: 6}")}) == []
    assert run({"pool.yaml": nodepool("    cpu: 1000\n    nodes: 1\n"), "app.yaml": deployment("{cpu: 6}")}) == []


def test_a_pool_emptied_by_its_limits_is_kpl907s_and_kpl910_says_so():
    """Every m5 type has more than 1 vCPU: KPL907 reports the NodePool, and the workload's KPL910 names the limit
    and KPL907 instead of a resource shortfall."""
    found = run({"pool.yaml": nodepool("    cpu: 1\n"), "app.yaml": deployment("{cpu: 100m}")})
    assert codes(found) == [("KPL910", 4, 9), ("KPL907", 7, 10)]
    assert found[0].message.split("\n")[1] == (
        "help: closest is NodePool `general`: its `cpu` limit (1) is below the capacity of every instance type it "
        "allows (KPL907): Karpenter launches none (\"all available instance types exceed limits for nodepool\")")


def test_a_gpu_limit_leaves_the_pod_no_type():
    """A pod needing a GPU on a pool of g5 types whose `nvidia.com/gpu` limit is 0 (the GPU variant of #L832,
    suite_test.go@v1.14.1#L847): every type has at least one GPU."""
    reqs = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}\n"
    found = run({"pool.yaml": nodepool("    nvidia.com/gpu: 0\n", reqs),
                 "app.yaml": deployment("{cpu: 1}").replace("requests:", "limits: {nvidia.com/gpu: 1}, requests:")})
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].message.split("\n")[1] == (
        "help: closest is NodePool `general`: its `nvidia.com/gpu` limit is 0: it launches no node")


def test_simulate_lists_only_the_types_under_the_limits(tmp_path):
    """`karplint simulate` answers from the same code: the pod lands on the types within the limit only (before:
    every m5 type)."""
    from karplint.testing import run_cli

    (tmp_path / "nodeclass.yaml").write_text(NODECLASS)
    (tmp_path / "pool.yaml").write_text(nodepool("    cpu: 4\n"))
    (tmp_path / "app.yaml").write_text(deployment("{cpu: 1}"))
    proc = run_cli("simulate", "--output-format", "json", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (workload,) = data["workloads"]
    # (m5.large and m5.xlarge: 2 and 4 vCPUs; the eight larger m5 types are over the limit)
    assert workload["nodepools"] == [{"nodepool": "general", "ok": True, "reason": None, "instance_types": 2}]


def test_a_catalog_entry_may_give_its_capacity():
    cat = extend(load(), {"x1.test": {"labels": {"kubernetes.io/arch": "amd64"}, "allocatable": {"cpu": "1900m"},
                                      "capacity": {"cpu": "2"}}})
    assert cat.types["x1.test"].capacity == {"cpu": "2"}
    with pytest.raises(ExtraTypesError, match="`capacity` has no resource `cpus`; did you mean `cpu`"):
        extend(load(), {"x1.test": {"allocatable": {"cpu": "1"}, "capacity": {"cpus": "2"}}})


def test_a_pod_pinned_to_a_type_over_the_limit():
    """The NodePool still launches m5.large and m5.xlarge under `cpu: 4` (no KPL907), but the pod pins m5.2xlarge
    (8 vCPUs): Karpenter drops it before trying the pod."""
    app = deployment("{cpu: 1}").replace(
        "karpenter.sh/nodepool: general\n", "karpenter.sh/nodepool: general\n"
        "        node.kubernetes.io/instance-type: m5.2xlarge\n")
    found = run({"pool.yaml": nodepool("    cpu: 4\n"), "app.yaml": app})
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].message.split("\n")[1] == (
        "help: closest is NodePool `general`: every instance type that meets the pod's requirements has more `cpu` "
        "capacity than the NodePool's limit (4): Karpenter launches none for it (\"all available instance types "
        "exceed limits for nodepool\")")
