"""Helm chart templates and other Go templates (helmfile `.gotmpl`, `.tpl`) read as templates, never as broken YAML.

A template file is masked line by line (karplint/readers/gotemplate.py) into a virtual YAML text whose line N is
the template's line N, with an `Embedding` mapping every offset back to the template (findings land on the
template's lines and columns; no fix is offered: an edit of a template is not an edit of YAML). Three readings are
tried (READINGS), the first that parses without a duplicate key wins. A template none of them reads gets
one KPL005 notice (info) at the line that could not be read, never KPL001; the documents before it are checked.

Each chart's values.yaml and helm's rendering come from karplint/readers/helm_charts.py (`chart_context`, once per
run): `{{ .Values.x }}` is the chart's default where values.yaml sets one, a branch of `{{ if .Values.x }}` that does
not render with those defaults is not read, and a template helm rendered is checked as rendered, its findings mapped
back to the template's lines (`RenderedEmbedding`).
"""

from __future__ import annotations

import functools
import os
import re

from karplint.readers.elision import FRAGMENT_SILENCED
from karplint.readers.virtual import Embedding
from karplint.readers.helm_charts import chart_dir
from karplint.readers.gotemplate import READINGS, Condition, Masker, has_actions, has_unquoted_action, is_template
from karplint.readers.source import SourceFile, Span

TEMPLATE_SUFFIXES = (".gotmpl",)  # always a template (helmfile); `.tpl`, `.yaml`: when the text is one
# Codes of the verdicts about what a document lacks: an incomplete template (text inserted by an action karplint
# cannot expand) may have it (same as a documentation snippet's: readers/embedded.py FRAGMENT_SILENCED).
INCOMPLETE_SILENCED = FRAGMENT_SILENCED
MAX_UNKNOWN_LINES = 20  # lines of one template set aside as unknown before the rest is given up (each: a parse)


class TemplateEmbedding(Embedding):
    """A template's virtual YAML: spans map back like an embedded block's; fixes are not offered."""

    def fix(self, fix):
        return None


CHART_FILES = ("Chart.yaml", "chart.yaml", "Chart.yml", "chart.yml")


def read_as_template(display: str, raw: bytes, text: str | None = None, abspath: str | None = None) -> bool:
    """Whether a file (its display path, bytes, decoded text if known, path on disk) is a Go template to mask: a
    `.gotmpl` file, a file under the `templates/` directory of a chart (Chart.yaml or chart.yaml) with an action
    outside quotes, or a file whose text has actions where YAML cannot hold them (`is_template`)."""
    if not has_actions(raw):
        return False
    low = display.lower()
    if low.endswith(TEMPLATE_SUFFIXES):
        return True
    if text is None:
        return False
    if is_template(text):
        return True
    chart = chart_dir(abspath)
    return chart is not None and has_unquoted_action(text) and any(
        os.path.isfile(os.path.join(chart, name)) for name in CHART_FILES)


_KEY = re.compile(r"^([ \t]*(?:-[ \t]+)*(?:[^\s:#\"'{-][^:#]*?|\"[^\"]*\"|'[^']*'):)(?:[ \t]|\r?\n?$)")


def _unknown_line(line: str) -> list[tuple[str, int]]:
    """A template line that does not read as YAML: its key with an unknown value (a hole), else nothing."""
    nl = len(line) - len(line.rstrip("\r\n"))
    m = _KEY.match(line)
    pieces = [(m.group(1), 0), (" '{{ }}'", len(m.group(1)))] if m else []
    return pieces + ([(line[len(line) - nl:], len(line) - nl)] if nl else [])


def _virtual(src: SourceFile, masker: Masker, unknown: frozenset = frozenset()) -> SourceFile:
    """The template's text as YAML (`masker`), line N on line N, with offsets mapped back (TemplateEmbedding);
    the `unknown` lines as `_unknown_line`."""
    emb = TemplateEmbedding(host_kind="gotemplate")
    parts: list[str] = []
    vlen = 0
    text = src.text
    starts = src.line_starts()
    for n, hls in enumerate(starts, 1):
        end = starts[n] if n < len(starts) else len(text)
        line = text[hls:end]
        emb.lines[n] = (vlen, hls, hls)
        emb.by_vstart[vlen] = n
        pieces = masker.pieces(line)
        if n in unknown:
            pieces = _unknown_line(line)
            masker.inserted = True
        if pieces is None:
            nl = len(line) - len(line.rstrip("\r\n"))
            pieces = [(line[len(line) - nl:], len(line) - nl)] if nl else []
        for piece, off in pieces:
            emb.av.append(vlen)
            emb.ah.append(hls + off)
            parts.append(piece)
            vlen += len(piece)
    emb.lines[len(starts) + 1] = (vlen, len(text), len(text))
    emb.av.append(vlen)
    emb.ah.append(len(text))
    return SourceFile(path=src.path, text="".join(parts), abspath=src.abspath, encoding=src.encoding, bom=src.bom,
                      newline=src.newline, embedding=emb)


_FIRST_DEFINED = re.compile(r"first defined at line (\d+)")


def _load(vsrc: SourceFile, masker: Masker):
    """`load` of a template's virtual YAML, without the duplicate keys that only conditional blocks make (`if a`
    then `if b`, each defining `service:`: a duplicate only when both hold, which karplint cannot know) nor those
    an inserting action between the two may separate (each `{{- include "core" . }}` starting a new list item)."""
    from karplint.readers.loader import load

    docs, probs = load(vsrc)
    kept = []
    for p in probs:
        first = _FIRST_DEFINED.search(p.message) if p.code == "KPL002" else None
        if first is not None and (not masker.same_branches(int(first.group(1)), p.span.line)
                                  or masker.inserts_between(int(first.group(1)), p.span.line, p.span.column - 1)):
            continue
        kept.append(p)
    return docs, kept


def load_template(src: SourceFile, charts: dict | None = None):
    """(documents, problems) of a Go template file, on the template's positions (see the module docstring).
    `charts`: `chart_context`'s answer (karplint/readers/helm_charts.py)."""
    from karplint.readers.loader import Problem

    chart = (charts or {}).get(chart_dir(src.abspath or src.path)) or {}
    if chart.get("rendering") is not None and src.abspath:
        rendered = load_rendered(src, chart["rendering"])
        if rendered is not None:
            return rendered
    values = chart.get("values") or {}
    # (an `if` on values read with the chart's defaults, as `{{ .Values.x }}` is filled: a parent chart, Argo CD or
    # helmfile may set others)
    condition = Condition(chart["truth"], chart.get("mappings", ())) if chart.get("truth") else None
    best = None
    for opts in READINGS:
        masker = Masker(values, condition=condition, **opts)
        vsrc = _virtual(src, masker)
        docs, probs = _load(vsrc, masker)
        # (KPL002, a duplicate key: both branches of an `if`/`else` define it, as the next readings tell)
        broken = (sum(p.code == "KPL001" for p in probs), sum(p.code == "KPL002" for p in probs))
        if best is None or broken < best[3]:
            best = (vsrc, docs, probs, broken, masker)
        if broken == (0, 0):
            break
    vsrc, docs, probs, broken, masker = best
    unknown: list[int] = []
    columns: list[int] = []
    while broken[0] and len(unknown) < MAX_UNKNOWN_LINES:  # the line YAML stops at: unknown, and read on
        at = next(vsrc.embedding.span(p.span, vsrc) for p in probs if p.code == "KPL001")
        line = at.line
        masker = Masker(values, **masker.options)
        vsrc2 = _virtual(src, masker, frozenset(unknown + [line]))
        docs2, probs2 = _load(vsrc2, masker)
        broken2 = (sum(p.code == "KPL001" for p in probs2), sum(p.code == "KPL002" for p in probs2))
        if broken2[0] and next(vsrc2.embedding.span(p.span, vsrc2).line for p in probs2 if p.code == "KPL001") <= line:
            break  # (setting the line aside does not help: the cause lies elsewhere)
        unknown.append(line)
        columns.append(at.column)
        vsrc, docs, probs, broken = vsrc2, docs2, probs2, broken2
    last_line = max(1, src.text.count("\n") if src.text.endswith("\n") else src.text.count("\n") + 1)
    emb = vsrc.embedding
    problems = [Problem("KPL005", (
        f"could not read line {n} of the template: its value is unknown, not checked\n"
        "note: karplint reads a Go/Helm template without rendering it: literal keys and values are checked, "
        "actions are unknown; this line does not read as YAML once the actions are set aside\n"
        "help: check the rendered chart as well: `helm template RELEASE CHART | karplint check -`"),
        Span.point(n, col)) for n, col in zip(unknown, columns)]
    for p in probs:
        span = emb.span(p.span, vsrc)
        if p.code == "KPL001":
            span = span if span.line <= last_line else Span.point(last_line, 1)  # (the end of the stream)
            problems.append(Problem("KPL005", (
                f"could not read this part of the template (line {span.line}): the rest of the file is not checked\n"
                "note: karplint reads a Go/Helm template without rendering it: literal keys and values are "
                "checked, actions are unknown; this line does not read as YAML once the actions are set aside\n"
                "help: check the rendered chart as well: `helm template RELEASE CHART | karplint check -`"),
                Span.point(span.line, span.column)))
        else:
            problems.append(Problem(p.code, p.message, span))
    for d in docs:
        d.fragment = d.fragment or masker.inserted
    return docs, problems


def incomplete_filter(results: list, documents: list, key) -> list:
    """`results` of one file without the verdicts about missing fields on templates that are incomplete (an
    action inserted text karplint could not expand: `INCOMPLETE_SILENCED`). `key(doc)` is the engine's key."""
    incomplete = {key(d) for d in documents if d.fragment and isinstance(d.source.embedding, TemplateEmbedding)}
    if not incomplete:
        return results
    return [x for x in results if not (x.doc in incomplete and x.code in INCOMPLETE_SILENCED)]


# ---------------------------------------------------------------------------------------------- rendered by helm

class RenderedEmbedding:
    """Where the documents helm rendered from one template come from in it: each rendered line is matched to the
    template (karplint/readers/helm_rendered.py: literal lines exactly, a line from an action by its key between
    the same literal neighbours). A line that cannot be matched lands on the template's first line. No fixes."""

    host_kind = "helm"
    fragment = False
    # (read like readers.embedded.Embedding's: nothing escaped, no literal `$${`, no described values)
    escape: tuple = ()
    literals: tuple = ()
    described: tuple = ()

    def __init__(self, template: SourceFile, documents: list[tuple[int, list[str]]]):
        self.template = template
        self.template_lines = [ln.rstrip("\r") for ln in template.text.split("\n")]
        self.documents = documents  # (first virtual line, 1-based; the document's lines)
        self._blocks: dict[int, list | None] = {}

    def span(self, span: Span, vsrc: SourceFile | None = None) -> Span:
        from karplint.readers.helm_rendered import map_line, matching_blocks

        for i, (first, lines) in enumerate(self.documents):
            if first <= span.line < first + len(lines):
                if i not in self._blocks:
                    self._blocks[i] = matching_blocks(lines, self.template_lines)
                blocks = self._blocks[i]
                got = None if blocks is None else map_line(lines, self.template_lines, span.line - first,
                                                          span.column, blocks)
                if got is not None:
                    line, col = got
                    width = max(1, span.end_column - span.column) if span.end_line == span.line else 1
                    end_col = min(col + width, len(self.template_lines[line]) + 1) or col + 1
                    offset = self.template.offset_of(line + 1, col)
                    return Span(line + 1, col, line + 1, max(end_col, col + 1), offset, offset + max(1, end_col - col))
        return Span.point(1, 1)

    def fix(self, fix):
        return None


@functools.lru_cache(maxsize=8)
def _rendered_by_template(rendering: str) -> dict[str, list[list[str]]]:
    """helm's output split once per chart: {path after the chart's name (`templates/x.yaml`): [document lines]}."""
    from karplint.readers.helm_rendered import _SOURCE

    lines = rendering.split("\n")
    marks, line_no, pos = [], 0, 0
    for m in _SOURCE.finditer(rendering):
        line_no += rendering.count("\n", pos, m.start())
        pos = m.start()
        marks.append((line_no, m.group(1)))
    out: dict[str, list[list[str]]] = {}
    for n, (at, path) in enumerate(marks):
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        body = []
        for line in lines[at + 1:end]:
            if line.rstrip("\r") == "---":
                break
            body.append(line.rstrip("\r"))
        out.setdefault(path.split("/", 1)[-1], []).append(body)
    return out


def rendered_source(src: SourceFile, rendering: str, chart: str) -> SourceFile | None:
    """The documents `rendering` (helm's output for `chart`) holds from the template `src`, as a source whose
    positions map back to the template; None when the rendering has none (the template renders nothing with the
    chart's defaults, or helm names it otherwise)."""
    try:
        rel = os.path.relpath(os.path.abspath(src.abspath or src.path), os.path.join(chart, "templates"))
    except ValueError:
        return None
    documents: list[tuple[int, list[str]]] = []
    out: list[str] = []
    for body in _rendered_by_template(rendering).get("templates/" + rel.replace(os.sep, "/"), ()):
        if out:
            out.append("---")
        documents.append((len(out) + 1, body))
        out.extend(body)
    if not documents:
        return None
    return SourceFile(path=src.path, text="\n".join(out) + "\n", abspath=src.abspath, encoding=src.encoding,
                      bom=src.bom, newline=src.newline, embedding=RenderedEmbedding(src, documents))


def load_rendered(src: SourceFile, rendering: str):
    """(documents, problems) of the template `src` in helm's `rendering` of its chart, or None when not there."""
    vsrc = rendered_source(src, rendering, chart_dir(src.abspath))
    if vsrc is None:
        return None
    from karplint.readers.loader import load

    docs, probs = load(vsrc)
    emb = vsrc.embedding
    return docs, [type(p)(p.code, p.message, emb.span(p.span, vsrc)) for p in probs]
