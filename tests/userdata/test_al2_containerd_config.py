"""KPL223: AL2 userData that edits /etc/containerd/config.toml (bootstrap.sh replaces it afterwards) or reads it
before bootstrap.sh has written it (AMIs since v20240202 ship none)."""

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
    #!/bin/bash
"""


def _kpl223(body: str, alias: str = "al2@latest"):
    return [(f.severity, f.line, f.column, f.message.splitlines()[0])
            for f in lint({"nc.yaml": HEAD.format(alias=alias) + body}) if f.code == "KPL223"]


def test_edits_are_replaced_by_bootstrap():
    body = ("    sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' /etc/containerd/config.toml\n"
            "    cat <<EOF >> /etc/containerd/config.toml\n"
            "    [plugins]\n"
            "    EOF\n")
    assert _kpl223(body) == [
        ("error", 11, 60, "bootstrap.sh replaces /etc/containerd/config.toml after the userData: this edit is lost"),
        ("error", 12, 15, "bootstrap.sh replaces /etc/containerd/config.toml after the userData: this edit is lost"),
    ]


def test_read_before_bootstrap_wrote_it():
    # awslabs/amazon-eks-ami#1628 (reduced)
    body = "    cat /etc/containerd/config.toml | sed -E 's/a/b/g' > /etc/containerd/config-foo.toml\n"
    assert _kpl223(body) == [
        ("warning", 11, 9, "this reads /etc/containerd/config.toml before bootstrap.sh has written it")]


def test_quiet_on_the_template_bootstrap_installs_and_on_existence_checks():
    assert _kpl223("    sed -i 's/a/b/' /etc/eks/containerd/containerd-config.toml\n") == []
    assert _kpl223("    if [ -f /etc/containerd/config.toml ]; then echo yes; fi\n") == []
    assert _kpl223("    mkdir -p /etc/containerd/config.d\n") == []


def test_only_al2_runs_bootstrap_after_the_userdata():
    assert _kpl223("    sed -i 's/a/b/' /etc/containerd/config.toml\n", alias="al2023@latest") == []
