"""Minimal text edits on block-style YAML for the fixes of the taints, disruption and deprecation rules.

Every helper returns `Edit`s (character offsets into `doc.source.text`) or None when unsure (flow style,
anything unusual); callers then offer no fix. Indentation comes from the surrounding lines; comments stay.
"""

from __future__ import annotations

from karplint.document import Document, Path
from karplint.findings import Edit


def _text(doc: Document) -> str:
    return doc.source.text


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _line_end(text: str, offset: int) -> int:
    """Offset just past the newline ending the line that holds `offset` (or the end of the text)."""
    i = text.find("\n", offset)
    return len(text) if i == -1 else i + 1


def _after(text: str, end: int) -> int:
    """Where a new line goes after content ending at `end` (block scalars' spans already end at a line start)."""
    if end > 0 and text[end - 1] == "\n":
        return end
    return _line_end(text, end)


def _newline(doc: Document) -> str:
    return "\r\n" if doc.source.newline == "\r\n" else "\n"


def _is_block(doc: Document, path: Path) -> bool:
    info = doc.exact(path)
    return info is not None and info.style not in ("{", "[")


def content_end(doc: Document, path: Path) -> int | None:
    """End offset of the last scalar inside the collection at `path` (collections' spans run to the next token)."""
    full = doc.base + tuple(path)
    n = len(full)
    end = None
    for p, info in doc.nodes.items():
        if len(p) > n and p[:n] == full:
            e = info.span.end_offset
            # Block collections' spans run to the next token; flow collections end at their bracket.
            if info.style not in ("{", "[") and isinstance(doc.get(tuple(p[len(doc.base):])), (dict, list)):
                continue
            end = e if end is None else max(end, e)
    return end


def child_indent(doc: Document, map_path: Path) -> int | None:
    """Column (0-based) of the keys of the block mapping at `map_path`."""
    data = doc.get(map_path)
    if not isinstance(data, dict) or not data or not _is_block(doc, map_path):
        return None
    first = next(iter(data))
    info = doc.exact(tuple(map_path) + (first,))
    if info is None or info.key_span is None:
        return None
    text = _text(doc)
    start = _line_start(text, info.key_span.offset)
    prefix = text[start:info.key_span.offset]
    if prefix.strip(" -") != "":
        return None
    return info.key_span.offset - start


def add_mapping_entry(doc: Document, map_path: Path, lines: list[str]) -> Edit | None:
    """Append `lines` (already relative: first line "key: value" or "key:", later lines indented relative to
    the key) as the last entry of the block mapping at `map_path`."""
    indent = child_indent(doc, map_path)
    end = content_end(doc, map_path)
    if indent is None or end is None:
        return None
    text = _text(doc)
    nl = _newline(doc)
    at = _after(text, end)
    pad = " " * indent
    body = "".join(pad + line + nl for line in lines)
    if at == len(text) and not text.endswith("\n"):
        body = nl + body[: -len(nl)]
    return Edit(at, at, body)


def append_sequence_item(doc: Document, seq_path: Path, item_lines: list[str]) -> Edit | None:
    """Append a mapping item (`item_lines` as "key: value" lines) to the block sequence at `seq_path`."""
    seq = doc.get(seq_path)
    if not isinstance(seq, list) or not seq or not _is_block(doc, seq_path):
        return None
    first = doc.exact(tuple(seq_path) + (0,))
    if first is None or first.style in ("{", "["):
        return None
    text = _text(doc)
    start = _line_start(text, first.span.offset)
    prefix = text[start:first.span.offset]  # e.g. "      - "
    if prefix.strip() != "-":
        return None
    dash_col = prefix.index("-")
    key_col = len(prefix)
    end = content_end(doc, seq_path)
    if end is None:
        return None
    nl = _newline(doc)
    at = _after(text, end)
    out = " " * dash_col + "-" + " " * (key_col - dash_col - 1) + item_lines[0] + nl
    out += "".join(" " * key_col + line + nl for line in item_lines[1:])
    if at == len(text) and not text.endswith("\n"):
        out = nl + out[: -len(nl)]
    return Edit(at, at, out)


def remove_sequence_item(doc: Document, seq_path: Path, index: int) -> Edit | None:
    """Delete item `index` of a block sequence (whole lines); if it is the only item, delete the key too."""
    seq = doc.get(seq_path)
    if not isinstance(seq, list) or not _is_block(doc, seq_path):
        return None
    item = doc.exact(tuple(seq_path) + (index,))
    if item is None or item.style in ("{", "["):
        return None
    text = _text(doc)
    item_start = _line_start(text, item.span.offset)
    if text[item_start:item.span.offset].strip() != "-":
        return None
    end = content_end(doc, tuple(seq_path) + (index,)) if isinstance(seq[index], (dict, list)) else item.span.end_offset
    if end is None:
        return None
    stop = _after(text, end)
    if len(seq) == 1:
        holder = doc.exact(tuple(seq_path))
        if holder is None or holder.key_span is None:
            return None
        key_start = _line_start(text, holder.key_span.offset)
        if text[key_start:holder.key_span.offset].strip() != "":
            return None
        return Edit(key_start, stop, "")
    return Edit(item_start, stop, "")


def rename_key(doc: Document, path: Path, new_key: str) -> Edit | None:
    """Replace the key of the mapping entry at `path`, keeping its quoting."""
    info = doc.exact(path)
    if info is None or info.key_span is None:
        return None
    text = _text(doc)
    old = text[info.key_span.offset:info.key_span.end_offset]
    quote = old[0] if old[:1] in ("'", '"') else ""
    if quote and not old.endswith(quote):
        return None
    return Edit(info.key_span.offset, info.key_span.end_offset, f"{quote}{new_key}{quote}")
