"""Every `yaml bad` example of the userData node rules triggers its rule; every `yaml good` one does not."""

from __future__ import annotations

import pytest

from karplint.docs import rule_doc
from karplint.rules import all_rules
from karplint.testing import lint

CODES = [r.code for r in all_rules() if r.check is not None and r.check.__module__.endswith("userdata_nodes")]
SECTIONS = ["Why it breaks", "Bad", "Good", "Fix", "Affected versions", "References"]


def test_codes_in_range():
    assert CODES and all(230 <= int(c[3:]) <= 259 for c in CODES)


@pytest.mark.parametrize("code", CODES)
def test_doc_format_and_examples(code):
    doc = rule_doc(code)
    assert doc is not None, f"rules/{code}.md missing"
    rule = next(r for r in all_rules() if r.code == code)
    assert doc.code == code and doc.slug == rule.slug
    assert list(doc.sections) == SECTIONS
    assert any(e.kind == "bad" for e in doc.examples) and any(e.kind == "good" for e in doc.examples)
    for ex in doc.examples:
        found = [f.code for f in lint({f"{code}.yaml": ex.text})]
        if ex.kind == "bad":
            assert code in found, f"{code}: bad example at line {ex.line} does not trigger it"
        else:
            assert code not in found, f"{code}: good example at line {ex.line} triggers it"
