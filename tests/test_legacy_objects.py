"""Legacy objects (a `karpenter.sh/v1alpha5` Provisioner, a `karpenter.k8s.aws/v1alpha1` AWSNodeTemplate) are
checked by the content rules whose findings are true of their API, when the target release serves them (up to
0.32); at a target that does not, KPL801 reports them and nothing else guesses which release reads them."""

from __future__ import annotations

import pytest

from karplint.testing import lint

# aws/karpenter-provider-aws @ 2bd348a6e469dbfa82d19cbfa7af722d1b93f754 (Apache-2.0),
# examples/provisioner/launchtemplates/custom-family.yaml lines 17-42 (the AWSNodeTemplate): the upstream example
# writes `--kubelet-extra-args='--node-labels=foo=bar'`, which bootstrap.sh keeps as an ignored positional.
CUSTOM_FAMILY = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: custom-family
spec:
  amiFamily: Custom
  instanceProfile: myInstanceProfile
  subnetSelector:
    karpenter.sh/discovery: my-cluster
  securityGroupSelector:
    karpenter.sh/discovery: my-cluster
  amiSelector:
    aws-ids: ami-123,ami456
  userData: |
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="BOUNDARY"

    --BOUNDARY
    Content-Type: text/x-shellscript; charset="us-ascii"

    #!/bin/bash
    echo "Running my custom set-up"

    /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--node-labels=foo=bar'

    --BOUNDARY--
"""

BOTTLEROCKET = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: bottlerocket
spec:
  amiFamily: Bottlerocket
  subnetSelector:
    karpenter.sh/discovery: my-cluster
  securityGroupSelector:
    karpenter.sh/discovery: my-cluster
  userData: |
    [settings.kubernetes
    max-pods = 110
"""

# No amiFamily: v1alpha1 defaults to AL2 (aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go@v0.31.4
# GetAMIFamily), whose MIME userData Karpenter itself parses to merge its own part: a malformed part is an error
# (for a family whose userData Karpenter passes verbatim it would be a warning).
AL2_DEFAULT = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: al2
spec:
  subnetSelector:
    karpenter.sh/discovery: my-cluster
  securityGroupSelector:
    karpenter.sh/discovery: my-cluster
  userData: |
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="BOUNDARY"

    --BOUNDARY
    Content-Type: text/x-shellscript; charset="us-ascii"
    #!/bin/bash
    /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=dedicated=gpu:NoSchedul'

    --BOUNDARY--
"""

PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["spot", "on-demand", "spott"]
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["Spot"]
  providerRef:
    name: default
"""


def _got(text, version, codes):
    return [(f.code, f.severity, f.line, f.column) for f in lint({"legacy.yaml": text}, karpenter_version=version)
            if f.code in codes]


def test_awsnodetemplate_shell_userdata_is_checked_at_a_release_that_serves_it():
    assert _got(CUSTOM_FAMILY, "0.31.0", ("KPL201",)) == [("KPL201", "error", 24, 38)]


def test_awsnodetemplate_bottlerocket_toml_is_checked_at_a_release_that_serves_it():
    assert _got(BOTTLEROCKET, "0.31.0", ("KPL240",)) == [("KPL240", "error", 12, 25)]
    f = next(f for f in lint({"legacy.yaml": BOTTLEROCKET}, karpenter_version="0.32.10") if f.code == "KPL240")
    assert f.message.startswith("userData is not valid TOML\n")


def test_awsnodetemplate_without_amifamily_is_read_as_al2():
    findings = [f for f in lint({"legacy.yaml": AL2_DEFAULT}, karpenter_version="0.31.0") if f.code == "KPL210"]
    assert [(f.severity, f.line, f.column) for f in findings] == [("error", 16, 5)]
    assert findings[0].message.endswith("note: Karpenter cannot merge this userData and fails to launch nodes for "
                                        "this AWSNodeTemplate")


def test_rules_that_describe_the_v1_layout_stay_silent_on_legacy_objects():
    # (KPL208 names NodePool and EC2NodeClass fields, none of which 0.31 had)
    assert _got(AL2_DEFAULT, "0.31.0", ("KPL208",)) == []


def test_awsnodetemplate_al2_userdata_calling_bootstrap_is_a_double_bootstrap():
    # Every release serving v1alpha1 appends its own bootstrap.sh part after the user's
    # (aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/eksbootstrap.go@v0.29.2); aws#4740.
    assert _got(AL2_DEFAULT, "0.31.0", ("KPL207",)) == [("KPL207", "error", 17, 5)]
    f = next(f for f in lint({"legacy.yaml": AL2_DEFAULT}, karpenter_version="0.31.0") if f.code == "KPL207")
    assert f.message.splitlines()[1:] == [
        "help: remove the call; set kubelet options in the Provisioner's spec.kubeletConfiguration, or edit "
        "kubelet-config.json with jq",
        "note: the first kubelet start registers the node without Karpenter's settings (the Provisioner's labels, "
        "taints and max-pods)"]


# aws/karpenter-provider-aws#4708 (reduced): Custom with a Bottlerocket AMI by name and no userData.
CUSTOM_BOTTLEROCKET_NO_USERDATA = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: aws
spec:
  amiFamily: Custom
  amiSelector:
    aws::owners: "amazon"
    aws::name: "bottlerocket-aws-k8s-1.24-*-v1.14*"
"""


def test_awsnodetemplate_custom_eks_ami_without_userdata():
    assert _got(CUSTOM_BOTTLEROCKET_NO_USERDATA, "0.31.0", ("KPL262",)) == [("KPL262", "error", 9, 16)]
    assert _got(CUSTOM_BOTTLEROCKET_NO_USERDATA, None, ("KPL262",)) == []
    with_userdata = CUSTOM_BOTTLEROCKET_NO_USERDATA + "  userData: |\n    [settings.kubernetes]\n"
    assert _got(with_userdata, "0.31.0", ("KPL262",)) == []


@pytest.mark.parametrize("version", [None, "1.14.1"])
def test_legacy_objects_are_not_judged_at_a_release_that_does_not_serve_them(version):
    codes = ("KPL201", "KPL204", "KPL210", "KPL240", "KPL143")
    for text in (CUSTOM_FAMILY, BOTTLEROCKET, AL2_DEFAULT, PROVISIONER):
        assert _got(text, version, codes) == []


def test_provisioner_capacity_type_values_are_checked_at_a_release_that_serves_them():
    findings = [f for f in lint({"legacy.yaml": PROVISIONER}, karpenter_version="0.31.0") if f.code == "KPL143"]
    assert [(f.severity, f.line, f.column) for f in findings] == [("warning", 9, 37), ("error", 12, 15)]
    assert findings[0].message == ("'spott' is not a karpenter.sh/capacity-type value\nhelp: use one of on-demand, "
                                   "spot\nnote: no instance type offers it, so it never matches")
    assert findings[1].message.endswith("note: no instance type offers it, so Karpenter 0.31.0 launches no node "
                                        "from this Provisioner")


def test_capacity_type_consequence_before_known_values_were_validated():
    # kubernetes-sigs/karpenter pkg/apis/v1/labels.go: HasKnownValues exists from v1.5.0, not at v1.4.0.
    nodepool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\nspec:\n  template:\n    spec:\n"
                "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n"
                "      requirements:\n        - key: karpenter.sh/capacity-type\n          operator: In\n"
                "          values: [spott]\n")
    old = next(f for f in lint(nodepool, karpenter_version="1.4.0") if f.code == "KPL143")
    new = next(f for f in lint(nodepool, karpenter_version="1.5.0") if f.code == "KPL143")
    assert old.message.endswith("note: no instance type offers it, so Karpenter 1.4.0 launches no node from this "
                                "NodePool")
    assert new.message.endswith("note: Karpenter sets ValidationSucceeded=False and provisions nothing from this "
                                "NodePool")


def test_v1_disruption_expire_after_says_what_is_lost():
    # kubernetes-sigs/karpenter pkg/apis/v1/nodepool_conversion.go@v1.0.0#L143 converts a v1beta1 NodePool's
    # disruption.expireAfter; a v1 NodePool with it loses it (pruned, or rejected by kubectl).
    text = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\nspec:\n  disruption:\n"
            "    consolidationPolicy: WhenEmpty\n    consolidateAfter: 30s\n    expireAfter: Never\n  template:\n"
            "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n"
            "      requirements: []\n")
    found = [f for f in lint(text, karpenter_version="1.0.0") if f.code == "KPL105"]
    assert [(f.severity, f.line, f.column) for f in found] == [("error", 9, 5)]
    assert found[0].message.endswith(
        "note: kubectl refuses the NodePool (unknown field); a client that does not ask for strict field validation "
        "gets the field pruned without an error, and the nodes expire after spec.template.spec.expireAfter (720h "
        "when unset) instead")
    v1beta1 = text.replace("karpenter.sh/v1\n", "karpenter.sh/v1beta1\n", 1).replace(
        "{group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}", "{name: a}")
    assert [f.code for f in lint(v1beta1, karpenter_version="1.0.0") if f.code in ("KPL105", "KPL801")] == []
