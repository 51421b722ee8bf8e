"""The README's promises: Quickstart commands, CI running the same test command, wheel contents, the
pre-commit hook (through `pre-commit try-repo`) and the GitHub Action's interface."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from karplint.testing import REPO, run_json


def _sh_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    quickstart = text.split("## Quickstart", 1)[1]
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", quickstart, re.S)]


def test_ci_runs_exactly_the_readme_test_command():
    install_and_run, test_command = _sh_blocks()[:2]
    assert "karplint check examples/" in install_and_run
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == test_command


def test_bundled_example_has_findings():
    code, report, _ = run_json("check", str(REPO / "examples" / "quickstart"))
    assert code == 1 and len(report["findings"]) >= 3


def test_pre_commit_hook_definition():
    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = hooks[0]
    assert hook["id"] == "karplint" and hook["language"] == "python"
    # (terraform, markdown, shell: the files karplint.readers.embedded reads YAML from; identify's tags)
    assert hook["types_or"] == ["yaml", "json", "terraform", "markdown", "shell"] and \
        hook["entry"].startswith("karplint check")


def test_action_interface():
    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert {"version", "paths", "args", "sarif-file"} <= set(action["inputs"])
    script = (REPO / "action" / "check.py").read_text()  # the check step's code (tests/test_action.py runs it)
    # one run's JSON renders the annotations and the SARIF file
    assert '"--output-format", "json"' in script and "render_github(" in script and "render_sarif(" in script


@pytest.mark.slow
def test_wheel_ships_rule_docs_and_schemas(tmp_path: Path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("karplint-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "karplint/_data/rules/KPL801.md" in names
    assert any(n.startswith("karplint/_data/schemas/") for n in names)
    assert "karplint/userdata/bashlex_tables.json" in names  # bashlex's parser tables (else computed at import)
    assert "karplint/provisioning/instance_types.json" in names  # the instance-type catalog
    assert "karplint/userdata/kubelet_flags.json" in names  # the kubelet flag table (KPL216-KPL218)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed by pre-commit")
def test_pre_commit_try_repo(tmp_path: Path):
    """The hook as users run it: pre-commit builds karplint from this repository into its own venv."""
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists():
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    # try-repo needs a git repository; copy the tracked tree so uncommitted work is what gets tested.
    src = tmp_path / "karplint-src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__",
                                                               ".pytest_cache", ".karplint_cache", ".hypothesis",
                                                               "bench"))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    for repo in (src, tmp_path / "project"):
        repo.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=src, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=src, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "snapshot"], cwd=src, check=True, env=env)
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=env)
    (project / "good.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    (project / "pool.yaml").write_text("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata:\n  name: p\n")
    (project / ".karplint.toml").write_text('karpenter-version = "1.14.1"\n')  # pinned: KPL801 on pool.yaml
    subprocess.run(["git", "add", "-A"], cwd=project, check=True, env=env)
    ok = subprocess.run([str(pre_commit), "try-repo", str(src), "karplint", "--files", "good.yaml"],
                        cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = subprocess.run([str(pre_commit), "try-repo", str(src), "karplint", "--all-files"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "pool.yaml:1:13: KPL801" in bad.stdout


def _check_help_options() -> set[str]:
    from karplint.testing import run_cli

    proc = run_cli("check", "--help", env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", proc.stdout)) - {"--help"}


def test_readme_and_check_help_name_the_same_options():
    """Every option `karplint check --help` lists is in the README, and every option the README's table gives
    `check` exists (a README that promises a flag the CLI rejects is a bug)."""
    helped = _check_help_options()
    text = (REPO / "README.md").read_text()
    usage = text.split("## Usage", 1)[1].split("## What karplint checks", 1)[0]
    table = "\n".join(ln for ln in usage.splitlines() if ln.startswith("| `-"))
    documented = set(re.findall(r"`(--[a-z][a-z-]+)", table))
    assert helped - set(re.findall(r"(--[a-z][a-z-]+)", text)) == set(), "options missing from the README"
    assert documented - helped == set(), "README options that `check` does not have"
    # (the fast argparse path declares exactly typer's options: tests/test_startup.py)
