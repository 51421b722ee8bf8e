"""Every rule is documented, and every documented example behaves as documented."""

from __future__ import annotations

import pytest

from karplint.docs import all_doc_paths, rule_doc
from karplint.rules import all_rules, get_rule
from karplint.testing import lint_example

REQUIRED_SECTIONS = ("Why it breaks", "Bad", "Good", "Fix", "Affected versions", "References")
RULES = all_rules()


@pytest.mark.parametrize("r", RULES, ids=lambda r: r.code)
def test_rule_has_documentation(r):
    doc = rule_doc(r.code)
    assert doc is not None, f"rules/{r.code}.md is missing"
    assert (doc.code, doc.slug) == (r.code, r.slug), f"rules/{r.code}.md heading must be '# {r.code}: {r.slug}'"
    assert doc.summary, f"rules/{r.code}.md needs a first paragraph saying what it catches"
    missing = [s for s in REQUIRED_SECTIONS if s not in doc.sections]
    assert not missing, f"rules/{r.code}.md lacks sections {missing}"
    if "<!-- no-example:" not in doc.text:
        kinds = {e.kind for e in doc.examples}
        assert kinds == {"bad", "good"}, f"rules/{r.code}.md needs ```yaml bad and ```yaml good examples"


def test_every_doc_belongs_to_a_rule():
    orphans = [p.name for p in all_doc_paths() if get_rule(p.stem) is None]
    assert not orphans, f"documentation for rules that do not exist: {orphans}"


def _examples():
    for r in RULES:
        doc = rule_doc(r.code)
        if doc is None:
            continue
        for i, ex in enumerate(doc.examples):
            yield pytest.param(r, doc, ex, id=f"{r.code}-{ex.kind}-{i}")


@pytest.mark.parametrize("r,doc,example", list(_examples()))
def test_documented_example(r, doc, example):
    findings = lint_example(r.code, doc, example)
    hits = [f for f in findings if f.code == r.code]
    internal = [f for f in findings if f.code == "KPL006"]
    assert not internal, f"internal error on the documented example: {internal[0].message}"
    if example.kind == "bad":
        assert hits, f"{r.code} did not fire on its bad example (rules/{r.code}.md line {example.line})"
    else:
        assert not hits, (f"{r.code} fired on its good example (rules/{r.code}.md line {example.line}): "
                          f"{hits[0].message}")
