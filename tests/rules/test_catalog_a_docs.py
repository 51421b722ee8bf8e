"""Rule docs of the taints, disruption and removed-annotation rules: format, and bad/good examples that behave."""

from __future__ import annotations

import sys

import pytest

from karplint.docs import rule_doc
from karplint.rules import all_rules
from karplint.testing import lint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CODES = [r.code for r in all_rules() if r.code.startswith(("KPL3", "KPL4", "KPL81"))]
SECTIONS = ("Why it breaks", "Bad", "Good", "Fix", "Affected versions", "References")


def test_all_expected_codes_registered():
    assert CODES == ["KPL301", "KPL302", "KPL303", "KPL304", "KPL305", "KPL401", "KPL402", "KPL403", "KPL404",
                     "KPL405", "KPL406", "KPL410", "KPL411", "KPL412", "KPL413", "KPL414", "KPL811"]


@pytest.mark.parametrize("code", CODES)
def test_doc(code):
    doc = rule_doc(code)
    assert doc is not None, f"rules/{code}.md missing"
    r = next(r for r in all_rules() if r.code == code)
    assert (doc.code, doc.slug) == (code, r.slug)
    assert doc.summary
    assert list(doc.sections) == list(SECTIONS)
    bad = [e for e in doc.examples if e.kind == "bad"]
    good = [e for e in doc.examples if e.kind == "good"]
    assert bad and good
    config = tomllib.loads(doc.config) if doc.config else {}
    for ex in bad:
        assert any(f.code == code for f in lint(ex.text, config=config)), f"{code}: bad example at line {ex.line} is quiet"
    for ex in good:
        hits = [f for f in lint(ex.text, config=config) if f.code == code]
        assert not hits, f"{code}: good example at line {ex.line}: {hits[0].message}"
