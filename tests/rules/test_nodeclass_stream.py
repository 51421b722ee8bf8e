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
    assert _found({"n.yaml": _nodeclass(role="arn:aws:iam::123456789012:role/path/NodeRole")},
                  "KPL625") == [(8, 9, "error")]
    assert _found({"n.yaml": _nodeclass(role="NodeRole")}, "KPL625") == []


def test_bottlerocket_os_volume_unmapped():
    xvdb = "  blockDeviceMappings:\n    - deviceName: /dev/xvdb\n      ebs: {volumeSize: 100Gi}\n"
    both = xvdb + "    - deviceName: /dev/xvda\n      ebs: {volumeSize: 4Gi}\n"
    br = "alias: bottlerocket@v1.51.0"
    assert _found({"n.yaml": _nodeclass(term=br, extra=xvdb)}, "KPL626") == [(13, 3, "info")]
    assert _found({"n.yaml": _nodeclass(term=br, extra=both)}, "KPL626") == []
    assert _found({"n.yaml": _nodeclass(extra=xvdb)}, "KPL626") == []  # (AL2023: not this rule's)
