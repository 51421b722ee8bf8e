"""`--fix` inside a Terraform heredoc (`<<-`, indentation stripped), a Markdown block (in a list item, indented)
and a shell heredoc: every golden fix of tests/fixtures/fixes turns the wrapped before.yaml into the wrapped
after.yaml exactly (so every byte outside the edits is kept), and the small golden pairs in
tests/fixtures/embedded/fix/ (before.<ext> -> after.<ext>) hold byte for byte."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "fix"))
from fix_golden import GOLDEN  # noqa: E402
from hostwrap import wrap  # noqa: E402

from karplint.engine import InputFile  # noqa: E402
from karplint.fix import fix_inputs  # noqa: E402
from karplint.testing import make_config  # noqa: E402

CASES = [c for c in GOLDEN if not c.missing]
PAIRS = Path(__file__).parents[1] / "fixtures" / "embedded" / "fix"


def _fixed(name: str, text: str, config) -> str:
    out = fix_inputs([InputFile(name, None, text.encode("utf-8"))], config, unsafe=True)
    assert not out.notes, out.notes
    return out.files[0].text if out.files and out.files[0].changed else text


@pytest.mark.parametrize("kind", ["terraform", "markdown", "shell"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_fix_inside_host(case, kind):
    from karplint.rules import get_rule

    r = get_rule(case.code)
    name, before, _, _ = wrap(kind, case.before)
    _, after, _, _ = wrap(kind, case.after)
    if kind == "markdown" and (r.scope == "run" or r.reads is not None):
        # Markdown examples are not cluster state: cross-file rules do not judge them, so nothing is fixed (README)
        assert _fixed(name, before, case.config()) == before
        return
    assert _fixed(name, before, case.config()) == after


@pytest.mark.parametrize("before", sorted(PAIRS.glob("*/before.*")), ids=lambda p: p.parent.name)
def test_golden_pair(before):
    after = before.with_name("after" + before.suffix)
    cfg = make_config({"select": [before.parent.name.split("-")[0]]})
    text = before.read_text(encoding="utf-8")
    fixed = _fixed("host" + before.suffix, text, cfg)
    assert fixed != text and fixed == after.read_text(encoding="utf-8")
    assert _fixed("host" + before.suffix, fixed, cfg) == fixed  # settled


def test_unmappable_edit_offers_no_fix():
    """An unquoted shell heredoc expands `$`: an edit writing one would change the script's meaning there."""
    from karplint.findings import Edit
    from karplint.readers.virtual import Embedding

    emb = Embedding(escape=("shell",))
    assert emb.edit(Edit(0, 0, "a: $x\n")) is None
    tf = Embedding(escape=("terraform",))
    assert tf.edit(Edit(0, 1, "${x}")).replacement == "$${x}"
