"""KPL609 (instanceProfile given as an ARN) and KPL610 (resource IDs written as tag values in selectors)."""

from __future__ import annotations

from karplint.testing import lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  instanceProfile: arn:aws:iam::123456789012:instance-profile/nodes/KarpenterNodeInstanceProfile
  amiSelectorTerms:
    - alias: al2023@v20240807
  subnetSelectorTerms:
    - tags:
        Name: subnet-0123456789abcdef0
    - tags:
        karpenter.sh/discovery: my-cluster
  securityGroupSelectorTerms:
    - tags:
        aws-ids: "sg-0123456789abcdef0,sg-0fedcba9876543210"
    - id: sg-0123456789abcdef0
"""

# v1alpha1: `aws-ids` is the ID selector (aws/karpenter-provider-aws
# pkg/apis/v1alpha1/awsnodetemplate_validation.go@v0.31.4#L94); an ID under another key is a tag value.
TEMPLATE = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: default
spec:
  instanceProfile: arn:aws:iam::123456789012:instance-profile/KarpenterNodeInstanceProfile
  subnetSelector:
    aws-ids: subnet-0123456789abcdef0
  securityGroupSelector:
    Name: sg-0123456789abcdef0
"""


def _got(text, version=None):
    return [(f.code, f.severity, f.line, f.column) for f in lint({"nc.yaml": text}, karpenter_version=version)
            if f.code in ("KPL609", "KPL610")]


def test_instance_profile_arn_and_ids_as_tag_values():
    assert _got(NODECLASS) == [("KPL609", "error", 6, 20), ("KPL610", "warning", 11, 15),
                               ("KPL610", "warning", 16, 18)]
    findings = [f for f in lint({"nc.yaml": NODECLASS}) if f.code in ("KPL609", "KPL610")]
    assert findings[0].message == (
        "instanceProfile is an ARN, but Karpenter passes it to EC2 as the profile's name\n"
        "help: write the name: `instanceProfile: KarpenterNodeInstanceProfile`\n"
        "note: EC2 refuses every launch ('Value (arn:…) for parameter iamInstanceProfile.name is invalid'), so no "
        "node of this EC2NodeClass starts")
    assert findings[1].message.startswith(
        "`subnet-0123456789abcdef0` looks like a subnet ID, not a tag value\nhelp: select it by ID with a term "
        "`- id: subnet-0123456789abcdef0` in subnetSelectorTerms\n")
    assert "looks like security group IDs" in findings[2].message
    assert "help: select it by ID with one term `- id: …` per ID in securityGroupSelectorTerms" in findings[2].message


def test_names_and_tags_that_are_not_ids_are_not_reported():
    text = NODECLASS.replace("arn:aws:iam::123456789012:instance-profile/nodes/", "").replace(
        "subnet-0123456789abcdef0", "private-subnet-a").replace(
        "sg-0123456789abcdef0,sg-0fedcba9876543210", "sg-cluster")
    assert _got(text) == []


def test_legacy_awsnodetemplate_at_a_release_that_serves_it():
    assert _got(TEMPLATE, "0.31.0") == [("KPL609", "error", 6, 20), ("KPL610", "warning", 10, 11)]
    assert _got(TEMPLATE, "1.14.1") == []  # (KPL801 reports it: not served)
