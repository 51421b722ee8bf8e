"""KPL306 (daemonset-selects-lifecycle-label) on tests/fixtures/catalog/taints/daemonset_lifecycle_label.yaml."""

from __future__ import annotations

from pathlib import Path

from karplint.testing import codes, lint

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "taints" / "daemonset_lifecycle_label.yaml"


def _kpl306(**kw) -> list[tuple[str, int, int]]:
    text = FIXTURE.read_text(encoding="utf-8")
    return [c for c in codes(lint({"ds.yaml": text}, **kw)) if c[0] == "KPL306"]


def test_release_deployed_in_the_run():
    found = [f for f in lint({"ds.yaml": FIXTURE.read_text(encoding="utf-8")}) if f.code == "KPL306"]
    assert codes(found) == [("KPL306", 34, 22), ("KPL306", 51, 9)]
    assert found[0].severity == "warning"
    assert found[0].message.splitlines()[0] == (
        "Karpenter 1.0.6 sizes new nodes without this DaemonSet (it selects `karpenter.sh/initialized`)")
    assert "the release comes from" in found[0].message and "HelmRelease" in found[0].message


def test_fixed_release_is_quiet():
    assert _kpl306(karpenter_version="1.14.0") == []


def test_no_release_set_or_found_is_information():
    text = FIXTURE.read_text(encoding="utf-8").split("---\n", 1)[1]  # without the HelmRelease: only the default
    found = [f for f in lint({"ds.yaml": text}) if f.code == "KPL306"]
    assert [(f.line, f.column, f.severity) for f in found] == [(20, 22, "info"), (37, 9, "info")]
    assert found[0].message.splitlines()[0].startswith("Karpenter before 1.14.0 sizes new nodes without this DaemonSet")


def test_last_affected_release():
    assert _kpl306(karpenter_version="1.13.0") == [("KPL306", 34, 22), ("KPL306", 51, 9)]
