"""KPL612: an instance profile name IAM never allows (a path, spaces, brackets; an ARN in a Provisioner's provider)."""

from __future__ import annotations

from karplint.testing import lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  instanceProfile: {value}
  amiSelectorTerms:
    - alias: al2023@v20240807
  subnetSelectorTerms:
    - tags: {{karpenter.sh/discovery: my-cluster}}
  securityGroupSelectorTerms:
    - tags: {{karpenter.sh/discovery: my-cluster}}
"""

# awslabs/cdk-eks-blueprints#317, reduced: the add-on wrote the CDK construct path into the provider.
PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  provider:
    instanceProfile: {value}
    subnetSelector: {{karpenter.sh/discovery: my-cluster}}
    securityGroupSelector: {{karpenter.sh/discovery: my-cluster}}
"""


def _got(text, version=None):
    return [(f.code, f.severity, f.line, f.column) for f in lint({"x.yaml": text}, karpenter_version=version)
            if f.code in ("KPL612", "KPL609")]


def test_construct_path_in_a_nodeclass():
    text = NODECLASS.format(value="stack/dev/karpenter-instance-profile [AWS::IAM::InstanceProfile]")
    assert _got(text) == [("KPL612", "error", 6, 20)]
    (finding,) = [f for f in lint({"x.yaml": text}) if f.code == "KPL612"]
    assert finding.message == (
        "instanceProfile `stack/dev/karpenter-instance-profile ...` is not an IAM instance "
        "profile name\nhelp: write the profile's name as IAM shows it: 1 to 128 letters, digits and `+=,.@_-` "
        "(no `/`, spaces or brackets)\nnote: Karpenter passes it to EC2 as `IamInstanceProfile.Name`; EC2 refuses "
        "every launch ('Invalid IAM Instance Profile name'), so no node of this EC2NodeClass starts")


def test_provisioner_provider_at_a_release_that_serves_it():
    bad = PROVISIONER.format(value="stack/dev/karpenter-instance-profile [AWS::IAM::InstanceProfile]")
    assert _got(bad, "0.5.3") == [("KPL612", "error", 7, 22)]
    arn = PROVISIONER.format(value="arn:aws:iam::123456789012:instance-profile/KarpenterNodeInstanceProfile")
    assert _got(arn, "0.31.0") == [("KPL612", "error", 7, 22)]
    (finding,) = [f for f in lint({"x.yaml": arn}, karpenter_version="0.31.0") if f.code == "KPL612"]
    assert finding.message.startswith("instanceProfile is an ARN, but Karpenter passes it to EC2 as the profile's "
                                      "name\nhelp: write the name: `instanceProfile: KarpenterNodeInstanceProfile`\n")
    # A release that does not serve the Provisioner: not judged (KPL801/KPL803 say so).
    assert _got(bad, "1.0.0") == []


def test_arn_in_a_nodeclass_is_kpl609s_only():
    text = NODECLASS.format(value="arn:aws:iam::123456789012:instance-profile/KarpenterNodeInstanceProfile")
    assert _got(text) == [("KPL609", "error", 6, 20)]


def test_valid_names_and_placeholders_are_not_reported():
    for value in ("KarpenterNodeInstanceProfile-my-cluster", "eks-24c2797f-1266-8092-e5b7-94fdae2d0e6b",
                  "a+b=c,d.e@f_g-h", "KarpenterNodeInstanceProfile-${CLUSTER_NAME}", "$INSTANCE_PROFILE",
                  "'{{ .Values.instanceProfile }}'", "<instance-profile-name>", "'%s-profile'", "'%(cluster)s-profile'",
                  "'{cluster}-profile'", "'[[ .Profile ]]'", "x" * 128):
        assert _got(NODECLASS.format(value=value)) == [], value
        assert _got(PROVISIONER.format(value=value), "0.31.0") == [], value
    assert _got(NODECLASS.format(value="x" * 129)) == [("KPL612", "error", 6, 20)]
