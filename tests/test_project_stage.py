"""karplint/project/ in process: what the project of a run holds for each way of naming its paths."""

from __future__ import annotations

import os
import subprocess

import pytest

from karplint.config import Config
from karplint.project import build


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    for d in ("karpenter", "infra", "scripts", "docs"):
        (root / d).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "karpenter" / "np.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\n")
    (root / "karpenter" / "Makefile").write_text("KARPENTER_VERSION ?= 1.0.6\n")
    (root / "infra" / "main.tf").write_text('resource "helm_release" "karpenter" {}\n')
    (root / "infra" / "terraform.tfvars").write_text('karpenter_version = "1.0.6"\n')
    (root / "scripts" / "install.sh").write_text("export KARPENTER_VERSION=1.0.6\n")
    (root / "docs" / "guide.adoc").write_text("KARPENTER_VERSION=1.0.6\n")
    (root / "docs" / "cdk.ts").write_text("new KarpenterAddOn({version: '1.0.6'})\n")
    monkeypatch.chdir(root)
    return root


def _collected(monkeypatch) -> list:
    got: list = []

    def collect(paths, read, limit):
        got.extend(display for display, _abspath in paths)
        return []

    monkeypatch.setattr("karplint.model.repo_version.collect", collect)
    return got


EVIDENCE_FILES = ["docs/cdk.ts", "docs/guide.adoc", "infra/main.tf", "infra/terraform.tfvars", "karpenter/Makefile",
                  "scripts/install.sh"]


@pytest.mark.parametrize("named", [["."], ["karpenter"], ["karpenter/np.yaml"]], ids=["tree", "directory", "file"])
def test_release_evidence_is_read_from_every_file_of_the_project_that_may_pin_it(repo, monkeypatch, named):
    """collect() gets the files the per-file stage does not read pins from (Terraform, scripts, variables, docs,
    code), wherever they are in the project and whatever the run names; YAML pins come from the check itself."""
    got = _collected(monkeypatch)
    project = build(named, Config())
    assert sorted(got) == EVIDENCE_FILES
    if named == ["."]:  # named whole: nothing more to walk
        assert sorted(i.display for i in project.inputs) == ["infra/main.tf", "karpenter/np.yaml",
                                                              "scripts/install.sh"]
        assert project.context == [] and project.roots == ()
    else:
        assert [i.display for i in project.inputs] == ["karpenter/np.yaml"]
        assert sorted(i.display for i in project.context) == ["infra/main.tf", "scripts/install.sh"]
        assert project.roots == (os.path.realpath(repo),)


def test_a_pinned_release_reads_no_evidence(repo, monkeypatch):
    got = _collected(monkeypatch)
    cfg = Config()
    cfg.karpenter_version_source = "--karpenter-version"
    assert build(["karpenter"], cfg).config.release_evidence == () and got == []


def test_project_context_off_reads_the_named_paths_only(repo, monkeypatch):
    got = _collected(monkeypatch)
    project = build(["karpenter"], Config(project_context=False))
    assert project.context == [] and sorted(got) == ["karpenter/Makefile"]
