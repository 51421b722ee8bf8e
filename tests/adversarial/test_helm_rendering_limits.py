"""`helm template` runs on charts of the checked tree when helm is on the PATH (karplint/readers/helm_charts.py).
A pull request is untrusted input: a chart whose rendering never ends, or writes without end, must cost a bounded
time and memory, and the run must go on, reading the chart as a template without rendering."""

from __future__ import annotations

import time
from pathlib import Path

from karplint.readers import helm_charts


def _chart(root: Path, name: str) -> str:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    return str(chart)


def _fake_helm(tmp_path: Path, monkeypatch, body: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").write_text("#!/bin/sh\n" + body)
    (bin_dir / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("KARPLINT_NO_HELM", raising=False)


def test_a_rendering_without_end_is_cut_at_the_cap_not_held_in_memory(tmp_path: Path, monkeypatch):
    _fake_helm(tmp_path, monkeypatch, "exec yes 'kind: NodePool'\n")  # writes forever
    monkeypatch.setattr(helm_charts, "MAX_RENDERED_BYTES", 1 << 20)
    chart = _chart(tmp_path / "repo", "pools")
    started = time.monotonic()
    assert helm_charts.render_charts([chart], str(tmp_path / "repo")) == {}
    assert time.monotonic() - started < 10


def test_slow_charts_share_one_budget_for_the_run(tmp_path: Path, monkeypatch):
    _fake_helm(tmp_path, monkeypatch, "exec sleep 30\n")
    monkeypatch.setattr(helm_charts, "TIMEOUT_SECONDS", 1)
    monkeypatch.setattr(helm_charts, "TOTAL_SECONDS", 1.5)
    charts = [_chart(tmp_path / "repo", f"c{i}") for i in range(5)]
    started = time.monotonic()
    assert helm_charts.render_charts(charts, str(tmp_path / "repo")) == {}
    assert time.monotonic() - started < 5  # (5 charts of 1 s each without the run's budget)


def test_a_chart_helm_renders_in_time_is_kept(tmp_path: Path, monkeypatch):
    _fake_helm(tmp_path, monkeypatch, "echo '# Source: pools/templates/a.yaml'\necho 'kind: NodePool'\n")
    chart = _chart(tmp_path / "repo", "pools")
    assert helm_charts.render_charts([chart], str(tmp_path / "repo")) == {
        chart: "# Source: pools/templates/a.yaml\nkind: NodePool\n"}
