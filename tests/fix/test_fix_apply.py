"""fix.py in process: passes, conflicts, re-parse guard, encodings, idempotence."""

from __future__ import annotations

import codecs

from karplint.engine import InputFile
from karplint.findings import Edit, Finding, Fix
from karplint.fix import apply, document_count, fix_inputs, select_fixes, unified_diff
from karplint.readers.source import Span
from karplint.testing import lint_report, make_config
from fixsupport import NP, fix_rules  # noqa: F401 - pytest fixtures


FIXED_SAFE = """\
# a nodepool
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized   # old name
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      expireAfter: 720h
"""


def fix_text(text: str | bytes, *, unsafe: bool = False, select=("KPL99",), name="test.yaml"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    cfg = make_config({"select": list(select)})
    return fix_inputs([InputFile(name, None, data)], cfg, unsafe=unsafe)


def test_safe_fixes_only_by_default(fix_rules):
    out = fix_text(NP.format(name="default"))
    [ff] = out.files
    assert ff.text == FIXED_SAFE
    assert [f.code for f in out.report.findings] == ["KPL992"]
    assert out.fixed == 2


def test_unsafe_fixes(fix_rules):
    out = fix_text(NP.format(name="default"), unsafe=True)
    assert "    consolidationPolicy: WhenEmptyOrUnderutilized   # old name\n    consolidateAfter: 0s\n" in out.files[0].text
    assert out.report.findings == []


def test_idempotent(fix_rules):
    once = fix_text(NP.format(name="default"), unsafe=True).files[0].text
    again = fix_text(once, unsafe=True)
    assert not again.changed and again.fixed == 0 and again.notes == []


def test_broken_fix_leaves_file_untouched(fix_rules):
    text = NP.format(name="break-me")
    out = fix_text(text, unsafe=True)
    [ff] = out.files
    assert not ff.changed and ff.error and "would not parse" in ff.error
    assert any("left unchanged" in n for n in out.notes)
    # every finding stays, on the original text
    assert {f.code for f in out.report.findings} == {"KPL991", "KPL992", "KPL993", "KPL994"}
    assert unified_diff(out) == ""


def test_encodings_and_bom_preserved(fix_rules):
    text = NP.format(name="default").replace("\n", "\r\n")
    for enc, bom in (("utf-8", codecs.BOM_UTF8), ("utf-16-le", codecs.BOM_UTF16_LE)):
        out = fix_text(bom + text.encode(enc))
        [ff] = out.files
        assert ff.encoded() == bom + FIXED_SAFE.replace("\n", "\r\n").encode(enc)


def test_multiple_documents_each_fixed(fix_rules):
    text = NP.format(name="a") + "---\n" + NP.format(name="b") + "...\n---\n# only a comment\n"
    out = fix_text(text)
    assert out.files[0].text.count("WhenEmptyOrUnderutilized") == 2
    assert out.files[0].text.endswith("      expireAfter: 720h\n...\n---\n# only a comment\n")
    assert document_count(out.files[0].text) == document_count(text)


def _finding(fix: Fix) -> Finding:
    return Finding("KPL991", "x", "disruption", "error", "m", "f", Span(1, 1, 1, 2, 0, 1), None, fix)


def test_select_fixes_defers_overlaps_and_dedupes():
    a = Fix("a", "safe", (Edit(0, 3, "x"),))
    b = Fix("b", "safe", (Edit(2, 5, "y"),))
    c = Fix("c", "safe", (Edit(0, 3, "x"),))  # same edits as a
    d = Fix("d", "safe", (Edit(5, 5, "z"),))
    e = Fix("e", "safe", (Edit(5, 5, "w"),))  # insertion at the same point: order unknown
    taken, deferred = select_fixes([_finding(f) for f in (a, b, c, d, e)], "abcdefgh")
    assert [fx.description for _, fx in taken] == ["a", "c", "d"]
    assert deferred == 2
    assert apply("abcdefgh", [fx for _, fx in taken]) == "xdezfgh"


def test_select_fixes_ignores_out_of_range():
    taken, _ = select_fixes([_finding(Fix("a", "safe", (Edit(5, 99, ""),)))], "abc")
    assert taken == []


def _name_rule(suffix: str):
    # Two fixes on the same scalar: the second is deferred, then re-evaluated on the new text.
    from karplint.rules.base import REGISTRY
    from karplint.fix import yamledit
    from karplint.rules import rule

    @rule("KPL995", "test-upper-name", category="disruption", severity="error", summary="t", kinds=("NodePool",),
          fix="safe")
    def upper(res, ctx):
        name = res.name or ""
        if name != name.upper():
            yield ctx.violation(res, ("metadata", "name"), "upper",
                                fix=Fix("upper", "safe", yamledit.replace_scalar(res.doc, ("metadata", "name"), name.upper())))
        if not name.endswith("-X"):
            yield ctx.violation(res, ("metadata", "name"), "suffix",
                                fix=Fix("suffix", "safe", yamledit.replace_scalar(res.doc, ("metadata", "name"), name + suffix)))


def test_conflicting_fixes_take_two_passes():
    from karplint.rules.base import REGISTRY

    _name_rule("-X")
    try:
        out = fix_text(NP.format(name="np"), select=("KPL995",))
        assert "  name: NP-X\n" in out.files[0].text
        assert out.report.findings == []
        assert out.files[0].applied[("KPL995", "upper")] == 1
    finally:
        REGISTRY.pop("KPL995", None)


def test_fixes_that_never_settle_leave_file_untouched():
    from karplint.rules.base import REGISTRY

    _name_rule("-x")  # the suffix fix never satisfies its own check
    try:
        text = NP.format(name="np")
        out = fix_text(text, select=("KPL995",))
        assert out.files[0].error == "fixes did not settle after 10 passes"
        assert out.files[0].text == text and not out.changed
        assert len(out.report.findings) == 2
    finally:
        REGISTRY.pop("KPL995", None)


def test_file_with_syntax_error_not_fixed(fix_rules):
    text = NP.format(name="a") + "---\nbad: [\n"
    out = fix_text(text)
    assert out.files == [] and not out.notes
    out = fix_text(text, select=("KPL99", "KPL001"))
    assert out.files == [] and {f.code for f in out.report.findings} >= {"KPL001", "KPL991"}


def test_atomic_write_refuses_a_file_changed_during_the_run(tmp_path):
    import pytest

    from karplint.fix import WriteError, atomic_write

    p = tmp_path / "x.yaml"
    p.write_bytes(b"a: 1\n")
    with pytest.raises(WriteError, match="changed on disk"):
        atomic_write(str(p), b"a: 2\n", expected=b"a: 0\n")
    assert p.read_bytes() == b"a: 1\n"
    atomic_write(str(p), b"a: 2\n", expected=b"a: 1\n")
    assert p.read_bytes() == b"a: 2\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.yaml"]  # no temporary file left behind


def test_write_failure_restores_findings(fix_rules, tmp_path):
    import os

    from karplint.fix import write_fixes

    p = tmp_path / "np.yaml"
    p.write_text(NP.format(name="default"))
    os.chmod(p, 0o444)
    cfg = make_config({"select": ["KPL99"]})
    out = fix_inputs([InputFile("np.yaml", str(p), None)], cfg)
    assert out.fixed == 2
    notes = write_fixes(out, cfg)
    assert notes and "read-only" in notes[0]
    assert {f.code for f in out.report.findings} == {"KPL991", "KPL992", "KPL994"}
    assert p.read_text() == NP.format(name="default") and out.fixed == 0


def test_no_unsafe_fixes_in_files_with_anchors(fix_rules):
    plain = NP.format(name="raw")
    assert "  name: raw-2\n" in fix_text(plain, unsafe=True, select=("KPL996",)).files[0].text
    anchored = plain.replace("  name: raw\n", "  name: raw\n  labels: {a: &v x, b: *v}\n")
    out = fix_text(anchored, unsafe=True, select=("KPL996",))
    assert not out.changed and [f.code for f in out.report.findings] == ["KPL996"]
