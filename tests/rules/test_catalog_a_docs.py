"""The taints, disruption and removed-annotation rules are all registered (tests/test_rule_docs.py checks their docs)."""

from __future__ import annotations

from karplint.rules import all_rules

CODES = [r.code for r in all_rules() if r.code.startswith(("KPL3", "KPL4", "KPL81"))]


def test_all_expected_codes_registered():
    assert CODES == ["KPL301", "KPL302", "KPL303", "KPL304", "KPL305", "KPL306", "KPL401", "KPL402", "KPL403", "KPL404",
                     "KPL405", "KPL406", "KPL410", "KPL411", "KPL412", "KPL413", "KPL414", "KPL415",
                     "KPL420", "KPL421", "KPL422", "KPL423", "KPL424", "KPL425", "KPL426", "KPL427", "KPL428", "KPL429",
                     "KPL430", "KPL811"]
