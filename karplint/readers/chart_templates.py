"""Helm chart templates and other Go templates (helmfile `.gotmpl`, `.tpl`) read as templates, never as broken YAML.

A template file is masked line by line (karplint/readers/gotemplate.py) into a virtual YAML text whose line N is
the template's line N, with an `Embedding` mapping every offset back to the template (findings land on the
template's lines and columns; no fix is offered: an edit of a template is not an edit of YAML). Three readings are
tried (READINGS), the first that parses without a duplicate key wins. A template none of them reads gets
one KPL005 notice (info) at the line that could not be read, never KPL001; the documents before it are checked.

`chart_values` reads each chart's values.yaml once per run (before the cache: its scalars are in the cache key)
so that `{{ .Values.x }}` is the chart's default where values.yaml sets one.
"""

from __future__ import annotations

import os

from karplint.readers.embedded import Embedding
from karplint.readers.gotemplate import READINGS, Masker, has_actions, is_template
from karplint.readers.source import SourceFile, Span

TEMPLATE_SUFFIXES = (".gotmpl",)  # always a template (helmfile); `.tpl`, `.yaml`: when the text is one
VALUES_FILES = ("values.yaml", "values.yml")
MAX_VALUES_BYTES = 1 << 20
# Codes of the verdicts about what a document lacks: an incomplete template (text inserted by an action karplint
# cannot expand) may have it (same as a documentation snippet's: readers/embedded.py FRAGMENT_SILENCED).
INCOMPLETE_SILENCED = frozenset({"KPL103", "KPL130", "KPL401"})


class TemplateEmbedding(Embedding):
    """A template's virtual YAML: spans map back like an embedded block's; fixes are not offered."""

    def fix(self, fix):
        return None


def read_as_template(display: str, raw: bytes, text: str | None = None) -> bool:
    """Whether a file (its display path, bytes, and decoded text if known) is a Go template to mask."""
    if not has_actions(raw):
        return False
    low = display.lower()
    if low.endswith(TEMPLATE_SUFFIXES):
        return True
    return text is not None and is_template(text)


def chart_dir(path: str | None) -> str | None:
    """The chart directory of a file under `<chart>/templates/` (with or without a Chart.yaml: Argo CD and helmfile
    may supply the chart's metadata), as an absolute normalised path."""
    if not path or "templates" not in path:
        return None
    parts = os.path.abspath(path).split(os.sep)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "templates":
            return os.sep.join(parts[:i]) or os.sep
    return None


def _flatten(data, prefix: str, out: dict) -> None:
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(k, str) and k.replace("_", "a").replace("-", "a").isalnum():
                _flatten(v, f"{prefix}.{k}", out)
    elif prefix and not isinstance(data, (list, dict)) and data is not None and data != "":
        out[prefix] = data


def chart_values(inputs, read) -> dict:
    """{chart directory (absolute): {".a.b": scalar}} from the values.yaml of every chart among `inputs` (a
    values.yaml beside a `templates/` directory); `read(abspath, limit)` reads a file. Empty and null values are
    left out: a chart's empty default is meant to be set at install time, not a value to judge."""
    from karplint.readers.loader import decode, load

    out: dict = {}
    for i in inputs:
        if i.abspath is None or os.path.basename(i.display) not in VALUES_FILES:
            continue
        directory = os.path.dirname(os.path.abspath(i.abspath))
        if not os.path.isdir(os.path.join(directory, "templates")):
            continue
        try:
            raw = read(i.abspath, MAX_VALUES_BYTES)
        except OSError:
            continue
        if len(raw) > MAX_VALUES_BYTES:
            continue
        src = decode(i.display, raw, i.abspath)
        if not isinstance(src, SourceFile):
            continue
        docs, _problems = load(src)
        flat: dict = {}
        if docs and isinstance(docs[0].data, dict):
            _flatten(docs[0].data, "", flat)
        if flat:
            out[directory] = flat
    return out


def _virtual(src: SourceFile, masker: Masker) -> SourceFile:
    """The template's text as YAML (`masker`), line N on line N, with offsets mapped back (TemplateEmbedding)."""
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


def load_template(src: SourceFile, chart_values_by_dir: dict | None = None):
    """(documents, problems) of a Go template file, on the template's positions (see the module docstring)."""
    from karplint.readers.loader import Problem, load

    values = (chart_values_by_dir or {}).get(chart_dir(src.abspath or src.path)) or {}
    best = None
    for opts in READINGS:
        masker = Masker(values, **opts)
        vsrc = _virtual(src, masker)
        docs, probs = load(vsrc)
        # (KPL002, a duplicate key: both branches of an `if`/`else` define it, as the next readings tell)
        broken = (sum(p.code == "KPL001" for p in probs), sum(p.code == "KPL002" for p in probs))
        if best is None or broken < best[3]:
            best = (vsrc, docs, probs, broken, masker)
        if broken == (0, 0):
            break
    vsrc, docs, probs, _broken, masker = best
    last_line = max(1, src.text.count("\n") if src.text.endswith("\n") else src.text.count("\n") + 1)
    emb = vsrc.embedding
    problems = []
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
