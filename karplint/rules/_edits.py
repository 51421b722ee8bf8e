"""Text edits the shared `karplint.yamledit` does not offer: deleting one item of a block sequence.

Returns an `Edit` (character offsets into `doc.source.text`) or None when unsure (flow style, an item that shares
its line with other content); callers then offer no fix. Comments on the deleted lines go with the item.
"""

from __future__ import annotations

from karplint.document import Document, Path
from karplint.findings import Edit


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _after(text: str, end: int) -> int:
    """Start of the line after content ending at `end` (block scalars' spans already end at a line start)."""
    if end > 0 and text[end - 1] == "\n":
        return end
    i = text.find("\n", end)
    return len(text) if i == -1 else i + 1


def _content_end(doc: Document, path: Path) -> int | None:
    """End offset of the last scalar (or flow collection) inside the node at `path`; block collections' spans run
    to the next token, so they do not count."""
    full = doc.base + tuple(path)
    n = len(full)
    end = None
    for p, info in doc.nodes.items():
        if len(p) >= n and p[:n] == full:
            if info.style not in ("{", "[") and isinstance(doc.get(tuple(p[len(doc.base):])), (dict, list)):
                continue
            end = info.span.end_offset if end is None else max(end, info.span.end_offset)
    return end


def remove_sequence_item(doc: Document, seq_path: Path, index: int) -> Edit | None:
    """Delete item `index` of a block sequence that has other items (whole lines, from its `-` line).
    Delegates to `karplint.yamledit.delete_item` (empty values, block scalars, no final newline handled)."""
    from karplint.yamledit import delete_item

    edits = delete_item(doc, seq_path, index)
    return edits[0] if edits else None
