"""Shared test fixtures: where ../shared lives, and a helper to run the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KARPLINT_SHARED", REPO.parent / "shared"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def need_shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared material not found at {SHARED} (set KARPLINT_SHARED)")
    return SHARED


def run_cli(*args: str, cwd: str | Path | None = None, stdin: str | bytes | None = None,
            env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m karplint ARGS` as a user would; returns the completed process (text stdout/stderr)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
    full_env.update(env or {})
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run([sys.executable, "-m", "karplint", *args], cwd=cwd, input=data, capture_output=True,
                          env=full_env, timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def run_json(*args: str, **kw) -> tuple[int, dict, str]:
    proc = run_cli(*args, "--output-format", "json", **kw)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr
