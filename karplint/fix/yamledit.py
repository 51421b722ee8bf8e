"""Minimal, comment-preserving YAML text edits for fixes.

Every function here looks at a `Document` (its plain data, its node positions and `doc.source.text`) and
returns a tuple of `Edit`s (character offsets into `doc.source.text`) that touch only the text that has to
change, or `None` when it cannot edit safely: flow collections where a block one is needed, anchors or
aliases anywhere in the document, tags, multi-line plain or quoted scalars, keys sharing a line with other
content, files with lone-CR line breaks... A rule that gets `None` simply reports its finding without a fix.

    from karplint.fix import yamledit
    edits = yamledit.insert_entry(res.doc, ("spec", "disruption"), "consolidateAfter", "0s",
                                  after="consolidationPolicy")
    fix = Fix("add consolidateAfter: 0s", "safe", edits) if edits else None

Paths are the `Document` paths (mapping keys and sequence indexes from the document root). Values given to
`insert_entry`/`append_item` are plain data (str, int, float, bool, None, dict, list), rendered in block style
with the file's indentation; strings are written plain when that reads back as the same string, else
double-quoted. Inserted lines use the line ending of the file (CRLF stays CRLF).

Functions:
    replace_scalar(doc, path, value)                 new scalar value, keeping ' / " / plain style
    rename_key(doc, path, new_key)                   rename a mapping key, keeping its quoting
    insert_entry(doc, mapping, key, value, after=, before=)   add `key: value` to a block mapping
                                                     (missing parent mappings are created)
    append_item(doc, seq, item)                      append to a block (or one-line flow) sequence;
                                                     creates `key:` + the sequence when missing
    delete_item(doc, seq, index)                     remove one item of a block sequence (whole lines)
    delete_entry(doc, path, prune=True)              remove a mapping entry (its whole lines, comments on them);
                                                     `prune` also removes parents it would leave empty
    move_entry(doc, path, mapping, key=, after=, before=)    move an entry (its text, comments and
                                                     block scalars included, re-indented) elsewhere
    scalar_offsets(doc, path)                        file offset of every character of a scalar's value
    replace_in_scalar(doc, path, start, end, text)   edit a substring of a scalar value (e.g. userData)
    combine(*groups)                                 join edit groups; None if any is None or they overlap
    apply_edits(text, edits)                         apply non-overlapping edits to a text
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable, Iterable, NamedTuple

from karplint.readers.document import Document, Path
from karplint.findings import Edit

Edits = tuple  # tuple[Edit, ...]

__all__ = [
    "replace_scalar", "rename_key", "insert_entry", "append_item", "delete_item", "delete_entry", "move_entry",
    "scalar_offsets", "replace_in_scalar", "combine", "apply_edits", "render_scalar", "plain_ok",
]


# ---------------------------------------------------------------------------------------------- text helpers

def _line_start(text: str, off: int) -> int:
    return text.rfind("\n", 0, off) + 1


def _next_line_start(text: str, off: int) -> int:
    i = text.find("\n", off)
    return len(text) if i == -1 else i + 1


def _line_end(text: str, off: int) -> int:
    """Offset of the line break ending the line of `off` (the CR of a CRLF), or len(text)."""
    i = text.find("\n", off)
    if i == -1:
        return len(text)
    return i - 1 if i > 0 and text[i - 1] == "\r" else i


def _newline(doc: Document, near: int | None = None) -> str | None:
    """The line break to write: that of the line at `near`, else the file's; None for lone-CR files."""
    text = doc.source.text
    if re.search(r"\r(?!\n)", text):
        return None
    if near is not None:
        i = text.find("\n", near)
        if i != -1:
            return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"
    return "\r\n" if "\r\n" in text else "\n"


def _blank_or_comment(s: str) -> bool:
    s = s.strip()
    return not s or s.startswith("#")


@lru_cache(maxsize=64)
def _anchor_offsets(text: str) -> tuple[int, ...]:
    """Offsets of every anchor and alias in the stream (the parser's view, so never fooled by scalar text)."""
    from ruamel.yaml.events import AliasEvent

    from karplint.readers.loader import _yaml, _yaml_text

    out: list[int] = []
    if "&" not in text and "*" not in text:
        # No anchor or alias can exist; only a parse error would add an offset. libyaml accepting the stream
        # means ruamel does too (karplint.readers.fastload declines every input where that may not hold).
        from karplint.readers.fastload import ENABLED, _compose, _Fallback

        if ENABLED:
            try:
                _compose(_yaml_text(text))
                return ()
            except _Fallback:
                pass
    try:
        for ev in _yaml().parse(_yaml_text(text)):
            if isinstance(ev, AliasEvent) or getattr(ev, "anchor", None):
                out.append(ev.start_mark.index)
    except Exception:  # noqa: BLE001 - a broken stream: whatever follows the error is not editable anyway
        out.append(len(text))
    return tuple(out)


def _editable(doc: Document) -> bool:
    """No anchors/aliases in the document (an edit could break or duplicate a shared node)."""
    root = doc.nodes.get(())
    if root is None:
        return False
    text = doc.source.text
    if "&" not in text and "*" not in text and getattr(doc.nodes, "whole_stream_parsed", lambda: False)():
        return True  # (what `_anchor_offsets` would parse the text again to find out)
    lo, hi = root.span.offset, root.span.end_offset
    return not any(lo <= o <= hi for o in _anchor_offsets(text))


def _full(doc: Document, path: Path) -> tuple:
    return doc.base + tuple(path)


def _descendants(doc: Document, path: Path):
    full = _full(doc, path)
    n = len(full)
    for p, info in doc.nodes.items():
        if p[:n] == full:
            yield p, info


def _is_block_scalar(info) -> bool:
    return info.style in ("|", ">")


def _after_colon(text: str, off: int) -> int:
    m = re.compile(r"[ \t]*:").match(text, off)
    return m.end() if m else off


def _content_end(doc: Document, path: Path) -> int | None:
    """Offset just after the last character of the value at `path` (trailing comments/blank lines excluded)."""
    text = doc.source.text
    info = doc.exact(path)
    if info is None:
        return None
    if info.key_span is not None:
        end = _after_colon(text, info.key_span.end_offset)
    elif info.span.offset == info.span.end_offset:
        return None  # an empty sequence item: its mark points at the next token
    else:
        end = info.span.offset
    for p, n in _descendants(doc, path):
        if n.key_span is not None:
            end = max(end, _after_colon(text, n.key_span.end_offset))
        if n.span.offset == n.span.end_offset:
            continue  # an empty (null) value: its mark points at the next token
        if isinstance(doc.get(p[len(doc.base):]), (dict, list)) and n.style not in ("{", "["):
            continue  # a block collection's end mark runs on over trailing comments: use its children
        if _is_block_scalar(n):
            header = text[n.span.offset:_line_end(text, n.span.offset)]
            if "+" in header.split("#")[0]:
                return None  # keep-chomping: trailing blank lines are content
            e = n.span.end_offset
            while e > n.span.offset and text[e - 1] in " \t\r\n":
                e -= 1
            end = max(end, e)
        else:
            end = max(end, n.span.end_offset)
    return end


def _entry_region(doc: Document, path: Path) -> tuple[int, int, int] | None:
    """(line start, key offset, end) of the lines holding mapping entry `path` (end: start of the next line)."""
    text = doc.source.text
    info = doc.exact(path)
    if info is None or info.key_span is None:
        return None
    key_off = info.key_span.offset
    start = _line_start(text, key_off)
    cend = _content_end(doc, path)
    if cend is None:
        return None
    rest = text[cend:_line_end(text, cend)]
    if not _blank_or_comment(rest):
        return None  # something else shares the last line (flow syntax, `---`...)
    return start, key_off, _next_line_start(text, cend)


# ---------------------------------------------------------------------------------------------- rendering

_RESERVED = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N"
    r"|[-+]?(?:\.[0-9]+|[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o?[0-7_]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*|<<|=)$"
)
_PLAIN = re.compile(r"^[A-Za-z0-9_./(][A-Za-z0-9_./()\[\]{}:=,@%+*$<>^~!?'\"\\ -]*$")


def plain_ok(s: str) -> bool:
    """Whether `s` written as a plain scalar (in block context) reads back as the same string."""
    if not s or s != s.strip() or _RESERVED.match(s) or not _PLAIN.match(s):
        return False
    if ": " in s or " #" in s or s.endswith(":"):
        return False
    if any(c in s for c in "[]{},") and not re.match(r"^[A-Za-z0-9_./-]", s):
        return False
    return "\t" not in s and "\n" not in s


def _double(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _single(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def render_scalar(value: Any, style: str | None = None) -> str:
    """`value` as a YAML scalar; `style` ("'", '"' or None) is kept when it can represent the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    s = str(value)
    if style == "'" and "\n" not in s and s.isprintable():
        return _single(s)
    if style == '"':
        return _double(s)
    return s if plain_ok(s) else _double(s)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render_scalar(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    s = render_scalar(value)
    if isinstance(value, str) and s == value and any(c in s for c in "[]{},"):
        s = _double(value)
    return s


class Layout(NamedTuple):
    unit: int  # indentation of a nested mapping
    seq_off: int  # column of `-` relative to its key (0: `key:\n- a`)
    item_off: int  # column of an item's content relative to its `-` (2 for `- a`, 4 for `-   a`)


def _render_entry(key: str, value: Any, col: int, lay: Layout) -> list[str]:
    pad = " " * col
    k = render_scalar(str(key))
    if isinstance(value, dict) and value:
        lines = [f"{pad}{k}:"]
        for ck, cv in value.items():
            lines += _render_entry(ck, cv, col + lay.unit, lay)
        return lines
    if isinstance(value, list) and value:
        lines = [f"{pad}{k}:"]
        for item in value:
            lines += _render_item(item, col + lay.seq_off, lay)
        return lines
    return [f"{pad}{k}: {_flow(value) if isinstance(value, (dict, list)) else render_scalar(value)}"]


def _render_item(item: Any, dash_col: int, lay: Layout) -> list[str]:
    pad = " " * dash_col
    dash = "-" + " " * (lay.item_off - 1)
    if isinstance(item, dict) and item:
        lines: list[str] = []
        for i, (k, v) in enumerate(item.items()):
            sub = _render_entry(k, v, dash_col + lay.item_off, lay)
            if i == 0:
                sub[0] = pad + dash + sub[0][dash_col + lay.item_off:]
            lines += sub
        return lines
    if isinstance(item, list) and item:
        return [f"{pad}{dash}{_flow(item)}"]
    return [f"{pad}{dash}{_flow(item) if isinstance(item, (dict, list)) else render_scalar(item)}"]


_last_layout: list = [None, None]  # (document, its layout): one edit asks several times, of one document


def _layout(doc: Document) -> Layout:
    """The indentation the document uses (the first example of each); defaults 2, 2 and 2."""
    if _last_layout[0] is not doc:
        _last_layout[:] = doc, _measure_layout(doc)
    return _last_layout[1]


def _measure_layout(doc: Document) -> Layout:
    units: list[int] = []
    seq_offs: list[int] = []
    item_offs: list[int] = []
    text = doc.source.text
    for p, info in doc.nodes.items():
        if not p or p[:len(doc.base)] != doc.base:
            continue
        value = doc.get(p[len(doc.base):])
        if isinstance(value, list) and value and info.style != "[" and text[info.span.offset:info.span.offset + 1] == "-":
            first = doc.nodes.get(p + (0,))
            if first is not None and first.span.line == info.span.line and first.span.offset > info.span.offset:
                if isinstance(value[0], (dict, str, int, float, bool)) and first.style not in ("{", "["):
                    item_offs.append(first.span.column - info.span.column)
        if info.key_span is None:
            continue
        kcol = info.key_span.column
        if isinstance(value, dict) and value and info.style != "{":
            child = doc.nodes.get(p + (next(iter(value)),))
            if child is not None and child.key_span is not None and child.key_span.line > info.key_span.line:
                if child.key_span.column > kcol:
                    units.append(child.key_span.column - kcol)
        elif isinstance(value, list) and value and info.style != "[":
            if info.span.line > info.key_span.line and text[info.span.offset:info.span.offset + 1] == "-":
                seq_offs.append(info.span.column - kcol)
    unit = min(units) if units else 2
    return Layout(unit, seq_offs[0] if seq_offs else unit, item_offs[0] if item_offs and item_offs[0] >= 2 else 2)


# ---------------------------------------------------------------------------------------------- edits

def combine(*groups: Iterable[Edit] | None) -> Edits | None:
    """All edits of all groups, sorted; None when a group is None or two edits overlap."""
    out: list[Edit] = []
    for g in groups:
        if g is None:
            return None
        out.extend(g)
    out.sort(key=lambda e: (e.start, e.end))
    for a, b in zip(out, out[1:]):
        if b.start < a.end or (a.start == a.end == b.start == b.end):
            return None
    return tuple(out)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits (any order given) to `text`."""
    parts: list[str] = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < pos:
            raise ValueError(f"overlapping edits at offset {e.start}")
        parts.append(text[pos:e.start])
        parts.append(e.replacement)
        pos = e.end
    parts.append(text[pos:])
    return "".join(parts)


def replace_scalar(doc: Document, path: Path, value: Any) -> Edits | None:
    """Replace the scalar at `path` by `value`, keeping its quoting style (plain becomes double-quoted only
    when the new value would not read back as plain). Refuses block scalars, multi-line scalars, tags/anchors."""
    info = doc.exact(path)
    current = doc.get(path)
    if info is None or isinstance(current, (dict, list)) or not _editable(doc) or _is_block_scalar(info):
        return None
    span = info.span
    text = doc.source.text
    raw = text[span.offset:span.end_offset]
    if span.line != span.end_line or raw[:1] in ("!", "&", "*") or span.offset == span.end_offset:
        return None
    new = render_scalar(value, info.style)
    if new == raw:
        return ()
    return (Edit(span.offset, span.end_offset, new),)


def rename_key(doc: Document, path: Path, new_key: str) -> Edits | None:
    """Rename the mapping key of `path` to `new_key`, keeping its quoting; refuses if `new_key` exists."""
    info = doc.exact(path)
    parent = doc.get(tuple(path)[:-1])
    if info is None or info.key_span is None or not isinstance(parent, dict) or not _editable(doc):
        return None
    if new_key in parent and new_key != path[-1]:
        return None
    ks = info.key_span
    raw = doc.source.text[ks.offset:ks.end_offset]
    if ks.line != ks.end_line or raw[:1] in ("!", "&", "*", "?"):
        return None
    style = raw[0] if raw[:1] in ("'", '"') else None
    new = render_scalar(str(new_key), style)
    return () if new == raw else (Edit(ks.offset, ks.end_offset, new),)


def _key_col(doc: Document, mapping: Path) -> int | None:
    """0-based column of the keys of the block mapping at `mapping` (None: flow, empty or irregular)."""
    value = doc.get(mapping)
    info = doc.exact(mapping)
    if not isinstance(value, dict) or not value or info is None or info.style == "{":
        return None
    text = doc.source.text
    cols = set()
    for k in value:
        child = doc.exact(tuple(mapping) + (k,))
        if child is None or child.key_span is None:
            return None  # a merged key (<<) or something unusual
        before = text[_line_start(text, child.key_span.offset):child.key_span.offset]
        if before.strip() not in ("", "-") and not re.fullmatch(r"(\s*-\s+)+", before):
            return None
        cols.add(child.key_span.column - 1)
    return cols.pop() if len(cols) == 1 else None


def _empty_value_line(doc: Document, path: Path) -> int | None:
    """For `key:` with nothing after it (null), the offset of the start of the next line."""
    info = doc.exact(path)
    if info is None or info.key_span is None or doc.get(path, 0) is not None:
        return None
    text = doc.source.text
    ks = info.key_span
    rest = text[ks.end_offset:_line_end(text, ks.end_offset)]
    m = re.match(r"\s*:(.*)$", rest)
    if m is None or not _blank_or_comment(m.group(1)):
        return None
    return _next_line_start(text, ks.end_offset)


def _insert_at(doc: Document, offset: int, lines: list[str], near: int) -> Edits | None:
    nl = _newline(doc, near)
    if nl is None:
        return None
    text = doc.source.text
    body = nl.join(lines)
    if offset == len(text) and text and not text.endswith("\n"):
        return (Edit(offset, offset, nl + body),)
    return (Edit(offset, offset, body + nl),)


def _insert_lines(doc: Document, mapping: Path, key: str, build: Callable[[int], list[str] | None], *,
                  after: str | None = None, before: str | None = None) -> Edits | None:
    """Insert the lines `build(column)` as entry `key` of the block mapping at `mapping`, creating the missing
    part of `mapping` (as nested block mappings) when it does not exist."""
    if not _editable(doc):
        return None
    mapping = tuple(mapping)
    text = doc.source.text
    unit = _layout(doc).unit
    value = doc.get(mapping, _MISSING)
    if value is _MISSING:
        # Create the missing mappings under the deepest existing one.
        for n in range(len(mapping) - 1, -1, -1):
            head = doc.get(mapping[:n], _MISSING)
            if head is not _MISSING:
                break
        if not isinstance(head, dict) and head is not None or any(not isinstance(p, str) for p in mapping[n:]):
            return None
        missing = mapping[n:]

        def build_nested(col: int) -> list[str] | None:
            lines = [" " * (col + i * unit) + render_scalar(k) + ":" for i, k in enumerate(missing)]
            inner = build(col + len(missing) * unit)
            return None if inner is None else lines + inner

        return _insert_lines(doc, mapping[:n], missing[0], build_nested)
    if value is None:
        at = _empty_value_line(doc, mapping)
        if at is None or not mapping:
            return None
        col = doc.exact(mapping).key_span.column - 1 + unit
        lines = build(col)
        return None if lines is None else _insert_at(doc, at, lines, at - 1)
    if not isinstance(value, dict) or key in value:
        return None
    col = _key_col(doc, mapping)
    if col is None:
        return None
    keys = list(value)
    if before is not None:
        if before not in value:
            return None
        ks = doc.exact(mapping + (before,)).key_span
        at = _line_start(text, ks.offset)
        if text[at:ks.offset].strip():
            return None  # `- before:` : would have to split the line
        near = at
    else:
        anchor = after if after is not None else keys[-1]
        if anchor not in value:
            return None
        region = _entry_region(doc, mapping + (anchor,))
        if region is None:
            return None
        at = region[2]
        near = region[1]
    lines = build(col)
    return None if lines is None else _insert_at(doc, at, lines, near)


_MISSING = object()


def insert_entry(doc: Document, mapping: Path, key: str, value: Any, *, after: str | None = None,
                 before: str | None = None) -> Edits | None:
    """Add `key: value` to the block mapping at `mapping` (after the entry `after`, before `before`, or at the
    end), indented like its siblings. A missing `mapping` is created under its deepest existing ancestor."""
    lay = _layout(doc)
    return _insert_lines(doc, mapping, key, lambda col: _render_entry(key, value, col, lay),
                         after=after, before=before)


def _seq_item_end(doc: Document, seq: Path, index: int) -> int | None:
    text = doc.source.text
    cend = _content_end(doc, tuple(seq) + (index,))
    if cend is None:
        return None
    if not _blank_or_comment(text[cend:_line_end(text, cend)]):
        return None
    return _next_line_start(text, cend)


def append_item(doc: Document, seq: Path, item: Any) -> Edits | None:
    """Append `item` to the sequence at `seq`: a block sequence gets a `- item` line after its last item
    (same dash column); a one-line flow sequence gets `, item` before its `]`; a missing or empty (`key:`)
    sequence is created in block style."""
    seq = tuple(seq)
    if not _editable(doc) or not seq or not isinstance(seq[-1], str):
        return None
    value = doc.get(seq, _MISSING)
    lay = _layout(doc)
    text = doc.source.text
    if value is _MISSING or value is None:
        if value is None and _empty_value_line(doc, seq) is None:
            return None
        parent = doc.get(seq[:-1], _MISSING)
        if value is _MISSING and not isinstance(parent, dict) and parent is not _MISSING and parent is not None:
            return None
        if value is None:
            at = _empty_value_line(doc, seq)
            col = doc.exact(seq).key_span.column - 1 + lay.seq_off
            return _insert_at(doc, at, _render_item(item, col, lay), at - 1)
        return insert_entry(doc, seq[:-1], seq[-1], [item])
    if not isinstance(value, list):
        return None
    info = doc.exact(seq)
    if info.style == "[":
        span = info.span
        raw = text[span.offset:span.end_offset]
        if span.line != span.end_line or not raw.endswith("]"):
            return None
        close = span.end_offset - 1
        inner = raw[1:-1]
        if not inner.strip():
            return (Edit(span.offset + 1, close, _flow(item)),) if inner else (Edit(close, close, _flow(item)),)
        j = close
        while text[j - 1] in " \t":
            j -= 1
        if text[j - 1] == ",":
            return (Edit(j, j, " " + _flow(item)),)
        return (Edit(j, j, ", " + _flow(item)),)
    if not value:
        return None
    if text[info.span.offset:info.span.offset + 1] != "-":
        return None
    dash_col = info.span.column - 1
    # Every item must start a line of its own at the same column.
    for i in range(len(value)):
        n = doc.exact(seq + (i,))
        if n is None:
            return None
    at = _seq_item_end(doc, seq, len(value) - 1)
    if at is None:
        return None
    last = doc.exact(seq + (len(value) - 1,))
    dash = text.rfind("-", 0, last.span.offset)
    if dash >= _line_start(text, last.span.offset) and not text[dash + 1:last.span.offset].strip():
        lay = lay._replace(item_off=max(2, last.span.offset - dash))  # this sequence's own `-   item` spacing
    return _insert_at(doc, at, _render_item(item, dash_col, lay), at - 1)


def delete_entry(doc: Document, path: Path, *, prune: bool = True) -> Edits | None:
    """Remove the mapping entry at `path`: its key line through the last line of its value, comments on those
    lines included. When it is the only entry of its mapping, `prune` removes the parent entry instead
    (recursively); without `prune` (or at the root or in a sequence item) that is refused."""
    path = tuple(path)
    if not path or not _editable(doc):
        return None
    parent = doc.get(path[:-1])
    if not isinstance(parent, dict) or path[-1] not in parent:
        return None
    pinfo = doc.exact(path[:-1])
    if pinfo is not None and pinfo.style == "{":
        return None
    if len(parent) == 1:
        if prune and len(path) > 1 and isinstance(path[-2], str):
            return delete_entry(doc, path[:-1], prune=True)
        return None
    region = _entry_region(doc, path)
    if region is None:
        return None
    start, key_off, end = region
    text = doc.source.text
    lead = text[start:key_off]
    if lead.strip():
        if lead.strip() != "-":
            return None
        # First key of a sequence item (`- key: v`): keep `- `, pull the next key up onto its line.
        keys = list(parent)
        if keys.index(path[-1]) != 0:
            return None
        nxt = doc.exact(path[:-1] + (keys[1],)).key_span.offset
        if text[end:_line_start(text, nxt)].strip() and not all(
                _blank_or_comment(x) for x in text[end:_line_start(text, nxt)].splitlines()):
            return None
        return (Edit(key_off, nxt, ""),)
    if end == len(text) and not text.endswith("\n") and start > 0:
        # Last line of a file without final newline: drop the preceding line break instead.
        brk = start - 2 if text[start - 2:start] == "\r\n" else start - 1
        return (Edit(brk, end, ""),)
    return (Edit(start, end, ""),)


def delete_item(doc: Document, seq: Path, index: int) -> Edits | None:
    """Remove item `index` of the block sequence at `seq` (its `- ` line through its last line, comments on those
    lines included). Refuses flow sequences, the only item (that would leave a null), empty items and items that
    share a line with other content."""
    seq = tuple(seq)
    value = doc.get(seq)
    holder = doc.exact(seq)
    if not isinstance(value, list) or len(value) < 2 or holder is None or holder.style == "[" or not _editable(doc):
        return None
    if not -len(value) <= index < len(value):
        return None
    index %= len(value)
    item = doc.exact(seq + (index,))
    if item is None or item.span.offset == item.span.end_offset:
        return None
    text = doc.source.text
    start = _line_start(text, item.span.offset)
    if not re.fullmatch(r"[ \t]*-[ \t]+", text[start:item.span.offset]):
        return None
    cend = _content_end(doc, seq + (index,))
    if cend is None or not _blank_or_comment(text[cend:_line_end(text, cend)]):
        return None
    stop = _next_line_start(text, cend)
    if stop == len(text) and not text.endswith("\n") and start > 0:
        start -= 2 if text[start - 2:start] == "\r\n" else 1  # last line, no final newline: take the break before
    return (Edit(start, stop, ""),)


def move_entry(doc: Document, path: Path, mapping: Path, *, key: str | None = None, after: str | None = None,
               before: str | None = None) -> Edits | None:
    """Move the entry at `path` (its text: value, comments on its lines, block scalars) into the block mapping
    at `mapping` (created when missing), re-indented, optionally renamed to `key`; the source is removed like
    `delete_entry(prune=True)`."""
    path = tuple(path)
    mapping = tuple(mapping)
    if mapping[:len(path)] == path:
        return None
    region = _entry_region(doc, path)
    if region is None:
        return None
    text = doc.source.text
    start, key_off, end = region
    if text[start:key_off].strip():
        return None
    src_col = key_off - start
    body = text[start:end]
    if body.endswith("\n"):
        body = body[:-2] if body.endswith("\r\n") else body[:-1]
    src_lines = body.split("\n")
    src_lines = [ln[:-1] if ln.endswith("\r") else ln for ln in src_lines]
    new_key = key if key is not None else path[-1]
    dest = doc.get(mapping)
    if isinstance(dest, dict) and new_key in dest:
        return None
    if key is not None:
        ks = doc.exact(path).key_span
        renamed = rename_key(doc, path, key)
        if renamed is None:
            return None
        if renamed:
            first = src_lines[0]
            rel = ks.offset - start
            src_lines[0] = first[:rel] + renamed[0].replacement + first[rel + (ks.end_offset - ks.offset):]

    def build(col: int) -> list[str] | None:
        delta = col - src_col
        out = []
        for ln in src_lines:
            if not ln.strip():
                out.append(ln)
            elif delta >= 0:
                out.append(" " * delta + ln)
            else:
                lead = len(ln) - len(ln.lstrip(" "))
                if lead < -delta and not ln.lstrip().startswith("#"):
                    return None
                out.append(ln[min(lead, -delta):])
        return out

    removal = delete_entry(doc, path, prune=True)
    insertion = _insert_lines(doc, mapping, new_key, build, after=after, before=before)
    if removal is None or insertion is None:
        return None
    for ins in insertion:
        for rem in removal:
            if rem.start < ins.start < rem.end:
                return None
    return combine(removal, insertion)


# ---------------------------------------------------------------------------------------------- inside scalars

def scalar_offsets(doc: Document, path: Path) -> list[int] | None:
    """For the string scalar at `path`, the file offset of each character of its value, plus one final entry
    (the offset just after the last character), so `value[i:j]` is `text[offs[i]:offs[j]]` up to escaping and
    indentation. Works for plain and quoted one-line scalars and literal (`|`) block scalars; None for folded
    (`>`) scalars, escapes, multi-line flow scalars, tags and anchors. A value newline maps to its line break."""
    info = doc.exact(path)
    value = doc.get(path)
    if info is None or not isinstance(value, str) or not _editable(doc):
        return None
    text = doc.source.text
    span = info.span
    raw = text[span.offset:span.end_offset]
    if raw[:1] in ("!", "&", "*"):
        return None
    built: list[str] = []
    offs: list[int] = []
    if info.style in (None, "", "'", '"'):
        if span.line != span.end_line:
            return None
        if not info.style:
            body_start, body = span.offset, raw
        else:
            body_start, body = span.offset + 1, raw[1:-1]
        i = 0
        while i < len(body):
            c = body[i]
            if info.style == '"' and c == "\\":
                return None
            offs.append(body_start + i)
            built.append(c)
            i += 2 if info.style == "'" and body[i:i + 2] == "''" else 1
        offs.append(body_start + len(body))
    elif info.style == "|":
        header_end = _line_end(text, span.offset)
        header = text[span.offset:header_end].split("#")[0].strip()
        m = re.fullmatch(r"\|([1-9]?)([-+]?)([1-9]?)", header)
        if m is None:
            return None
        pos = _next_line_start(text, span.offset)
        parent_info = doc.exact(tuple(path)[:-1]) if path else None
        indent = None
        explicit = m.group(1) or m.group(3)
        if explicit:
            base = (info.key_span.column - 1) if info.key_span else (parent_info.span.column - 1 if parent_info else 0)
            indent = base + int(explicit)
        while pos < span.end_offset:
            le = _line_end(text, pos)
            line = text[pos:le]
            if indent is None and line.strip():
                indent = len(line) - len(line.lstrip(" "))
            nl_off = le
            if indent is not None and len(line) >= indent and line[:indent].strip() == "":
                for k, c in enumerate(line[indent:]):
                    built.append(c)
                    offs.append(pos + indent + k)
            elif line.strip():
                break
            built.append("\n")
            offs.append(nl_off)
            pos = _next_line_start(text, pos)
            if pos == le:  # no line break at end of file
                break
        s = "".join(built)
        if not s.startswith(value):
            return None
        n = len(value)
        if n < len(offs):
            return offs[:n + 1]
        if not offs:
            return [span.offset]
        return offs + [_next_line_start(text, offs[-1]) if built[-1] == "\n" else offs[-1] + 1]
    else:
        return None
    if "".join(built) != value:
        return None
    return offs


def replace_in_scalar(doc: Document, path: Path, start: int, end: int, replacement: str) -> Edits | None:
    """Replace `value[start:end]` of the string scalar at `path` by `replacement`, quoting and indentation
    handled: in a literal block scalar, newlines in `replacement` get the block's indentation and the file's
    line break; in quoted or plain scalars, the replacement must stay on one line (and plain must stay plain)."""
    offs = scalar_offsets(doc, path)
    if offs is None or not 0 <= start <= end < len(offs):
        return None
    info = doc.exact(path)
    text = doc.source.text
    rep = replacement
    if info.style == "|":
        nl = _newline(doc, offs[start])
        if nl is None:
            return None
        if "\n" in rep:
            value = doc.get(path)
            firsts = [i for i in range(len(value)) if (i == 0 or value[i - 1] == "\n") and value[i] != "\n"]
            if not firsts:
                return None
            indent = " " * (offs[firsts[0]] - _line_start(text, offs[firsts[0]]))
            rep = rep.replace("\n", nl + indent)
            rep = re.sub(r"(\r?\n) +(?=\r?\n)", r"\1", rep)  # no trailing spaces on blank lines
    else:
        if "\n" in rep:
            return None
        if info.style == "'":
            rep = rep.replace("'", "''")
        elif info.style == '"':
            rep = json.dumps(rep, ensure_ascii=False)[1:-1]
        else:
            value = doc.get(path)
            if not plain_ok(value[:start] + replacement + value[end:]):
                return None
    a, b = offs[start], offs[end]
    if text[a:b] == rep:
        return ()
    return (Edit(a, b, rep),)
