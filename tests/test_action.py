"""The GitHub Action's steps (action/run.sh), run here as the runner would run them: paths one per line with
spaces kept, annotations, the SARIF file, the job summary and the step's outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
import pytest
from ruamel.yaml import YAML

from karplint.testing import REPO, need_shared

OLD = "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\nspec: {}\n"


def _run(tmp_path, cwd, **env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"RUNNER_TEMP": str(tmp_path / "runner"), "GITHUB_OUTPUT": str(tmp_path / "output"),
                "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "ACTION_PATH": str(REPO),
                "KARPLINT_BIN": f"{sys.executable} -m karplint", "KARPLINT_PYTHON": sys.executable, **env_extra})
    for name in ("output", "summary.md"):
        (tmp_path / name).write_text("")
    return subprocess.run(["bash", str(REPO / "action" / "run.sh"), "check"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_check_step(tmp_path):
    proj = tmp_path / "proj"
    (proj / "my dir").mkdir(parents=True)
    (proj / "other").mkdir()
    (proj / "my dir" / "np.yaml").write_text(OLD)
    (proj / "other" / "np.yaml").write_text(OLD.replace("old", "older"))
    (proj / "ignored").mkdir()
    (proj / "ignored" / "np.yaml").write_text(OLD)
    sarif = tmp_path / "out.sarif"
    proc = _run(tmp_path, proj, PATHS="my dir\n\nother\r\n",
                ARGS="--select KPL801 --karpenter-version 1.14.1 --no-cache",
                SARIF_FILE=str(sarif))
    assert proc.returncode == 1, proc.stderr
    annotations = [ln for ln in proc.stdout.splitlines() if ln.startswith("::error ")]
    assert [a.split(",")[0] for a in annotations] == ["::error file=my dir/np.yaml", "::error file=other/np.yaml"]
    outputs = dict(ln.split("=", 1) for ln in (tmp_path / "output").read_text().splitlines())
    assert outputs == {"findings": "2", "errors": "2", "warnings": "0", "sarif-file": str(sarif)}
    summary = (tmp_path / "summary.md").read_text()
    assert "2 finding(s) in 2 file(s)" in summary and "| KPL801 removed-api-version | 2 |" in summary
    report = json.loads(sarif.read_text())
    jsonschema.validate(report, json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text()))
    assert len(report["runs"][0]["results"]) == 2


def test_clean_tree_passes_and_still_writes_sarif(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    sarif = tmp_path / "out.sarif"
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--no-cache", SARIF_FILE=str(sarif), SUMMARY="false")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(sarif.read_text())["runs"][0]["results"] == []
    assert (tmp_path / "summary.md").read_text() == ""


def test_sarif_file_name_is_written_under_runner_temp_never_through_a_link_in_the_checkout(tmp_path):
    """A pull request commits `karplint.sarif` (the name of the README's setup) as a link to a file outside the
    checkout: the SARIF report goes to a new directory under RUNNER_TEMP, whose path the step outputs."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim").write_text("precious\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "np.yaml").write_text(OLD)
    (proj / "karplint.sarif").symlink_to("../outside/victim")
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--no-cache --select KPL801 --karpenter-version 1.14.1",
                SARIF_FILE="karplint.sarif")
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "outside" / "victim").read_text() == "precious\n"
    assert os.readlink(proj / "karplint.sarif") == "../outside/victim"
    assert sorted(os.listdir(proj)) == ["karplint.sarif", "np.yaml"]
    outputs = dict(ln.split("=", 1) for ln in (tmp_path / "output").read_text().splitlines())
    sarif = outputs["sarif-file"]
    reports = os.path.dirname(sarif)
    assert os.path.basename(sarif) == "karplint.sarif"
    assert os.path.dirname(reports) == str(tmp_path / "runner")
    assert os.path.basename(reports).startswith("karplint-reports.")
    assert len(json.loads(open(sarif).read())["runs"][0]["results"]) == 1
    assert sorted(os.listdir(reports)) == ["karplint.sarif", "report.json"]


def test_without_runner_temp_reports_go_to_a_new_temporary_directory(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "np.yaml").write_text(OLD)
    (tmp_path / "tmp").mkdir()
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--no-cache", SARIF_FILE="k.sarif", RUNNER_TEMP="",
                TMPDIR=str(tmp_path / "tmp"))
    assert proc.returncode == 1, proc.stderr
    outputs = dict(ln.split("=", 1) for ln in (tmp_path / "output").read_text().splitlines())
    [made] = os.listdir(tmp_path / "tmp")
    assert outputs["sarif-file"] == str(tmp_path / "tmp" / made / "k.sarif")
    assert os.listdir(proj) == ["np.yaml"]


def test_action_yml_passes_inputs_as_data():
    """Inputs reach the steps through env: `${{ inputs.x }}` inside `run:` would be a script injection."""
    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", "")
        if "run" in step:
            assert step["run"].strip("'").startswith('"$ACTION_PATH/action/run.sh"')
    assert set(action["outputs"]) == {"findings", "errors", "sarif-file"}


@pytest.mark.skipif(sys.platform == "win32", reason="bash")
def test_run_sh_needs_a_step_name(tmp_path):
    proc = subprocess.run(["bash", str(REPO / "action" / "run.sh")], capture_output=True, text=True,
                          env={**os.environ, "RUNNER_TEMP": str(tmp_path)})
    assert proc.returncode != 0 and "usage" in proc.stderr


def _fake_pip(tmp_path):
    """A pip that records what it was asked to install and leaves a `karplint` that prints a version."""
    log = tmp_path / "pip.log"
    pip = tmp_path / "fake-pip"
    venv = tmp_path / "runner" / "karplint-venv"
    pip.write_text(f"#!/bin/sh\necho \"$@\" >> '{log}'\nmkdir -p '{venv}/bin'\n"
                   f"printf '#!/bin/sh\\necho karplint 0.1.0\\n' > '{venv}/bin/karplint'\n"
                   f"chmod +x '{venv}/bin/karplint'\n")
    pip.chmod(0o755)
    return str(pip), log


def _install(tmp_path, **env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"RUNNER_TEMP": str(tmp_path / "runner"), "ACTION_PATH": str(REPO), **env_extra})
    (tmp_path / "runner").mkdir(exist_ok=True)
    return subprocess.run(["bash", str(REPO / "action" / "run.sh"), "install"], env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def releases_repo(tmp_path):
    """A git repository standing for the action's repository, with the release tags v0.1.0 and v0.2.0."""
    repo = tmp_path / "owner" / "karplint"
    repo.mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / "README.md").write_text("x\n")
    subprocess.run(git + ["add", "README.md"], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    for tag in ("v0.1.0", "v0.2.0"):
        subprocess.run(git + ["tag", tag], check=True)
    return tmp_path


def test_install_version_builds_the_tag_of_the_actions_repository(releases_repo):
    """`version` installs something that exists: the tag of the action's own repository (not a PyPI name)."""
    pip, log = _fake_pip(releases_repo)
    server = f"file://{releases_repo}"
    proc = _install(releases_repo, KARPLINT_PIP=pip, KARPLINT_VERSION="v0.1.0", ACTION_REPOSITORY="owner/karplint",
                    GITHUB_SERVER_URL=server)
    assert proc.returncode == 0, proc.stderr
    assert log.read_text().split() == ["install", "--quiet", f"git+{server}/owner/karplint@v0.1.0"]
    assert "karplint 0.1.0" in proc.stdout


def test_install_unknown_version_fails_naming_the_releases(releases_repo):
    pip, log = _fake_pip(releases_repo)
    proc = _install(releases_repo, KARPLINT_PIP=pip, KARPLINT_VERSION="0.9.9", ACTION_REPOSITORY="owner/karplint",
                    GITHUB_SERVER_URL=f"file://{releases_repo}")
    assert proc.returncode == 1
    assert "::error title=karplint::version '0.9.9' is not a release" in proc.stderr
    assert "v0.1.0 v0.2.0" in proc.stderr and not log.exists()


def test_install_without_version_builds_the_actions_own_checkout(tmp_path):
    pip, log = _fake_pip(tmp_path)
    proc = _install(tmp_path, KARPLINT_PIP=pip)
    assert proc.returncode == 0, proc.stderr
    assert log.read_text().split() == ["install", "--quiet", str(REPO)]
