"""karplint.userdata.render and the `karplint render` command."""

from __future__ import annotations

import io

from rich.console import Console
from typer.testing import CliRunner

from karplint.cli import app
from karplint.cli.render import render_model
from karplint.userdata.render import pairs, render_node
from .ud_nodes_helpers import SHARED, model_of

POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata:
      labels: {team: ml, node-role.kubernetes.io/gpu: "true"}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: nc}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [eu-west-1a]}
      taints:
        - {key: nvidia.com/gpu, effect: NoSchedule}
      startupTaints:
        - {key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}
---
"""


def nodeclass(family: str, userdata: str | None = None, alias: str | None = None) -> str:
    text = f"""apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: nc}}
spec:
  amiFamily: {family}
  amiSelectorTerms: [{{alias: {alias or family.lower() + '@latest'}}}]
"""
    if userdata is not None:
        text += "  userData: |\n" + "".join("    " + line + "\n" for line in userdata.splitlines())
    return text


def test_al2023_registration_and_labels():
    (nc, np), = pairs(model_of(POOL + nodeclass("AL2023")))
    node = render_node(nc, np)
    assert [str(t) for t in node.taints] == [
        "nvidia.com/gpu:NoSchedule", "node.cilium.io/agent-not-ready=true:NoExecute",
        "karpenter.sh/unregistered:NoExecute"]
    # kubernetes.io labels are not passed to the kubelet (Karpenter syncs them itself)
    assert node.labels == {"team": "ml", "karpenter.sh/nodepool": "gpu", "karpenter.sh/capacity-type": "spot",
                           "karpenter.k8s.aws/ec2nodeclass": "nc", "karpenter.sh/do-not-sync-taints": "true"}
    assert "# Karpenter Generated NodeConfig" in node.merged.text
    assert node.kubelet_config["maxPods"] == "${MAX_PODS}"


def test_al2023_user_flag_overrides_taints():
    ud = ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n"
          "      - --register-with-taints=a=b:NoSchedule\n      - --node-labels=x=y\n")
    (nc, np), = pairs(model_of(POOL + nodeclass("AL2023", ud)))
    node = render_node(nc, np)
    assert [str(t) for t in node.taints] == ["a=b:NoSchedule"]
    assert "overrides" in node.taints_source
    assert node.labels["x"] == "y" and node.labels["karpenter.sh/nodepool"] == "gpu"  # --node-labels accumulate


def test_bottlerocket_and_al2_and_windows():
    for family, needle in (("Bottlerocket", "'node.cilium.io/agent-not-ready' = ['true:NoExecute']"),
                           ("AL2", "--register-with-taints=\"nvidia.com/gpu:NoSchedule,node.cilium.io/agent-not-ready"
                                   "=true:NoExecute,karpenter.sh/unregistered:NoExecute\""),
                           ("Windows2022", "-KubeletExtraArgs '--node-labels=")):
        (nc, np), = pairs(model_of(POOL + nodeclass(family)))
        node = render_node(nc, np)
        assert needle in node.merged.text, (family, node.merged.text)
        assert node.taints[-1].key == "karpenter.sh/unregistered"


def test_custom_is_verbatim_and_uses_the_userdata():
    ud = ('[settings.kubernetes.node-taints]\n"karpenter.sh/unregistered" = [":NoExecute"]\n')
    (nc, np), = pairs(model_of(POOL + nodeclass("Custom", ud, alias="bottlerocket@latest")))
    node = render_node(nc, np)
    assert node.merged.text == ud
    assert [str(t) for t in node.taints] == ["karpenter.sh/unregistered:NoExecute"]


def test_invalid_bottlerocket_toml_renders_nothing():
    (nc, np), = pairs(model_of(POOL + nodeclass("Bottlerocket", "[settings\n")))
    node = render_node(nc, np)
    assert node.merged.text is None and "invalid UserData" in node.notes[0]


def test_render_model_prints_and_selects():
    out = io.StringIO()
    model = model_of(POOL + nodeclass("AL2023"))
    assert render_model(model, Console(file=out, width=200), nodeclass="nc", nodepool="gpu") == 0
    text = out.getvalue()
    assert "EC2NodeClass/nc (AL2023) + NodePool/gpu" in text and "karpenter.sh/unregistered:NoExecute" in text
    assert render_model(model, Console(file=io.StringIO()), nodeclass="other") == 1


def test_cli_render_on_upstream_examples():
    runner = CliRunner()
    examples = SHARED / "karpenter" / "examples" / "v1"
    result = runner.invoke(app, ["render", str(examples)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "EC2NodeClass/bottlerocket (Bottlerocket)" in result.output
    result = runner.invoke(app, ["render", str(examples / "windows-custom-userdata.yaml"), "--nodepool", "windows2022"])
    assert result.exit_code == 0 and "Start-EKSBootstrap.ps1" in result.output
    result = runner.invoke(app, ["render", str(examples / "no-such-file.yaml")])
    assert result.exit_code == 2
