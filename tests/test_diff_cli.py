"""`karplint diff` on the command line (subprocess): the sides it picks from its arguments, its formats, its exit
codes and its usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from karplint.testing import run_cli

from tests.test_diff_core import NODECLASS, NODEPOOL, SCHEMA, write

GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c",
                           "init.defaultBranch=main", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", **GIT_ENV, "HOME": str(repo)}).stdout


@pytest.fixture
def trees(tmp_path):
    write(tmp_path / "old", {"p.yaml": NODEPOOL.format(name="general"), "nc.yaml": NODECLASS})
    write(tmp_path / "new", {"p.yaml": NODEPOOL.format(name="general"),
                             "nc.yaml": NODECLASS.replace("al2023@v20240807", "al2023@v20241011")})
    write(tmp_path / "weight", {"p.yaml": NODEPOOL.format(name="general").replace("weight: 10", "weight: 3"),
                                "nc.yaml": NODECLASS})
    return tmp_path


def test_json_validates_and_says_what_drifts(trees):
    proc = run_cli("diff", "--old", "old", "--new", "new", "-f", "json", cwd=trees)
    assert (proc.returncode, proc.stderr) == (0, "")
    doc = json.loads(proc.stdout)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    (pool,) = doc["nodepools"]
    assert (pool["name"], pool["status"], pool["drift"]["verdict"]) == ("general", "nodeclass_changed", "all")
    assert [r["field"] for r in pool["drift"]["reasons"]] == ["spec.amiSelectorTerms"]
    assert doc["summary"][0] == "Merging this replaces every node of NodePool general, 10% at a time."


def test_text_names_the_sides_the_headline_and_the_reason(trees):
    proc = run_cli("diff", "--old", "old", "--new", "new", cwd=trees)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "karplint diff: old -> new (Karpenter 1.14.1 assumed: no release pinned)"
    assert lines[2] == "Merging this replaces every node of NodePool general, 10% at a time."
    assert "  spec.amiSelectorTerms[0].alias: al2023@v20240807 -> al2023@v20241011  (line 8)" in lines
    assert "\x1b" not in proc.stdout  # (no colour in a pipe)


@pytest.mark.parametrize("new, code", [("new", 1), ("weight", 0)])
def test_exit_code_is_1_only_when_nodes_are_replaced(trees, new, code):
    proc = run_cli("diff", "--old", "old", "--new", new, "--exit-code", cwd=trees)
    assert (proc.returncode, proc.stderr) == (code, "")
    assert run_cli("diff", "--old", "old", "--new", new, cwd=trees).returncode == 0


@pytest.mark.parametrize("args, message", [
    (["--old", "old"], "karplint diff: --old and --new go together: the two trees to compare"),
    (["--old", "old", "--new", "nosuch"], "karplint diff: nosuch: no such file or directory"),
    (["--old", "old", "--new", "new", "-f", "sarif"],
     "karplint diff: --output-format: 'sarif' is not one of text, json, markdown"),
    (["--old", "old", "--new", "new", "--nodes", "0"], "karplint diff: --nodes: 0 is not a pool size (1 or more)"),
    (["--old", "old", "--new", "new", "--base", "main"],
     "karplint diff: --base compares with git; --old/--new compare two paths: give one or the other"),
    (["--old", "old", "--new", "new", "--karpenter-version", "nonsense"], "karplint diff: --karpenter-version:"),
    ([], "karplint diff: "),  # (not a repository: says to compare two paths)
])
def test_usage_errors_exit_2_with_a_message(trees, args, message):
    proc = run_cli("diff", *args, cwd=trees, env=GIT_ENV)
    assert proc.returncode == 2
    assert proc.stderr.startswith(message), proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    if not args:
        assert "not a git repository" in proc.stderr and "--old OLD --new NEW" in proc.stderr


def test_first_argument_is_the_base_when_it_names_a_commit_else_a_path(tmp_path):
    repo = tmp_path / "repo"
    write(repo, {"infra/p.yaml": NODEPOOL.format(name="general"), "infra/nc.yaml": NODECLASS,
                 "other/p.yaml": NODEPOOL.format(name="other")})
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    (repo / "infra" / "nc.yaml").write_text(NODECLASS.replace("role: KarpenterNodeRole", "role: Other"))
    (repo / "other" / "p.yaml").write_text(NODEPOOL.format(name="other").replace("weight: 10", "weight: 1"))
    git(repo, "commit", "-qam", "head")

    def pools(*args):
        proc = run_cli("diff", *args, "-f", "json", cwd=repo, env=GIT_ENV)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        return doc["base"]["label"].split(" ")[0], [(p["name"], p["drift"]["verdict"]) for p in doc["nodepools"]]

    # (both pools name EC2NodeClass default: its role changed under both)
    assert pools("HEAD~1") == ("HEAD~1", [("general", "all"), ("other", "all")])
    assert pools("HEAD~1", "infra") == ("HEAD~1", [("general", "all")])
    # (the EC2NodeClass the pool of `other` names is outside that path, and still its nodes' class)
    assert pools("--base", "HEAD~1", "other") == ("HEAD~1", [("other", "all")])
    # `infra` is a directory, not a revision: the base is the default (main's merge base: HEAD itself)
    assert pools("infra") == ("main", [])
    proc = run_cli("diff", "HEAD~9", cwd=repo, env=GIT_ENV)
    assert (proc.returncode, proc.stderr) == (
        2, "karplint diff: HEAD~9: neither a commit of this repository nor a file or directory\n")


def test_check_does_not_import_the_diff_package(tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL.format(name="a"))
    probe = textwrap.dedent(f"""
        import sys
        sys.argv = ["karplint", "check", "--no-cache", {str(tmp_path / "np.yaml")!r}]
        from karplint.cli import main
        try:
            main()
        except SystemExit:
            pass
        sys.__stderr__.write(repr(sorted(m for m in sys.modules if m.startswith("karplint.diff"))))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.stderr.endswith("[]"), proc.stderr


def test_two_trees_inside_a_repository_are_each_a_project_of_their_own(tmp_path):
    """--old/--new in a checkout (fixtures of real changes, as tests/fixtures/diff/history): the repository's other
    files are neither side's context, and its configuration is not theirs."""
    repo = tmp_path / "repo"
    write(repo, {"cases/old/np.yaml": NODEPOOL.format(name="a"), "cases/new/np.yaml": NODEPOOL.format(name="a"),
                 "other/bad.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: x\n",
                 "pyproject.toml": "[tool.karplint]\nkarpenter-version = \"nonsense\"\n"})
    git(repo, "init", "-q")
    proc = run_cli("diff", "--old", "cases/old", "--new", "cases/new", "-f", "json", cwd=repo, env=GIT_ENV)
    assert (proc.returncode, proc.stderr) == (0, "")
    doc = json.loads(proc.stdout)
    assert (doc["problems"], doc["summary"]) == ([], ["Merging this changes no NodePool or EC2NodeClass."])


def test_the_documented_example_is_what_the_command_prints():
    """docs/diff.md's "Example" block, run on its files (tests/fixtures/diff/example)."""
    root = Path(__file__).resolve().parents[1]
    docs = (root / "docs" / "diff.md").read_text()
    block = docs.split("## Example", 1)[1].split("```\n", 2)[1]
    command, expected = block.split("\n", 1)
    assert command == "$ karplint diff --old old --new new --nodes 20"
    proc = run_cli(*command.split()[2:], cwd=root / "tests" / "fixtures" / "diff" / "example")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == expected
