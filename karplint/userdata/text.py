"""The userData string of an EC2NodeClass and where each of its characters sits in the manifest.

`UserDataText` holds the decoded string (what Karpenter receives) and maps offsets in it back to the YAML file:

* literal block scalars (`|`, `|-`, `|+`, with or without an indentation indicator): exact. Content line k of the
  value is file line `header_line + 1 + k`; its column is the block indentation plus the column in the value.
* plain, quoted and folded scalars: YAML rewrote the text (escapes, folding), so every offset maps to the
  scalar's start. `exact` tells rules whether they may attach fixes (edits need exact offsets).

`view(start, end)` gives a sub-view (a MIME part body, a shell command) that keeps its base offset, so positions
survive through MIME parts: `part.span(i, j)` is the same as `root.span(part.base + i, part.base + j)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from karplint.readers.document import per_document
from karplint.readers.source import SourceFile, Span

USERDATA_PATH = ("spec", "userData")


@dataclass
class _LineMap:
    """For an exact (literal block) value: file offset of the start of each value line, or None if unknown."""

    value_line_starts: list[int]  # offset in the value where each value line starts
    file_line_starts: list[int | None]  # offset in the file text where that value line's content starts


@dataclass
class UserDataText:
    text: str  # this view's text (the whole userData, or a slice of it)
    source: SourceFile
    scalar_span: Span  # the YAML scalar holding the userData
    style: str | None  # YAML scalar style: None (plain), "'", '"', "|", ">"
    base: int = 0  # offset of `text` inside the full userData string
    _map: _LineMap | None = field(default=None, repr=False)
    full_text: str = ""  # the whole userData string (equal to `text` for the root view)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_resource(cls, res) -> "UserDataText | None":
        """The userData of a resource, or None when `spec.userData` is absent or not a string. Built once per
        document: several rules ask, and the line map costs a pass over the userData's file lines."""
        return _from_resource(res)

    @classmethod
    def _build_from_resource(cls, res) -> "UserDataText | None":
        value = res.get(USERDATA_PATH)
        if not isinstance(value, str):
            return None
        info = res.doc.exact(USERDATA_PATH)
        if info is None:
            return None
        return cls.build(value, res.doc.source, info.span, info.style)

    @classmethod
    def build(cls, value: str, source: SourceFile, scalar_span: Span, style: str | None) -> "UserDataText":
        line_map = _literal_line_map(value, source, scalar_span) if style == "|" else None
        return cls(value, source, scalar_span, style, 0, line_map, value)

    # ------------------------------------------------------------------ positions

    @property
    def exact(self) -> bool:
        """True when every offset maps to its own file position (literal block scalar)."""
        return self._map is not None

    def view(self, start: int, end: int) -> "UserDataText":
        """A sub-view of text[start:end] whose offsets are relative to `start`."""
        start = max(0, min(start, len(self.text)))
        end = max(start, min(end, len(self.text)))
        return UserDataText(self.text[start:end], self.source, self.scalar_span, self.style, self.base + start,
                            self._map, self.full_text)

    def file_offset(self, index: int) -> int | None:
        """File text offset of character `index` of this view, or None when not exact."""
        if self._map is None:
            return None
        absolute = self.base + index
        starts = self._map.value_line_starts
        import bisect

        line = bisect.bisect_right(starts, absolute) - 1
        if line < 0:
            return None
        file_start = self._map.file_line_starts[line]
        if file_start is None:
            return None
        return file_start + (absolute - starts[line])

    def span(self, start: int, end: int | None = None) -> Span:
        """The manifest Span of text[start:end] (the scalar's start when the mapping is not exact)."""
        if end is None:
            end = start + 1
        end = max(start, end)
        fs = self.file_offset(start)
        if fs is None:
            return self._start_point()
        # the end is exclusive: map the last character and step past it, so a span never crosses into the
        # next file line's indentation
        fe = self.file_offset(end - 1) if end > start else fs
        if fe is None:
            return self._start_point()
        fe = fe + 1 if end > start else fs
        return self.source.span_of(fs, fe)

    def line_of(self, index: int) -> int:
        """1-based line number within the full userData string."""
        return self.full_text.count("\n", 0, self.base + index) + 1

    def _start_point(self) -> Span:
        s = self.scalar_span
        return Span(s.line, s.column, s.line, s.column + 1, s.offset, s.offset + 1)


def _literal_line_map(value: str, source: SourceFile, scalar_span: Span) -> _LineMap | None:
    """Map each line of a literal block's value to its file position; None if the file does not match."""
    value_lines = value.split("\n")
    value_line_starts: list[int] = []
    pos = 0
    for vl in value_lines:
        value_line_starts.append(pos)
        pos += len(vl) + 1
    header_line = scalar_span.line
    line_starts = source.line_starts()
    file_starts: list[int | None] = []
    indent: int | None = None
    for k, vl in enumerate(value_lines):
        file_line = header_line + 1 + k
        if file_line > len(line_starts):
            file_starts.append(None)
            continue
        raw = source.line_text(file_line)
        if vl == "":
            file_starts.append(line_starts[file_line - 1] + min(len(raw), indent or 0))
            continue
        if not raw.endswith(vl):
            # a chomped trailing line or something we do not understand: give up on exactness only here
            file_starts.append(None)
            continue
        this_indent = len(raw) - len(vl)
        if indent is None:
            indent = this_indent
        file_starts.append(line_starts[file_line - 1] + this_indent)
    if indent is None:
        return None
    return _LineMap(value_line_starts, file_starts)


@per_document
def _from_resource(res) -> UserDataText | None:
    return UserDataText._build_from_resource(res)
