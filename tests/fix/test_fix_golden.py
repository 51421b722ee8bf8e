"""Every fix, before and after: `--fix --unsafe-fixes` turns before.yaml into after.yaml exactly, after.yaml is
clean for the rule, and fixing after.yaml changes nothing."""

from __future__ import annotations

import pytest

from fix_golden import GOLDEN, findings, run_golden_fix

from karplint.rules import get_rule


@pytest.mark.parametrize("case", GOLDEN, ids=[c.name for c in GOLDEN])
def test_golden_fix(case):
    before = case.before.encode("utf-8")
    if case.missing:
        # The fix does not exist yet: fixing must not touch the file (and the test fails when the fix lands).
        assert run_golden_fix(case, before) == before, f"{case.name}: a fix landed; remove MISSING"
        return
    assert get_rule(case.code) is not None, f"rule {case.code} is not registered"
    found = [f for f in findings(case, case.before) if f.code == case.code]
    assert found and any(f.fix is not None for f in found), f"{case.code} reports no fix on before.yaml"
    assert run_golden_fix(case, before).decode("utf-8") == case.after
    assert [f for f in findings(case, case.after) if f.code == case.code] == []
    assert run_golden_fix(case, case.after.encode("utf-8")) == case.after.encode("utf-8")


def test_golden_cases_cover_the_fixable_rules():
    from karplint.rules import all_rules

    covered = {c.code for c in GOLDEN}
    missing = sorted(r.code for r in all_rules() if r.fix and r.code not in covered and not r.code.startswith("KPL99"))
    assert not missing, f"fixable rules without a golden before/after pair in tests/fixtures/fixes: {missing}"
