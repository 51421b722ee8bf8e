"""Kustomize patches (issue 13): a file a kustomization applies as a patch is checked for what it sets (types,
enums, formats, unknown and moved fields), never for what it leaves to the base (required fields)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from karplint.engine import InputFile
from karplint.readers.kustomize import patch_files
from karplint.testing import run_cli, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "kustomize"
PROD = "overlays/prod"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "k")
    return tmp_path / "k"


def _got(report):
    return [(f["code"], f["file"], f["line"], f["column"]) for f in report["findings"]]


def test_patches_are_checked_for_what_they_set(tree: Path):
    code, report, _ = run_json("check", ".", "--no-cache", cwd=tree)
    assert _got(report) == [
        ("KPL105", f"{PROD}/nodepool-disruption.yaml", 7, 26),  # WhenUnderutilized: renamed in v1
        ("KPL102", f"{PROD}/nodepool-disruption.yaml", 8, 23),  # 5mins
        ("KPL102", f"{PROD}/nodepool-disruption.yaml", 11, 20),  # 30d
    ]  # no KPL103 (spec.template, nodeClassRef, requirements are the base's), no KPL008 for the JSON 6902 list
    assert code == 1
    assert report["summary"]["karpenter_resources"] == 3  # the base and two patches


def test_a_file_no_kustomization_names_is_a_whole_object(tree: Path):
    (tree / PROD / "kustomization.yaml").write_text("resources: [../../base]\n")
    _, report, _ = run_json("check", ".", "--no-cache", "--select", "KPL103", cwd=tree)
    assert ("KPL103", f"{PROD}/nodepool-limits.yaml", 5, 1) in _got(report)


def test_patch_files_resolves_paths_from_the_kustomization(tree: Path):
    inputs = [InputFile(str(p.relative_to(tree)), str(p)) for p in sorted(tree.rglob("*.yaml"))]
    assert patch_files(inputs, lambda path, limit: Path(path).read_bytes()) == {
        f"{PROD}/nodepool-limits.yaml", f"{PROD}/nodepool-ops.yaml", f"{PROD}/nodepool-disruption.yaml"}


def test_cache_follows_the_kustomization(tree: Path, tmp_path: Path):
    env = {"KARPLINT_CACHE_DIR": str(tmp_path / "cache")}
    assert run_json("check", ".", "--select", "KPL103", cwd=tree, env=env)[1]["findings"] == []
    (tree / PROD / "kustomization.yaml").write_text("resources: [../../base]\n")
    _, report, _ = run_json("check", ".", "--select", "KPL103", cwd=tree, env=env)
    assert ("KPL103", f"{PROD}/nodepool-limits.yaml", 5, 1) in _got(report)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not installed")
def test_kubectl_kustomize_output_still_checks(tree: Path):
    built = subprocess.run(["kubectl", "kustomize", PROD], cwd=tree, capture_output=True, text=True, check=True)
    proc = run_cli("check", "-", "--no-cache", "--output-format", "concise", cwd=tree, stdin=built.stdout)
    codes = sorted(line.split()[1] for line in proc.stdout.splitlines() if line.startswith("-:"))
    assert codes == ["KPL102", "KPL105"]  # (the JSON 6902 patch replaced consolidateAfter: 5mins)
