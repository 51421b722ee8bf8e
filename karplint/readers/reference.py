"""The reference YAML loader, `load_reference`, and what every loader shares (decoding, budgets, `Problem`).

ruamel.yaml composes the node graph (C parser when available); this module builds plain data from it so
that no tag ever constructs an object, aliases are expanded under a budget, duplicate keys are seen, and
every node gets its `Span`. karplint/readers/fastload.py gives the same answer faster where libyaml can, and
karplint/readers/loader.py chooses between them.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.nodes import ScalarNode

# ruamel.yaml is imported on first use of the reference loader (most files take the libyaml path, and
# start-up time matters): `_ruamel()` binds these names.
MarkedYAMLError = YAMLError = MappingNode = ScalarNode = SequenceNode = None  # type: ignore[assignment,misc]


def _ruamel() -> None:
    global MarkedYAMLError, YAMLError, MappingNode, ScalarNode, SequenceNode
    if MappingNode is None:
        from ruamel.yaml.error import MarkedYAMLError, YAMLError  # noqa: F811
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode  # noqa: F811

from karplint.readers.document import Document, NodeInfo
from karplint.readers.source import SourceFile, Span
from karplint.numbers import integer

# Budgets: bound the work per file by counting rather than by catching RecursionError afterwards.
MAX_DEPTH = 200
MAX_NODES = 2_000_000
MAX_ALIAS_EXPANSIONS = 10_000
MAX_DOCUMENTS = 10_000
# The parsers (libyaml, ruamel's composer) recurse per nesting level before the budgets above are counted, and
# overflow the C stack somewhere past 20,000 levels (a few hundred KB of `[[[[` or `- - - -`): the text is
# measured first, linearly, against this bound, far above any real manifest and far below the crash.
MAX_SYNTAX_DEPTH = 1_000
_DEEP_LINE = re.compile(r"^(?:[ \t]{%d}|[ \t]*(?:[-?][ \t]+){%d})" % (MAX_SYNTAX_DEPTH // 2, MAX_SYNTAX_DEPTH // 2),
                        re.M)
_LINE_NESTING = re.compile(r"^([ \t]*)((?:[-?][ \t]+)*)", re.M)
# Flow brackets outside quoted scalars and comments (the parser sees those as text, not nesting).
_FLOW_TOKEN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|(?:^|(?<=[ \t]))#[^\n]*|[\[\]{}]", re.M)


@dataclass
class Problem:
    """An input problem, reported as a finding of the rule `code` (category `input`)."""

    code: str
    message: str
    span: Span
    severity: str | None = None  # None: the rule's own severity


# A duplicate key, kept until its document is known: (key, line of the first one, span, `value_relation`).
Duplicate = tuple

SAME, FIRST_EMPTY, DIFFERENT = "same", "first empty", "different"


def value_relation(first: Any, later: Any) -> str:
    """How the two values of a duplicate key relate: SAME (`true` and `1` are not, though Python says equal),
    FIRST_EMPTY (the first is `{}`, `[]`, `""` or null and the later one is not: an empty default the owner filled
    in below), else DIFFERENT."""
    if type(first) is type(later) and first == later:
        return SAME
    if first is None or (isinstance(first, (dict, list, str)) and not first):
        return FIRST_EMPTY
    return DIFFERENT


def duplicate_problems(duplicates: list[Duplicate], data: Any) -> list[Problem]:
    """KPL002 for a document's duplicate keys, as sure as the readers that will take the document.

    A Kubernetes object (apiVersion and kind) is rejected: `kubectl apply` validates fields strictly by default
    (`--validate=strict`: "unknown or duplicate fields" fail the request) and kustomize's reader refuses duplicate
    keys. Any other document (a Helm values file, tool configuration) is read by parsers that keep the last value
    (Helm's values: sigs.k8s.io/yaml's non-strict Unmarshal): the first value is ignored (warning), or nothing is lost
    when both are equal or the first is empty (info: an empty default such as `serviceAnnotations: {}`, then the
    owner's block further down, which is the one kept)."""
    if not duplicates:
        return []
    kube = isinstance(data, dict) and isinstance(data.get("apiVersion"), str) and isinstance(data.get("kind"), str)
    out = []
    for key, first_line, span, relation in duplicates:
        message = f"duplicate key {key!r} (first defined at line {first_line})\n"
        if kube:
            out.append(Problem("KPL002", message + "note: the API server rejects the manifest or keeps only one of "
                               "the values", span))
        elif relation == SAME:
            out.append(Problem("KPL002", message + "note: both have the same value, so the readers that keep the last "
                               "one (Helm's values parser among them) lose nothing", span, "info"))
        elif relation == FIRST_EMPTY:
            out.append(Problem("KPL002", message + "note: the first value is empty and the readers that keep the last "
                               "one (Helm's values parser among them) keep this one, so only the empty default is "
                               "dropped", span, "info"))
        else:
            out.append(Problem("KPL002", message + "note: not a Kubernetes object: the readers that accept it (Helm's "
                               "values parser among them) keep only the last value, so the first is ignored", span,
                               "warning"))
    return out


class LoadLimitExceeded(Exception):
    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


# ---------------------------------------------------------------------------------------------- decoding

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode(path: str, raw: bytes, abspath: str | None = None) -> SourceFile | Problem:
    """Decode bytes as YAML allows (UTF-8, or UTF-16/32 with a BOM). Anything else is a located Problem."""
    encoding, bom = "utf-8", False
    for mark, enc in _BOMS:
        if raw.startswith(mark):
            encoding, bom, raw = enc, True, raw[len(mark):]
            break
    if encoding == "utf-8" and b"\x00" in raw[:8192]:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        return Problem("KPL003", "binary content (NUL byte): not a YAML or JSON text file", Span.point(line, 1))
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = len(before[before.rfind(b"\n") + 1:].decode(encoding, "replace")) + 1
        return Problem(
            "KPL003",
            f"invalid {encoding.upper()} byte 0x{raw[exc.start]:02x}: YAML files must be UTF-8 "
            "(or UTF-16/32 with a byte order mark); re-save the file as UTF-8",
            Span.point(line, col),
        )
    newline = "\r\n" if "\r\n" in text[:65536] else ("\r" if "\r" in text[:65536] else "\n")
    if "\r" in text:
        # The YAML parser treats CR and CRLF as line breaks; keep offsets stable by mapping CR -> LF 1:1.
        pass
    src = SourceFile(path=path, text=text, abspath=abspath, encoding=encoding, bom=bom, newline=newline)
    if "\x00" in text:
        line, col = src.position_of(text.index("\x00"))
        return Problem("KPL003", "NUL character in text: not a YAML or JSON text file", Span.point(line, col))
    return src


# ---------------------------------------------------------------------------------------------- parsing

_yaml_c = None


def _yaml() -> YAML:
    global _yaml_c
    if _yaml_c is None:
        from ruamel.yaml import YAML

        _ruamel()
        try:
            _yaml_c = YAML(typ="safe", pure=False)
        except Exception:  # pragma: no cover - no C extension
            _yaml_c = YAML(typ="safe", pure=True)
    return _yaml_c


def _yaml_text(text: str) -> str:
    # libyaml counts "\r\n" as one break but lone "\r" too; normalise lone CR to LF (same length) so the
    # parser's line numbers agree with SourceFile.line_starts(), which splits on "\n".
    if "\r" in text:
        text = re.sub(r"\r(?!\n)", "\n", text)
    return text


_CORE_TAGS = {
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}
_MERGE_TAG = "tag:yaml.org,2002:merge"


# YAML 1.1's other line breaks (NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR): ruamel's and libyaml's marks count
# them as lines, SourceFile (and every editor and reporter) does not. In a text holding one, a node's line and
# column come from its character offsets instead (one search per file; the marks' offsets are right either way).
OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")


def by_offsets(span: Span, lines: SourceFile) -> Span:
    """`span` with its line and column recomputed from its offsets, on `lines`'s line breaks."""
    line, col = lines.position_of(span.offset)
    end_line, end_col = lines.position_of(span.end_offset)
    return Span(line, col, end_line, end_col, span.offset, span.end_offset)


class _Builder:
    """Turns a composed node graph into plain data and `NodeInfo`s, within budgets."""

    def __init__(self, src: SourceFile, text: str | None = None, lines: SourceFile | None = None):
        self.src = src
        self.nodes: dict = {}
        self.count = 0
        self.aliases = 0
        self.problems: list[Problem] = []
        self.duplicates: list[Duplicate] = []
        self.seen: dict[int, int] = {}  # id(node) -> times visited (aliases share node objects)
        # the parsed text's lines when its marks count lines SourceFile does not (OTHER_BREAKS), else None
        self.lines = lines
        # a text without a final line break: a node ending at its end may be marked on a line after the last one
        # (ruamel places `? key` with no value there); such a node's position comes from its offsets
        self.open_end = len(text) if text is not None and not text.endswith("\n") else -1
        self.text = text

    def span(self, node) -> Span:
        sm, em = node.start_mark, node.end_mark
        span = Span(sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, sm.index, em.index)
        if self.lines is None and em.index >= self.open_end >= 0:
            self.lines = SourceFile("", self.text)
        return span if self.lines is None else by_offsets(span, self.lines)

    def scalar(self, node: ScalarNode) -> Any:
        if node.tag in _CORE_TAGS:
            return resolve_scalar(node.tag, node.value)
        return node.value  # str, timestamps, binary and any custom tag stay text: nothing is constructed

    def build(self, node, path: tuple, key_span: Span | None, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise LoadLimitExceeded(f"more than {MAX_NODES:,} YAML nodes in one file", self.span(node))
        if depth > MAX_DEPTH:
            raise LoadLimitExceeded(f"YAML nested deeper than {MAX_DEPTH} levels", self.span(node))
        visits = self.seen.get(id(node), 0)
        if visits and not isinstance(node, ScalarNode):
            self.aliases += 1
            if self.aliases > MAX_ALIAS_EXPANSIONS:
                raise LoadLimitExceeded(
                    f"more than {MAX_ALIAS_EXPANSIONS:,} alias expansions (a 'billion laughs' document?)",
                    self.span(node),
                )
        self.seen[id(node)] = visits + 1
        style = getattr(node, "style", None) or None  # plain: None (the C parser says "", the pure one None)
        if isinstance(node, MappingNode):
            style = "{" if node.flow_style else None
        elif isinstance(node, SequenceNode):
            style = "[" if node.flow_style else None
        self.nodes[path] = NodeInfo(self.span(node), key_span, style)
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode):
            return [self.build(item, path + (i,), None, depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, MappingNode):
            out: dict = {}
            first_key: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    merged = self.build(value_node, path + ("<<",), self.span(key_node), depth + 1)
                    for m in merged if isinstance(merged, list) else [merged]:
                        if isinstance(m, dict):
                            for k, v in m.items():
                                out.setdefault(k, v)
                    continue
                if isinstance(key_node, ScalarNode):
                    key = self.scalar(key_node)
                    if not isinstance(key, (str, int, float, bool)) and key is not None:
                        key = str(key)
                    if isinstance(key, bool) or key is None or isinstance(key, float):
                        key = key_node.value  # keep the text; Kubernetes keys are strings
                else:
                    key = f"<complex key at line {key_node.start_mark.line + 1}>"
                kspan = self.span(key_node)
                value = self.build(value_node, path + (key,), kspan, depth + 1)
                if key in first_key:
                    self.duplicates.append((key, first_key[key].line, kspan, value_relation(out.get(key), value)))
                else:
                    first_key[key] = kspan
                out[key] = value
            return out
        return None


def resolve_scalar(tag: str, value: str) -> Any:
    """The value of a plain scalar the resolver tagged int/float/bool/null (YAML 1.2 core schema)."""
    kind = tag.rsplit(":", 1)[-1]
    try:
        if kind == "null":
            return None
        if kind == "bool":
            return value.lower() in ("true", "yes", "on")
        if kind == "int":
            v = value.replace("_", "")
            sign = -1 if v.startswith("-") else 1
            v = v.lstrip("+-")
            for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
                if v.lower().startswith(prefix):
                    return sign * integer(v[2:], base)
            return sign * integer(v, 10)
        if kind == "float":
            v = value.replace("_", "").lower()
            if v.endswith(".inf"):
                return float("-inf") if v.startswith("-") else float("inf")
            if v.endswith(".nan"):
                return float("nan")
            return float(v)
    except ValueError:
        pass
    return value


def _problem_from_error(exc: YAMLError, src: SourceFile, text: str) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    if mark is not None and (line > text.count("\n") + 1 or OTHER_BREAKS.search(text)):
        # past the end (ruamel places an error at the end of input on a line after the last), or lines counted
        # on breaks SourceFile does not count: from the offset, within the text
        line, col = SourceFile("", text).position_of(min(max(mark.index, 0), len(text)))
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}"
    if context and context not in problem:
        note = f"\nnote: {context}"
        cmark = getattr(exc, "context_mark", None)
        if cmark is not None and mark is not None and cmark.line != mark.line:
            note += f" at line {cmark.line + 1}"
    else:
        note = ""
    line_text = src.line_text(line)
    if "\t" in line_text[: col] or ("\t" in line_text and "tab" in str(exc).lower()):
        message += "\nhelp: indent with spaces\nnote: the line contains a tab character: YAML forbids tabs for indentation"
    elif line > 1 and src.line_text(line - 1).strip() == "..." or line_text.strip() == "...":
        message += ("\nhelp: if `...` stands for omitted content (as in documentation snippets), remove it\n"
                    "note: a line `...` ends the YAML document")
    elif "%{" in src.text or "${" in line_text:
        message += "\nhelp: render it first\nnote: the file looks like a Terraform template (${...}, %{...})"
    elif "{{" in src.text:
        message += ("\nhelp: render it first, e.g. `helm template ... | karplint check -`\n"
                    "note: the file looks like a template ({{ ... }})")
    message += note
    offset = src.offset_of(line, col) if line <= len(src.line_starts()) else len(src.text)
    return Problem("KPL001", message, Span.point(line, col, offset))


def syntax_depth_over(text: str, limit: int = MAX_SYNTAX_DEPTH) -> int | None:
    """The offset where `text`'s nesting may pass `limit` levels, or None. An upper bound, in linear time:
    indentation columns plus compact `- `/`? ` indicators of a line, plus flow brackets open there."""
    if len(text) <= limit:
        return None
    block_at, block = None, 0
    # (`_DEEP_LINE` needs a line of MAX_SYNTAX_DEPTH/2 characters: most files have none, and skip its scan)
    if max(map(len, text.split("\n"))) >= MAX_SYNTAX_DEPTH // 2 and _DEEP_LINE.search(text):
        for m in _LINE_NESTING.finditer(text):
            depth = len(m.group(1)) + m.group(2).count("-") + m.group(2).count("?")
            if depth > block:
                block_at, block = m.start(), depth
    if block > limit:
        return block_at
    if text.count("[") + text.count("{") + block <= limit:
        return None
    depth = 0
    for m in _FLOW_TOKEN.finditer(text):
        c = m.group(0)[0]
        if c in "[{":
            depth += 1
            if depth + block > limit:
                return m.start()
        elif c in "]}":
            depth = max(0, depth - 1)
    return None


def load_reference(src: SourceFile, text: str | None = None) -> tuple[list[Document], list[Problem]]:
    """ruamel.yaml: the reference for every answer (`load` may take the libyaml path)."""
    _ruamel()
    docs: list[Document] = []
    problems: list[Problem] = []
    if text is None:
        text = _yaml_text(src.text)
    stream = _yaml().compose_all(text)
    lines = SourceFile("", text) if OTHER_BREAKS.search(text) else None  # (once per file: see _Builder)
    index = 0
    while True:
        try:
            node = next(stream)
        except StopIteration:
            break
        except MarkedYAMLError as exc:
            problems.append(_problem_from_error(exc, src, text))
            break
        except YAMLError as exc:
            problems.append(_problem_from_error(exc, src, text))
            break
        except RecursionError:
            problems.append(Problem("KPL004", "YAML nested too deeply to analyse", Span.point(1, 1)))
            break
        if index >= MAX_DOCUMENTS:
            problems.append(Problem(
                "KPL004", f"more than {MAX_DOCUMENTS:,} YAML documents in one file; the rest is not checked",
                Span.point(node.start_mark.line + 1, node.start_mark.column + 1, node.start_mark.index)))
            break
        if node is None:
            index += 1
            continue
        builder = _Builder(src, text, lines)
        try:
            data = builder.build(node, (), None, 0)
        except LoadLimitExceeded as exc:
            problems.append(Problem("KPL004", str(exc), exc.span))
            index += 1
            continue
        problems.extend(builder.problems)
        problems.extend(duplicate_problems(builder.duplicates, data))
        doc_span = builder.span(node)
        docs.extend(_expand_lists(Document(src, index, data, builder.nodes, (), doc_span)))
        index += 1
    return docs, problems


_KINDLESS_LIST_KEYS = frozenset({"apiVersion", "items", "metadata"})


def is_list_document(data: Any) -> bool:
    """A list of objects: `kind: List` or any `*List` with `items` (what `kubectl get -o yaml` prints), or the
    same cut short before its `kind:` line (`apiVersion: v1` and `items` of objects only: kubectl's output pasted
    into a document up to the end of the items)."""
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        return False
    kind = data.get("kind")
    if isinstance(kind, str):
        return kind.endswith("List")
    return "kind" not in data and data.get("apiVersion") == "v1" and data.keys() <= _KINDLESS_LIST_KEYS and any(
        isinstance(i, dict) and isinstance(i.get("apiVersion"), str) and isinstance(i.get("kind"), str)
        for i in data["items"])


def _expand_lists(doc: Document) -> Iterator[Document]:
    """List documents (`is_list_document`) become one document per item (sharing the parent's positions)."""
    data = doc.data
    if is_list_document(data):
        for i, item in enumerate(data["items"]):
            base = doc.base + ("items", i)
            info = doc.nodes.get(base)
            yield from _expand_lists(
                Document(doc.source, doc.index, item, doc.nodes, base, info.span if info else doc.start)
            )
        return
    yield doc
