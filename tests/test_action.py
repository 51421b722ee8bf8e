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
    assert outputs == {"findings": "2", "errors": "2", "warnings": "0", "completed": "true", "sarif-file": str(sarif)}
    summary = (tmp_path / "summary.md").read_text()
    assert "2 findings in 2 files" in summary and "| KPL801 removed-api-version | 2 |" in summary
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
    assert set(action["outputs"]) == {"findings", "errors", "completed", "sarif-file", "diff-completed",
                                      "drifted-nodepools"}


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


# ------------------------------------------------------------------------------------------- issue #27

def _load_action_module(name):
    """action/<name>.py, as check.py imports it (the action's scripts are not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"karplint_action_{name}", REPO / "action" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _outputs(tmp_path):
    return dict(ln.split("=", 1) for ln in (tmp_path / "output").read_text().splitlines())


def _blue_prints_tree(tmp_path):
    proj = tmp_path / "proj"
    (proj / "blue prints").mkdir(parents=True)
    (proj / "other").mkdir()
    (proj / "blue prints" / "np.yaml").write_text(OLD)
    (proj / "other" / "np.yaml").write_text(OLD.replace("old", "older"))
    return proj


def _annotated_files(proc):
    return [ln.split(",")[0] for ln in proc.stdout.splitlines() if ln.startswith("::error ")]


@pytest.mark.parametrize("args", [
    "--select KPL801\n--exclude\nblue prints/**\n--no-cache\n--karpenter-version\n1.14.1\n",  # a YAML block: one argument per line
    '--select KPL801 --exclude "blue prints/**" --no-cache --karpenter-version 1.14.1',  # one line, a quoted value
    "--select KPL801\n  --exclude 'blue prints/**'\r\n\n--no-cache --karpenter-version=1.14.1",  # both, indented, CRLF, a blank line
])
def test_args_block_keeps_every_line_and_quotes_are_honoured(tmp_path, args):
    """`args` as a YAML block lost every line after the first, and `--exclude "blue prints/**"` reached karplint
    as the words `"blue` and `prints/**"`."""
    proj = _blue_prints_tree(tmp_path)
    proc = _run(tmp_path, proj, PATHS=".", ARGS=args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _annotated_files(proc) == ["::error file=other/np.yaml"]
    assert _outputs(tmp_path)["findings"] == "1"


def test_args_unbalanced_quote_is_a_usage_error_naming_the_line(tmp_path):
    proj = _blue_prints_tree(tmp_path)
    sarif = tmp_path / "out.sarif"
    proc = _run(tmp_path, proj, PATHS=".", ARGS='--select KPL801\n--exclude "blue prints/**', SARIF_FILE=str(sarif))
    assert proc.returncode == 2
    assert ('::error title=karplint::args line 2: No closing quotation: --exclude "blue prints/**'
            in proc.stdout.splitlines())
    assert json.loads(sarif.read_text())["runs"][0]["invocations"][0]["executionSuccessful"] is False


@pytest.mark.parametrize("argv, refused", [
    (["--statistics"], "--statistics"),
    (["-f", "sarif"], "-f"),
    (["--output-format=sarif"], "--output-format"),
    (["-qfsarif"], "-f"),
    (["--select", "KPL801", "-o", "x.json"], "-o"),
    (["--output", "x.json"], "--output"),
    (["--fix"], "--fix"),
    (["--diff"], "--diff"),
    (["--watch"], "--watch"),
    (["--show-settings"], "--show-settings"),
    (["--", "deploy"], "--"),
])
def test_args_that_change_the_report_are_refused(argv, refused):
    arguments = _load_action_module("arguments")
    why = arguments.refusal(argv)
    assert why is not None and why.startswith(f"args: {refused} ")


@pytest.mark.parametrize("argv", [
    ["--select", "KPL801", "--karpenter-version", "1.14.1"],
    ["--exclude", "--fix"],  # the value of --exclude, not an option
    ["--exclude=--diff", "-j", "2", "-q"],
    ["-j2", "--ignore", "-f"],
    ["deploy/extra.yaml", "--exit-zero"],
])
def test_args_that_leave_the_report_alone_are_accepted(argv):
    assert _load_action_module("arguments").refusal(argv) is None


def test_arguments_know_every_option_that_takes_a_value():
    """action/arguments.py reads `-o` after `--exclude` as the value of --exclude: its list of options that take
    a value must be the command's."""
    import typer.main

    from karplint.cli.typer_app import app

    command = typer.main.get_command(app).commands["check"]
    taking_value = {opt for p in command.params if p.param_type_name == "option" and not p.is_flag
                    for opt in p.opts + p.secondary_opts}
    assert _load_action_module("arguments").VALUE_OPTIONS == taking_value


@pytest.mark.parametrize("args", ["--statistics", "--no-cache --select KPL801 -f sarif"])
def test_args_changing_the_output_fail_clearly_and_still_write_sarif(tmp_path, args):
    """With --statistics the summary step crashed on non-JSON (a traceback) and the SARIF file held text."""
    proj = _blue_prints_tree(tmp_path)
    sarif = tmp_path / "out.sarif"
    proc = _run(tmp_path, proj, PATHS=".", ARGS=args, SARIF_FILE=str(sarif))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    [error] = [ln for ln in proc.stdout.splitlines() if ln.startswith("::error")]
    assert error.startswith("::error title=karplint::args: ") and "is not accepted here" in error
    report = json.loads(sarif.read_text())
    jsonschema.validate(report, json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text()))
    assert report["runs"][0]["results"] == []


def test_usage_error_writes_a_valid_sarif_with_the_reason_and_fails(tmp_path):
    """An unknown flag (karplint exits 2): the SARIF file action.yml promises is written, with no results and
    the error as a tool execution notification; the step fails with the message."""
    proj = _blue_prints_tree(tmp_path)
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--no-cache --no-such-flag", SARIF_FILE="k.sarif")
    assert proc.returncode == 2
    assert _outputs(tmp_path)["completed"] == "false"  # (the README's upload step skips it: alerts stay open)
    sarif = _outputs(tmp_path)["sarif-file"]
    report = json.loads(open(sarif).read())
    jsonschema.validate(report, json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text()))
    [run] = report["runs"]
    assert run["results"] == []
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "--no-such-flag" in note["message"]["text"]
    [error] = [ln for ln in proc.stdout.splitlines() if ln.startswith("::error")]
    assert error.startswith("::error title=karplint::karplint check failed (exit code 2): ") and "--no-such-flag" in error
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## karplint\n\n**karplint did not complete** (exit code 2):\n\n<pre>karplint check ")
    assert summary.endswith("No such option: --no-such-flag</pre>\n")


def test_karplint_runs_once(tmp_path):
    """The annotations, the SARIF file and the summary come from one run's JSON (they were three runs, which
    `args` could make disagree)."""
    proj = _blue_prints_tree(tmp_path)
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "karplint-wrapper"
    wrapper.write_text(f"#!/bin/sh\necho \"$*\" >> '{log}'\nexec '{sys.executable}' -m karplint \"$@\"\n")
    wrapper.chmod(0o755)
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--select KPL801 --no-cache --karpenter-version 1.14.1", SARIF_FILE="k.sarif",
                KARPLINT_BIN=str(wrapper))
    assert proc.returncode == 1, proc.stderr
    [call] = log.read_text().splitlines()
    assert call.startswith("check --output-format json --output ") and call.endswith(" --select KPL801 --no-cache --karpenter-version 1.14.1 -- .")
    assert len(_annotated_files(proc)) == 2
    assert len(json.loads(open(_outputs(tmp_path)["sarif-file"]).read())["runs"][0]["results"]) == 2
    assert _outputs(tmp_path)["completed"] == "true"


def test_summary_lists_every_finding_beyond_githubs_ten_annotations_per_level(tmp_path):
    """GitHub shows 10 annotations of each level per step: the 11th and 12th errors are in the summary's table,
    grouped by file, their names escaped for Markdown (a pipe, backticks and HTML stay text in their cell)."""
    proj = tmp_path / "proj"
    proj.mkdir()
    names = [f"np{i:02d}.yaml" for i in range(10)] + ["np10 `x`.yaml", "np11|<b>&.yaml"]
    for i, name in enumerate(names):
        (proj / name).write_text(OLD.replace("old", f"old{i}"))
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--select KPL801 --no-cache --karpenter-version 1.14.1")
    assert proc.returncode == 1, proc.stderr
    assert len(_annotated_files(proc)) == 12  # printed; GitHub shows the first 10
    summary = (tmp_path / "summary.md").read_text()
    table = summary[summary.index("### 2 findings not shown as annotations"):].splitlines()
    assert table[4:6] == ["| file | line | code | severity | message |", "|---|---:|---|---|---|"]
    rows = table[6:]
    assert [r.split(" | ")[:4] for r in rows] == [
        ["| np10 \\`x\\`.yaml", "1", "KPL801 removed-api-version", "error"],
        ["| np11\\|&lt;b&gt;&amp;.yaml", "1", "KPL801 removed-api-version", "error"],
    ]
    assert all(r.endswith(" |") and "karpenter.sh/v1beta1" in r for r in rows)


def test_summary_cell_escapes_markdown_and_html():
    summary = _load_action_module("summary")
    assert summary.cell("a|b `c` <img src=x onerror=y> [l](http://e) *s* @team\nnext") == (
        "a\\|b \\`c\\` &lt;img src=x onerror=y&gt; \\[l\\]\\(http\\://e\\) \\*s\\* \\@team next")


def test_summary_of_a_huge_run_stays_bounded():
    summary = _load_action_module("summary")
    findings = [{"code": "KPL801", "slug": "removed-api-version", "severity": "error", "file": f"f{i:05d}.yaml",
                 "line": 1, "column": 1, "message": "m" * 5000} for i in range(5000)]
    doc = {"findings": findings, "summary": {
        "findings": 5000, "files": 5000, "resources": 5000, "karpenter_version": "1.14.1", "fail_on": "warning",
        "failed": True, "by_code": {"KPL801": 5000}}}
    text = summary.render(doc)
    assert len(text.encode()) < 1024 * 1024
    assert sum(1 for ln in text.splitlines() if ln.startswith("| f0")) == summary.MAX_ROWS
    assert text.rstrip().endswith("… and 3990 more: the SARIF file and `karplint check` list them all.")


def test_cache_key_is_made_from_the_actions_own_files(tmp_path):
    """hashFiles() only sees the workspace: `format('{0}/pyproject.toml', github.action_path)` hashed to an empty
    string, and `uses: ./` broke it. run.sh cache-key hashes the action's pyproject.toml and the version."""
    import hashlib

    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    [cache] = [s for s in action["runs"]["steps"] if s.get("uses", "").startswith("actions/cache@")]
    assert cache["with"]["key"] == "${{ steps.cache-key.outputs.key }}"
    assert "hashFiles" not in (REPO / "action.yml").read_text()
    out = tmp_path / "output"
    out.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))}
    version = "0.1.0\nsarif-file=/etc/passwd"  # data: never a second output line
    proc = subprocess.run(["bash", str(REPO / "action" / "run.sh"), "cache-key"], capture_output=True, text=True,
                          env={**env, "ACTION_PATH": str(REPO), "KARPLINT_VERSION": version, "RUNNER_OS": "Linux",
                               "GITHUB_OUTPUT": str(out)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    digest = hashlib.sha256(version.encode() + b"\0" + (REPO / "pyproject.toml").read_bytes()).hexdigest()[:32]
    assert out.read_text() == f"key=karplint-pip-Linux-{digest}\n"


def test_report_from_json_renders_what_the_run_rendered():
    """The loader behind the single run: GitHub annotations and SARIF results rendered from the JSON report are
    those karplint renders itself."""
    from karplint.report.from_json import report_from_json
    from karplint.report.github import render_github
    from karplint.report.sarif import render_sarif
    from karplint.testing import run_cli

    target = str(REPO / "examples" / "quickstart")
    outputs = {fmt: run_cli("check", "--no-cache", "--output-format", fmt, target, cwd=REPO).stdout
               for fmt in ("json", "github", "sarif")}
    report = report_from_json(json.loads(outputs["json"]), base=str(REPO))
    assert len(report.findings) > 5 and any(f.fix for f in report.findings)
    assert render_github(report) == outputs["github"]
    direct = json.loads(outputs["sarif"])["runs"][0]
    loaded = json.loads(render_sarif(report))["runs"][0]
    assert loaded["results"] == [{**r, "ruleIndex": loaded["results"][i]["ruleIndex"]}
                                 for i, r in enumerate(direct["results"])]
    assert any(r.get("fixes") for r in loaded["results"])  # (SARIF fixes read the files: `base`)
    rules = {r["id"]: r for r in direct["tool"]["driver"]["rules"]}
    assert all(rule == rules[rule["id"]] for rule in loaded["tool"]["driver"]["rules"])


def test_report_from_json_refuses_anything_else():
    from karplint.report.from_json import NotAReport, report_from_json

    for doc in ({"version": 2, "findings": []}, [], {"version": 1, "findings": [{"code": "KPL801"}]}):
        with pytest.raises(NotAReport):
            report_from_json(doc)


def _repository_tags() -> set[str]:
    proc = subprocess.run(["git", "-C", str(REPO), "tag", "--list"], capture_output=True, text=True)
    return set(proc.stdout.split()) if proc.returncode == 0 else set()


def test_readme_install_references_resolve():
    """The README's `rev: v0.1.0` (pre-commit), `OWNER/karplint@v0.1.0` and `version: 0.1.0` (the Action) named a
    tag that does not exist. Each install reference names `main`, a full commit SHA, or a tag the repository has."""
    import re

    text = (REPO / "README.md").read_text()
    refs = re.findall(r"^\s*rev:\s*['\"]?([^\s'\"#]+)", text, re.M)
    refs += re.findall(r"\buses:\s*[\w.-]+/karplint@([^\s'\"#]+)", text)
    refs += ["v" + v.lstrip("v") for v in re.findall(r"(?<![\w-])version:\s*['\"]?(v?\d+\.\d+\.\d+)", text)]
    refs += re.findall(r"karplint@(v\d[\w.]*)", text)
    assert len(refs) >= 2  # the pre-commit and Action examples
    tags = _repository_tags()
    unresolved = [r for r in refs if r != "main" and not re.fullmatch(r"[0-9a-f]{40}", r) and r not in tags]
    assert unresolved == []


def test_absolute_sarif_file_that_is_a_link_is_refused_before_the_run(tmp_path):
    """The SARIF file is written by the action now (no longer by karplint's --output): a link committed where the
    workflow's absolute sarif-file points is still refused, and nothing is written through it."""
    proj = _blue_prints_tree(tmp_path)
    (tmp_path / "victim").write_text("precious\n")
    (proj / "out.sarif").symlink_to(tmp_path / "victim")
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--no-cache", SARIF_FILE=str(proj / "out.sarif"))
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"::error title=karplint::sarif-file {proj / 'out.sarif'}: is a symbolic link")
    assert (tmp_path / "victim").read_text() == "precious\n"
    assert (tmp_path / "output").read_text() == ""


def test_absolute_sarif_file_under_a_linked_directory_creates_nothing_through_it(tmp_path):
    """`sarif-file: /checkout/reports/new/k.sarif` where the checkout commits `reports` as a link: refused before
    `new/` is made at the link's target."""
    proj = _blue_prints_tree(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (proj / "reports").symlink_to(tmp_path / "elsewhere")
    proc = _run(tmp_path, proj, PATHS=".", ARGS="--no-cache", SARIF_FILE=str(proj / "reports" / "new" / "k.sarif"))
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"::error title=karplint::sarif-file {proj}/reports/new/k.sarif: is a symbolic link")
    assert os.listdir(tmp_path / "elsewhere") == []


def test_karplint_that_cannot_run_or_dies_fails_the_step_with_a_sarif(tmp_path):
    proj = _blue_prints_tree(tmp_path)
    proc = _run(tmp_path, proj, PATHS=".", SARIF_FILE="k.sarif", KARPLINT_BIN=str(tmp_path / "no-such-karplint"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stdout.startswith(f"::error title=karplint::cannot run {tmp_path / 'no-such-karplint'}: ")
    killed = tmp_path / "killed"
    killed.write_text("#!/bin/sh\necho 'out of memory' >&2\nkill -9 $$\n")
    killed.chmod(0o755)
    proc = _run(tmp_path, proj, PATHS=".", SARIF_FILE="k.sarif", KARPLINT_BIN=str(killed))
    assert proc.returncode == 2
    assert proc.stdout == "::error title=karplint::karplint check failed (exit code -9): out of memory\n"
    report = json.loads(open(_outputs(tmp_path)["sarif-file"]).read())
    assert report["runs"][0]["invocations"][0]["exitCode"] == -9
