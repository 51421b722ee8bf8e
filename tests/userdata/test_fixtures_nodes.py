"""Exact (code, line, column) of the KPL230-KPL259 findings on tests/fixtures/userdata/*."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import lint
from karplint.rules.userdata_nodes import unregistered_taint_fix
from .ud_nodes_helpers import model_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "userdata"


def _mine(name: str) -> list[tuple[str, int, int]]:
    text = (FIXTURES / name).read_text()
    return [(f.code, f.line, f.column) for f in lint({name: text}) if "KPL230" <= f.code <= "KPL259"]


EXPECTED = {
    "al2023_flags.yaml": [
        ("KPL231", 25, 9),   # cluster.name
        ("KPL235", 27, 9),   # flag:
        ("KPL231", 30, 11),  # maxPods
        ("KPL231", 31, 11),  # registerWithTaints
        ("KPL230", 36, 13),  # --register-with-taints flag
        ("KPL232", 37, 13),  # --max-pods flag
        ("KPL234", 38, 13),  # multi-line flag item
    ],
    "al2023_decode.yaml": [
        ("KPL235", 19, 9),   # clusterEndpoint
        ("KPL233", 21, 16),  # flags as a string
        ("KPL233", 43, 17),  # apiVersion v1beta1
        ("KPL233", 48, 31),  # registerWithTaints as a string
    ],
    "custom_nodeconfig.yaml": [
        ("KPL236", 35, 15),  # uppercase key prefix in registerWithTaints
        ("KPL236", 58, 13),  # ", " splits the flag value
    ],
    "bottlerocket.yaml": [
        ("KPL241", 16, 5),   # cluster-name
        ("KPL241", 17, 5),   # max-pods
        ("KPL244", 17, 5),   # max-pods as a string
        ("KPL243", 18, 5),   # node-taint (typo)
        ("KPL241", 21, 26),  # node-taints
        ("KPL242", 22, 5),   # legacy single string
        ("KPL242", 23, 5),   # kubelet syntax inside the list
        ("KPL243", 25, 6),   # [other] outside settings
        ("KPL240", 46, 19),  # unquoted key with '/': the TOML error's own line and column
        ("KPL240", 61, 13),  # folded scalar: mapped to the scalar
        ("KPL242", 85, 5),   # Custom: effect the kubelet rejects
    ],
    "windows.yaml": [
        ("KPL250", 15, 5),   # <powershell>
        ("KPL250", 17, 69),  # Start-EKSBootstrap.ps1 (the comment on line 16 is skipped)
        ("KPL250", 19, 5),   # </powershell>
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_positions(name):
    assert _mine(name) == EXPECTED[name]


def test_messages_say_what_happens():
    text = (FIXTURES / "bottlerocket.yaml").read_text()
    by_code = {}
    for f in lint({"b.yaml": text}):
        by_code.setdefault((f.code, f.line), f.message)
    assert "aws/karpenter-provider-aws#5915" in by_code[("KPL240", 61)]
    assert "line 5 of the userData" in by_code[("KPL240", 46)]
    assert "did you mean `node-taints`" in by_code[("KPL243", 18)]
    flags = {(f.code, f.line): f for f in lint({"a.yaml": (FIXTURES / "al2023_flags.yaml").read_text()})}
    assert "node.cilium.io/agent-not-ready=true:NoExecute" in flags[("KPL230", 36)].message
    assert "karpenter.sh/unregistered:NoExecute" in flags[("KPL230", 36)].message
    assert flags[("KPL230", 36)].severity == "error"
    custom = {(f.code, f.line): f for f in lint({"c.yaml": (FIXTURES / "custom_nodeconfig.yaml").read_text()})}
    assert "space after a comma" in custom[("KPL236", 58)].message


def test_bottlerocket_family_downgrades_invalid_values_it_replaces():
    found = {(f.code, f.line): f.severity for f in lint({"b.yaml": (FIXTURES / "bottlerocket.yaml").read_text()})}
    assert found[("KPL242", 22)] == "error"  # breaks Karpenter's decode
    assert found[("KPL242", 23)] == "warning"  # replaced by Karpenter anyway
    assert found[("KPL242", 85)] == "error"  # Custom: reaches the kubelet


def _apply(text: str, fix) -> str:
    for e in sorted(fix.edits, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.replacement + text[e.end:]
    return text


def test_unregistered_taint_fix_is_a_minimal_insertion():
    text = (FIXTURES / "custom_nodeconfig.yaml").read_text()
    model = model_of(text)
    nc = next(r for r in model.nodeclasses() if r.name == "custom-al2023")
    fix = unregistered_taint_fix(nc)
    assert fix is not None and fix.safety == "unsafe"
    (edit,) = fix.edits
    assert edit.start == edit.end  # pure insertion
    fixed = _apply(text, fix)
    assert fixed.splitlines()[30:35] == [
        "          registerWithTaints:",
        "            - key: karpenter.sh/unregistered",
        "              effect: NoExecute",
        "            - key: dedicated",
        "              value: gpu",
    ]
    again = next(r for r in model_of(fixed).nodeclasses() if r.name == "custom-al2023")
    assert unregistered_taint_fix(again) is None  # idempotent: the taint is there now
    from karplint.userdata.model import analyze

    taints, _ = analyze(again).registered_taints
    assert any(t.key == "karpenter.sh/unregistered" and t.effect == "NoExecute" for t in taints)


def test_no_fix_without_block_list_or_literal_block():
    text = (FIXTURES / "custom_nodeconfig.yaml").read_text()
    nc = next(r for r in model_of(text).nodeclasses() if r.name == "custom-flag")
    assert unregistered_taint_fix(nc) is None


def test_version_gating():
    text = (FIXTURES / "al2023_flags.yaml").read_text()
    old = [f for f in lint({"a.yaml": text}, karpenter_version="0.37.0") if f.code in ("KPL230", "KPL231")]
    assert [f.code for f in old] == ["KPL230"]  # Karpenter's NodeConfig came first before v1.0
    assert "karpenter.sh/unregistered" not in old[0].message  # no registration taint before v1.0


def test_flag_keeping_the_unregistered_taint_still_loses_nodepool_taints():
    text = (FIXTURES / "al2023_flags.yaml").read_text().replace(
        "node.cilium.io/agent-not-ready=true:NoExecute", "karpenter.sh/unregistered:NoExecute")
    (f,) = [f for f in lint({"a.yaml": text}) if f.code == "KPL230"]
    assert "without the NodePool's taints and startupTaints" in f.message
    assert "without karpenter.sh/unregistered" not in f.message


def test_cloud_config_without_mime_on_al2023():
    text = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: x}
spec:
  amiFamily: AL2023
  userData: |
    #cloud-config
    packages: [jq]
"""
    found = [f for f in lint({"c.yaml": text}) if "KPL230" <= f.code <= "KPL259"]
    assert [(f.code, f.line, f.column) for f in found] == [("KPL233", 8, 5)]
    assert "text/cloud-config" in found[0].message


def test_kpl206_carries_the_nodeconfig_fix():
    text = (FIXTURES / "custom_nodeconfig.yaml").read_text()
    (f,) = [f for f in lint({"c.yaml": text}) if f.code == "KPL206"]
    assert f.fix is not None and f.fix.safety == "unsafe"
    assert "karpenter.sh/unregistered" in f.fix.edits[0].replacement


def test_bottlerocket_setting_also_in_spec_kubelet():
    text = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: br}
spec:
  amiFamily: Bottlerocket
  kubelet:
    evictionHard: {memory.available: 5%}
  userData: |
    [settings.kubernetes.eviction-hard]
    "memory.available" = "10%"
"""
    assert [(f.code, f.line, f.column) for f in lint({"b.yaml": text}) if f.code == "KPL241"] == [("KPL241", 9, 26)]
