"""Rendered Helm output (`helm template ... | karplint check -`, issue 13): findings land on the chart template that
`# Source:` names, on its line and column when the rendered line can be matched to it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from karplint.readers.helm_rendered import map_line
from karplint.testing import run_cli, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "coverage"
RENDERED = (FIXTURES / "rendered" / "node-pool.rendered.yaml").read_text()
TEMPLATE = "charts/karpenter-resources/templates/node-pool.yaml"
SELECT = ("--select", "KPL102,KPL602,KPL705")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES / "chart", tmp_path / "charts" / "karpenter-resources")
    return tmp_path


def _got(report):
    return [(f["code"], f["file"], f["line"], f["column"]) for f in report["findings"]]


def test_stdin_findings_name_the_template_line_and_column(repo: Path):
    code, report, _ = run_json("check", "-", "--no-cache", *SELECT, cwd=repo, stdin=RENDERED)
    assert code == 1
    assert _got(report) == [
        ("KPL705", TEMPLATE, 7, 1),  # `spec:` copied literally
        ("KPL602", TEMPLATE, 22, 15),  # `kind: EC2NodeClas`: same key between the same literal lines
        ("KPL102", TEMPLATE, 31, 20),  # `expireAfter: 720hh` from `{{ .Values.nodePool.expireAfter }}`
    ]
    assert report["findings"][2]["notes"][-1] == "rendered by helm (stdin line 22)"
    assert all(f["fix"] is None for f in report["findings"])  # (a fix indexes the rendered text)


def test_stdin_filename_beside_the_chart(repo: Path):
    elsewhere = repo / "ci"
    elsewhere.mkdir()
    _, report, _ = run_json("check", "-", "--no-cache", *SELECT, "--stdin-filename",
                            "../charts/karpenter-resources/rendered.yaml", cwd=elsewhere, stdin=RENDERED)
    assert [f[1:] for f in _got(report)][1] == ("../" + TEMPLATE, 22, 15)


def test_template_not_found_keeps_the_rendered_position_with_a_note(tmp_path: Path):
    _, report, _ = run_json("check", "-", "--no-cache", *SELECT, cwd=tmp_path, stdin=RENDERED)
    assert _got(report) == [("KPL705", "-", 7, 1), ("KPL602", "-", 17, 15), ("KPL102", "-", 22, 20)]
    assert report["findings"][0]["notes"][-1].startswith(
        "rendered by helm from `karpenter-resources/templates/node-pool.yaml` (not found from here")


def test_github_annotations_land_on_the_template(repo: Path):
    proc = run_cli("check", "-", "--no-cache", "--select", "KPL102", "--output-format", "github", cwd=repo,
                   stdin=RENDERED)
    assert proc.stdout.startswith(f"::error file={TEMPLATE},line=31,col=20,")
    assert (repo / TEMPLATE).is_file()


def test_a_rendered_file_in_the_tree_too(repo: Path):
    (repo / "rendered.yaml").write_text(RENDERED)
    _, report, _ = run_json("check", "rendered.yaml", "--no-cache", "--select", "KPL102", cwd=repo)
    assert _got(report) == [("KPL102", TEMPLATE, 31, 20)]


def test_fix_edits_the_rendered_text_not_the_template(repo: Path):
    proc = run_cli("check", "-", "--no-cache", "--fix", "--select", "KPL602", cwd=repo, stdin=RENDERED)
    assert "Traceback" not in proc.stderr
    assert (repo / TEMPLATE).read_text() == (FIXTURES / "chart" / "templates" / "node-pool.yaml").read_text()


def test_unmatched_lines_are_not_guessed():
    template = ["a:", "  b: {{ .Values.b }}", "  b: {{ .Values.c }}"]  # two candidates: no answer
    assert map_line(["a:", "  b: 1", "  b: 2"], template, 1, 6) is None
    assert map_line(["a:", "  x: 1"], ["a:", "  b: 1"], 1, 3) is None
    assert map_line(["a:", "  b: 1"], ["a:", "  b: {{ .Values.b }}"], 1, 3) == (1, 3)  # in the key: same column


def test_github_annotation_without_a_file_for_bare_stdin(tmp_path: Path):
    proc = run_cli("check", "-", "--no-cache", "--select", "KPL102", "--output-format", "github", cwd=tmp_path,
                   stdin=RENDERED)
    assert proc.stdout.startswith("::error title=karplint KPL102 (pattern-mismatch) in -%3A22::")
