"""Positions between karplint and the Language Server Protocol.

karplint counts in code points of the decoded text: a `Span` has 1-based lines (split at "\\n") and 1-based
columns, its end exclusive; a fix `Edit` has 0-based character offsets. LSP counts 0-based lines, split at "\\n",
"\\r\\n" and "\\r" (specification 3.17, "Text Documents"), and characters in the code units of the position
encoding the client and server agreed on: UTF-16 unless both said otherwise (`positionEncoding`).
"""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

_LSP_BREAK = re.compile(r"\r\n|\r|\n")


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class TextPositions:
    """Conversions for one text: karplint spans and offsets to LSP positions and back."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self._karplint_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._lsp_starts = [0] + [m.end() for m in _LSP_BREAK.finditer(text)]

    def offset_of_span_point(self, line: int, column: int) -> int:
        """The character offset of karplint's 1-based (line, column), clamped to the text."""
        starts = self._karplint_starts
        if line < 1:
            return 0
        if line > len(starts):
            return len(self.text)
        start = starts[line - 1]
        line_end = starts[line] - 1 if line < len(starts) else len(self.text)
        return max(start, min(start + column - 1, line_end))

    def position(self, offset: int) -> types.Position:
        """The LSP position of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._lsp_starts, offset) - 1
        start = self._lsp_starts[line]
        if offset > start and self.text[offset - 1] == "\r" and offset < len(self.text) and self.text[offset] == "\n":
            offset -= 1  # (between the two characters of a CRLF: the end of the line)
        return types.Position(line=line, character=_units(self.text[start:offset], self.encoding))

    def offset(self, position: types.Position) -> int:
        """The character offset of an LSP position; a character past the line's end means its end."""
        if position.line >= len(self._lsp_starts):
            return len(self.text)
        start = self._lsp_starts[position.line]
        end = self._lsp_starts[position.line + 1] if position.line + 1 < len(self._lsp_starts) else len(self.text)
        line = _LSP_BREAK.sub("", self.text[start:end])
        if self.encoding == types.PositionEncodingKind.Utf32:
            return start + min(position.character, len(line))
        units = 0
        for i, ch in enumerate(line):
            if units >= position.character:
                return start + i
            units += _units(ch, self.encoding)
        return start + len(line)

    def span_range(self, span) -> types.Range:
        """The LSP range of a karplint `Span` (an end before the start is the start: a point)."""
        start = self.offset_of_span_point(span.line, span.column)
        end = self.offset_of_span_point(span.end_line, span.end_column)
        return types.Range(start=self.position(start), end=self.position(max(start, end)))

    def offsets_range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(max(start, end)))
