"""karplint under a real `pre-commit run` (a local hook calling this interpreter, so nothing is built): only the
staged NodePool is passed, yet its EC2NodeClass in an unstaged file is found (no KPL601) and Cilium's install is
seen (KPL301); and the findings are coloured when pre-commit colours its own output (it runs hooks in a
pseudo-terminal then), plain with --color never."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from karplint.testing import REPO

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_partial_runs import CILIUM, NODECLASS, NODEPOOL  # noqa: E402

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
pytestmark = [
    pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed (pip install -e '.[test]')"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is needed by pre-commit"),
]


@pytest.fixture
def project(tmp_path):
    env = {**{k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")},
           "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "PYTHONPATH": str(REPO),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    repo = tmp_path / "repo"
    for d in ("pools", "classes", "infra"):
        (repo / d).mkdir(parents=True)
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: karplint\n    name: karplint\n"
        f"    entry: {sys.executable} -m karplint check --force-exclude --no-cache\n"
        "    language: system\n    types_or: [yaml, json]\n    require_serial: true\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "add", ".pre-commit-config.yaml"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=repo, check=True, env=env)
    (repo / "pools" / "np.yaml").write_text(NODEPOOL.format(name="default"))
    (repo / "classes" / "nc.yaml").write_text(NODECLASS)  # not staged
    (repo / "infra" / "cilium.yaml").write_text(CILIUM)  # not staged
    subprocess.run(["git", "add", "pools/np.yaml"], cwd=repo, check=True, env=env)
    return repo, env


def _run(project, *args):
    repo, env = project
    return subprocess.run([str(PRE_COMMIT), "run", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=300)


def test_staged_nodepool_is_judged_with_the_unstaged_project(project):
    proc = _run(project, "--color", "never")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "pools/np.yaml" in out and "KPL301" in out  # Cilium, installed in an unstaged file, is seen
    assert "KPL601" not in out  # the class in classes/nc.yaml (unstaged) is found
    assert "classes/nc.yaml" not in out  # and files not passed are not reported on
    assert "\x1b[" not in out


def test_findings_are_coloured_when_pre_commit_colours(project):
    proc = _run(project, "--color", "always")
    finding = next(ln for ln in proc.stdout.splitlines() if "KPL301" in ln)
    assert "\x1b[" in finding  # karplint's own colour, not only pre-commit's Passed/Failed
