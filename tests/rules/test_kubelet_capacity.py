"""KPL920: kubelet maxPods above the pod IPs the VPC CNI gives an instance type the pool allows."""

from pathlib import Path

from karplint.testing import lint

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kubelet"

NODECLASS = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@v20250317}]
  role: r
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
  kubelet:
    maxPods: %s
"""

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: web}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: [%s]
"""


def _kpl280(files, **kw):
    return [(f.file, f.line, f.column, f.severity, f.message.splitlines()[0], f.message)
            for f in lint(files, **kw) if f.code == "KPL920"]


def test_provisioner_max_pods_above_t3_medium_ips():
    text = (FIXTURES / "max_pods_provisioner.yaml").read_text()
    got = _kpl280({"p.yaml": text}, karpenter_version="0.27.3")
    assert [g[:5] for g in got] == [("p.yaml", 8, 14, "info",
                                     "maxPods 110 exceeds the pod IPs of 1 instance type the pool allows")]
    assert "secondary IPs: t3.medium (17)\n" in got[0][5]  # (m5.4xlarge has 234)


def test_nodeclass_max_pods_judged_on_the_pools_that_reference_it():
    files = {"nc.yaml": NODECLASS % 30, "np.yaml": NODEPOOL % '"t3.medium", "m5.xlarge"'}
    got = _kpl280(files)
    assert [g[:5] for g in got] == [("nc.yaml", 10, 14, "info",
                                     "maxPods 30 exceeds the pod IPs of 1 instance type the pool allows")]
    assert "(NodePool `web`): t3.medium (17)" in got[0][5]


def test_quiet_when_every_type_has_the_ips_or_no_pool_or_other_cni():
    assert _kpl280({"nc.yaml": NODECLASS % 17, "np.yaml": NODEPOOL % '"t3.medium", "m5.xlarge"'}) == []
    assert _kpl280({"nc.yaml": NODECLASS % 110}) == []  # (no NodePool launches it)
    assert _kpl280({"nc.yaml": NODECLASS % 110, "np.yaml": NODEPOOL % '"t3.medium"'},
                   config={"cluster": {"cni": "cilium"}}) == []
    assert _kpl280({"nc.yaml": NODECLASS % 110, "np.yaml": NODEPOOL % '"${var.type}"'}) == []


# ------------------------------------------------------------------------------------------ KPL921

BOTTLEROCKET_V1BETA1 = """apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: Bottlerocket
  role: r
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
  userData: |
    [settings.kernel]
    lockdown = "integrity"
    [settings.kubernetes.eviction-hard]
    "memory.available" = "5%"
    [settings.kubernetes.eviction-soft]
    "memory.available" = "10%"
"""

AL2023_V1 = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@v20250317}]
  role: r
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
%s  userData: |
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      kubelet:
        config:
          kubeReserved:
            memory: 1Gi
          systemReserved:
            memory: 500Mi
"""


def _kpl281(text, **kw):
    return [(f.line, f.column, f.severity, f.message.splitlines()[0]) for f in lint(text, **kw) if f.code == "KPL921"]


def test_bottlerocket_eviction_hard_in_userdata_is_hidden_from_karpenter():
    # aws/karpenter-provider-aws#5104 (v0.32): the soft threshold is not reported (it reduces no allocatable)
    assert _kpl281(BOTTLEROCKET_V1BETA1, karpenter_version="0.32.1") == [
        (12, 26, "warning", "settings.kubernetes.eviction-hard reserves node capacity that Karpenter does not count")]


def test_al2023_nodeconfig_reservations_unless_spec_kubelet_sets_them():
    assert _kpl281(AL2023_V1 % "") == [
        (15, 11, "info", "kubelet.config.kubeReserved reserves node capacity that Karpenter does not count"),
        (17, 11, "warning", "kubelet.config.systemReserved reserves node capacity that Karpenter does not count")]
    # set in spec.kubelet too: Karpenter's NodeConfig replaces the userData value (KPL231 says so), not hidden
    both = AL2023_V1 % "  kubelet:\n    kubeReserved: {memory: 1Gi}\n    systemReserved: {memory: 500Mi}\n"
    assert _kpl281(both) == []


# ------------------------------------------------------------------------------------------ KPL922

CUSTOM_AMI = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: custom}
spec:
  amiFamily: AL2
  amiSelectorTerms:
%s
  blockDeviceMappings:
  - deviceName: /dev/sda1
%s    ebs:
      volumeSize: 400Gi
  role: r
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
"""


def _kpl282(text):
    return [(f.line, f.column, f.severity, f.message.splitlines()[0]) for f in lint(text) if f.code == "KPL922"]


def test_custom_ami_root_at_sda1_is_not_the_volume_karpenter_sizes_with():
    # aws/karpenter-provider-aws#7937
    assert _kpl282(CUSTOM_AMI % ("  - {name: third-party-ami, owner: '111122223333'}", "")) == [
        (9, 17, "warning", "Karpenter plans these nodes with 20Gi of ephemeral storage, not this 400Gi volume")]


def test_quiet_with_root_volume_or_an_eks_optimized_alias():
    assert _kpl282(CUSTOM_AMI % ("  - {name: third-party-ami}", "    rootVolume: true\n")) == []
    assert _kpl282(CUSTOM_AMI % ("  - {alias: al2@v20250317}", "")) == []  # (/dev/sda1 is an extra disk there)


def test_provisioner_without_type_requirements_gets_the_providers_default_types():
    # aws/karpenter-provider-aws#3903 as posted: only capacity type and zones; the AWS provider then defaults to
    # c/m/r of generation > 2, so no t2/t3 type is named
    text = (FIXTURES / "max_pods_provisioner.yaml").read_text().replace(
        "node.kubernetes.io/instance-type", "karpenter.sh/capacity-type").replace(
        '["t3.medium", "m5.4xlarge"]', '["on-demand"]')
    got = _kpl280({"p.yaml": text}, karpenter_version="0.27.3")
    assert len(got) == 1 and got[0][:3] == ("p.yaml", 8, 14)
    shown = got[0][5].split("secondary IPs: ")[1].split("\n")[0]
    assert shown.startswith("c6g.medium (8)") and " t" not in shown, shown
