"""The same object gives the same findings whether it sits in a .yaml file or inside a Terraform heredoc, a
Markdown block or a shell heredoc: Karpenter's own examples (examples/v1), each wrapped (tests/embedded/wrap.py),
compared finding by finding (code, message, line and column shifted by where the body sits in the host)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostwrap import wrap  # noqa: E402

from karplint.testing import SHARED, lint  # noqa: E402

EXAMPLES = sorted((SHARED / "karpenter" / "examples" / "v1").glob("*.yaml"))
CONFIG = {"select": ["ALL"]}


def _shape(findings, dl=0, dc=0):
    # an end at the start of a line (a block node ends where the next line starts) is column 1 in both files
    return sorted((f.code, f.message, f.span.line - dl, f.span.column - dc, f.span.end_line - dl,
                   f.span.end_column - dc if f.span.end_column > 1 else 1) for f in findings)


def _cross_file_codes() -> set[str]:
    from karplint.rules import all_rules

    return {r.code for r in all_rules() if r.scope == "run" or r.reads}


@pytest.mark.parametrize("kind", ["terraform", "markdown", "shell"])
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_same_findings_as_yaml(example, kind):
    text = example.read_text(encoding="utf-8")
    plain = lint({"example.yaml": text}, config=CONFIG)
    if kind == "markdown":  # documentation is not cluster state: cross-file rules do not judge it (README)
        plain = [f for f in plain if f.code not in _cross_file_codes()]
    name, host, dl, dc = wrap(kind, text)
    embedded = lint({name: host}, config=CONFIG)
    for f in embedded:
        assert f.file == name
    assert _shape(embedded, dl, dc) == _shape(plain)
    # the positions are the host file's: the text under each finding is the text under it in the .yaml file
    lines = host.splitlines()
    src_lines = text.splitlines()
    for f, g in zip(sorted(embedded, key=lambda f: (f.code, f.message, f.span.line)),
                    sorted(plain, key=lambda f: (f.code, f.message, f.span.line))):
        if f.span.line <= len(lines) and f.span.line == f.span.end_line:
            assert lines[f.span.line - 1][f.span.column - 1:f.span.end_column - 1] == \
                src_lines[g.span.line - 1][g.span.column - 1:g.span.end_column - 1]


def test_examples_have_findings_to_compare():
    total = sum(len(lint({"e.yaml": p.read_text(encoding="utf-8")}, config=CONFIG)) for p in EXAMPLES)
    assert total >= 10
