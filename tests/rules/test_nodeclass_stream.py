"""KPL620-KPL626 (the nodeclass stream of issue 29): exact findings, and the releases and shapes they stay quiet on."""

from __future__ import annotations

from karplint.testing import lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - {TERM}
  role: {ROLE}
  subnetSelectorTerms:
    - tags: {{karpenter.sh/discovery: c}}
  securityGroupSelectorTerms:
    - tags: {{karpenter.sh/discovery: c}}
{EXTRA}"""


def _nodeclass(term="alias: al2023@v20240807", role="KarpenterNodeRole", extra=""):
    return NODECLASS.format(TERM=term, ROLE=role, EXTRA=extra)


def _found(files, code, version=None):
    return [(f.line, f.column, f.severity) for f in lint(files, karpenter_version=version) if f.code == code]


LEGACY = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: default
spec:
  launchTemplate: lt
  subnetSelector: {karpenter.sh/discovery: c}
  metadataOptions: {httpTokens: required}
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs: {volumeSize: 2G}
"""


def test_launch_template_conflict_is_ignored_then_rejected():
    assert _found({"t.yaml": LEGACY}, "KPL620", "0.6.1") == [(8, 3, "warning"), (9, 3, "warning")]
    assert _found({"t.yaml": LEGACY}, "KPL620", "0.6.2") == [(8, 3, "error"), (9, 3, "warning")]
    assert _found({"t.yaml": LEGACY}, "KPL620", "0.7.0") == [(8, 3, "error"), (9, 3, "error")]
    assert _found({"t.yaml": LEGACY}, "KPL620", "1.0.0") == []  # (v1alpha1 not served: KPL801 says so)


def test_volume_size_truncated_only_before_0_24():
    assert _found({"t.yaml": LEGACY}, "KPL622", "0.23.0") == [(11, 25, "warning")]
    assert _found({"t.yaml": LEGACY}, "KPL622", "0.24.0") == []
    whole = LEGACY.replace("2G", "2Gi")
    assert _found({"t.yaml": whole}, "KPL622", "0.23.0") == []


def test_volume_size_not_truncated_before_0_18():
    # Up to 0.17.x the size went to EC2 in decimal GB, rounded up: `2G` is a 2 GiB volume, never smaller than asked
    # (launchtemplate.go@v0.17.0 `ScaledValue(resource.Giga)`; aws/karpenter-provider-aws#2593, fixed by #2608).
    assert _found({"t.yaml": LEGACY}, "KPL622", "0.17.0") == []
    assert _found({"t.yaml": LEGACY}, "KPL622", "0.18.0") == [(11, 25, "warning")]


def test_legacy_restricted_tag_from_0_28():
    doc = LEGACY.replace("  launchTemplate: lt\n", "") + "  tags:\n    karpenter.sh/managed-by: c\n    team: a\n"
    assert _found({"t.yaml": doc}, "KPL621", "0.27.0") == []
    assert _found({"t.yaml": doc}, "KPL621", "0.28.0") == [(12, 5, "error")]


def test_eviction_soft_not_above_hard():
    def kubelet(hard, soft):
        return _nodeclass(extra=f"  kubelet:\n    evictionHard: {{memory.available: {hard}}}\n"
                                f"    evictionSoft: {{memory.available: {soft}}}\n")
    assert _found({"n.yaml": kubelet("10%", "5%")}, "KPL623") == [(15, 38, "warning")]
    assert _found({"n.yaml": kubelet("500Mi", "500Mi")}, "KPL623") == [(15, 38, "warning")]
    assert _found({"n.yaml": kubelet("5%", "10%")}, "KPL623") == []
    assert _found({"n.yaml": kubelet("100Mi", "1Gi")}, "KPL623") == []
    assert _found({"n.yaml": kubelet("5%", "500Mi")}, "KPL623") == [(15, 38, "warning")]  # flips at 9.8 GiB
    assert _found({"n.yaml": kubelet("100Mi", "10%")}, "KPL623") == []  # flips at 1000Mi: few nodes are smaller


def test_ami_name_any_kubernetes_version():
    assert _found({"n.yaml": _nodeclass(term="name: amazon-eks-node-al2023-x86_64-standard-*")},
                  "KPL624") == [(7, 13, "warning")]
    assert _found({"n.yaml": _nodeclass(term="name: amazon-eks-node-al2023-x86_64-standard-1.31-*")},
                  "KPL624") == []
    assert _found({"n.yaml": _nodeclass(term="name: my-golden-ami-*")}, "KPL624") == []
    assert _found({"n.yaml": _nodeclass(term="{name: 'amazon-eks-node-*', owner: '123456789012'}")},
                  "KPL624") == []


def test_node_role_arn():
    arn = {"n.yaml": _nodeclass(role="arn:aws:iam::123456789012:role/path/NodeRole")}
    assert _found(arn, "KPL625", "1.1.0") == [(8, 9, "error")]
    assert _found({"n.yaml": _nodeclass(role="NodeRole")}, "KPL625", "1.1.0") == []


def test_node_role_arn_is_accepted_from_1_2_0():
    """instanceprofile.go@v1.2.0#L105 keeps what follows the last '/': an ARN names its role (and the default
    target is a release after that)."""
    arn = {"n.yaml": _nodeclass(role="arn:aws:iam::123456789012:role/path/NodeRole")}
    assert _found(arn, "KPL625", "1.2.0") == []
    assert _found(arn, "KPL625") == []


def test_bottlerocket_os_volume_unmapped():
    xvdb = "  blockDeviceMappings:\n    - deviceName: /dev/xvdb\n      ebs: {volumeSize: 100Gi}\n"
    both = xvdb + "    - deviceName: /dev/xvda\n      ebs: {volumeSize: 4Gi}\n"
    br = "alias: bottlerocket@v1.51.0"
    assert _found({"n.yaml": _nodeclass(term=br, extra=xvdb)}, "KPL626") == [(13, 3, "info")]
    assert _found({"n.yaml": _nodeclass(term=br, extra=both)}, "KPL626") == []
    assert _found({"n.yaml": _nodeclass(extra=xvdb)}, "KPL626") == []  # (AL2023: not this rule's)


def test_ami_name_spans_families():
    nc = _nodeclass(term="name: '*1.27*'").replace("spec:\n", "spec:\n  amiFamily: AL2\n")
    assert _found({"n.yaml": nc}, "KPL627") == [(8, 13, "warning")]
    own = _nodeclass(term="name: amazon-eks-node-1.27-*").replace("spec:\n", "spec:\n  amiFamily: AL2\n")
    assert _found({"n.yaml": own}, "KPL627") == []
    custom = nc.replace("amiFamily: AL2", "amiFamily: Custom")
    assert _found({"n.yaml": custom}, "KPL627") == []


def test_bottlerocket_instance_store_initialised_twice():
    user_data = ("  instanceStorePolicy: RAID0\n  userData: |\n    [settings.bootstrap-commands.eph]\n"
                 "    commands = [[\"apiclient\", \"ephemeral-storage\", \"init\"]]\n")
    nc = _nodeclass(term="alias: bottlerocket@v1.39.1", extra=user_data)
    assert _found({"n.yaml": nc}, "KPL628", "1.1.0") == [(14, 13, "error")]
    assert _found({"n.yaml": nc}, "KPL628", "1.0.8") == []
    assert _found({"n.yaml": nc.replace("RAID0", "Undefined")}, "KPL628", "1.4.0") == []


def test_malformed_selector_id():
    terms = "  subnetSelectorTerms:\n    - id: ssubnet-0a1b2c3d4e5f60718\n"
    nc = _nodeclass().replace("  subnetSelectorTerms:\n    - tags: {karpenter.sh/discovery: c}\n", terms)
    assert _found({"n.yaml": nc}, "KPL629") == [(10, 11, "error")]
    assert _found({"n.yaml": nc.replace("ssubnet-", "subnet-")}, "KPL629") == []
    assert _found({"n.yaml": nc.replace("ssubnet-0a1b2c3d4e5f60718", "subnet-123")}, "KPL629") == []  # placeholder


PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: p
spec:
  provider:
    subnetSelector:
      Name: subnet-0b1d0bba37e1e4f00
"""


def test_id_as_tag_value_in_a_provisioner_provider():
    assert _found({"p.yaml": PROVISIONER}, "KPL610", "0.5.3") == [(8, 13, "warning")]
    helps = [f.message for f in lint({"p.yaml": PROVISIONER}, karpenter_version="0.5.3") if f.code == "KPL610"]
    assert "tag the subnets" in helps[0]
    helps = [f.message for f in lint({"p.yaml": PROVISIONER}, karpenter_version="0.31.0") if f.code == "KPL610"]
    assert "`aws-ids` in subnetSelector" in helps[0]
    assert _found({"p.yaml": PROVISIONER}, "KPL610", "1.0.0") == []  # (not served: KPL801 says so)


def test_ami_owner_not_an_account():
    def owner(value):
        return _nodeclass(term=f"{{name: 'my-image-*', owner: '{value}'}}")
    assert _found({"n.yaml": owner("shared/123456789012")}, "KPL707") == [(7, 35, "warning")]
    assert _found({"n.yaml": owner("arn:aws:iam::123456789012:root")}, "KPL707") == [(7, 35, "warning")]
    for fine in ("123456789012", "self", "amazon", "my-alias", "123456789"):
        assert _found({"n.yaml": owner(fine)}, "KPL707") == [], fine


def test_security_group_name_ignores_tags():
    mixed = "    - name: my-sg\n      tags: {MyTag: '*'}\n"
    beside = _nodeclass().replace("  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: c}\n",
                                  "  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: c}\n" + mixed)
    assert _found({"n.yaml": beside}, "KPL630") == [(14, 7, "warning")]
    alone = _nodeclass().replace("  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: c}\n",
                                 "  securityGroupSelectorTerms:\n" + mixed)
    assert _found({"n.yaml": alone}, "KPL630") == []  # (the CRD rejects it: KPL130)
    assert [f.code for f in lint({"n.yaml": alone}) if f.code == "KPL130"] == ["KPL130"]


def test_provisioner_provider_field_type():
    doc = PROVISIONER.replace("      Name: subnet-0b1d0bba37e1e4f00\n",
                              "      aws-ids: [subnet-0123456789abcdef0]\n    instanceProfile: {name: p}\n")
    assert _found({"p.yaml": doc}, "KPL107", "0.10.1") == [(8, 16, "error"), (9, 22, "error")]
    fine = PROVISIONER.replace("Name: subnet-0b1d0bba37e1e4f00", "aws-ids: subnet-0123456789abcdef0,subnet-0123456789abcdef1")
    assert _found({"p.yaml": fine}, "KPL107", "0.10.1") == []
    assert _found({"p.yaml": doc}, "KPL107", "1.0.0") == []  # (not served)
