"""KPL148: an EBS volumeSize outside 1G..64T where Karpenter's 0.x webhook checks it (a bare number is bytes)."""

from __future__ import annotations

from karplint.testing import lint

# awslabs/cdk-eks-blueprints#914, reduced: the add-on rendered `volumeSize: 100` (meant as GiB).
TEMPLATE = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: default
spec:
  subnetSelector: {{karpenter.sh/discovery: my-cluster}}
  securityGroupSelector: {{karpenter.sh/discovery: my-cluster}}
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs:
        volumeSize: {size}
        volumeType: gp3
"""

PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  provider:
    subnetSelector: {{karpenter.sh/discovery: my-cluster}}
    securityGroupSelector: {{karpenter.sh/discovery: my-cluster}}
    blockDeviceMappings:
      - deviceName: /dev/xvda
        ebs:
          volumeSize: {size}
"""

NODECLASS_V1BETA1 = """\
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2
  role: KarpenterNodeRole-my-cluster
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: my-cluster}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: my-cluster}}}}]
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs:
        volumeSize: {size}
"""


def _got(text, version):
    return [(f.code, f.severity, f.line, f.column) for f in lint({"x.yaml": text}, karpenter_version=version)
            if f.code == "KPL148"]


def test_bare_number_is_bytes_in_a_node_template():
    text = TEMPLATE.format(size="100")
    assert _got(text, "0.31.0") == [("KPL148", "error", 11, 21)]
    (finding,) = [f for f in lint({"x.yaml": text}, karpenter_version="0.31.0") if f.code == "KPL148"]
    assert finding.message == (
        "volumeSize `100` is outside 1G..64T, which Karpenter 0.31.0's webhook accepts\n"
        "help: a bare number is bytes; write the unit: `volumeSize: 100Gi`\n"
        "note: the webhook rejects the AWSNodeTemplate ('expected 1G <= 100 <= 64T'), so it is never created")


def test_provider_and_v1beta1_nodeclass_within_the_webhook_releases():
    assert _got(PROVISIONER.format(size="20"), "0.10.1") == [("KPL148", "error", 12, 23)]
    assert _got(PROVISIONER.format(size="500Mi"), "0.10.1") == [("KPL148", "error", 12, 23)]
    assert _got(PROVISIONER.format(size="65T"), "0.10.1") == [("KPL148", "error", 12, 23)]
    assert _got(NODECLASS_V1BETA1.format(size="100"), "0.34.0") == [("KPL148", "error", 13, 21)]
    # Before the check (0.6.x), after the webhooks (1.0.0), and a v1beta1 EC2NodeClass before 0.32: not judged.
    assert _got(PROVISIONER.format(size="20"), "0.6.5") == []
    assert _got(NODECLASS_V1BETA1.format(size="100"), "1.0.0") == []
    assert _got(TEMPLATE.format(size="100"), "1.0.0") == []


def test_sizes_in_bounds_and_unknown_values_are_not_reported():
    for size in ("100Gi", "1G", "20G", "64T", "'${var.disk_size}'", "'{{ .Values.size }}'", "big"):
        assert _got(TEMPLATE.format(size=size), "0.31.0") == [], size
        assert _got(NODECLASS_V1BETA1.format(size=size), "0.36.0") == [], size
