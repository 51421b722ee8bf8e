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
    """Conversions for one text (an editor's buffer): karplint spans and offsets to LSP positions.

    karplint reads a file without its byte order mark; an editor may keep it in the buffer (`bom`: 1 then), so
    karplint's offsets are `bom` characters short of the buffer's."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self.bom = 1 if text.startswith("\ufeff") else 0
        self.karplint_text = text[self.bom:]  # the text as karplint reads it
        self._karplint_starts = [0] + [m.end() for m in re.finditer("\n", self.karplint_text)]
        self._lsp_starts = [0] + [m.end() for m in _LSP_BREAK.finditer(text)]

    def offset_of_span_point(self, line: int, column: int) -> int:
        """The buffer offset of karplint's 1-based (line, column), clamped to the text."""
        starts = self._karplint_starts
        if line < 1:
            return self.bom
        if line > len(starts):
            return len(self.text)
        start = starts[line - 1]
        line_end = starts[line] - 1 if line < len(starts) else len(self.karplint_text)
        return self.bom + max(start, min(start + column - 1, line_end))

    def position(self, offset: int) -> types.Position:
        """The LSP position of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._lsp_starts, offset) - 1
        start = self._lsp_starts[line]
        if offset > start and self.text[offset - 1] == "\r" and offset < len(self.text) and self.text[offset] == "\n":
            offset -= 1  # (between the two characters of a CRLF: the end of the line)
        return types.Position(line=line, character=_units(self.text[start:offset], self.encoding))

    def span_range(self, span) -> types.Range:
        """The LSP range of a karplint `Span` (an end before the start is the start: a point)."""
        start = self.offset_of_span_point(span.line, span.column)
        end = self.offset_of_span_point(span.end_line, span.end_column)
        return types.Range(start=self.position(start), end=self.position(max(start, end)))

    def offsets_range(self, start: int, end: int) -> types.Range:
        """The LSP range of karplint offsets (a fix `Edit`'s: in the text as karplint reads it)."""
        start, end = start + self.bom, end + self.bom
        return types.Range(start=self.position(start), end=self.position(max(start, end)))
