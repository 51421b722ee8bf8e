"""The edits that schema findings offer (`--fix`): mechanical moves between apiVersions (v1beta1 -> v1) and
renames of a misspelt key, on block-style YAML only; anything else gets no fix rather than a wrong one.
`karplint.schema.validate` attaches them to its errors (`FIXES` by the name a `Moved` entry gives)."""

from __future__ import annotations

import re
from typing import Callable

from karplint.findings import Edit, Fix
from karplint.readers.document import Document, Path

def _line_bounds(text: str, offset: int) -> tuple[int, int]:
    """(start of the line holding offset, start of the next line or len(text))."""
    start = text.rfind("\n", 0, offset) + 1
    nl = text.find("\n", offset)
    return start, (nl + 1 if nl != -1 else len(text))


def _own_line_entry(doc: Document, path: Path) -> tuple[int, int, str] | None:
    """(line start, next line start, indentation) when the mapping entry at `path` is a block-style `key: scalar`
    alone on its line (a trailing comment is fine); None when the layout is anything else."""
    info = doc.exact(path)
    if info is None or info.key_span is None:
        return None
    text = doc.source.text
    ks, vs = info.key_span, info.span
    if ks.line != vs.end_line and not (vs.end_line == ks.line + 1 and vs.end_column == 1):
        return None  # multi-line value
    if isinstance(doc.get(path), (dict, list)):
        return None
    start, nxt = _line_bounds(text, ks.offset)
    indent = text[start:ks.offset]
    if indent.strip():
        return None  # "- key:" or a flow mapping: not alone
    rest = text[vs.end_offset:nxt].strip()
    if rest and not rest.startswith("#"):
        return None
    return start, nxt, indent


def _block(doc: Document, path: Path) -> bool:
    info = doc.exact(path)
    return info is not None and info.style is None and isinstance(doc.get(path), dict)


def _move_expire_after(doc: Document, path: Path) -> Fix | None:
    """spec.disruption.expireAfter -> spec.template.spec.expireAfter (v1beta1 -> v1), block style only."""
    disruption, tspec = ("spec", "disruption"), ("spec", "template", "spec")
    d, t = doc.get(disruption), doc.get(tspec)
    if isinstance(d, dict) and isinstance(t, dict) and len(d) > 1 and "expireAfter" in t:
        # Already moved: a copy with the same value left behind is deleted; a different value needs a decision.
        entry = _own_line_entry(doc, path) if t["expireAfter"] == d.get("expireAfter") else None
        if entry is None or not _block(doc, disruption):
            return None
        return Fix("delete spec.disruption.expireAfter (spec.template.spec.expireAfter holds the same value)",
                   "safe", (Edit(entry[0], entry[1], ""),))
    if not (isinstance(d, dict) and isinstance(t, dict) and t and len(d) > 1 and "expireAfter" not in t):
        return None
    if not (_block(doc, disruption) and _block(doc, tspec)):
        return None
    entry = _own_line_entry(doc, path)
    first = _own_key_line(doc, tspec + (next(iter(t)),))
    parent = doc.exact(tspec)
    if entry is None or first is None or parent is None or parent.key_span is None:
        return None
    text = doc.source.text
    # Insert as the first entry of spec.template.spec, right below its `spec:` line (above any comment that
    # belongs to the current first entry), indented like that entry.
    _ps, insert_at = _line_bounds(text, parent.key_span.offset)
    _fs, _fn, indent = first
    if insert_at > _fs or (insert_at == len(text) and not text.endswith("\n")):
        return None
    start, nxt, _indent = entry
    info = doc.exact(path)
    line_text = text[info.key_span.offset:nxt].rstrip("\r\n")
    newline = "\r\n" if text[nxt - 2:nxt] == "\r\n" else (doc.source.newline or "\n")
    return Fix(
        "move expireAfter to spec.template.spec (its karpenter.sh/v1 location)", "safe",
        tuple(sorted((Edit(start, nxt, ""), Edit(insert_at, insert_at, indent + line_text + newline)),
                     key=lambda e: e.start)),
    )


def _own_key_line(doc: Document, path: Path) -> tuple[int, int, str] | None:
    """Like _own_line_entry for an entry whose value is a block collection (only the key's line is checked)."""
    info = doc.exact(path)
    if info is None or info.key_span is None:
        return None
    text = doc.source.text
    start, nxt = _line_bounds(text, info.key_span.offset)
    indent = text[start:info.key_span.offset]
    return (start, nxt, indent) if not indent.strip() else None


_NODECLASS_KINDS = {"karpenter.k8s.aws": "EC2NodeClass"}


def _node_class_ref(doc: Document, path: Path) -> Fix | None:
    """nodeClassRef.apiVersion: karpenter.k8s.aws/v1beta1 -> group: karpenter.k8s.aws (+ kind: EC2NodeClass)."""
    ref_path = path[:-1]
    ref = doc.get(ref_path)
    api = ref.get("apiVersion") if isinstance(ref, dict) else None
    if not isinstance(api, str) or "/" not in api or not _block(doc, ref_path):
        return None
    group, _, ver = api.strip().partition("/")
    kind = _NODECLASS_KINDS.get(group)
    if kind is None or not ver or "/" in ver:
        return None
    entry = _own_line_entry(doc, path)
    if entry is None:
        return None
    start, nxt, indent = entry
    text = doc.source.text
    newline = "\r\n" if text[nxt - 2:nxt] == "\r\n" else "\n"
    if "kind" in ref and ref["kind"] != kind:
        return None
    if "group" in ref:
        if ref["group"] != group:
            return None
        return Fix("remove nodeClassRef.apiVersion (group is set)", "safe", (Edit(start, nxt, ""),))
    info = doc.exact(path)
    vtext = text[info.span.offset:info.span.end_offset]
    suffix = "/" + ver
    if vtext.count(suffix) != 1:
        return None
    at = info.span.offset + vtext.index(suffix)
    edits = [Edit(info.key_span.offset, info.key_span.end_offset, "group"), Edit(at, at + len(suffix), "")]
    desc = f"replace nodeClassRef.apiVersion with group: {group}"
    if "kind" not in ref:
        if nxt == len(text) and not text.endswith("\n"):
            return None
        edits.append(Edit(nxt, nxt, f"{indent}kind: {kind}{newline}"))
        desc += f" and kind: {kind}"
    return Fix(desc, "safe", tuple(edits))


def _add_node_class_group(doc: Document, ref_path: Path) -> Fix | None:
    """nodeClassRef with `kind: EC2NodeClass` and no group: the kind says the group (karpenter.k8s.aws). The
    line `group: ...` goes right above `kind:`, indented like it; block style only."""
    from karplint.fix import yamledit

    ref = doc.get(ref_path)
    if not isinstance(ref, dict) or "group" in ref or not _block(doc, ref_path):
        return None
    group = next((g for g, k in _NODECLASS_KINDS.items() if k == ref.get("kind")), None)
    edits = yamledit.insert_entry(doc, ref_path, "group", group, before="kind") if group else None
    return Fix(f"add group: {group} (the group of kind {ref['kind']})", "safe", edits) if edits else None


def _when_underutilized(doc: Document, path: Path) -> Fix | None:
    info = doc.exact(path)
    if info is None:
        return None
    text = doc.source.text
    vtext = text[info.span.offset:info.span.end_offset]
    old = "WhenUnderutilized"
    if vtext.count(old) != 1 or info.style not in (None, "'", '"'):
        return None
    at = info.span.offset + vtext.index(old)
    return Fix("rename WhenUnderutilized to WhenEmptyOrUnderutilized", "safe",
               (Edit(at, at + len(old), "WhenEmptyOrUnderutilized"),))


def _group_fix(doc: Document, path: Path) -> Fix | None:
    """nodeClassRef.group: karpenter.k8s.aws/v1 -> karpenter.k8s.aws (drop the version)."""
    value, info = doc.get(path), doc.exact(path)
    if not isinstance(value, str) or info is None or value.count("/") != 1:
        return None
    group, _, ver = value.partition("/")
    if group not in _NODECLASS_KINDS or not re.fullmatch(r"v\d+(alpha\d+|beta\d+)?", ver):
        return None
    vtext = doc.source.text[info.span.offset:info.span.end_offset]
    if vtext.count("/" + ver) != 1:
        return None
    at = info.span.offset + vtext.index("/" + ver)
    return Fix(f"drop the version from the group ({group})", "safe", (Edit(at, at + len(ver) + 1, ""),))


def _rename_key_fix(doc: Document, path: Path, new: str) -> Fix | None:
    info = doc.exact(path)
    if info is None or info.key_span is None:
        return None
    ks = info.key_span
    if doc.source.text[ks.offset:ks.end_offset] != path[-1]:
        return None  # quoted or otherwise written key
    parent = doc.get(path[:-1])
    if isinstance(parent, dict) and new in parent:
        return None
    return Fix(f"rename {path[-1]} to {new}", "unsafe", (Edit(ks.offset, ks.end_offset, new),))


FIXES: dict[str, Callable[[Document, Path], Fix | None]] = {
    "move_expire_after": _move_expire_after,
    "node_class_ref": _node_class_ref,
    "when_underutilized": _when_underutilized,
}
