"""Node repair rules (KPL501-KPL504) on tests/fixtures/catalog/repair/."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import codes, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "repair"


def _codes(name: str, prefix: str = "KPL5", **kw) -> list[tuple[str, int, int]]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [c for c in codes(lint({name: text}, **kw)) if c[0].startswith(prefix)]


def test_tolerations_that_keep_pods_on_dead_or_dying_nodes():
    assert _codes("repair_bad.yaml") == [
        ("KPL501", 14, 11),  # unreachable:NoExecute, no tolerationSeconds
        ("KPL501", 20, 30),  # not-ready for 3600 s > 1800 s
        ("KPL501", 21, 11),  # not-ready with every effect
        ("KPL502", 23, 11),  # Exists without key
        ("KPL502", 24, 11),  # Exists without key, NoSchedule
        ("KPL503", 26, 11),  # karpenter.sh/disrupted
        ("KPL503", 28, 11),  # karpenter.sh/disruption=disrupting (v1beta1)
        ("KPL501", 48, 109),  # CronJob, flow mapping, 1801 s
    ]


def test_daemonsets_bounded_and_non_matching_tolerations_are_quiet():
    assert _codes("repair_good.yaml") == []


def test_repair_window_is_an_option():
    text = (FIXTURES / "repair_bad.yaml").read_text(encoding="utf-8")
    found = [c for c in codes(lint(text, config={"options": {"repair-window-seconds": 7200}}))
             if c[0] == "KPL501"]
    assert found == [("KPL501", 14, 11), ("KPL501", 21, 11)]


def test_messages_say_what_happens():
    findings = [f for f in lint((FIXTURES / "repair_bad.yaml").read_text()) if f.code == "KPL501"]
    assert "forever" in findings[0].message and "30m" in findings[0].message
    assert "for 1h," in findings[1].message and "1800 (30m)" in findings[1].message


def test_node_repair_is_quiet_unless_the_cluster_says_so():
    assert _codes("repair_nodes.yaml") == []
    assert _codes("repair_nodes.yaml", config={"cluster": {"node-repair": False}}) == []


@pytest.mark.parametrize("version,expected", [
    ("1.0.0", [("KPL504", 5, 9)]),  # no node repair at all
    ("1.1.5", [("KPL504", 5, 9), ("KPL504", 9, 5), ("KPL504", 13, 7), ("KPL504", 21, 7), ("KPL504", 41, 9)]),
    ("1.2.0", [("KPL504", 9, 5), ("KPL504", 13, 7), ("KPL504", 21, 7), ("KPL504", 41, 9)]),
])
def test_node_repair_assumptions_by_release(version, expected):
    assert _codes("repair_nodes.yaml", config={"cluster": {"node-repair": True}},
                  karpenter_version=version) == expected


def test_node_repair_messages_name_the_assumption():
    text = (FIXTURES / "repair_nodes.yaml").read_text(encoding="utf-8")
    found = [f for f in lint(text, config={"cluster": {"node-repair": True}}, karpenter_version="1.1.0")
             if f.code == "KPL504"]
    assert all("`[cluster] node-repair = true`" in f.message for f in found)
    assert "Ready=Unknown" in found[0].message and "Karpenter 1.2.0" in found[0].message
    assert any("PodDisruptionBudgets" in f.message for f in found)
    assert any("do-not-disrupt" in f.message for f in found)
    assert any("terminationGracePeriod" in f.message for f in found)
    old = [f for f in lint(text, config={"cluster": {"node-repair": True}}, karpenter_version="0.37.0")
           if f.code == "KPL504"]
    assert "Karpenter 1.1.0" in old[0].message


def test_release_facts_are_reported_once_per_run():
    text = (FIXTURES / "repair_nodes.yaml").read_text(encoding="utf-8")
    second = text.split("---")[0].replace("name: default", "name: second")
    found = [f for f in lint({"a.yaml": text, "b.yaml": second}, config={"cluster": {"node-repair": True}},
                             karpenter_version="1.1.0")
             if f.code == "KPL504" and "Ready=Unknown" in f.message]
    assert [(f.file, f.line) for f in found] == [("a.yaml", 5)]


def test_auto_mode_pools_are_not_about_the_configured_karpenter():
    text = (FIXTURES / "repair_nodes.yaml").read_text(encoding="utf-8").split("---")[0]
    text = text.replace("group: karpenter.k8s.aws", "group: eks.amazonaws.com").replace(
        "kind: EC2NodeClass", "kind: NodeClass")
    assert not [f for f in lint(text, config={"cluster": {"node-repair": True}}, karpenter_version="1.1.0")
                if f.code == "KPL504"]
