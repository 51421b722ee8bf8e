"""KPL231/KPL241 on the cluster's identity (name, endpoint, CA, service CIDR) set in userData: info, not warning.

Karpenter writes the values of the cluster it serves over these fields; a user value for that cluster changes
nothing, and karplint cannot know whether it names another cluster (the name comes from Karpenter's settings).
Fields whose loss changes what the node does (maxPods, clusterDNS, taints) stay warnings.

Excerpts: minasaeedbasta/terraform-eks-karpenter @ fed18dc2282b1b04c1f1efca3f282bb4f48b1404,
`modules/karpenter/templates/ec2nodeclass_al2023.tpl` lines 1-8 and 16-28 and
`modules/karpenter/templates/ec2nodeclass_bottlerocket.tpl` lines 1-8 and 15-19 (`max-pods` added; no licence file in the
repository; a few lines quoted as a regression fixture).
"""

from __future__ import annotations

from karplint.testing import lint

AL2023 = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2023
  amiSelectorTerms:
    - alias: al2023@latest
  userData: |
     apiVersion: node.eks.aws/v1alpha1
     kind: NodeConfig
     spec:
       cluster:
         apiServerEndpoint: "${api_server}"
         certificateAuthority: "${cluster_ca}"
         name: "${cluster_name}"
       kubelet:
         config:
           maxPods: 110
         flags:
         - --node-labels="karpenter.sh/capacity-type=on-demand"
"""

BOTTLEROCKET = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: Bottlerocket
  amiSelectorTerms:
    - id: "${custom_ami_id}"
  userData: |
    [settings.kubernetes]
      api-server = "${api_server}"
      cluster-certificate = "${cluster_ca}"
      cluster-name = "${cluster_name}"
      max-pods = 110
"""


def _found(text: str, code: str, **kw) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.line, f.column, f.severity) for f in lint({"nc.yaml": text}, **kw) if f.code == code]


def test_al2023_cluster_identity_is_info_and_max_pods_a_warning():
    expected = [
        ("KPL231", 14, 10, "info"),     # cluster.apiServerEndpoint
        ("KPL231", 15, 10, "info"),     # cluster.certificateAuthority
        ("KPL231", 16, 10, "info"),     # cluster.name
        ("KPL231", 19, 12, "warning"),  # kubelet.config.maxPods: the user's 110 is lost
    ]
    assert _found(AL2023, "KPL231") == expected
    assert _found(AL2023, "KPL231", karpenter_version="1.6.2") == expected


def test_al2023_cidr_is_identity_too():
    text = AL2023.replace('         name: "${cluster_name}"\n',
                          '         name: "${cluster_name}"\n         cidr: 172.20.0.0/16\n')
    assert ("KPL231", 17, 10, "info") in _found(text, "KPL231")


def test_bottlerocket_cluster_identity_is_info_and_max_pods_a_warning():
    assert _found(BOTTLEROCKET, "KPL241") == [
        ("KPL241", 11, 7, "info"),     # api-server
        ("KPL241", 12, 7, "info"),     # cluster-certificate
        ("KPL241", 13, 7, "info"),     # cluster-name
        ("KPL241", 14, 7, "warning"),  # max-pods
    ]


def test_identity_message_says_why_it_is_only_info():
    (f,) = [f for f in lint({"nc.yaml": AL2023}) if f.code == "KPL231" and f.line == 16]
    assert "changes nothing unless it names another cluster" in f.message
    (g,) = [f for f in lint({"nc.yaml": BOTTLEROCKET}) if f.code == "KPL241" and f.line == 13]
    assert "changes nothing unless it names another cluster" in g.message
