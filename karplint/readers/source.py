"""Source files and positions.

A `Span` is 1-based (line, column) to (end_line, end_column), end exclusive, plus the 0-based character
offsets into the decoded text, so reports can point at a node and fixes can edit it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Span(NamedTuple):
    line: int
    column: int
    end_line: int
    end_column: int
    offset: int = 0
    end_offset: int = 0

    @staticmethod
    def point(line: int, column: int, offset: int = 0) -> "Span":
        return Span(line, column, line, column + 1, offset, offset + 1)


@dataclass
class SourceFile:
    """One input file, decoded. `path` is the path as the user gave it (relative stays relative)."""

    path: str
    text: str
    abspath: str | None = None  # None for stdin
    encoding: str = "utf-8"
    bom: bool = False
    newline: str = "\n"
    # for text extracted from another file (a heredoc, a Markdown block): how its positions map to that file
    # (`readers.virtual.Embedding`); None for a file read as YAML
    embedding: object = field(default=None, repr=False, compare=False)
    _line_starts: list[int] | None = field(default=None, repr=False, compare=False)

    def __reduce__(self):  # (fields by position; the line starts are recomputed when asked for)
        return SourceFile, (self.path, self.text, self.abspath, self.encoding, self.bom, self.newline, self.embedding)

    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            text = self.text
            i = text.find("\n")
            while i != -1:
                starts.append(i + 1)
                i = text.find("\n", i + 1)
            self._line_starts = starts
        return self._line_starts

    def offset_of(self, line: int, column: int) -> int:
        """Character offset of a 1-based line and column."""
        starts = self.line_starts()
        line = max(1, min(line, len(starts)))
        return starts[line - 1] + column - 1

    def position_of(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        import bisect

        starts = self.line_starts()
        idx = bisect.bisect_right(starts, offset) - 1
        return idx + 1, offset - starts[idx] + 1

    def span_of(self, start: int, end: int) -> Span:
        line, col = self.position_of(start)
        end_line, end_col = self.position_of(max(start, end))
        return Span(line, col, end_line, end_col, start, end)

    def line_text(self, line: int) -> str:
        starts = self.line_starts()
        if not 1 <= line <= len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[start:end].rstrip("\r")
