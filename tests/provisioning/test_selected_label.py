"""KPL912: a workload selecting a custom node label that no NodePool (or served Provisioner) sets or allows."""

from __future__ import annotations

from karplint.testing import lint

POOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
{meta}spec:
  template:
{template}    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
{extra}"""

WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  selector:
    matchLabels: {{app: worker}}
  template:
    metadata:
      labels: {{app: worker}}
    spec:
{placement}      containers:
        - name: worker
          image: busybox
"""

SELECTS = "      nodeSelector:\n        workload: batch\n"


def _found(pool: str, placement: str = SELECTS, **kw):
    files = {"pool.yaml": pool, "app.yaml": WORKLOAD.format(placement=placement)}
    return [(f.code, f.severity, f.file, f.line, f.column) for f in lint(files, **kw)
            if f.code in ("KPL910", "KPL912")]


def _pool(meta="", template="", extra=""):
    return POOL.format(meta=meta, template=template, extra=extra)


def test_label_no_nodepool_sets_is_info_on_the_workload():
    found = lint({"pool.yaml": _pool(), "app.yaml": WORKLOAD.format(placement=SELECTS)})
    mine = [f for f in found if f.code == "KPL912"]
    assert [(f.severity, f.file, f.line, f.column) for f in mine] == [("info", "app.yaml", 4, 9)]
    assert mine[0].message.startswith(
        "Deployment `worker` selects node label `workload`, which no NodePool sets\n"
        "help: to have Karpenter launch nodes for it, set `workload` in a NodePool's spec.template.metadata.labels")


def test_label_in_the_nodepool_objects_own_labels_is_a_warning():
    found = lint({"pool.yaml": _pool(meta="  labels:\n    workload: batch\n"),
                  "app.yaml": WORKLOAD.format(placement=SELECTS)})
    mine = [f for f in found if f.code == "KPL912"]
    assert [(f.severity, f.line) for f in mine] == [("warning", 4)]
    assert "help: NodePool `default` has `workload` in its own metadata.labels" in mine[0].message


def test_label_set_or_allowed_by_a_nodepool_is_not_reported():
    assert _found(_pool(template="    metadata:\n      labels: {workload: batch}\n")) == []
    assert _found(_pool(extra="        - key: workload\n          operator: Exists\n")) == []


def test_pods_with_an_alternative_free_of_custom_labels_are_not_reported():
    either = ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
              "            nodeSelectorTerms:\n"
              "              - matchExpressions: [{key: workload, operator: In, values: [batch]}]\n"
              "              - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n")
    assert _found(_pool(), either) == []
    not_in = ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
              "            nodeSelectorTerms:\n"
              "              - matchExpressions: [{key: workload, operator: NotIn, values: [batch]}]\n")
    assert _found(_pool(), not_in) == []


def test_templated_requirement_keys_say_nothing():
    assert _found(_pool(extra="        - key: ${label_key}\n          operator: Exists\n")) == []


def test_pods_tolerating_a_nodepool_taint_are_kpl910s():
    tainted = _pool(extra="      taints:\n        - {key: dedicated, value: batch, effect: NoSchedule}\n")
    tolerates = SELECTS + "      tolerations:\n        - {key: dedicated, operator: Exists}\n"
    assert [c for c, *_ in _found(tainted, tolerates)] == ["KPL910"]


def test_karpenter_only_clusters_leave_it_to_kpl910():
    assert [c for c, *_ in _found(_pool(), config={"cluster": {"karpenter-only": True}})] == ["KPL910"]


PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
{labels}  requirements:
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["spot"]
  taints:
    - {{key: dedicated, value: batch, effect: NoSchedule}}
"""


def test_provisioners_count_at_the_releases_that_serve_them():
    bare = PROVISIONER.format(labels="")
    assert _found(bare, SELECTS, karpenter_version="0.27.5") == [("KPL912", "info", "app.yaml", 4, 9)]
    assert _found(bare, SELECTS) == []  # (not served by the default release: no pool to judge against)


def test_pods_selecting_other_capacity_on_purpose_are_left_alone():
    for key in ("eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name", "node-role.kubernetes.io/worker",
                "karpenter.sh/provisioner-name"):
        assert _found(_pool(), f"      nodeSelector:\n        {key}: core\n") == [], key
