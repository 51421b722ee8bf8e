"""Rules grown from the disruption reports of Karpenter's trackers (tests/trackers/): Cluster Autoscaler's eviction
annotation (KPL429) and Provisioners with both ttlSecondsAfterEmpty and consolidation (KPL430)."""

from __future__ import annotations

from karplint.testing import codes, lint

ONLY = {"select": ["KPL429", "KPL430"]}

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
"""

TAINTED_NODEPOOL = NODEPOOL.replace("requirements: []", "requirements: []\n      taints: [{key: gpu, effect: NoSchedule}]")


def workload(kind: str = "Deployment", annotations: str = 'cluster-autoscaler.kubernetes.io/safe-to-evict: "false"'):
    api = {"Deployment": "apps/v1", "DaemonSet": "apps/v1", "Job": "batch/v1"}[kind]
    return f"""\
apiVersion: {api}
kind: {kind}
metadata: {{name: worker}}
spec:
  selector:
    matchLabels: {{app: worker}}
  template:
    metadata:
      labels: {{app: worker}}
      annotations:
        {annotations}
    spec:
      containers: [{{name: worker, image: example/worker:1}}]
"""


def test_safe_to_evict_alone_is_reported_on_the_annotation():
    found = lint({"np.yaml": NODEPOOL, "w.yaml": workload()}, config=ONLY)
    assert codes(found) == [("KPL429", 11, 9)]
    assert found[0].severity == "warning"
    assert 'karpenter.sh/do-not-disrupt: "true"' in found[0].message


def test_safe_to_evict_on_a_job_is_reported():
    assert codes(lint({"np.yaml": NODEPOOL, "w.yaml": workload("Job")}, config=ONLY)) == [("KPL429", 11, 9)]


def test_safe_to_evict_with_do_not_disrupt_is_fine():
    both = 'cluster-autoscaler.kubernetes.io/safe-to-evict: "false"\n        karpenter.sh/do-not-disrupt: "true"'
    assert lint({"np.yaml": NODEPOOL, "w.yaml": workload(annotations=both)}, config=ONLY) == []


def test_safe_to_evict_true_is_not_reported():
    ok = 'cluster-autoscaler.kubernetes.io/safe-to-evict: "true"'
    assert lint({"np.yaml": NODEPOOL, "w.yaml": workload(annotations=ok)}, config=ONLY) == []


def test_without_a_nodepool_in_the_run_nothing_is_said():
    assert lint({"w.yaml": workload()}, config=ONLY) == []


def test_daemonset_is_not_reported():
    assert lint({"np.yaml": NODEPOOL, "w.yaml": workload("DaemonSet")}, config=ONLY) == []


def test_pod_that_cannot_land_on_any_nodepool_is_not_reported():
    assert lint({"np.yaml": TAINTED_NODEPOOL, "w.yaml": workload()}, config=ONLY) == []


PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {{name: default}}
spec:
  consolidation:
    enabled: {enabled}
  {ttl}
  providerRef: {{name: default}}
"""


def test_ttl_after_empty_with_consolidation_is_rejected():
    found = lint(PROVISIONER.format(enabled="true", ttl="ttlSecondsAfterEmpty: 0"), config=ONLY,
                 karpenter_version="0.31.0")
    assert codes(found) == [("KPL430", 7, 3)]
    assert found[0].severity == "error"


def test_ttl_after_empty_without_consolidation_is_fine():
    assert lint(PROVISIONER.format(enabled="false", ttl="ttlSecondsAfterEmpty: 30"), config=ONLY,
                karpenter_version="0.31.0") == []


def test_consolidation_without_ttl_after_empty_is_fine():
    assert lint(PROVISIONER.format(enabled="true", ttl="weight: 1"), config=ONLY, karpenter_version="0.31.0") == []


KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-karpenter-donot-evict
spec:
  rules:
  - name: do-not-evict-jobs
    match:
      any:
      - resources:
          kinds: [Job]
    mutate:
      patchStrategicMerge:
        spec:
          template:
            metadata:
              annotations:
                {key}: "true"
"""
REMOVED = {"select": ["KPL811"]}


def test_kyverno_policy_adding_do_not_evict_is_reported_on_v1():
    found = lint(KYVERNO.format(key="karpenter.sh/do-not-evict"), config=REMOVED, karpenter_version="1.1.2")
    assert codes(found) == [("KPL811", 18, 17)]
    assert "Kyverno policy" in found[0].message and found[0].fix is None


def test_kyverno_anchor_is_read():
    found = lint(KYVERNO.format(key="+(karpenter.sh/do-not-evict)"), config=REMOVED, karpenter_version="1.1.2")
    assert codes(found) == [("KPL811", 18, 17)]


def test_kyverno_policy_before_v1_is_fine():
    assert lint(KYVERNO.format(key="karpenter.sh/do-not-evict"), config=REMOVED, karpenter_version="0.37.0") == []


def test_kyverno_policy_adding_do_not_disrupt_is_fine():
    assert lint(KYVERNO.format(key="karpenter.sh/do-not-disrupt"), config=REMOVED, karpenter_version="1.1.2") == []


def test_pod_pinned_to_a_node_group_is_not_reported():
    pinned = workload().replace("    spec:\n      containers:",
                                "    spec:\n      nodeSelector: {eks.amazonaws.com/nodegroup: workers}\n      containers:")
    assert "nodegroup" in pinned
    assert lint({"np.yaml": NODEPOOL, "w.yaml": pinned}, config=ONLY) == []


def test_pod_pinned_by_affinity_to_a_node_group_is_not_reported():
    pinned = workload().replace("    spec:\n      containers:", """    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: eks.amazonaws.com/nodegroup, operator: In, values: [workers]}
      containers:""")
    assert "matchExpressions" in pinned
    assert lint({"np.yaml": NODEPOOL, "w.yaml": pinned}, config=ONLY) == []
