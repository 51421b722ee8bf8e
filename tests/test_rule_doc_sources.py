"""What the project ships cites sources a user can open (Karpenter docs, source files at a commit, issues), never
the notes the developers keep beside the repository."""

from __future__ import annotations

import re

from karplint.testing import REPO

INTERNAL = re.compile(r"shared/facts|facts/|karplint facts|\b(?:karpenter|userdata|linters)\.md\b\s*§|\.\./shared|"
                      r"shared/karpenter/")


def test_rule_docs_cite_public_sources():
    offenders = [f"{p.name}:{n}" for p in sorted((REPO / "rules").glob("*.md"))
                 for n, line in enumerate(p.read_text().splitlines(), 1) if INTERNAL.search(line)]
    assert not offenders, offenders


def test_code_cites_public_sources():
    offenders = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "karplint").rglob("*.py"))
                 for n, line in enumerate(p.read_text().splitlines(), 1)
                 if re.search(r"shared/facts|facts/|facts §|\b(?:karpenter|userdata|linters)\.md\b", line)]
    assert not offenders, offenders
