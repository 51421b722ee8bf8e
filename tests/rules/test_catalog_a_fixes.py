"""Golden before/after pairs (tests/fixtures/fixes/<case>/) for the fixes of KPL301, KPL302, KPL304, KPL401, KPL811."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import lint

FIXES = Path(__file__).resolve().parents[1] / "fixtures" / "fixes"
CASES = sorted(p.name for p in FIXES.iterdir() if p.is_dir() and p.name[:6] in
               ("KPL301", "KPL302", "KPL304", "KPL401", "KPL811"))


def apply(text: str, code: str) -> str:
    found = [f for f in lint({"before.yaml": text}, config={"select": [code]}) if f.fix]
    assert found, f"{code}: no fix offered"
    edits = sorted((e for f in found for e in f.fix.edits), key=lambda e: e.start)
    for a, b in zip(edits, edits[1:]):
        assert a.end <= b.start, "overlapping edits"
    for e in reversed(edits):
        text = text[:e.start] + e.replacement + text[e.end:]
    return text


@pytest.mark.parametrize("case", CASES)
def test_fix_golden(case):
    code = case[:6]
    before = (FIXES / case / "before.yaml").read_text()
    after = (FIXES / case / "after.yaml").read_text()
    assert apply(before, code) == after
    assert [f for f in lint({"after.yaml": after}, config={"select": [code]})] == []
