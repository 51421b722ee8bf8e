"""KPL222: AL2 userData written for another OS (a nodeadm NodeConfig, Bottlerocket TOML) is never applied."""

from __future__ import annotations

from karplint.testing import lint

HEAD = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: {alias}
  role: KarpenterNodeRole-my-cluster
  userData: |
"""

# aws/karpenter-provider-aws#8220 (reduced): the AL2023 NodeConfig example of the docs on an AL2 EC2NodeClass.
NODECONFIG = """\
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      kubelet:
        config:
          registryPullQPS: 10
"""

MIME_NODECONFIG = """\
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="B"

    --B
    Content-Type: text/x-shellscript

    #!/bin/bash
    echo hi

    --B
    Content-Type: application/node.eks.aws

""" + NODECONFIG + """
    --B--
"""

TOML = """\
    [settings.kubernetes]
    max-pods = 110
"""

SHELL = """\
    #!/bin/bash
    echo "$(jq '.registryPullQPS=10' /etc/kubernetes/kubelet/kubelet-config.json)" > /etc/kubernetes/kubelet/kubelet-config.json
"""


def _kpl222(alias: str, body: str, version: str | None = None):
    text = HEAD.format(alias=alias) + body
    return [(f.severity, f.line, f.column, f.message.splitlines()[0])
            for f in lint({"nc.yaml": text}, karpenter_version=version) if f.code == "KPL222"]


def test_nodeconfig_as_al2_userdata():
    assert _kpl222("al2@latest", NODECONFIG) == [
        ("error", 10, 5, "a nodeadm NodeConfig as AL2 userData: AL2 never applies it")]


def test_nodeconfig_mime_part_on_al2():
    assert _kpl222("al2@latest", MIME_NODECONFIG) == [
        ("error", 22, 5, "a NodeConfig MIME part in AL2 userData: AL2 never applies it")]


def test_bottlerocket_toml_as_al2_userdata():
    assert _kpl222("al2@latest", TOML) == [
        ("error", 10, 5, "Bottlerocket TOML settings as AL2 userData: AL2 never applies them")]


def test_quiet_where_the_os_reads_it():
    assert _kpl222("al2023@latest", NODECONFIG) == []
    assert _kpl222("al2023@latest", MIME_NODECONFIG) == []
    assert _kpl222("al2@latest", SHELL) == []


def test_legacy_awsnodetemplate_is_not_judged():
    legacy = ("apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata:\n  name: a\nspec:\n"
              "  amiFamily: AL2\n  userData: |\n" + NODECONFIG)
    assert [f for f in lint({"nc.yaml": legacy}, karpenter_version="0.31.0") if f.code == "KPL222"] == []


CLOUD_CONFIG = """\
    #cloud-config
    runcmd:
      - echo hi
"""

MIME_CLOUD_CONFIG = """\
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="B"

    --B
    Content-Type: text/cloud-config

""" + CLOUD_CONFIG + """
    --B--
"""


def test_non_mime_cloud_config_on_al2_is_run_as_a_script():
    assert _kpl222("al2@latest", CLOUD_CONFIG) == [
        ("error", 10, 5, "a non-MIME cloud-config on AL2 runs as a shell script: it is never applied")]
    assert _kpl222("al2@latest", MIME_CLOUD_CONFIG) == []
