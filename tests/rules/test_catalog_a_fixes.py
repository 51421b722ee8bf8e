"""Golden before/after pairs for the fixes of KPL301, KPL302, KPL304, KPL401 and KPL811."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import lint

FIXES = Path(__file__).resolve().parents[1] / "fixtures" / "fixes"
CODES = ("KPL301", "KPL302", "KPL304", "KPL401", "KPL811")


def apply(text: str, code: str) -> str:
    found = [f for f in lint({"before.yaml": text}, config={"select": [code]}) if f.fix]
    assert found, f"{code}: no fix offered"
    edits = sorted((e for f in found for e in f.fix.edits), key=lambda e: e.start)
    for a, b in zip(edits, edits[1:]):
        assert a.end <= b.start, "overlapping edits"
    for e in reversed(edits):
        text = text[:e.start] + e.replacement + text[e.end:]
    return text


@pytest.mark.parametrize("code", CODES)
def test_fix_golden(code):
    before = (FIXES / code / "before.yaml").read_text()
    after = (FIXES / code / "after.yaml").read_text()
    assert apply(before, code) == after
    assert [f for f in lint({"after.yaml": after}, config={"select": [code]})] == []
