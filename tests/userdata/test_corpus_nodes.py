"""The corpus and the upstream examples through the KPL230-KPL259 rules and `render`: no crash, and the findings
recorded here (reviewed by hand: the corpus's NodeConfig, Bottlerocket and Windows userData are clean, so none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.config import Config
from karplint.engine import InputFile, load_input
from karplint.model import Model
from karplint.testing import lint
from karplint.userdata.render import pairs, render_node
from .ud_nodes_helpers import SHARED

ROOTS = [SHARED / "corpus", SHARED / "karpenter" / "examples" / "v1"]


def _files() -> list[Path]:
    out = []
    for root in ROOTS:
        if root.is_dir():
            out.extend(sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()))
    return out


def _with_nodeclasses() -> list[Path]:
    """Files with an EC2NodeClass that has userData (the only ones these rules look at)."""
    out = []
    for p in _files():
        text = p.read_text(errors="replace")
        if "EC2NodeClass" in text and "userData" in text:
            out.append(p)
    return out


# (file relative to shared/, code, line) of every KPL230-KPL259 finding on the corpus and the examples.
EXPECTED: set[tuple[str, str, int]] = set()


def test_corpus_findings_and_render():
    files = _with_nodeclasses()
    if not files:
        pytest.skip("shared corpus not available")
    found = set()
    rendered = 0
    for p in files:
        text = p.read_text(errors="replace")
        for f in lint({str(p): text}, config={"select": ["KPL23", "KPL24", "KPL25"]}):
            assert f.code != "KPL006", (p, f.message)
            found.add((str(p.relative_to(SHARED)), f.code, f.line))
        fr = load_input(InputFile(str(p), None, text.encode()), Config())
        model = Model()
        model.add(fr.documents)
        for nc, np in pairs(model):
            node = render_node(nc, np)
            assert node.merged.text is not None or node.notes, p
            rendered += 1
    assert found == EXPECTED
    assert rendered >= 50
