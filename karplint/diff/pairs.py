"""The objects of the two sides paired: each NodePool and EC2NodeClass (and the legacy Provisioner and
AWSNodeTemplate, listed but not analysed) of the base with the one of the head that has its cluster, kind and name,
and the fields that differ between them.

An object counts on a side when its file is one of the diff's paths (the project's other files are read as context,
as `check` reads them) and it is not a documentation example (a YAML block of a Markdown file is not an object of
the cluster). A NodePool whose apiVersion moved from `karpenter.sh/v1beta1` to `karpenter.sh/v1` pairs with itself:
the move is one of its changes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from karplint.diff.drift_changes import ABSENT, field_changes, plain
from karplint.model import Resource
from karplint.schema.validate import format_path

KARPENTER_KINDS = {("karpenter.sh", "NodePool"), ("karpenter.k8s.aws", "EC2NodeClass")}
LEGACY_KINDS = {("karpenter.sh", "Provisioner"), ("karpenter.k8s.aws", "AWSNodeTemplate")}
# Objects of the project's other files that count too: the EC2NodeClass a NodePool of the diff's paths names
# decides whether its nodes drift, wherever it is written.
CONTEXT_KINDS = {"EC2NodeClass", "AWSNodeTemplate"}
ORDER = {"NodePool": 0, "EC2NodeClass": 1, "Provisioner": 2, "AWSNodeTemplate": 3}

# The parts of an object a change is looked for in: what Karpenter reads (status is the cluster's, the rest of
# metadata is bookkeeping that no controller acts on).
COMPARED = (("spec",), ("metadata", "labels"), ("metadata", "annotations"), ("apiVersion",))


@dataclass
class Pair:
    kind: str
    name: str
    cluster: str | None  # the `clusters` directory holding the object (relative to the configuration root)
    base: Resource | None  # None: added
    head: Resource | None  # None: removed
    changes: list[dict] = field(default_factory=list)  # {"path", "before", "after", "line"}
    shown: bool = True  # in the diff's paths (else an EC2NodeClass read as context)

    @property
    def status(self) -> str:
        if self.base is None:
            return "added"
        if self.head is None:
            return "removed"
        return "changed" if self.changes else "unchanged"

    @property
    def legacy(self) -> bool:
        res = self.head if self.head is not None else self.base
        return (res.group, res.kind) in LEGACY_KINDS or res.api_version == "karpenter.sh/v1alpha5"

    @property
    def current(self) -> Resource:
        """The head's object, else (removed) the base's."""
        return self.head if self.head is not None else self.base


def objects(side, problems: list[str], clusters: list[str]) -> dict[tuple, Resource]:
    """(cluster, kind, name, file) -> the Karpenter object of one side (`karplint.diff.sides.Side`). A name
    written twice in one file keeps the first and says so in `problems`; the same name in several files is
    ordinary (example directories hold alternatives, overlays hold variants) and pairs file by file."""
    loaded = side.loaded
    out: dict[tuple, Resource] = {}
    for kinds in (KARPENTER_KINDS, LEGACY_KINDS):
        for group, kind in sorted(kinds):
            for res in loaded.model.of_kind(kind, group=group):
                if res.doc.documentation_example:
                    continue
                if not loaded.shows(res) and kind not in CONTEXT_KINDS:
                    continue
                name = res.name
                if name is None:
                    continue  # (the schema check reports a missing name; nothing to pair on)
                key = (_cluster_of(res, clusters, side), res.kind, name, res.doc.path)
                if key in out:
                    first = out[key]
                    problems.append(f"{res.doc.path}:{_line(res)}:1: {res.kind} {name!r} is also defined at "
                                    f"line {_line(first)} of the same file ({side.label}); the first one is "
                                    "compared")
                    continue
                out[key] = res
    return out


def pair_objects(base_side, head_side) -> tuple[list[Pair], list[str]]:
    """Every object of either side paired with its counterpart, in a stable order (NodePools first, by cluster,
    name and file), and the problems pairing found. An object pairs with the one of the same cluster, kind and name
    in the same file; one left over on each side with that cluster, kind and name pairs across files (it moved)."""
    problems: list[str] = []
    clusters = _clusters(head_side)
    base = objects(base_side, problems, clusters)
    head = objects(head_side, problems, clusters)
    matched = [(base[k], head[k], k) for k in base.keys() & head.keys()]
    left: dict[tuple, tuple[list, list]] = {}
    for side, objs in ((0, base), (1, head)):
        for key, res in objs.items():
            if key not in matched_keys(matched):
                left.setdefault(key[:3], ([], []))[side].append((key, res))
    for short, (olds, news) in left.items():
        if len(olds) == 1 and len(news) == 1:
            matched.append((olds[0][1], news[0][1], news[0][0]))
        else:
            matched += [(res, None, key) for key, res in olds] + [(None, res, key) for key, res in news]
    pairs = []
    for b, h, key in sorted(matched, key=lambda m: (ORDER.get(m[2][1], 9), m[2][0] or "", m[2][2], m[2][3])):
        cluster, kind, name, _ = key
        pair = Pair(kind, name, cluster, b, h)
        pair.shown = any(res is not None and side.loaded.shows(res)
                         for res, side in ((pair.base, base_side), (pair.head, head_side)))
        if pair.base is not None and pair.head is not None:
            pair.changes = changes_of(pair.base, pair.head)
        pairs.append(pair)
    return pairs, problems


def matched_keys(matched: list) -> set:
    return {m[2] for m in matched}


def changes_of(base: Resource, head: Resource) -> list[dict]:
    """The fields that differ, as Karpenter compares them: lists holding the same items in another order are the
    same (its hash treats slices as sets; requirements, taints and selector terms are sets), durations by value."""
    out = []
    for part in COMPARED:
        before = base.data.get(part[0], ABSENT) if len(part) == 1 else _get(base.data, part)
        after = head.data.get(part[0], ABSENT) if len(part) == 1 else _get(head.data, part)
        for path, b, a in field_changes(before, after, part):
            out.append({"path": format_path(path), "before": _json(b), "after": _json(a),
                        "line": _line_at(head, path) if a is not ABSENT else _line_at(base, path)})
    return out


def nodeclass_of(pool: Pair, classes: list[Pair]) -> tuple[Pair | None, str | None]:
    """The EC2NodeClass pair a NodePool's nodes run with: the one of its name and cluster in the pool's own file,
    else the only one of that name and cluster. (pair, None), or (None, why) when several files define that name
    and none is the pool's (or nothing defines it: (None, None))."""
    ref = nodeclass_ref(pool.head if pool.head is not None else pool.base)
    if ref is None:
        return None, None
    candidates = [c for c in classes if c.cluster == pool.cluster and c.name == ref]
    files = {pool.current.doc.path} | ({pool.base.doc.path} if pool.base is not None else set())
    own = [c for c in candidates if c.current.doc.path in files]
    if own:
        return own[0], None
    if len(candidates) == 1:
        return candidates[0], None
    if len(candidates) > 1 and any(c.status != "unchanged" for c in candidates):
        where = ", ".join(sorted({c.current.doc.path for c in candidates}))
        return None, (f"EC2NodeClass {ref} is defined in {len(candidates)} files ({where}), none of them this "
                      "NodePool's: which one its nodes use cannot be told from the files")
    return None, None


def nodeclass_ref(pool: Resource | None) -> str | None:
    """The EC2NodeClass name a NodePool's template names (v1 and v1beta1 alike), else None."""
    if pool is None:
        return None
    ref = pool.get(("spec", "template", "spec", "nodeClassRef"))
    if not isinstance(ref, dict):
        return None
    kind = ref.get("kind", "EC2NodeClass")
    name = ref.get("name")
    return str(name) if kind == "EC2NodeClass" and name is not None else None


def location(res: Resource) -> tuple[str, int]:
    return res.doc.path, _line(res)


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        if not isinstance(data, dict) or part not in data:
            return ABSENT
        data = data[part]
    return data


def _json(value: Any) -> Any:
    return None if value is ABSENT else plain(value)


def _line(res: Resource) -> int:
    name = res.doc.exact(("metadata", "name"))
    if name is not None:
        return name.span.line
    return res.doc.start.line if res.doc.start else 1


def _line_at(res: Resource, path: tuple) -> int | None:
    return res.doc.key_span(path).line  # (the key's line: a mapping value starts below it)


def _clusters(side) -> list[str]:
    """The `clusters` directories of the head's configuration, relative to its root (the base side's tree is
    gone by now: its files are placed by their path relative to its own configuration root)."""
    from karplint.project.clusters import cluster_dirs

    config = side.loaded.project.config if side.loaded.project is not None else None
    if config is None or not config.clusters:
        return []
    root = os.path.realpath(config.root or side.read_root)
    return [os.path.relpath(d, root) for d in cluster_dirs(config)]


def _cluster_of(res: Resource, clusters: list[str], side) -> str | None:
    """The deepest cluster directory holding the object's file, as a path relative to the configuration root."""
    if not clusters:
        return None
    config = side.loaded.project.config
    root = os.path.realpath(config.root or side.read_root)
    rel = os.path.relpath(os.path.realpath(os.path.join(side.read_root, res.doc.path)), root)
    best = None
    for c in clusters:
        if (rel == c or rel.startswith(c + os.sep) or c == ".") and (best is None or len(c) > len(best)):
            best = c
    return best
