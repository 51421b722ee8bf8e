"""One pod of a workload: requests as Karpenter sums them, node selection terms, hosting verdicts."""

from __future__ import annotations

from fractions import Fraction

from karplint.model import Model
from karplint.provisioning import quantity
from karplint.provisioning.catalog import labels_from_name, load
from karplint.provisioning.simulate import simulate
from karplint.provisioning.pods import pod_requests, pod_terms
from karplint.provisioning.placement import tolerates
from karplint.readers import loader


def _model(text: str) -> Model:
    docs, _ = loader.load(loader.decode("t.yaml", text.encode()))
    m = Model()
    m.add(docs)
    return m


def test_quantities():
    assert quantity.parse("500m") == Fraction(1, 2)
    assert quantity.parse("1.5Gi") == Fraction(3, 2) * 2**30
    assert quantity.parse("2e3") == 2000
    assert quantity.parse(4) == 4
    assert quantity.parse("lots") is None and quantity.parse(True) is None


def test_requests_sum_containers_max_init_add_sidecars_and_overhead():
    spec = {
        "containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
                       {"resources": {"limits": {"cpu": "500m"}}}],  # limits stand in for requests
        "initContainers": [{"resources": {"requests": {"cpu": "4"}}},
                           {"restartPolicy": "Always", "resources": {"requests": {"memory": "512Mi"}}}],
        "overhead": {"cpu": "250m"},
    }
    got = pod_requests(spec)
    assert got["cpu"] == Fraction(17, 4)  # max(1.5, 4) + 0.25
    assert got["memory"] == Fraction(3, 2) * 2**30  # 1Gi + 512Mi sidecar
    assert got["pods"] == 1


def test_unreadable_requests_are_unknown():
    assert pod_requests({"containers": [{"resources": {"requests": {"cpu": "{{ .cpu }}"}}}]}) is None


def test_terms_are_ored_and_carry_the_node_selector():
    spec = {"nodeSelector": {"team": "a"},
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]},
                {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}]}}}}
    terms = pod_terms(spec)
    assert len(terms) == 2 and all(t.has("team") for t in terms)
    assert pod_terms({"nodeSelector": {"k": "${X}"}}) is None


def test_toleration_matching():
    taint = {"key": "gpu", "value": "true", "effect": "NoSchedule"}
    assert tolerates([{"key": "gpu", "operator": "Exists"}], taint)
    assert tolerates([{"operator": "Exists"}], taint)
    assert tolerates([{"key": "gpu", "value": "true"}], taint)
    assert not tolerates([{"key": "gpu", "value": "false"}], taint)
    assert not tolerates([{"key": "gpu", "operator": "Exists", "effect": "NoExecute"}], taint)


POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    spec:
      startupTaints: [{key: agent-not-ready, effect: NoSchedule}]
      taints: [{key: soft, effect: PreferNoSchedule}]
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
"""


def _verdict(pod_spec: str):
    text = POOL + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n" + pod_spec
    run = simulate(_model(text), load())
    return run.workloads[0].verdicts[0]


def test_startup_and_prefer_no_schedule_taints_do_not_block():
    assert _verdict("  containers: [{name: a}]\n").ok is True


def test_requests_against_allocatable():
    assert _verdict("  containers: [{name: a, resources: {requests: {cpu: 1930m}}}]\n").ok is True
    v = _verdict("  containers: [{name: a, resources: {requests: {cpu: 1931m}}}]\n")
    assert v.ok is False and v.reason.startswith("requests cpu 1931m, more than any of its 1 compatible")


def test_custom_label_the_pool_does_not_define():
    v = _verdict("  nodeSelector: {team: a}\n  containers: [{name: a}]\n")
    assert v.ok is False and v.reason == 'incompatible requirements, label "team" does not have known values'


def test_extended_resources():
    v = _verdict("  containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]\n")
    assert v.ok is False and "nvidia.com/gpu" in v.reason


def test_labels_derived_from_a_name():
    got = labels_from_name("c7gn.16xlarge")
    assert got["karpenter.k8s.aws/instance-family"] == "c7gn" and got["karpenter.k8s.aws/instance-size"] == "16xlarge"
    assert got["karpenter.k8s.aws/instance-category"] == "c" and got["karpenter.k8s.aws/instance-generation"] == "7"


def test_resources_no_instance_type_lists_fit_nowhere():
    """Karpenter knows only the resources its provider gives instance types (resources.Fits: the others are 0):
    hugepages and device plugins' resources fit no type (kubernetes-sigs/karpenter#751). `soft`: a node that
    already advertises them may take the pod."""
    v = _verdict("  containers: [{name: a, resources: {limits: {hugepages-2Mi: 1Gi, example.com/fuse: 1}}}]\n")
    assert (v.ok, v.soft) == (False, True)
    assert v.reason == "requests `example.com/fuse`, `hugepages-2Mi`, which no instance type offers to Karpenter"


def test_odd_quantities_are_unknown():
    assert quantity.parse(float("inf")) is None and quantity.parse(float("nan")) is None
    assert quantity.parse(10**40) is None and quantity.parse("1e400") is None


def test_malformed_manifests_end_in_cannot_tell(tmp_path):
    text = POOL + """---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [1, {key: [x]}]
  overhead: {cpu: [1]}
  initContainers: "x"
  containers:
    - resources: {requests: {cpu: .inf}}
    - ports: [{hostPort: "80"}, {hostPort: 80, protocol: [x]}]
"""
    run = simulate(_model(text), load())
    assert run.workloads[0].hostable is None


def test_pods_claiming_devices_through_dra_cannot_be_told():
    """kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/suite_test.go@v1.14.1#L5329: whether
    Karpenter schedules a pod with resource claims depends on its `ignoreDRARequests` setting, not in the files."""
    for spec in ("  resourceClaims: [{name: gpu, resourceClaimName: gpu}]\n  containers: [{name: a}]\n",
                 "  containers: [{name: a, resources: {claims: [{name: gpu}]}}]\n",
                 "  initContainers: [{name: i, resources: {claims: [{name: gpu}]}}]\n  containers: [{name: a}]\n"):
        v = _verdict(spec)
        assert v.ok is None and v.reason.startswith("it claims devices through Dynamic Resource Allocation"), spec
    assert _verdict("  containers: [{name: a, resources: {claims: []}}]\n").ok is True
    # The claims only take nodes away: a pod that fits nowhere without them still fits nowhere.
    v = _verdict("  nodeSelector: {team: a}\n  containers: [{name: a, resources: {claims: [{name: gpu}]}}]\n")
    assert v.ok is False and v.reason == 'incompatible requirements, label "team" does not have known values'


DRA_DAEMON = """---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dra-daemon}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: d, resources: {requests: {cpu: CPU}, claims: [{name: gpu}]}}]
"""


def test_daemonsets_claiming_devices_through_dra():
    """kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/suite_test.go@v1.14.1#L5469: under the
    default `ignoreDRARequests` the DaemonSet pod is left out of the overhead; karplint cannot tell the setting."""
    def verdict(daemon_cpu: str, pod_cpu: str):
        pod = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n"
               "  containers: [{name: a, resources: {requests: {cpu: %s}}}]\n" % pod_cpu)
        text = POOL + DRA_DAEMON.replace("CPU", daemon_cpu) + pod
        run = simulate(_model(text), load())
        return next(w for w in run.workloads if w.pod.res.kind == "Pod").verdicts[0]

    v = verdict("1", "1")  # m5.large: 1930m allocatable, 2 cpu with the DaemonSet counted
    assert v.ok is None and v.reason.startswith("it fits only if Karpenter leaves out the requests of DaemonSet "
                                                "`dra-daemon`, which claims devices")
    assert verdict("500m", "1").ok is True  # fits with it counted
    v = verdict("1", "1931m")  # fits nowhere even without it
    assert v.ok is False and v.reason.startswith("requests cpu 1931m, more than any of its 1 compatible")
