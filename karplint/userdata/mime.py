"""MIME multipart userData, split the way Karpenter (Go `net/mail` + `mime/multipart`) and cloud-init read it.

Karpenter (`pkg/providers/amifamily/bootstrap/mime`) reads the top-level headers with `net/textproto`: header
lines up to the first empty line; a line without a colon there fails with `malformed MIME header: missing colon:
"<line>"` (aws/karpenter-provider-aws#2009: the blank line after the headers is missing). The media type must be
`multipart/*` ("user data is not in multipart MIME format"); parts are delimited by lines `--<boundary>` (trailing
spaces and tabs allowed), the last one by `--<boundary>--`; text before the first delimiter is a preamble. Each part
again has headers, an empty line, and a body that ends before the newline that precedes the next delimiter.

`parse_mime(text)` never raises: every deviation is a `MimeProblem` with offsets into `text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Problem kinds (stable identifiers rules switch on).
MISSING_COLON = "missing-colon"  # a header block without its terminating blank line (or a garbage header line)
NOT_MULTIPART = "not-multipart"
NO_MEDIA_TYPE = "no-media-type"
NO_BOUNDARY_PARAM = "no-boundary-param"
BOUNDARY_NEVER_APPEARS = "boundary-never-appears"
NO_CLOSING_BOUNDARY = "no-closing-boundary"  # ends with "--B" instead of "--B--": Go and cloud-init accept it
UNTERMINATED_PART = "unterminated-part"  # the last part runs to the end of the text: Go's reader: unexpected EOF
PART_MISSING_COLON = "part-missing-colon"

# Parts analysed or rendered per document. A part needs at least a delimiter line and an empty line: 16 KiB of EC2
# userData holds a few thousand empty parts, and real ones have a handful.
MAX_MIME_PARTS = 1000


@dataclass
class MimeProblem:
    kind: str
    message: str
    start: int
    end: int


@dataclass
class Header:
    name: str
    value: str  # unfolded
    start: int  # offset of the header line
    end: int  # offset after the header (continuations included), before the newline


@dataclass
class MimePart:
    headers: list[Header]
    start: int  # offset of the delimiter line
    body_start: int
    body_end: int
    body: str

    @property
    def content_type(self) -> str:
        """Media type, lowercased, without parameters ("" when the part has no Content-Type)."""
        return media_type(header_value(self.headers, "Content-Type") or "")[0]

    def header_span(self, name: str) -> tuple[int, int] | None:
        for h in self.headers:
            if h.name.lower() == name.lower():
                return h.start, h.end
        return None


@dataclass
class MimeDocument:
    headers: list[Header] = field(default_factory=list)
    media_type: str = ""
    boundary: str | None = None
    parts: list[MimePart] = field(default_factory=list)
    problems: list[MimeProblem] = field(default_factory=list)
    closed: bool = False  # a closing `--boundary--` was seen
    headers_end: int = 0  # offset where the body starts
    last_delimiter: tuple[int, int] | None = None  # offsets of the last delimiter line seen

    @property
    def ok(self) -> bool:
        """Karpenter could split it (a missing closing boundary after a final delimiter line does not count)."""
        return not any(p.kind != NO_CLOSING_BOUNDARY for p in self.problems)


def looks_like_mime(text: str) -> bool:
    """Karpenter's test (AL2, AL2023): the trimmed text starts with `MIME-Version:` or `Content-Type:`."""
    stripped = text.strip()
    return stripped.startswith("MIME-Version:") or stripped.startswith("Content-Type:")


def header_value(headers: list[Header], name: str) -> str | None:
    for h in headers:
        if h.name.lower() == name.lower():
            return h.value
    return None


_PARAM = re.compile(r';\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)')


def media_type(value: str) -> tuple[str, dict[str, str]]:
    """`mime.ParseMediaType` for the cases userData needs: (lowercased type, lowercased-name params)."""
    main, _, _rest = value.partition(";")
    params: dict[str, str] = {}
    for m in _PARAM.finditer(value[len(main):]):
        raw = m.group(2)
        if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        params[m.group(1).lower()] = raw
    return main.strip().lower(), params


def _lines(text: str, start: int = 0):
    """(line_start, line_end_without_newline, next_line_start) from `start`; CRLF is a line end."""
    pos = start
    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        if nl == -1:
            yield pos, n, n
            return
        end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
        yield pos, end, nl + 1
        pos = nl + 1


def read_headers(text: str, start: int) -> tuple[list[Header], int, MimeProblem | None]:
    """`textproto.Reader.ReadMIMEHeader`: header lines up to an empty line. Returns (headers, body start, problem).

    Reaching the end of the text without an empty line is not an error (the body is then empty)."""
    headers: list[Header] = []
    for ls, le, nxt in _lines(text, start):
        line = text[ls:le]
        if line == "":
            return headers, nxt, None
        if line[0] in " \t" and headers:  # continuation of the previous header
            h = headers[-1]
            h.value = (h.value + " " + line.strip()).strip()
            h.end = le
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            return headers, ls, MimeProblem(
                MISSING_COLON,
                f'malformed MIME header: missing colon: "{line}"' if not colon
                else f'malformed MIME header line: "{line}"',
                ls, le)
        headers.append(Header(name, value.strip(), ls, le))
    return headers, len(text), None


def _is_delimiter(line: str, boundary: str) -> tuple[bool, bool]:
    """(is a delimiter line, is the closing delimiter) for `line` without its newline."""
    dash = "--" + boundary
    if not line.startswith(dash):
        return False, False
    rest = line[len(dash):]
    if rest.startswith("--") and rest[2:].strip(" \t") == "":
        return True, True
    return rest.strip(" \t") == "", False


def parse_mime(text: str) -> MimeDocument:
    doc = MimeDocument()
    headers, body_start, problem = read_headers(text, 0)
    doc.headers = headers
    doc.headers_end = body_start
    if problem is not None:
        doc.problems.append(problem)
        return doc
    ctype = header_value(headers, "Content-Type")
    mtype, params = media_type(ctype or "")
    doc.media_type = mtype
    if not mtype:
        doc.problems.append(MimeProblem(NO_MEDIA_TYPE, "failed to get media type, mime: no media type", 0,
                                        len(text.split("\n", 1)[0])))
        return doc
    if not mtype.startswith("multipart/"):
        h = next(h for h in headers if h.name.lower() == "content-type")
        doc.problems.append(MimeProblem(NOT_MULTIPART, "user data is not in multipart MIME format", h.start, h.end))
        return doc
    boundary = params.get("boundary")
    if not boundary:
        h = next(h for h in headers if h.name.lower() == "content-type")
        doc.problems.append(MimeProblem(NO_BOUNDARY_PARAM, "multipart Content-Type without a boundary parameter",
                                        h.start, h.end))
        return doc
    doc.boundary = boundary

    current: tuple[int, int] | None = None  # (delimiter line start, body start) of the open part
    current_headers: list[Header] = []
    seen_delimiter = False

    def close_part(end_line_start: int) -> None:
        # the body ends before the newline that precedes the delimiter line
        delim_start, bstart = current
        bend = end_line_start
        if bend > bstart and text[bend - 1] == "\n":
            bend -= 1
            if bend > bstart and text[bend - 1] == "\r":
                bend -= 1
        bend = max(bstart, bend)
        doc.parts.append(MimePart(current_headers, delim_start, bstart, bend, text[bstart:bend]))

    pos = body_start
    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        le = n if nl == -1 else (nl - 1 if nl > pos and text[nl - 1] == "\r" else nl)
        nxt = n if nl == -1 else nl + 1
        is_delim, is_close = _is_delimiter(text[pos:le], boundary)
        if is_delim:
            seen_delimiter = True
            doc.last_delimiter = (pos, le)
            if current is not None:
                close_part(pos)
                current = None
            if is_close:
                doc.closed = True
                break
            if text[nxt:].strip() == "":
                # a delimiter followed by nothing: Go's NextPart hits EOF in the headers and stops cleanly
                break
            part_headers, part_body, problem = read_headers(text, nxt)
            if problem is not None:
                problem.kind = PART_MISSING_COLON
                problem.message += " (part headers must be followed by an empty line)"
                doc.problems.append(problem)
            current = (pos, part_body)
            current_headers = part_headers
            pos = part_body if part_body > nxt else nxt
            if problem is not None:
                pos = problem.start
            continue
        pos = nxt
    unterminated = current is not None
    if current is not None:  # the last part runs to the end of the text
        delim_start, bstart = current
        doc.parts.append(MimePart(current_headers, delim_start, bstart, max(bstart, n), text[bstart:]))
    if not seen_delimiter:
        h = next(h for h in headers if h.name.lower() == "content-type")
        doc.problems.append(MimeProblem(
            BOUNDARY_NEVER_APPEARS,
            f'boundary "{boundary}" never appears as a "--{boundary}" line: the document has no parts '
            "(multipart: NextPart: EOF)", h.start, h.end))
    elif unterminated:
        at = doc.last_delimiter or (max(0, n - 1), n)
        doc.problems.append(MimeProblem(
            UNTERMINATED_PART, f'the last part is not followed by a "--{boundary}" or closing "--{boundary}--" line: '
            "Go's multipart reader fails on it with \"unexpected EOF\"", at[0], at[1]))
    elif not doc.closed:
        at = doc.last_delimiter or (max(0, n - 1), n)
        doc.problems.append(MimeProblem(
            NO_CLOSING_BOUNDARY, f'no closing "--{boundary}--" line (the document ends with "--{boundary}")',
            at[0], at[1]))
    return doc
