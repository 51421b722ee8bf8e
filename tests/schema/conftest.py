"""Shared helpers of the schema tests (../shared beside the repository holds the CRDs, corpus and examples)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("KARPLINT_SHARED", ROOT.parent / "shared"))
FIXTURES = ROOT / "tests" / "fixtures" / "schema"


@pytest.fixture(scope="session")
def shared() -> Path:
    if not (SHARED / "karpenter" / "crds").is_dir():
        pytest.skip(f"shared material not found at {SHARED}")
    return SHARED
