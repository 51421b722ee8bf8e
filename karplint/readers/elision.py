"""Excerpts: YAML files that show part of an object, with an elision line (`...`, `…`, `# ...`) for the rest.

Documentation copies objects with a line of dots where fields are left out. In YAML, `...` at the start of a line
ends the document; YAML 1.1 parsers (libyaml, and go-yaml that kubectl uses) then want `---` before any other
content ("did not find expected <document start>"), and an indented `...` is a plain scalar where a key should be.
So a file whose parse fails and parses once its elision lines are read as blank is an excerpt: it is read without
them (positions unchanged: each marker becomes spaces), never reported as invalid YAML (KPL001), and its objects
are fragments, like Markdown blocks with elisions (readers/virtual.py): what they leave out is not missing from
any cluster, so the verdicts about missing fields (`FRAGMENT_SILENCED`: required fields, "must specify one of",
v1's required consolidateAfter, a legacy provider's) are dropped; what they show is checked as usual. A whole-line `# ...` comment
marks an excerpt the same way (it needs no re-read). A file that parses as it is keeps its `...` lines as YAML says
(a document end at the start of a line, else part of a multi-line scalar).
"""

from __future__ import annotations

import re

# What an excerpt leaves out is not missing from any cluster: the verdicts about missing fields are dropped for a
# fragment (required fields KPL103, "must specify one of" CEL rules KPL130, v1's required consolidateAfter KPL401,
# a legacy Provisioner's provider or subnetSelector, KPL147 and KPL108).
FRAGMENT_SILENCED = frozenset({"KPL103", "KPL130", "KPL401", "KPL108", "KPL147"})

# What stands for an omitted value or lines (`...`, `…`, `<...>`), a line that is only one, a comment line that is
# only one (`# ...`, `# …`); documentation blocks also write `..` and `[...]` (DOC_ELISION_LINE: one line).
ELISIONS = ("...", "\u2026", "<...>")
DOC_ELISION_LINE = re.compile(r"^[ \t]*(?:\.{2,}|\u2026|<\.\.\.>|\[\.\.\.\])[ \t]*\r?\n?$")
ELISION_LINE = re.compile(r"^[ \t]*(?:\.\.\.|\u2026|<\.\.\.>)[ \t]*\r?$", re.M)
ELISION_COMMENT = re.compile(r"^[ \t]*#[ \t]*(?:\.\.\.|\u2026)[ \t]*\r?$", re.M)


def blank_elisions(text: str) -> str | None:
    """`text` with its elision lines' markers replaced by spaces (same offsets, lines and columns), or None when it
    has none."""
    if "..." not in text and "\u2026" not in text:
        return None
    found = list(ELISION_LINE.finditer(text))
    if not found:
        return None
    parts = []
    last = 0
    for m in found:
        parts.append(text[last:m.start()])
        parts.append(re.sub(r"[^\r\t ]", " ", m.group()))
        last = m.end()
    parts.append(text[last:])
    return "".join(parts)


def elision_lines(text: str, *, markers: bool) -> list[int]:
    """1-based numbers of the lines that are an elision comment, and with `markers` an elision marker (only when
    the file was read without them: in a file that parses, a `...` line is a document end or part of a scalar)."""
    if "..." not in text and "\u2026" not in text:
        return []
    starts = {m.start() for m in ELISION_COMMENT.finditer(text)}
    if markers:
        starts |= {m.start() for m in ELISION_LINE.finditer(text)}
    return [text.count("\n", 0, s) + 1 for s in sorted(starts)]


def mark_fragments(docs: list, lines: list[int]) -> None:
    """Mark as fragments the documents that hold one of `lines` (each line belongs to the last document starting at
    or before it)."""
    if not lines or not docs:
        return
    starts = [(d.start.line if d.start is not None else 1, d) for d in docs]
    for line in lines:
        owner = None
        for start, d in starts:
            if start <= line:
                owner = start
            else:
                break
        if owner is None:
            continue
        for start, d in starts:
            if start == owner:
                d.fragment = True


def excerpt_filter(results: list, documents: list, key) -> list:
    """`results` (engine `Result`s of one plain YAML file) without the verdicts about missing fields on its
    fragments. `key(doc)` is the engine's document key (`Result.doc`)."""

    fragments = {key(d) for d in documents if d.fragment}
    if not fragments:
        return results
    return [x for x in results if not (x.doc in fragments and x.code in FRAGMENT_SILENCED)]
