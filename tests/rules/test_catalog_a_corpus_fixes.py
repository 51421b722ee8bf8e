"""Fixes of the catalog-A rules applied to every hit in the shared corpus and upstream examples: the result parses,
the finding is gone, and nothing outside the edits changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from karplint.testing import lint

SHARED = Path(os.environ.get("KARPLINT_SHARED", Path(__file__).resolve().parents[2].parent / "shared"))


def need_shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared material not found at {SHARED} (set KARPLINT_SHARED)")
    return SHARED

FIXABLE = ["KPL301", "KPL302", "KPL304", "KPL401", "KPL811"]


def _files(root: Path):
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def test_corpus_fixes_round_trip():
    shared = need_shared()
    checked = 0
    for path in _files(shared / "corpus") + _files(shared / "karpenter" / "examples" / "v1"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if not any(word in text for word in ("disruption:", "taints:", "do-not-evict", "do-not-consolidate",
                                              "cilium", "csi")):
            continue  # nothing these rules could fix
        found = [f for f in lint({path.name: text}, config={"select": FIXABLE}) if f.fix]
        for f in found:
            edits = sorted(f.fix.edits, key=lambda e: e.start)
            fixed = text
            for e in reversed(edits):
                fixed = fixed[:e.start] + e.replacement + fixed[e.end:]
            # Bytes before the first and after the last edit are untouched.
            assert fixed.startswith(text[:edits[0].start])
            assert fixed.endswith(text[edits[-1].end:])
            after = lint({path.name: fixed}, config={"select": FIXABLE + ["KPL001", "KPL002"]})
            assert not [a for a in after if a.code in ("KPL001", "KPL002")], (path, f.code)
            assert len([a for a in after if a.code == f.code]) < len([b for b in found if b.code == f.code]) or \
                not [a for a in after if a.code == f.code and a.line == f.line], (path, f.code, f.line)
            checked += 1
    assert checked >= 20
