"""The boundary of a run is the project of each named path (its configuration root, else its git work tree, else the
named directory), never the working directory (issue 24): run from a directory that holds both a cloned repository
and the user's secrets, a link in the repository must not make karplint read, print or rewrite the secrets, and a
`# Source:` comment must not make it show a file beside the repository. Each test drives the real command line."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from karplint.testing import run_cli
from test_untrusted_tree import FIXABLE  # (a NodePool whose group `--fix` rewrites)

SECRET = "TOP-SECRET-b42d9e"
FORMATS = ("text", "json", "sarif", "github", "concise", "gitlab", "junit")


def _home(tmp_path: Path) -> Path:
    """tmp_path as a home directory: `repo/` (no configuration, no .git), `home/.aws/credentials` and
    `home/.kube/` holding a manifest with the secret. The working directory of each run is tmp_path."""
    aws = tmp_path / "home" / ".aws"
    aws.mkdir(parents=True)
    (aws / "credentials").write_text(f"[default]\naws_access_key_id: AKIAEXAMPLE\naws_secret_access_key: {SECRET}\n")
    kube = tmp_path / "home" / ".kube"
    kube.mkdir()
    (kube / "np.yaml").write_text(FIXABLE.replace("name: default\nspec", f"name: {SECRET}\nspec"))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "np.yaml").write_text(FIXABLE)
    return repo


def _every_format(cwd: Path, *args: str) -> dict:
    """The run in each output format, by format."""
    return {fmt: run_cli(*args, "--output-format", fmt, "--no-cache", cwd=cwd) for fmt in FORMATS}


def _findings(out) -> set[tuple[str, str]]:
    assert "Traceback" not in out.stderr, out.stderr
    return {(f["file"], f["code"]) for f in json.loads(out.stdout)["findings"]}


def test_a_link_to_a_file_beside_the_named_tree_is_not_followed(tmp_path: Path):
    repo = _home(tmp_path)
    (repo / "leak.yaml").symlink_to("../home/.aws/credentials")
    outputs = _every_format(tmp_path, "check", "repo")
    for fmt, out in outputs.items():
        assert SECRET not in out.stdout + out.stderr, fmt
        assert "AKIAEXAMPLE" not in out.stdout + out.stderr, fmt
    assert ("repo/leak.yaml", "KPL003") in _findings(outputs["json"])


def test_a_link_to_a_directory_beside_the_named_tree_is_not_followed(tmp_path: Path):
    repo = _home(tmp_path)
    (repo / "kube").symlink_to("../home/.kube", target_is_directory=True)
    outputs = _every_format(tmp_path, "check", "repo")
    for fmt, out in outputs.items():
        assert SECRET not in out.stdout + out.stderr, fmt
    assert ("repo/kube", "KPL003") in _findings(outputs["json"])


def test_a_link_named_on_the_command_line_is_judged_by_its_project(tmp_path: Path):
    # pre-commit names the changed files: a link among them is judged against the repository, not the cwd.
    repo = _home(tmp_path)
    (repo / "leak.yaml").symlink_to("../home/.aws/credentials")
    out = run_cli("check", "repo/leak.yaml", "repo/np.yaml", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert SECRET not in out.stdout + out.stderr
    assert ("repo/leak.yaml", "KPL003") in _findings(out)
    # `--follow-links` stays the opt-out.
    out = run_cli("check", "repo/leak.yaml", "--follow-links", "--output-format", "text", "--no-cache", cwd=tmp_path)
    assert SECRET in out.stdout


def test_a_file_named_through_a_linked_directory_is_judged_by_its_repository(tmp_path: Path):
    # `repo/kube/np.yaml` belongs to repo's project whatever `kube` links to: the names above a file decide.
    repo = _home(tmp_path)
    (repo / ".git").mkdir()
    (repo / "kube").symlink_to("../home/.kube", target_is_directory=True)
    out = run_cli("check", "repo/kube/np.yaml", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert SECRET not in out.stdout + out.stderr
    assert _findings(out) == {("repo/kube/np.yaml", "KPL003")}
    out = run_cli("check", "kube/np.yaml", "--output-format", "text", "--no-cache", cwd=repo)
    assert SECRET not in out.stdout + out.stderr


def test_fix_never_rewrites_a_file_beside_the_named_tree(tmp_path: Path):
    repo = _home(tmp_path)
    victim = tmp_path / "outside" / "victim.yaml"
    victim.parent.mkdir()
    victim.write_text(FIXABLE)
    (repo / "np.yaml").unlink()
    (repo / "np.yaml").symlink_to("../outside/victim.yaml")
    out = run_cli("check", "--fix", "repo", "--output-format", "json", "--no-cache", cwd=tmp_path,
                  unprivileged=True)
    assert victim.read_text() == FIXABLE
    assert ("repo/np.yaml", "KPL003") in _findings(out)
    assert (repo / "np.yaml").is_symlink()


@pytest.mark.parametrize("marker", [".git", ".karplint.toml"])
def test_links_inside_the_project_are_followed(tmp_path: Path, marker: str):
    # The project is the git work tree or the configuration root above the named directory: a link from the
    # named subdirectory to a sibling inside the project is read as before.
    repo = _home(tmp_path)
    (repo / marker).mkdir() if marker == ".git" else (repo / marker).write_text("")
    (repo / "shared").mkdir()
    (repo / "shared" / "pool.yaml").write_text(FIXABLE.replace("name: default\nspec", "name: shared\nspec"))
    (repo / "cluster").mkdir()
    (repo / "cluster" / "pool.yaml").symlink_to("../shared/pool.yaml")
    (repo / "cluster" / "kube").symlink_to("../../home/.kube", target_is_directory=True)  # still outside
    out = run_cli("check", "repo/cluster", "--output-format", "json", "--no-cache", cwd=tmp_path)
    found = _findings(out)
    assert ("repo/cluster/pool.yaml", "KPL003") not in found
    assert any(f == "repo/cluster/pool.yaml" and c != "KPL003" for f, c in found)  # checked
    assert ("repo/cluster/kube", "KPL003") in found
    assert SECRET not in out.stdout


def test_simulate_and_render_keep_to_the_project(tmp_path: Path):
    repo = _home(tmp_path)
    (repo / "kube").symlink_to("../home/.kube", target_is_directory=True)
    for command in (("simulate", "repo"), ("simulate", "repo", "--output-format", "json"), ("render", "repo"),
                    ("budgets", "repo")):
        out = run_cli(*command, cwd=tmp_path)
        assert "Traceback" not in out.stderr, command
        assert SECRET not in out.stdout + out.stderr, command


# ------------------------------------------------------------------------------------------ `# Source:` mapping

RENDERED = """---
# Source: {path}
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: x
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}
      expireAfter: 30dd
"""


def test_source_mapping_never_shows_a_file_beside_the_named_tree(tmp_path: Path):
    # The rendered file sits at the top of the named tree; `# Source:` names a "template" in a directory beside it.
    beside = tmp_path / "other" / "templates"
    beside.mkdir(parents=True)
    (beside / "np.yaml").write_text("\n".join(f"      expireAfter: {SECRET}" for _ in range(12)) + "\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "rendered.yaml").write_text(RENDERED.format(path="other/templates/np.yaml"))
    outputs = _every_format(tmp_path, "check", "repo", "--select", "KPL102")
    for fmt, out in outputs.items():
        assert SECRET not in out.stdout + out.stderr, fmt
    (finding,) = json.loads(outputs["json"].stdout)["findings"]
    assert (finding["file"], finding["line"], finding["column"]) == ("repo/rendered.yaml", 11, 20)
    assert "not found from here" in finding["notes"][-1]


def test_source_mapping_inside_the_project_still_maps(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "charts" / "c" / "templates").mkdir(parents=True)
    (repo / "charts" / "c" / "templates" / "np.yaml").write_text(RENDERED.split("\n", 2)[2].replace(
        "expireAfter: 30dd", "expireAfter: {{ .Values.expireAfter }}"))
    (repo / "out").mkdir()
    (repo / "out" / "rendered.yaml").write_text(RENDERED.format(path="c/templates/np.yaml"))
    (repo / ".git").mkdir()
    out = run_cli("check", "out", "--select", "KPL102", "--output-format", "json", "--no-cache", cwd=repo)
    (finding,) = json.loads(out.stdout)["findings"]
    assert (finding["file"], finding["line"], finding["column"]) == ("charts/c/templates/np.yaml", 9, 20)


def test_many_distinct_sources_in_a_wide_tree_stay_fast(tmp_path: Path):
    # Each `# Source:` used to cost two globs over the tree (`*/path`, `*/*/path`): 5,000 sources in a tree of
    # 4,000 directories took 233 s. The candidates are now indexed once.
    for i in range(1_500):
        (tmp_path / f"d{i}" / "x").mkdir(parents=True)
    (tmp_path / "charts" / "c" / "templates").mkdir(parents=True)
    (tmp_path / "charts" / "c" / "templates" / "np7.yaml").write_text(RENDERED.split("\n", 2)[2])
    stream = "".join(RENDERED.format(path=f"c/templates/np{i}.yaml") for i in range(1_500))
    started = time.monotonic()
    out = run_cli("check", "-", "--select", "KPL102", "--output-format", "json", "--no-cache", cwd=tmp_path,
                  stdin=stream, timeout=60)
    assert time.monotonic() - started < 10
    findings = json.loads(out.stdout)["findings"]
    from karplint.engine import MAX_CHECKED_PER_KIND

    assert len(findings) == MAX_CHECKED_PER_KIND  # (one file: the NodePools past the bound are KPL004, not selected)
    assert [f["line"] for f in findings if f["file"] == "charts/c/templates/np7.yaml"] == [9]


def _check_stdin_in_process(monkeypatch, capsys, stream: str) -> list[dict]:
    import io
    import sys

    from karplint import cli

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stream.encode())))
    with pytest.raises(SystemExit):
        cli.check(["-"], output_format=cli.OutputFormat.json, select=["KPL102"], no_cache=True, jobs=1)
    return json.loads(capsys.readouterr().out)["findings"]


def test_sources_past_the_cap_stay_on_the_rendered_text_and_say_so(tmp_path: Path, monkeypatch, capsys):
    from karplint.readers import helm_rendered

    monkeypatch.setattr(helm_rendered, "MAX_SOURCES", 3)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c" / "templates").mkdir(parents=True)
    for i in range(5):
        (tmp_path / "c" / "templates" / f"np{i}.yaml").write_text(RENDERED.split("\n", 2)[2])
    findings = _check_stdin_in_process(monkeypatch, capsys, "".join(
        RENDERED.format(path=f"c/templates/np{i}.yaml") for i in range(5)))
    assert [(f["file"], f["line"]) for f in findings] == [
        ("-", 44), ("-", 55), ("c/templates/np0.yaml", 9), ("c/templates/np1.yaml", 9), ("c/templates/np2.yaml", 9)]
    assert findings[0]["notes"][-1] == ("rendered by helm from `c/templates/np3.yaml` (not looked up: the input names "
                                        "more than 3 templates)")


def test_a_search_cut_short_says_so(tmp_path: Path, monkeypatch, capsys):
    from karplint.readers import helm_rendered

    monkeypatch.setattr(helm_rendered, "MAX_INDEXED", 20)
    monkeypatch.chdir(tmp_path)
    for i in range(30):
        (tmp_path / f"d{i:02}").mkdir()
    (tmp_path / "z" / "c" / "templates").mkdir(parents=True)  # (listed after the 20 entries)
    (tmp_path / "z" / "c" / "templates" / "np.yaml").write_text(RENDERED.split("\n", 2)[2])
    (finding,) = _check_stdin_in_process(monkeypatch, capsys, RENDERED.format(path="c/templates/np.yaml"))
    assert finding["file"] == "-"
    assert finding["notes"][-1] == ("rendered by helm from `c/templates/np.yaml` (not found: the directories below "
                                    "this one hold over 20 entries, not searched)")
    monkeypatch.setattr(helm_rendered, "MAX_INDEXED", 1_000)
    (finding,) = _check_stdin_in_process(monkeypatch, capsys, RENDERED.format(path="c/templates/np.yaml"))
    assert (finding["file"], finding["line"]) == ("z/c/templates/np.yaml", 9)


# ------------------------------------------------------------------------------- other lookups on behalf of files

PATCH = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  disruption:\n" \
        "    consolidateAfter: 1m\n"


def test_a_kustomization_names_patches_only_inside_its_project(tmp_path: Path):
    # A patch is checked only for what it sets; a kustomization of one tree must not make another tree's file one.
    repo = tmp_path / "repo"
    (repo / "overlay").mkdir(parents=True)
    (repo / "patches").mkdir()
    (repo / "patches" / "np.yaml").write_text(PATCH)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "np.yaml").write_text(PATCH)
    (repo / "overlay" / "kustomization.yaml").write_text(
        "patches:\n- path: ../patches/np.yaml\n- path: ../../other/np.yaml\n")
    (repo / ".git").mkdir()
    out = run_cli("check", "repo", "other", "--select", "KPL103", "--output-format", "json", "--no-cache",
                  cwd=tmp_path)
    assert _findings(out) == {("other/np.yaml", "KPL103")}  # repo/patches/np.yaml: a patch inside the project


def test_a_gitignore_is_never_read_through_a_link(tmp_path: Path):
    # git does not follow a .gitignore that is a symbolic link (`git check-ignore` warns and ignores it): neither
    # does karplint, so a link cannot make it read a file outside the tree as patterns.
    repo = _home(tmp_path)
    (tmp_path / "home" / "ignore").write_text("np.yaml\n")
    (repo / ".gitignore").symlink_to("../home/ignore")
    out = run_cli("check", "repo", "--select", "KPL705", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert _findings(out) == {("repo/np.yaml", "KPL705")}


def test_a_named_link_does_not_choose_the_configuration(tmp_path: Path):
    # The configuration is looked for from a named file's directory, not from wherever the file links to.
    repo = _home(tmp_path)
    (tmp_path / "home" / ".karplint.toml").write_text('ignore = ["KPL003"]\n')
    (repo / "leak.yaml").symlink_to("../home/.aws/credentials")
    out = run_cli("check", "repo/leak.yaml", "--show-settings", cwd=tmp_path)
    assert "configuration file: (none: defaults)" in out.stdout
    out = run_cli("check", "repo/leak.yaml", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert _findings(out) == {("repo/leak.yaml", "KPL003")}


def test_source_mapping_searches_the_project_of_the_named_directory(tmp_path: Path):
    # Without a configuration or git work tree, the project of a rendered file found under `repo` is `repo` (the
    # named directory), not the rendered file's own directory.
    repo = tmp_path / "repo"
    (repo / "charts" / "c" / "templates").mkdir(parents=True)
    (repo / "charts" / "c" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (repo / "charts" / "c" / "templates" / "np.yaml").write_text(RENDERED.split("\n", 2)[2].replace(
        "expireAfter: 30dd", "expireAfter: {{ .Values.expireAfter }}"))
    (repo / "out").mkdir()
    (repo / "out" / "rendered.yaml").write_text(RENDERED.format(path="c/templates/np.yaml"))
    out = run_cli("check", "repo", "--select", "KPL102", "--output-format", "json", "--no-cache", cwd=tmp_path)
    (finding,) = json.loads(out.stdout)["findings"]
    assert (finding["file"], finding["line"], finding["column"]) == ("repo/charts/c/templates/np.yaml", 9, 20)
