"""A YAML document as plain data plus a position for every node.

Rules read `doc.data` (dicts, lists, str, int, float, bool, None: never objects built from tags) and ask
`doc.span(path)` / `doc.key_span(path)` where a finding belongs. A path is a tuple of mapping keys and
sequence indexes from the document root, e.g. ("spec", "template", "spec", "taints", 0, "key").
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from karplint.readers.source import SourceFile, Span

Path = tuple  # tuple[str | int, ...]


class NodeInfo(NamedTuple):
    span: Span  # the value node
    key_span: Span | None  # the mapping key that holds it, if any
    style: str | None  # scalar style: None (plain), "'", '"', "|", ">"; "{"/"[" for flow collections


@dataclass
class Document:
    source: SourceFile
    index: int  # 0-based position of the document in its stream
    data: Any
    nodes: dict = field(default_factory=dict, repr=False)  # full path -> NodeInfo
    base: Path = ()  # prefix inside `nodes` (items of a `kind: List` share their parent's positions)
    start: Span | None = None  # the document (or list item) as a whole
    fragment: bool = False  # a documentation snippet with elisions (`...`): see readers.embedded

    def __reduce__(self):  # (the cache holds thousands: fields by position, not by name, load 20% faster)
        return Document, (self.source, self.index, self.data, self.nodes, self.base, self.start, self.fragment)

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def documentation_example(self) -> bool:
        """A YAML block of a Markdown or AsciiDoc file (`readers.docblocks`): documentation, not an object of the
        cluster."""
        emb = self.source.embedding
        return emb is not None and emb.host_kind in ("markdown", "asciidoc")

    def info(self, path: Path) -> NodeInfo | None:
        """Position of the node at `path`, or of its nearest existing ancestor."""
        full = self.base + tuple(path)
        while True:
            info = self.nodes.get(full)
            if info is not None or not full:
                return info
            full = full[:-1]

    def exact(self, path: Path) -> NodeInfo | None:
        return self.nodes.get(self.base + tuple(path))

    def span(self, path: Path = ()) -> Span:
        info = self.info(path)
        if info is None:
            return self.start or Span(1, 1, 1, 2)
        return info.span

    def key_span(self, path: Path) -> Span:
        """The key of a mapping entry (falls back to the value, then the nearest ancestor)."""
        info = self.exact(path)
        if info is not None:
            return info.key_span or info.span
        return self.span(path)

    def get(self, path: Path, default: Any = None) -> Any:
        return get_path(self.data, path, default)

    def only(self, paths: Iterable[Path]) -> "Document":
        """This document with only the values at `paths` (and the mappings that lead to them), for a reader that
        looks at nothing else and reports elsewhere: neither the file's text nor positions are kept (every span
        is the document's start)."""
        data: dict = {}
        for path in _outermost(tuple(map(tuple, paths))):
            value = get_path(self.data, path, _MISSING)
            if value is _MISSING:
                continue
            cur = data
            for part in path[:-1]:
                cur = cur.setdefault(part, {})
            cur[path[-1]] = value
        src = self.source
        bare = SourceFile(src.path, "", src.abspath, src.encoding, src.bom, src.newline, src.embedding)
        return Document(bare, self.index, data, {}, self.base, self.start, self.fragment)


@functools.lru_cache(maxsize=1024)
def _outermost(paths: tuple) -> tuple[Path, ...]:
    """`Document.only`'s paths without those inside another (a prefix keeps the path whole) and without list
    indexes (paths go through mappings only); a reader asks for few different sets."""
    kept: list[Path] = []
    for path in sorted(set(paths), key=len):  # (a prefix comes first)
        if path and not any(path[:len(k)] == k for k in kept):
            kept.append(path)
    return tuple(p for p in kept if not any(isinstance(part, int) for part in p))


_MISSING = object()


def get_path(data: Any, path: Path, default: Any = None) -> Any:
    cur = data
    for part in path:
        if isinstance(part, int):
            if not isinstance(cur, list) or not -len(cur) <= part < len(cur):
                return default
            cur = cur[part]
        else:
            if not isinstance(cur, dict) or part not in cur:
                return default
            cur = cur[part]
    return cur


def walk(data: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, value) below `data`, depth first, `data` itself included."""
    stack = [(path, data)]
    while stack:
        p, v = stack.pop()
        yield p, v
        if isinstance(v, dict):
            stack.extend((p + (k,), c) for k, c in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((p + (i,), c) for i, c in reversed(list(enumerate(v))))


def per_document(fn: Callable) -> Callable:
    """Memoise `fn(res, *args)` for a resource's document (and list item, apiVersion, kind) and `args`, for as
    long as the document lives: several rules of a run ask for the same validation or analysis of one resource.
    `.cache_clear()` empties it."""
    cache: dict[tuple, tuple[Any, Any]] = {}

    @functools.wraps(fn)
    def memoised(res, *args):
        doc = res.doc
        key = (id(doc), doc.base, res.api_version, res.kind, *args)
        hit = cache.get(key)
        if hit is not None and hit[0]() is doc:
            return hit[1]
        result = fn(res, *args)
        try:  # the entry goes with the document (whose id may then be reused)
            cache[key] = (weakref.ref(doc, lambda _r, k=key: cache.pop(k, None)), result)
        except TypeError:  # pragma: no cover - not weak-referenceable: not cached
            pass
        return result

    memoised.cache_clear = cache.clear  # type: ignore[attr-defined]
    return memoised
