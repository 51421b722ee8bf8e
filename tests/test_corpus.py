"""The real-world corpus and the upstream examples: never a crash, never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import need_shared, run_json


def _collect(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())


def test_corpus_has_no_internal_error_and_no_traceback():
    shared = need_shared()
    code, report, stderr = run_json("check", str(shared / "corpus"), "--exit-zero", timeout=600)
    assert code == 0, stderr
    internal = [(f["file"], f["line"], f["message"]) for f in report["findings"] if f["code"] == "KPL006"]
    assert not internal, internal[:5]
    assert report["summary"]["files"] >= 380


def test_upstream_examples_parse_cleanly():
    shared = need_shared()
    code, report, stderr = run_json("check", str(shared / "karpenter" / "examples" / "v1"), "--exit-zero")
    assert not [f for f in report["findings"] if f["category"] == "input"], report["findings"][:3]
