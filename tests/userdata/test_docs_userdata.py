"""The bad/good examples of the userData shell rules' docs (KPL200-KPL229) trigger / do not trigger their rule."""

from __future__ import annotations

import pytest

from karplint.docs import all_doc_paths, parse
from karplint.rules import get_rule
from karplint.testing import lint

REQUIRED = ("Why it breaks", "Bad", "Good", "Fix", "Affected versions", "References")
DOCS = [p for p in all_doc_paths() if "KPL200" <= p.stem <= "KPL229"]


def test_every_userdata_rule_has_a_doc():
    from karplint.rules import all_rules

    codes = {r.code for r in all_rules() if r.category == "userdata" and "KPL200" <= r.code <= "KPL229"}
    assert codes == {p.stem for p in DOCS}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.stem)
def test_doc_examples(path):
    doc = parse(path.read_text(encoding="utf-8"))
    assert doc.code == path.stem
    r = get_rule(doc.code)
    assert r is not None and r.slug == doc.slug
    for section in REQUIRED:
        assert section in doc.sections, section
    assert any(e.kind == "bad" for e in doc.examples) and any(e.kind == "good" for e in doc.examples)
    for ex in doc.examples:
        found = [f for f in lint({f"{doc.code}-{ex.line}.yaml": ex.text}) if f.code == doc.code]
        if ex.kind == "bad":
            assert found, f"bad example at line {ex.line} does not trigger {doc.code}"
        else:
            assert not found, f"good example at line {ex.line} triggers {[(f.line, f.message) for f in found]}"
