"""KPL914: pods requiring a label Karpenter restricts, which it never provisions for (aws/karpenter-provider-aws#5645:
`karpenter.sh/provisioner-name` after the move to NodePools)."""

from __future__ import annotations

import pytest

from karplint.testing import codes, lint

SELECT = {"select": ["KPL914"]}

PROVISIONER_NAME = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: external-secrets
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - key: karpenter.sh/provisioner-name
                    operator: In
                    values: ["default"]
      containers:
        - name: app
          image: example.com/app:1
"""

NODE_SELECTORS = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker
spec:
  nodeSelector:
    karpenter.sh/initialized: "true"
    node-role.kubernetes.io/worker: ""
    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: spot
    topology.kubernetes.io/zone: us-east-1a
    node.kubernetes.io/instance-type: m5.large
    beta.kubernetes.io/arch: amd64
    kubernetes.io/hostname: ip-10-0-0-1
    kops.k8s.io/instancegroup: nodes
    example.com/team: data
  containers:
    - name: app
      image: example.com/app:1
"""

PREFERRED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capa-controller-manager
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 10
              preference:
                matchExpressions:
                  - key: node-role.kubernetes.io/control-plane
                    operator: Exists
      containers:
        - name: manager
          image: example.com/capa:1
"""

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  template:
    spec:
      nodeSelector:
        karpenter.sh/registered: "true"
      containers:
        - name: agent
          image: example.com/agent:1
"""


def run(text: str, release: str | None):
    return lint({"w.yaml": text}, config=SELECT, karpenter_version=release)


def test_provisioner_name_is_an_error_from_0_33():
    found = run(PROVISIONER_NAME, "0.34.0")
    assert codes(found) == [("KPL914", 13, 26)]
    assert found[0].severity == "error"
    assert found[0].message.startswith("Karpenter 0.34.0 ignores this pod: it requires `karpenter.sh/provisioner-name`")
    assert "never launches a node for it" in found[0].message
    assert "karpenter.sh/nodepool" in found[0].message


def test_provisioner_name_is_fine_while_provisioners_are_served():
    assert run(PROVISIONER_NAME, "0.32.10") == []


def test_no_release_set_or_found_is_information():
    found = run(PROVISIONER_NAME, None)
    assert codes(found) == [("KPL914", 13, 26)]
    assert found[0].severity == "info"


def test_restricted_keys_but_not_well_known_exceptions_or_hostname():
    found = run(NODE_SELECTORS, "1.8.0")
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [
        ("KPL914", 7, 5, "warning"),  # karpenter.sh/initialized
        ("KPL914", 8, 5, "warning"),  # node-role.kubernetes.io/worker
    ]


def test_kubernetes_io_is_not_restricted_from_1_9():
    assert codes(run(NODE_SELECTORS, "1.9.0")) == [("KPL914", 7, 5)]


@pytest.mark.parametrize(("release", "expected"), [("1.4.0", [("KPL914", 14, 26)]), ("1.5.0", [])])
def test_preferred_terms_are_validated_before_1_5(release, expected):
    found = run(PREFERRED, release)
    assert codes(found) == expected
    if expected:
        assert "it prefers `node-role.kubernetes.io/control-plane`" in found[0].message
        assert found[0].severity == "info"  # a preference is legitimate: a limitation of releases before 1.5.0


def test_daemonsets_are_not_karpenters_to_provision_for():
    assert run(DAEMONSET, "1.1.0") == []
