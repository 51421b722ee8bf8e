"""Rendered Helm output (`helm template ... | karplint check -`): findings moved to the chart template that produced
them.

`helm template` writes `# Source: CHART/templates/FILE.yaml` before each document. A finding in such a document
names that template when the file can be found (relative to the working directory, or beside the
`--stdin-filename` / rendered file, or one or two directories down) inside the project of the rendered file (of the
working directory and `--stdin-filename` for standard input: karplint/discover/boundary.py), with the template's
line and column when the rendered line can be matched to it:

* a line copied literally from the template (most of a manifest's structure) maps exactly;
* a line whose value came from `{{ ... }}` maps to the template line between the same literal neighbours that
  has the same indentation and key (`      expireAfter: {{ .Values.expireAfter }}`), at its column when it lies
  in the key, else at the value's start.

Otherwise the finding keeps the rendered file's position and gains a note naming the template. Only the reports
of check runs are rewritten (`--fix` edits the rendered text it was given); a remapped finding loses its fix,
whose offsets index the rendered text.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import replace
from typing import NamedTuple

from karplint.discover.boundary import Boundary, boundary_of, project_of_input
from karplint.readers.files import read_inside
from karplint.readers.source import Span

_SOURCE = re.compile(r"^# Source: ([^\r\n]+?)[ \t]*\r?$", re.M)
_KEY_PREFIX = re.compile(r"^([ \t]*(?:- )*(?:\"[^\"]*\"|'[^']*'|[^:#{}\[\]\"' \t][^:#{}]*?):)(?:[ \t]|$)")
MAX_TEMPLATE_BYTES = 1 << 20
MAX_LINES = 2_000  # per document and per template, for the line alignment (difflib: quadratic at worst)


def has_sources(text: str) -> bool:
    return "# Source: " in text and _SOURCE.search(text) is not None


class _Rendered:
    """The `# Source:` comments of one rendered stream: for a line, the template and the document's lines."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.ends: dict[int, int] = {}  # mark -> end line index of its document (found once)
        self.marks: list[int] = []  # 0-based line index of each `# Source:` comment
        self.paths: list[str] = []
        for m in _SOURCE.finditer(text):
            self.marks.append(text.count("\n", 0, m.start()))
            self.paths.append(m.group(1))

    def document_of(self, line: int) -> tuple[str, int, int] | None:
        """(template path, first line index, end line index) of the document holding 1-based `line`."""
        i = bisect.bisect_right(self.marks, line - 1) - 1
        if i < 0:
            return None
        start = self.marks[i] + 1
        end = self.ends.get(i)
        if end is None:
            end = self.marks[i + 1] if i + 1 < len(self.marks) else len(self.lines)
            for j in range(start, end):  # the document ends at the next `---`
                if self.lines[j].rstrip("\r") == "---" or self.lines[j].startswith("--- "):
                    end = j
                    break
            self.ends[i] = end
        if not start <= line - 1 < end:
            return None
        return self.paths[i], start, end


def _candidates(path: str, beside: list[str]) -> list[str]:
    """Where the template `path` (CHART/templates/x.yaml, as helm writes it) may be, most likely first."""
    rest = path.split("/", 1)[1] if "/" in path else path
    out = [path]
    for d in beside:
        out += [os.path.join(d, path), os.path.join(d, rest), os.path.join(os.path.dirname(d), path)]
    return out


MAX_SOURCES = 2_000  # distinct `# Source:` paths looked up per run (a chart has tens of templates)
MAX_INDEXED = 50_000  # directory entries listed to find charts kept one or two directories down
MAX_SAME_NAME = 64  # directories of one name tried for one template; more: ambiguous, not looked at
_TOO_MANY = object()  # what _Templates.find returns past MAX_SOURCES


class _ListingFull(Exception):
    pass


class _ChartsBelow:
    """The entries two and three levels below the working directory, by name, listed once on first use: where
    `*/CHART/...` and `*/*/CHART/...` may be (charts/NAME, deploy/helm/NAME), without two globs over the tree per
    `# Source:` (5,000 of them in a tree of 4,000 directories took minutes). Hidden names are skipped, as glob
    does. Past MAX_INDEXED entries the listing stops and `complete` is False."""

    def __init__(self):
        self.by_depth: tuple[dict[str, list[str]], dict[str, list[str]]] = ({}, {})
        self.complete = True
        budget = MAX_INDEXED

        def subdirs(path: str) -> list[str]:
            nonlocal budget
            out = []
            try:
                with os.scandir(path) as it:
                    for entry in it:
                        budget -= 1
                        if budget < 0:
                            raise _ListingFull
                        if not entry.name.startswith(".") and entry.is_dir():
                            out.append(entry.name)
            except OSError:
                pass
            return sorted(out)

        try:
            for first in subdirs(os.curdir):
                for second in subdirs(first):
                    self.by_depth[0].setdefault(second, []).append(first)
                    for third in subdirs(os.path.join(first, second)):
                        self.by_depth[1].setdefault(third, []).append(os.path.join(first, second))
        except _ListingFull:
            self.complete = False

    def find(self, path: str, boundary: Boundary) -> str | None:
        """The one file `*/path`, else the one file `*/*/path` (glob's order: depth one first)."""
        head = path.split("/", 1)[0]
        for index in self.by_depth:
            parents = index.get(head, ())
            if len(parents) > MAX_SAME_NAME:
                return None
            matches = [os.path.join(p, path) for p in parents if os.path.isfile(os.path.join(p, path))]
            if len(matches) == 1 and boundary.contains(matches[0]):
                return os.path.normpath(matches[0])
            if matches:
                return None  # (several, or outside: not guessed)
        return None


class _Templates:
    """The templates `# Source:` comments name, looked up once each, and read only inside the project boundary:
    the rendered text is untrusted, and its `# Source:` must not make karplint show lines of a file elsewhere (a
    link to /etc, an absolute path, `..`, a directory beside the checked tree)."""

    def __init__(self):
        self.found: dict[tuple, str | None] = {}
        self.looked_up: set[str] = set()
        self.below: _ChartsBelow | None = None

    def find(self, path: str, beside: list[str], boundary: Boundary):
        """The template file `path` names, None when not found, `_TOO_MANY` past MAX_SOURCES distinct paths."""
        key = (path, tuple(beside), boundary.roots)
        if key in self.found:
            return self.found[key]
        if path not in self.looked_up:
            if len(self.looked_up) >= MAX_SOURCES:
                return _TOO_MANY
            self.looked_up.add(path)
        hit = None
        parts = path.replace("\\", "/").split("/")
        if ".." not in parts and not os.path.isabs(path) and "\0" not in path:  # helm writes chart-relative paths
            for cand in _candidates(path, beside):
                cand = os.path.normpath(cand)
                if os.path.isfile(cand) and boundary.contains(cand):
                    hit = cand
                    break
            if hit is None:  # a chart kept one or two directories down (charts/NAME, deploy/helm/NAME)
                if self.below is None:
                    self.below = _ChartsBelow()
                hit = self.below.find(path, boundary)
        self.found[key] = hit
        return hit


def _boundary(display: str, stdin_filename: str | None, config_root: str | None, named: list[str]) -> Boundary:
    """Where templates for the rendered `display` may be read: the project of the rendered file (of the path named
    on the command line it was found under); for standard input, the project of the working directory and of
    `--stdin-filename` (the user's choices)."""
    if display != "-":
        return Boundary([project_of_input(display, named, config_root)])
    return boundary_of([os.curdir, *([stdin_filename] if stdin_filename else [])], config_root)


def _read_lines(path: str, boundary: Boundary) -> list[str] | None:
    try:
        raw = read_inside(path, boundary, MAX_TEMPLATE_BYTES)
    except OSError:
        return None
    if len(raw) > MAX_TEMPLATE_BYTES:
        return None
    return [ln.rstrip("\r") for ln in raw.decode("utf-8", "replace").split("\n")]


class Block(NamedTuple):
    a: int  # first line in the rendered document
    b: int  # first line in the template
    size: int


def matching_blocks(rendered: list[str], template: list[str]) -> list[Block] | None:
    """Runs of literal lines the rendered document shares with the template, in order; None past MAX_LINES.

    Patience-style, in O(n log n): lines that occur once in each are anchors, the longest run of anchors in the
    same order is kept, and each anchor grows over equal neighbours. (difflib is cubic on repeated lines, and a
    rendered stream is untrusted.)"""
    import bisect

    if len(rendered) > MAX_LINES or len(template) > MAX_LINES:
        return None
    count_r: dict[str, int] = {}
    for line in rendered:
        count_r[line] = count_r.get(line, 0) + 1
    where_t: dict[str, int] = {}
    count_t: dict[str, int] = {}
    for j, line in enumerate(template):
        count_t[line] = count_t.get(line, 0) + 1
        where_t[line] = j
    pairs = [(i, where_t[line]) for i, line in enumerate(rendered)
             if line.strip() and count_r[line] == 1 and count_t.get(line) == 1]
    # longest increasing subsequence of template indexes (pairs are in rendered order)
    tails: list[int] = []  # template index ending the best run of each length
    tails_at: list[int] = []  # index in pairs of that end
    back: list[int] = []
    for k, (_i, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        back.append(tails_at[pos - 1] if pos else -1)
        if pos == len(tails):
            tails.append(j)
            tails_at.append(k)
        else:
            tails[pos], tails_at[pos] = j, k
    chain: list[tuple[int, int]] = []
    k = tails_at[-1] if tails_at else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    chain.reverse()
    blocks: list[Block] = []
    last_a = last_b = 0
    for n, (i, j) in enumerate(chain):
        if blocks and i < blocks[-1].a + blocks[-1].size:
            continue  # (inside the previous block's growth)
        next_a, next_b = chain[n + 1] if n + 1 < len(chain) else (len(rendered), len(template))
        start_a, start_b = i, j
        while start_a > last_a and start_b > last_b and rendered[start_a - 1] == template[start_b - 1]:
            start_a, start_b = start_a - 1, start_b - 1
        end_a, end_b = i + 1, j + 1
        while end_a < next_a and end_b < next_b and rendered[end_a] == template[end_b]:
            end_a, end_b = end_a + 1, end_b + 1
        blocks.append(Block(start_a, start_b, end_a - start_a))
        last_a, last_b = end_a, end_b
    return blocks


def map_line(rendered: list[str], template: list[str], index: int, column: int,
             blocks: list | None = None) -> tuple[int, int] | None:
    """The template's (0-based line, 1-based column) for the rendered document's line `index` and `column`."""
    if blocks is None:
        blocks = matching_blocks(rendered, template)
        if blocks is None:
            return None
    before_t, after_t = 0, len(template)
    for b in blocks:
        if b.a <= index < b.a + b.size:
            return b.b + index - b.a, column
        if b.a + b.size <= index:
            before_t = b.b + b.size
        elif b.a > index:
            after_t = b.b
            break
    # A line rendered from a hole: the template line between the same literal neighbours with the same key.
    m = _KEY_PREFIX.match(rendered[index])
    if m is None:
        return None
    prefix = m.group(1)
    hits = [j for j in range(before_t, after_t) if template[j].startswith(prefix)]
    if len(hits) != 1:
        return None
    line = template[hits[0]]
    if column <= len(prefix):
        return hits[0], column
    hole = line.find("{{", len(prefix))
    value = hole if hole >= 0 else len(prefix) + (len(line) - len(prefix) - len(line[len(prefix):].lstrip()))
    return hits[0], value + 1


def remap(report, stdin_filename: str | None = None, config_root: str | None = None, named: tuple = ()):
    """`report` with findings in rendered Helm documents moved to their templates (see the module docstring).
    `config_root` (the configuration's directory) and `named` (the paths named on the command line) give the
    project boundary (karplint/discover/boundary.py)."""
    by_file: dict[str, list[int]] = {}
    for i, f in enumerate(report.findings):
        if f.file in report.helm_rendered:
            by_file.setdefault(f.file, []).append(i)
    findings = list(report.findings)
    lookup = _Templates()
    templates: dict[str, list[str] | None] = {}
    aligned: dict[tuple, list | None] = {}
    changed = False
    for display, indexes in by_file.items():
        src = report.sources.get(display)
        if src is None or not has_sources(src.text):
            continue
        rendered = _Rendered(src.text)
        beside = [os.path.dirname(x) for x in (stdin_filename, display) if x and x != "-"]
        beside = list(dict.fromkeys(d for d in beside if d))
        boundary = _boundary(display, stdin_filename, config_root, list(named))
        for i in indexes:
            f = findings[i]
            where = rendered.document_of(f.span.line)
            if where is None:
                continue
            path, start, end = where
            target = lookup.find(path, beside, boundary)
            if target is _TOO_MANY:
                findings[i] = replace(f, message=f"{f.message}\nnote: rendered by helm from `{path}` (not looked up: "
                                                 f"the input names more than {MAX_SOURCES:,} templates)")
                changed = True
                continue
            if target is None:
                why = ("not found from here: run karplint from the directory holding the chart to have findings on "
                       "the template") if lookup.below is None or lookup.below.complete else (
                    f"not found: the directories below this one hold over {MAX_INDEXED:,} entries, not searched")
                findings[i] = replace(f, message=f"{f.message}\nnote: rendered by helm from `{path}` ({why})")
                changed = True
                continue
            if target not in templates:
                templates[target] = _read_lines(target, boundary)
            lines = templates[target]
            doc = [ln.rstrip("\r") for ln in rendered.lines[start:end]]
            got = None
            if lines is not None:
                key = (display, start, target)
                if key not in aligned:  # once per rendered document and template, whatever the findings
                    aligned[key] = matching_blocks(doc, lines)
                if aligned[key] is not None:
                    got = map_line(doc, lines, f.span.line - 1 - start, f.span.column, aligned[key])
            origin = f"{'stdin' if display == '-' else display} line {f.span.line}"
            if got is None:
                span = Span.point(1, 1)
                note = f"note: rendered from this template ({origin}); the line could not be matched to the template"
            else:
                line, col = got
                width = max(1, f.span.end_column - f.span.column) if f.span.end_line == f.span.line else 1
                end_col = min(col + width, len(lines[line]) + 1) if lines[line] else col + 1
                span = Span(line + 1, col, line + 1, max(end_col, col + 1))
                note = f"note: rendered by helm ({origin})"
            findings[i] = replace(f, file=target, span=span, fix=None, message=f"{f.message}\n{note}")
            changed = True
    if not changed:
        return report
    findings.sort(key=lambda f: f.sort_key())
    sources = report.sources
    for target in templates:
        sources.add(target)
    return replace(report, findings=findings, sources=sources)
