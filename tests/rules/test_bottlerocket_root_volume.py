"""KPL290: `rootVolume: true` on a Bottlerocket volume other than /dev/xvdb (aws/karpenter-provider-aws#8535)."""

from karplint.testing import lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: bottlerocket
spec:
  amiSelectorTerms:
    - alias: {alias}
  role: KarpenterNodeRole
  blockDeviceMappings:
{mappings}
  subnetSelectorTerms:
    - tags: {{karpenter.sh/discovery: main}}
  securityGroupSelectorTerms:
    - tags: {{karpenter.sh/discovery: main}}
"""
OS_ROOT = """\
    - deviceName: /dev/xvda
      rootVolume: true
      ebs: {volumeSize: 4Gi, volumeType: gp3}
    - deviceName: /dev/xvdb
      ebs: {volumeSize: 100Gi, volumeType: gp3}"""


def findings(mappings, alias="bottlerocket@v1.39.1", version=None):
    text = NODECLASS.format(alias=alias, mappings=mappings)
    return [(f.code, f.line, f.column, f.severity, f.message.splitlines()[0])
            for f in lint({"nc.yaml": text}, config={"select": ["KPL263", "KPL290"]}, karpenter_version=version)]


def test_root_volume_on_os_disk_is_reported():
    assert findings(OS_ROOT) == [
        ("KPL290", 11, 19, "warning", "`rootVolume: true` on /dev/xvda: Karpenter plans the nodes' "
         "ephemeral-storage as 4Gi")]


def test_root_volume_on_data_disk_or_other_family_is_quiet():
    assert findings(OS_ROOT.replace("      rootVolume: true\n", "").replace(
        "/dev/xvdb\n", "/dev/xvdb\n      rootVolume: true\n")) == []
    assert findings(OS_ROOT, alias="al2023@v20250317") == []


def test_before_root_volume_sized_ephemeral_storage_is_quiet():
    assert findings(OS_ROOT, version="0.30.0") == []
    assert [f[0] for f in findings(OS_ROOT, version="0.31.0")] == ["KPL290"]


def test_large_os_volume_alone_is_left_to_kpl263():
    only_os = "    - deviceName: /dev/xvda\n      rootVolume: true\n      ebs: {volumeSize: 100Gi, volumeType: gp3}"
    assert [f[0] for f in findings(only_os)] == ["KPL263"]


def test_another_device_marked_root_is_left_alone():
    # e.g. a RAID of data volumes assembled by a bootstrap container, sized as a whole (aws#8946)
    raid = ("    - deviceName: /dev/xvda\n      ebs: {volumeSize: 4Gi, volumeType: gp3}\n"
            "    - deviceName: /dev/xvdb\n      ebs: {volumeSize: 50Gi, volumeType: gp3}\n"
            "    - deviceName: /dev/xvdz\n      rootVolume: true\n      ebs: {volumeSize: 200Gi, volumeType: gp3}")
    assert findings(raid) == []


def test_kpl263_on_a_v1alpha1_aws_node_template():
    # bottlerocket-os/bottlerocket#3350: only /dev/xvda enlarged on a Bottlerocket AWSNodeTemplate
    text = ("apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata:\n  name: default\nspec:\n"
            "  amiFamily: Bottlerocket\n  blockDeviceMappings:\n    - deviceName: /dev/xvda\n      ebs:\n"
            "        volumeSize: 80Gi\n        volumeType: gp3\n")
    found = lint({"nt.yaml": text}, config={"select": ["KPL263"]}, karpenter_version="0.29.0")
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [("KPL263", 10, 21, "warning")]
