"""The benchmark in CI size: it completes, and cold, warm and touched runs agree (bench.py asserts it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import bench  # noqa: E402
from gen import generate  # noqa: E402


def test_generator_is_deterministic(tmp_path):
    a = generate(tmp_path / "a", 120)
    b = generate(tmp_path / "b", 120)
    assert [p.relative_to(tmp_path / "a") for p in a] == [p.relative_to(tmp_path / "b") for p in b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b))
    kinds = "".join(p.read_text() for p in a)
    assert "kind: NodePool" in kinds and "kind: EC2NodeClass" in kinds and "kind: Deployment" in kinds


def test_bench_smoke(tmp_path):
    results = bench.run_bench(500, reps=1, peers=False, scaling=False, jobs=2, workdir=tmp_path)
    rows = results["rows"]
    assert {"cold", "warm", "touched", "touched NodePool", "floor (PyYAML CSafeLoader)"} <= set(rows)
    assert results["findings"] > 0  # the broken files and v1beta1 NodePools are found
    text = bench.render(results)
    assert "karplint cold / floor" in text
