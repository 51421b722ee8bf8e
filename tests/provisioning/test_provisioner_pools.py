"""KPL910 on v1alpha5 Provisioners, at the releases that serve them: simulated like NodePools from `spec`."""

from __future__ import annotations

from karplint.testing import lint

PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
{labels}  requirements:
    - key: node.kubernetes.io/instance-type
      operator: In
      values: ["m5.large", "m5.xlarge"]
  taints:
    - {{key: dedicated, value: batch, effect: NoSchedule}}
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
      nodeSelector:
        workload: batch
      tolerations:
        - {{key: dedicated, operator: Exists}}
      containers:
        - name: worker
          image: busybox
          resources:
            requests:
              cpu: "{cpu}"
"""
LABELLED = "  labels:\n    workload: batch\n"


def _found(provisioner: str, cpu: str = "1", version: str | None = "0.27.5"):
    files = {"pool.yaml": provisioner, "app.yaml": WORKLOAD.format(cpu=cpu)}
    return [f for f in lint(files, karpenter_version=version) if f.code in ("KPL910", "KPL912")]


def test_a_provisioner_that_sets_the_label_hosts_the_pods():
    assert _found(PROVISIONER.format(labels=LABELLED, extra="")) == []


def test_a_provisioner_without_the_label_is_named_in_kpl910():
    found = _found(PROVISIONER.format(labels="", extra=""))
    assert [(f.code, f.severity, f.line, f.column) for f in found] == [("KPL910", "warning", 4, 9)]
    assert found[0].message.startswith(
        "Deployment `worker`: no NodePool or Provisioner of the checked files can give its pods a node\n"
        "help: closest is Provisioner `default`: incompatible requirements, label \"workload\" does not have known "
        "values")
    assert _found(PROVISIONER.format(labels="", extra=""), version=None) == []  # (1.14.1 does not serve v1alpha5)


def test_its_types_and_limits_bound_the_pods():
    assert [f.code for f in _found(PROVISIONER.format(labels=LABELLED, extra=""), cpu="6")] == ["KPL910"]
    limited = PROVISIONER.format(labels=LABELLED, extra="  limits:\n    resources:\n      cpu: 2\n")
    found = _found(limited, cpu="3")  # (m5.xlarge has 4 vCPUs: over the limit of 2; m5.large is too small)
    assert [f.code for f in found] == ["KPL910"]
    assert _found(limited, cpu="1") == []


def test_kubelet_settings_leave_its_resources_unjudged():
    tuned = PROVISIONER.format(labels=LABELLED, extra="  kubeletConfiguration:\n    maxPods: 20\n")
    assert _found(tuned, cpu="6") == []
