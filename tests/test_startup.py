"""Start-up: what a command imports (behaviour, not timing), and the split between the argparse fast path of
`karplint check` (karplint/cli/__init__.py, no typer) and the typer application (karplint/cli/typer_app.py)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

from karplint import __version__
from karplint.testing import REPO

HEAVY = {"typer", "jsonschema", "bashlex", "rich"}

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: web, image: nginx:1.27}]
"""


def _imports(*args: str, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `python -X importtime -m karplint ARGS`; the top-level packages it imported."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "karplint", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)
    names = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert names, proc.stderr
    return proc, {n.split(".")[0] for n in names}


def test_version_imports_no_heavy_package():
    proc, imported = _imports("--version")
    assert proc.returncode == 0 and proc.stdout == f"karplint {__version__}\n"
    assert not imported & HEAVY, imported & HEAVY


def test_check_imports_what_the_files_need(tmp_path: Path):
    (tmp_path / "deploy.yaml").write_text(DEPLOYMENT)
    proc, imported = _imports("check", "deploy.yaml", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0 and "No Karpenter object checked" in proc.stdout, proc.stdout
    assert not imported & HEAVY, imported & HEAVY  # no Karpenter kind: no schema validation; plain text output

    nodepool = (REPO / "examples" / "quickstart" / "nodepools.yaml").read_text()
    (tmp_path / "pool.yaml").write_text(nodepool)
    proc, imported = _imports("check", "pool.yaml", "--no-cache", "-f", "json", cwd=tmp_path)
    assert proc.returncode == 1 and json.loads(proc.stdout)["findings"]
    assert "jsonschema" in imported and not imported & {"typer", "bashlex", "rich"}


def test_typer_check_declares_exactly_the_parameters_of_cli_check():
    from karplint import cli
    from karplint.cli import typer_app as cli_app

    declared = inspect.signature(cli_app.check).parameters
    plain = inspect.signature(cli.check).parameters
    assert list(declared) == list(plain) == ["paths", *cli._FAST_CHECK_OPTIONS]
    for name, param in declared.items():
        assert param.default.default == plain[name].default, name


def test_check_through_typer_reports_like_the_fast_path(tmp_path: Path):
    from typer.testing import CliRunner

    from karplint.cli import app
    from karplint.testing import run_cli

    quickstart = str(REPO / "examples" / "quickstart")
    args = ["check", quickstart, "--no-cache", "-f", "json", "--ignore", "KPL2"]
    through_typer = CliRunner().invoke(app, args)
    fast = run_cli(*args)
    assert through_typer.exit_code == fast.returncode == 1
    assert through_typer.stdout == fast.stdout
    missing = CliRunner().invoke(app, ["check", str(tmp_path / "missing")])
    assert missing.exit_code == 2
