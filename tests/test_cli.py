"""The real command line, through a subprocess: exit codes, formats, input handling, configuration."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from karplint.testing import run_cli, run_json

V1BETA1_POOL = """apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: old
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
      requirements: []
  limits: {cpu: "100"}
"""
# KPL801 reports V1BETA1_POOL when a release is pinned; without one, KPL803 says it once per file, as info.
PINNED = ("--karpenter-version", "1.14.1")


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "team-a").mkdir()
    (tmp_path / "team-a" / "pool.yaml").write_text(V1BETA1_POOL)
    (tmp_path / "team-a" / "svc.yml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    (tmp_path / "broken.yaml").write_text("a: [1\n")
    (tmp_path / "notes.txt").write_text("a: [1\n")  # not a manifest extension: never read
    return tmp_path


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("karplint ")


def test_check_help_is_readable():
    proc = run_cli("check", "--help")
    assert proc.returncode == 0
    for flag in ("--output-format", "--select", "--ignore", "--fail-on", "--karpenter-version", "--config",
                 "--exclude", "--stdin-filename"):
        assert flag in proc.stdout


def test_directory_recursion_and_json_contract(tree: Path):
    code, report, _ = run_json("check", ".", *PINNED, cwd=tree)
    assert code == 1
    assert report["version"] == 1
    got = [(f["file"], f["code"], f["line"], f["column"]) for f in report["findings"]]
    assert got == [("broken.yaml", "KPL001", 2, 1), ("team-a/pool.yaml", "KPL801", 1, 13)]
    f = report["findings"][1]
    assert set(f) == {"code", "slug", "category", "severity", "message", "help", "notes", "file", "line", "column",
                      "end_line", "end_column", "resource", "fix"}
    assert f["resource"] == {"api_version": "karpenter.sh/v1beta1", "kind": "NodePool", "name": "old"}
    assert report["summary"]["files"] == 3


def test_relative_paths_stay_relative(tree: Path):
    _, report, _ = run_json("check", "team-a", cwd=tree)
    assert [f["file"] for f in report["findings"]] == ["team-a/pool.yaml"]


def test_exit_codes(tree: Path):
    assert run_cli("check", "team-a/svc.yml", cwd=tree).returncode == 0
    assert run_cli("check", "team-a/pool.yaml", *PINNED, cwd=tree).returncode == 1
    assert run_cli("check", "team-a/pool.yaml", *PINNED, "--exit-zero", cwd=tree).returncode == 0
    missing = run_cli("check", "nope.yaml", cwd=tree)
    assert missing.returncode == 2 and "nope.yaml" in missing.stderr and "Traceback" not in missing.stderr
    assert run_cli("check", "--output-format", "xml", cwd=tree).returncode == 2


def test_fail_on_threshold(tmp_path: Path):
    (tmp_path / "l.yaml").write_text("- a\n")  # KPL008 is info
    assert run_cli("check", "l.yaml", cwd=tmp_path).returncode == 0
    assert run_cli("check", "l.yaml", "--fail-on", "info", cwd=tmp_path).returncode == 1


def test_select_and_ignore(tree: Path):
    _, report, _ = run_json("check", ".", "--select", "KPL8", *PINNED, cwd=tree)
    assert {f["code"] for f in report["findings"]} == {"KPL801"}
    _, report, _ = run_json("check", ".", "--ignore", "deprecation,KPL001", cwd=tree)
    assert report["findings"] == []


def test_karpenter_version_flag(tree: Path):
    _, report, _ = run_json("check", "team-a", "--karpenter-version", "0.37.8", cwd=tree)
    assert report["findings"] == []
    proc = run_cli("check", "team-a", "--karpenter-version", "banana", cwd=tree)
    assert proc.returncode == 2 and "banana" in proc.stderr


def test_stdin_with_filename(tmp_path: Path):
    # (outside this repository: stdin named by --stdin-filename is judged with its project's other files)
    code, report, _ = run_json("check", "-", "--stdin-filename", "deploy/pool.yaml", *PINNED, stdin=V1BETA1_POOL,
                               cwd=tmp_path)
    assert code == 1 and report["findings"][0]["file"] == "deploy/pool.yaml"


def test_default_excludes_gitignore_and_exclude(tree: Path):
    for d in ("node_modules", ".terraform", "vendored"):
        (tree / d).mkdir()
        (tree / d / "x.yaml").write_text("a: [\n")
    (tree / ".gitignore").write_text("vendored/\n")
    _, report, _ = run_json("check", ".", "--exclude", "broken.yaml", cwd=tree)
    assert [f["file"] for f in report["findings"]] == ["team-a/pool.yaml"]
    _, report, _ = run_json("check", ".", "--no-respect-gitignore", "--exclude", "broken.yaml", cwd=tree)
    assert "vendored/x.yaml" in [f["file"] for f in report["findings"]]


def test_helm_chart_templates_without_objects_are_read_quietly(tmp_path: Path):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: pools\nversion: 0.1.0\n")
    (chart / "templates" / "a.yaml").write_text("name: {{ .Values.name }}\n")
    (chart / "templates" / "b.yaml").write_text("spec:\n  {{- toYaml .Values.spec | nindent 2 }}\n")
    code, report, _ = run_json("check", ".", cwd=tmp_path)
    assert code == 0  # read as templates (karplint/readers/chart_templates.py): no Kubernetes object, nothing to say
    assert report["findings"] == []


def test_symlink_loop_and_dangling_link_are_reported(tmp_path: Path):
    (tmp_path / "loop").mkdir()
    os.symlink("..", tmp_path / "loop" / "back")
    os.symlink("missing.yaml", tmp_path / "dangling.yaml")
    code, report, _ = run_json("check", ".", cwd=tmp_path)
    messages = [(f["file"], f["code"], f["message"]) for f in report["findings"]]
    assert any(m[0] == "dangling.yaml" and m[1] == "KPL003" for m in messages), messages
    assert any("loop" in m[2] for m in messages), messages


def test_fifo_is_not_opened(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.yaml")
    code, report, _ = run_json("check", ".", cwd=tmp_path, timeout=20)
    assert [(f["file"], f["code"]) for f in report["findings"]] == [("pipe.yaml", "KPL003")]


def test_github_format_is_automatic_under_actions(tree: Path):
    proc = run_cli("check", "team-a", *PINNED, cwd=tree, env={"GITHUB_ACTIONS": "true"})
    assert proc.stdout.startswith("::error file=team-a/pool.yaml,line=1,col=13,endLine=1,endColumn=33,"
                                  "title=karplint KPL801 (removed-api-version)::")


def test_text_output_has_no_colour_when_piped_and_has_a_frame(tree: Path):
    proc = run_cli("check", "team-a", *PINNED, cwd=tree)
    assert "\x1b[" not in proc.stdout
    assert "team-a/pool.yaml:1:13: KPL801 [error]" in proc.stdout
    assert " 1 | apiVersion: karpenter.sh/v1beta1" in proc.stdout
    assert "Found 1 finding (1 error)" in proc.stdout


def test_output_file(tree: Path):
    proc = run_cli("check", "team-a", *PINNED, "-f", "sarif", "-o", "out.sarif", cwd=tree)
    assert proc.returncode == 1 and proc.stdout == ""
    assert json.loads((tree / "out.sarif").read_text())["version"] == "2.1.0"


def test_rules_and_explain():
    proc = run_cli("rules", "--output-format", "json")
    rules = json.loads(proc.stdout)
    assert {"code", "slug", "category", "severity", "summary"} <= set(rules[0])
    assert any(r["code"] == "KPL801" for r in rules)
    proc = run_cli("explain", "removed-api-version")
    assert proc.returncode == 0 and "# KPL801: removed-api-version" in proc.stdout
    assert run_cli("explain", "KPL999").returncode == 2


def test_config_file_and_errors(tree: Path):
    (tree / ".karplint.toml").write_text('karpenter-version = "0.37.8"\nfail-on = "error"\n')
    _, report, _ = run_json("check", "team-a", cwd=tree)
    assert report["findings"] == [] and report["summary"]["karpenter_version"] == "0.37.8"
    (tree / ".karplint.toml").write_text('colour = "blue"\n')
    proc = run_cli("check", "team-a", cwd=tree)
    assert proc.returncode == 2 and "colour" in proc.stderr and ".karplint.toml" in proc.stderr
    (tree / ".karplint.toml").write_text('fail-on = "critical"\n')
    proc = run_cli("check", "team-a", cwd=tree)
    assert proc.returncode == 2 and "fail-on" in proc.stderr


def test_pyproject_config_and_cli_override(tree: Path):
    (tree / "pyproject.toml").write_text('[tool.karplint]\nkarpenter-version = "1.14.1"\nignore = ["KPL801"]\n'
                                         '[tool.karplint.severity]\nKPL001 = "info"\n')
    code, report, _ = run_json("check", ".", cwd=tree)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("KPL001", "info")] and code == 0
    code, report, _ = run_json("check", ".", "--fail-on", "info", cwd=tree)
    assert code == 1


def test_per_file_ignores(tree: Path):
    (tree / ".karplint.toml").write_text('karpenter-version = "1.14.1"\n[per-file-ignores]\n"team-a/*" = ["KPL801"]\n')
    _, report, _ = run_json("check", ".", cwd=tree)
    assert [f["code"] for f in report["findings"]] == ["KPL001"]


def test_suppressions(tmp_path: Path):
    (tmp_path / "a.yaml").write_text(
        "# karplint: disable=KPL801 -- still on 0.37 here\n" + V1BETA1_POOL +
        "---\napiVersion: karpenter.sh/v1alpha5  # karplint: disable=KPL801\nkind: Provisioner\n"
        "metadata:\n  name: p\n---\nkind: Service  # karplint: disable=KPL002\n")
    (tmp_path / "b.yaml").write_text("# karplint: disable-file=KPL801\n" + V1BETA1_POOL)
    (tmp_path / "c.yaml").write_text(V1BETA1_POOL.replace(
        "  name: old\n", "  name: old\n  annotations:\n    karplint.io/ignore: KPL801\n"))
    _, report, _ = run_json("check", ".", *PINNED, cwd=tmp_path)
    got = [(f["file"], f["code"], f["line"]) for f in report["findings"]]
    assert got == [("a.yaml", "KPL090", 18)], got
