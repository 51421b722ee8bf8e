"""`Config.focus` (the editor's open documents): the cross-file rules judge the focused files only, and each of
them gets exactly the findings of a whole run; the other files keep their per-file findings."""

from __future__ import annotations

from dataclasses import replace

from karplint.engine import check
from karplint.project import build, configure
from karplint.rules import REGISTRY, all_rules
from karplint.testing import need_shared


def _by_file(findings):
    out: dict[str, list] = {}
    for f in findings:
        out.setdefault(f.file, []).append((f.code, f.span.line, f.span.column, f.severity, f.message))
    return out


def test_focused_files_get_the_findings_of_a_whole_run():
    all_rules()
    corpus = str(need_shared() / "corpus")
    project = build([corpus], configure(None, [corpus]))
    whole = check(project.inputs, project.config, extra_problems=project.notices)
    full = _by_file(whole.findings)
    cross = {code for code, r in REGISTRY.items() if r.scope == "run"}
    # the files with the most cross-file findings (KPL301, KPL910, KPL421, ...), and two with none
    with_cross = sorted((f for f in full if any(c in cross for c, *_ in full[f])),
                        key=lambda f: -sum(c in cross for c, *_ in full[f]))
    assert len(with_cross) >= 6
    focus = frozenset(with_cross[:6] + [f for f in full if f not in with_cross][:2])
    part = check(project.inputs, replace(project.config, focus=focus), extra_problems=project.notices)
    got = _by_file(part.findings)
    for f in focus:
        assert got.get(f) == full.get(f), f
    # elsewhere: the per-file findings as before; the cross-file rules that judge by subject (what an edit to a
    # NodePool makes every keystroke pay for) worked nothing out
    judged_by_subject = {"KPL301", "KPL302", "KPL304", "KPL305", "KPL410", "KPL414", "KPL421", "KPL811", "KPL910"}
    assert any(c in judged_by_subject for f in full if f not in focus for c, *_ in full[f])
    for f, found in got.items():
        if f not in focus:
            assert set(found) <= set(full[f]), f
            assert [x for x in full[f] if REGISTRY[x[0]].scope != "run"] == \
                [x for x in found if REGISTRY[x[0]].scope != "run"], f
            assert not [x for x in found if x[0] in judged_by_subject], f
