"""Directory discovery finds the host files, the cheap pre-check skips the rest, and the cache gives the same
findings (run-stage documents from a heredoc included) as an uncached run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from karplint.discover import discover
from karplint.engine import InputFile, parse_input
from karplint.testing import run_cli

FIXTURES = Path(__file__).parents[1] / "fixtures" / "embedded"


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "terraform").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "scripts").mkdir()
    shutil.copy(FIXTURES / "blueprints-karpenter.tf", root / "terraform" / "karpenter.tf")
    shutil.copy(FIXTURES / "radar-base-yamlencode.tf", root / "terraform" / "hcl.tf")
    shutil.copy(FIXTURES / "data-on-eks-nvme-ssd.md", root / "docs" / "nvme.md")
    shutil.copy(FIXTURES / "workshop-nodepool-app.sh", root / "scripts" / "apply.sh")
    (root / "docs" / "notes.md").write_text("# Notes\n\nNothing here.\n")
    (root / "terraform" / "vpc.tf").write_text('module "vpc" {\n  source = "x"\n}\n')
    return root


def test_discovery_finds_host_files(tmp_path):
    root = _tree(tmp_path)
    names = sorted(Path(c.display).name for c in discover([str(root)]).files)
    assert names == ["apply.sh", "hcl.tf", "karpenter.tf", "notes.md", "nvme.md", "vpc.tf"]


def test_precheck_decodes_nothing_without_kubernetes():
    fr = parse_input(InputFile("docs/notes.md"), b"# Notes\n\nkind words only\n")
    assert fr.source is None and fr.documents == [] and fr.problems == []
    fr = parse_input(InputFile("vpc.tf"), b'module "vpc" {}\n')
    assert fr.source is None


def _findings(root: Path, *extra: str, env: dict | None = None) -> list:
    proc = run_cli("check", ".", "--output-format", "json", "--exit-zero", *extra, cwd=root, env=env)
    assert proc.returncode == 0, proc.stderr
    return [(f["code"], f["filename"] if "filename" in f else f.get("file"), f["location"] if "location" in f
             else f.get("line"), f["message"]) for f in json.loads(proc.stdout)["findings"]]


def test_cache_gives_the_same_findings(tmp_path):
    root = _tree(tmp_path)
    env = {"KARPLINT_CACHE_DIR": str(tmp_path / "cache")}
    uncached = _findings(root, "--no-cache")
    from karplint.readers import hcl

    hcl_code = "KPL130" if hcl.available() else "KPL009"  # the yamlencode({...}) EC2NodeClass, read or noticed
    assert any(code == "KPL105" for code, *_ in uncached) and any(code == hcl_code for code, *_ in uncached)
    assert _findings(root, env=env) == uncached  # cold
    assert _findings(root, env=env) == uncached  # warm
    tf = root / "terraform" / "karpenter.tf"
    tf.write_text(tf.read_text().replace("alias: al2023@latest", "alias: al2023@v20240807"))
    after = _findings(root, env=env)
    assert after == _findings(root, "--no-cache") != uncached
