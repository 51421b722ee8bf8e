"""The fast loader: libyaml (PyYAML's C parser and composer) producing exactly what `loader.load` produces.

`loader.load` is the reference: ruamel.yaml (YAML 1.2) composes, `_Builder` builds plain data and a `NodeInfo`
for every node. It is exact but slow (a pure-Python scanner). This module gives the same result for the files
libyaml accepts, at C speed, in two steps:

* `load_fast(src)` builds the plain data only (with the same tag resolution as ruamel's YAML 1.2 resolver, the
  same duplicate-key problems and the same budgets); each `Document` gets a `LazyNodes` instead of its node
  positions.
* `LazyNodes` computes the positions of every document of the file the first time a rule (or the engine)
  asks for one, by composing the file again; most documents never need a position (no finding).

Whenever libyaml would not give the same answer, `load_fast` returns None and the caller uses the reference
loader: any libyaml error (the reference reports the syntax error with its own message and position; ruamel
also accepts YAML 1.2 that libyaml rejects), `%` directives (a `%YAML 1.1` stream changes the resolver), and
input that could nest deeper than libyaml's recursive composer can take.
`tests/perf/test_fastload.py` checks on the corpus that both loaders agree node by node.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from karplint.readers.document import Document, NodeInfo
from karplint.readers.reference import (_CORE_TAGS, MAX_ALIAS_EXPANSIONS, MAX_DEPTH, MAX_DOCUMENTS, MAX_NODES,
                                     OTHER_BREAKS, LoadLimitExceeded, Problem, _expand_lists, by_offsets,
                                     duplicate_problems, is_list_document, resolve_scalar, value_relation)
from karplint.readers.source import SourceFile, Span

try:  # PyYAML with libyaml
    from yaml import _yaml as _cyaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    _CParser = _cyaml.CParser
except Exception:  # pragma: no cover - no libyaml: everything goes through the reference loader
    _CParser = None

ENABLED = _CParser is not None and os.environ.get("KARPLINT_PURE_LOADER", "") in ("", "0")

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"

# ruamel.yaml's YAML 1.2 implicit resolvers (ruamel/yaml/resolver.py, versions containing (1, 2)), by first
# character, in ruamel's order.
_RESOLVERS_12: list[tuple[str, re.Pattern, str]] = [
    (_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    (_FLOAT, re.compile(r"""^(?:
         [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""", re.X), "-+0123456789."),
    (_INT, re.compile(r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0o?[0-7_]+
        |[-+]?[0-9_]+
        |[-+]?0x[0-9a-fA-F_]+)$""", re.X), "-+0123456789"),
    (_MERGE, re.compile(r"^(?:<<)$"), "<"),
    (_NULL, re.compile(r"^(?: ~ |null|Null|NULL | )$", re.X), "~nN"),
    ("tag:yaml.org,2002:timestamp", re.compile(r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
        (?:[Tt]|[ \t]+)[0-9][0-9]?
        :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X), "0123456789"),
    ("tag:yaml.org,2002:value", re.compile(r"^(?:=)$"), "="),
    ("tag:yaml.org,2002:yaml", re.compile(r"^(?:!|&|\*)$"), "!&*"),
]
_BY_FIRST: dict[str, tuple[tuple[str, re.Pattern], ...]] = {}
for _tag, _rx, _first in _RESOLVERS_12:
    for _ch in _first:
        _BY_FIRST[_ch] = _BY_FIRST.get(_ch, ()) + ((_tag, _rx),)
_BY_FIRST[""] = ((_NULL, _RESOLVERS_12[4][1]),)  # the empty plain scalar is null


# Only numbers and timestamps need a regex: every other implicit type is a finite set of spellings (a plain scalar
# never ends with a line break, the one other string those regexes' `$` accepts).
_NUMERIC_FIRST = frozenset("-+0123456789.")
_LITERAL_TAGS: dict[str, str] = {
    **dict.fromkeys(("true", "True", "TRUE", "false", "False", "FALSE"), _BOOL),
    **dict.fromkeys(("~", "null", "Null", "NULL", ""), _NULL),
    "<<": _MERGE, "=": "tag:yaml.org,2002:value", **dict.fromkeys("!&*", "tag:yaml.org,2002:yaml"),
}


def _resolve_plain(value: str) -> str:
    tag = _LITERAL_TAGS.get(value)
    if tag is not None:
        return tag
    first = value[:1]
    if first in _NUMERIC_FIRST:
        for tag, rx in _BY_FIRST[first]:
            if rx.match(value):
                return tag
    return _STR


if _CParser is not None:

    class _Loader(_CParser):  # type: ignore[misc,valid-type]
        """libyaml parser + composer with ruamel's YAML 1.2 implicit resolution."""

        def descend_resolver(self, parent, index):  # no path resolvers
            pass

        def ascend_resolver(self):
            pass

        def resolve(self, kind, value, implicit):  # called by the C composer for untagged nodes
            if kind is ScalarNode:
                if implicit[0]:  # (inlined `_resolve_plain`: most scalars are plain strings)
                    tag = _LITERAL_TAGS.get(value)
                    if tag is not None:
                        return tag
                    if value[:1] in _NUMERIC_FIRST:
                        return _resolve_plain(value)
                return _STR
            return _SEQ if kind is SequenceNode else _MAP


class _Fallback(Exception):
    """libyaml cannot give the reference answer for this input."""


# Each nesting level costs libyaml's recursive composer C stack; beyond a few thousand it crashes the process.
# A document cannot nest deeper than the number of characters that can open a collection.
_SAFE_OPENERS = 5000


def _unsafe(text: str) -> bool:
    """`%` directives (`%YAML 1.1` changes the resolver); tabs (libyaml accepts tab separation where ruamel reports
    "found character '\\t' that cannot start any token"); NEL/LS/PS (both count them as line breaks, the
    positions of the rest of karplint do not). (Substring tests: a regex scan of every file costs ten times more.)"""
    return ("\t" in text or "\x85" in text or "\u2028" in text or "\u2029" in text or text.startswith("%")
            or "\n%" in text)


def _nesting_could_be_deep(text: str) -> bool:
    n = text.count("[") + text.count("{") + text.count("-") + text.count(":") + text.count("?")
    return n > _SAFE_OPENERS and _event_depth(text) > 1000


def _event_depth(text: str, limit: int = 1000) -> int:
    """Deepest collection nesting (up to just over `limit`), from libyaml's (iterative) parser events."""
    from yaml.events import CollectionEndEvent, CollectionStartEvent

    loader = _Loader(text)
    depth = best = 0
    try:
        while True:
            ev = loader.get_event()
            if ev is None:
                break
            if isinstance(ev, CollectionStartEvent):
                depth += 1
                if depth > best:
                    best = depth
                    if best > limit:
                        break
            elif isinstance(ev, CollectionEndEvent):
                depth -= 1
    except Exception:  # noqa: BLE001 - a syntax error: the reference loader reports it
        return 1 << 30
    finally:
        loader.dispose()
    return best


def _compose(text: str) -> list:
    """Every document's root node (None for an empty document); raises _Fallback when libyaml can't."""
    if _unsafe(text) or _nesting_could_be_deep(text):
        raise _Fallback()
    loader = _Loader(text)
    nodes = []
    try:
        while loader.check_node():
            nodes.append(loader.get_node())
    except Exception as exc:  # noqa: BLE001 - any libyaml error: the reference loader decides
        raise _Fallback() from exc
    finally:
        loader.dispose()
    return nodes


_PURE_REFERENCE: bool | None = None


def _pure_reference() -> bool:
    """Whether the reference loader runs ruamel's pure-Python parser (its own marks and styles) rather than
    ruamel's C parser (libyaml's marks), whose answers are libyaml's as they are."""
    global _PURE_REFERENCE
    if _PURE_REFERENCE is None:
        from ruamel.yaml.parser import Parser

        from karplint.readers.reference import _yaml

        _PURE_REFERENCE = _yaml().Parser is Parser
    return _PURE_REFERENCE


class _Marks:
    """Node spans as ruamel reports them.

    Two places where libyaml's marks differ from ruamel's: an empty plain scalar (`key:` with no value) sits
    right after the indicator for libyaml, at the next token for ruamel; and at the end of a text without a
    final line break libyaml reports (line + 1, column 0) where ruamel reports the end of the last line.
    """

    __slots__ = ("text", "n", "ends_with_break", "_lines", "pure", "by_offsets")

    def __init__(self, text: str):
        self.pure = _pure_reference()
        self.text = text
        self.n = len(text)
        self.ends_with_break = text.endswith("\n")
        self._lines = SourceFile("", text)  # line starts, computed on the first position asked for
        self.by_offsets = OTHER_BREAKS.search(text) is not None  # (see loader.OTHER_BREAKS)

    def _position(self, offset: int) -> tuple[int, int]:
        return self._lines.position_of(offset)

    def _next_token(self, i: int) -> int:
        text, n = self.text, self.n
        while i < n:
            c = text[i]
            if c == " " or c == "\t" or c == "\n" or c == "\r":
                i += 1
            elif c == "#":
                j = text.find("\n", i)
                i = n if j < 0 else j
            else:
                break
        return i

    def span(self, node, value_of: int = 0, key_end: int = 0) -> Span:
        """`value_of`: 1 when the node is the value of a block mapping entry, 2 of a flow mapping entry
        (whose key ends at `key_end`)."""
        if self.by_offsets or (node.end_mark.index >= self.n and not self.ends_with_break):  # (loader._Builder)
            return by_offsets(self._span(node, value_of, key_end), self._lines)
        return self._span(node, value_of, key_end)

    def _span(self, node, value_of: int, key_end: int) -> Span:
        sm, em = node.start_mark, node.end_mark
        si, ei = sm.index, em.index
        if not self.pure:
            return Span(sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, si, ei)
        if value_of and si == ei and node.__class__ is ScalarNode and not node.value and not node.style:
            if value_of == 1:  # ruamel: at the next token
                off = self._next_token(si)
            else:  # ruamel: right after the `:` indicator, or at the next token when there is none
                off = self._next_token(key_end)
                if self.text.startswith(":", off):
                    off += 1
            line, col = self._position(off)
            return Span(line, col, line, col, off, off)
        if ei == self.n and not self.ends_with_break and em.column == 0 and em.line > 0:
            line, col = self._position(ei)
            return Span(sm.line + 1, sm.column + 1, line, col, si, ei)
        return Span(sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, si, ei)


class _DataBuilder:
    """Plain data from a libyaml node graph, exactly as `loader._Builder` builds it (without positions)."""

    def __init__(self, marks: _Marks):
        self.span = marks.span
        self.count = 0
        self.aliases = 0
        self.problems: list = []
        self.duplicates: list = []
        self.seen: dict[int, int] = {}

    def build(self, node, depth: int, value_of: int = 0, key_end: int = 0) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise LoadLimitExceeded(f"more than {MAX_NODES:,} YAML nodes in one file", self.span(node, value_of, key_end))
        if depth > MAX_DEPTH:
            raise LoadLimitExceeded(f"YAML nested deeper than {MAX_DEPTH} levels", self.span(node, value_of, key_end))
        cls = node.__class__
        if cls is ScalarNode:  # (scalars shared through aliases are not counted as expansions)
            tag = node.tag
            if tag == _STR:
                return node.value
            return _scalar(tag, node.value)
        key = id(node)
        visits = self.seen.get(key, 0)
        if visits:
            self.aliases += 1
            if self.aliases > MAX_ALIAS_EXPANSIONS:
                raise LoadLimitExceeded(
                    f"more than {MAX_ALIAS_EXPANSIONS:,} alias expansions (a 'billion laughs' document?)",
                    self.span(node, value_of, key_end))
        self.seen[key] = visits + 1
        d = depth + 1
        # Most nodes are scalars: a child scalar within the limits is built here rather than by a call (the
        # same value, count and checks; a child over a limit goes through `build`, which reports it).
        inline = d <= MAX_DEPTH
        if cls is SequenceNode:
            items = []
            for item in node.value:
                if inline and item.__class__ is ScalarNode and self.count < MAX_NODES:
                    self.count += 1
                    tag = item.tag
                    items.append(item.value if tag == _STR else _scalar(tag, item.value))
                else:
                    items.append(self.build(item, d))
            return items
        out: dict = {}
        first_key: dict = {}  # key -> the node of its first occurrence
        block = 2 if node.flow_style else 1
        for key_node, value_node in node.value:
            ktag = key_node.tag
            if ktag == _MERGE:
                merged = self.build(value_node, d, block, key_node.end_mark.index)
                for m in merged if isinstance(merged, list) else [merged]:
                    if isinstance(m, dict):
                        for k, v in m.items():
                            out.setdefault(k, v)
                continue
            if key_node.__class__ is ScalarNode:
                key = key_node.value if ktag == _STR else _key(key_node)
            else:
                key = f"<complex key at line {key_node.start_mark.line + 1}>"
            if inline and value_node.__class__ is ScalarNode and self.count < MAX_NODES:
                self.count += 1
                tag = value_node.tag
                value = value_node.value if tag == _STR else _scalar(tag, value_node.value)
            else:
                value = self.build(value_node, d, block, key_node.end_mark.index)
            if key in first_key:
                self.duplicates.append((key, first_key[key].start_mark.line + 1, self.span(key_node),
                                        value_relation(out.get(key), value)))
            else:
                first_key[key] = key_node
            out[key] = value
        return out


def _scalar(tag: str, value: str) -> Any:
    if tag in _CORE_TAGS:
        return resolve_scalar(tag, value)
    return value


def _key(key_node) -> Any:
    key = _scalar(key_node.tag, key_node.value)
    if not isinstance(key, (str, int, float, bool)) and key is not None:
        key = str(key)
    if isinstance(key, bool) or key is None or isinstance(key, float):
        key = key_node.value
    return key


_new_tuple = tuple.__new__  # (builds a Span/NodeInfo without its Python-level __new__: positions are built by the
                            # hundred thousand)


class _PositionBuilder:
    """Plain data and positions, as `loader._Builder` (same paths, spans, styles and merge handling)."""

    def __init__(self, marks: _Marks):
        self.marks = marks
        self.span = marks.span
        self.plain = None  # plain scalars have style None in the reference loader (C and pure parsers alike)
        self.nodes: dict = {}

    def _span(self, node, value_of: int = 0, key_end: int = 0) -> Span:
        """`_Marks.span`, without the call where it is libyaml's marks as they are (neither an empty value nor
        the end of a text without a final line break, nor a text with other line breaks)."""
        si, ei = node.start_mark.index, node.end_mark.index
        if si != ei and ei != self.marks.n and not self.marks.by_offsets:
            sm, em = node.start_mark, node.end_mark
            return _new_tuple(Span, (sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, si, ei))
        return self.span(node, value_of, key_end)

    def build(self, node, path: tuple, key_span: Span | None, value_of: int = 0, key_end: int = 0) -> Any:
        cls = node.__class__
        nodes, span = self.nodes, self._span
        if cls is ScalarNode:
            nodes[path] = _new_tuple(NodeInfo, (span(node, value_of, key_end), key_span, node.style or self.plain))
            return None
        nodes[path] = _new_tuple(NodeInfo, (span(node, value_of, key_end), key_span,
                                            (("{" if cls is MappingNode else "[") if node.flow_style else None)))
        if cls is SequenceNode:
            for i, item in enumerate(node.value):
                if item.__class__ is ScalarNode:
                    nodes[path + (i,)] = _new_tuple(NodeInfo, (span(item), None, item.style or self.plain))
                else:
                    self.build(item, path + (i,), None)
            return None
        block = 2 if node.flow_style else 1
        for key_node, value_node in node.value:
            ktag = key_node.tag
            if ktag == _MERGE:
                self.build(value_node, path + ("<<",), span(key_node), block, key_node.end_mark.index)
                continue
            if key_node.__class__ is ScalarNode:
                key = key_node.value if ktag == _STR else _key(key_node)
            else:
                key = f"<complex key at line {key_node.start_mark.line + 1}>"
            if value_node.__class__ is ScalarNode:
                nodes[path + (key,)] = _new_tuple(NodeInfo, (
                    span(value_node, block, key_node.end_mark.index), span(key_node),
                    value_node.style or self.plain))
            else:
                self.build(value_node, path + (key,), span(key_node), block, key_node.end_mark.index)
        return None


class _FilePositions:
    """Positions of every document of one file, computed once, on demand, shared by its `LazyNodes`."""

    __slots__ = ("text", "by_index", "by_libyaml")

    def __init__(self, text: str):
        self.text = text
        self.by_index: dict[int, dict] | None = None
        self.by_libyaml = False  # libyaml composed the whole stream (so it has no syntax error)

    def nodes(self, index: int) -> dict:
        if self.by_index is None:
            by_index: dict[int, dict] = {}
            marks = _Marks(self.text)
            try:
                for i, root in enumerate(_compose(self.text)):
                    if root is not None:
                        b = _PositionBuilder(marks)
                        b.build(root, (), None)
                        by_index[i] = b.nodes
                self.by_libyaml = True
            except _Fallback:  # a position libyaml cannot place as ruamel does: ask the reference
                from karplint.readers.reference import load_reference

                by_index = {}
                for doc in load_reference(SourceFile("<positions>", self.text))[0]:
                    by_index.setdefault(doc.index, doc.nodes)
            self.by_index = by_index
        return self.by_index.get(index, {})

    def __getstate__(self):  # positions are recomputed where they are needed, never shipped
        return (self.text, None)

    def __setstate__(self, state):
        self.text, self.by_index = state
        self.by_libyaml = False


class LazyNodes(Mapping):
    """`Document.nodes` (path -> NodeInfo) computed on first use."""

    __slots__ = ("_file", "_index", "_nodes")

    def __init__(self, file: _FilePositions, index: int):
        self._file = file
        self._index = index
        self._nodes: dict | None = None

    def _get(self) -> dict:
        if self._nodes is None:
            self._nodes = self._file.nodes(self._index)
        return self._nodes

    def __getitem__(self, key):
        return self._get()[key]

    def get(self, key, default=None):
        return self._get().get(key, default)

    def __contains__(self, key) -> bool:
        return key in self._get()

    def __iter__(self):
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __repr__(self) -> str:
        return f"LazyNodes(document {self._index})"

    def whole_stream_parsed(self) -> bool:
        """Whether libyaml composed this document's whole stream, positions included (no syntax error in it)."""
        self._get()
        return self._file.by_libyaml

    def __getstate__(self):
        return (self._file, self._index)

    def __setstate__(self, state):
        self._file, self._index = state
        self._nodes = None


def load_fast(src: SourceFile, text: str):
    """`(docs, problems)` as `loader.load` returns them, or None when the reference loader must decide."""
    if not ENABLED:
        return None
    try:
        roots = _compose(text)
    except _Fallback:
        return None
    docs: list[Document] = []
    problems: list = []
    positions = _FilePositions(text)
    marks = _Marks(text)
    for index, node in enumerate(roots):
        if index >= MAX_DOCUMENTS:
            if node is None:
                return None
            sm = node.start_mark
            problems.append(Problem(
                "KPL004", f"more than {MAX_DOCUMENTS:,} YAML documents in one file; the rest is not checked",
                Span.point(sm.line + 1, sm.column + 1, sm.index)))
            break
        if node is None:
            continue
        builder = _DataBuilder(marks)
        try:
            data = builder.build(node, 0)
        except LoadLimitExceeded as exc:
            problems.append(Problem("KPL004", str(exc), exc.span))
            continue
        except (RecursionError, _Fallback):
            return None
        problems.extend(builder.problems)
        problems.extend(duplicate_problems(builder.duplicates, data))
        doc = Document(src, index, data, LazyNodes(positions, index), (), marks.span(node))
        if type(data) is dict and "items" in data and is_list_document(data):
            doc.nodes = positions.nodes(index)  # list items take their spans from the positions
            docs.extend(_expand_lists(doc))
        else:
            docs.append(doc)
    return docs, problems
