"""Karpenter objects written as Terraform HCL objects (`kubernetes_manifest` `manifest = { ... }`,
`yamlencode({ ... })`, `jsonencode({ ... })`), read with tree-sitter and its HCL grammar (`tree-sitter`,
`tree-sitter-hcl`: dependencies, imported only when a .tf file has such an object; where they could not be
installed, `available()` is False and the file gets one notice), into `Document`s with a position for every node.

Measured on the corpus's .tf files (84 KB): tree-sitter parses them in about 3 ms per file and gives byte positions
for every node; python-hcl2 8.1 took about 100 ms per file (32x) plus 130 ms of imports, and its tree is built for
values rather than positions. Hence tree-sitter.

Values: literals become data (strings, numbers, bools, null); objects and tuples become dicts and lists; anything
only Terraform knows (a reference, a function call, a conditional, a string with `${...}`) becomes a template hole,
a string holding `${...}` (see `readers.templating`): unknown, never an error. No fix is offered on these documents
(the fixes edit YAML).
"""

from __future__ import annotations

from karplint.readers.document import Document, NodeInfo
from karplint.readers.source import SourceFile, Span

MAX_NODES = 200_000  # per file: a bound on the conversion's work (the parse itself is linear)

_parser = None


def available() -> bool:
    try:
        import tree_sitter  # noqa: F401
        import tree_sitter_hcl  # noqa: F401
    except ImportError:
        return False
    return True


def _get_parser():
    global _parser
    if _parser is None:
        import tree_sitter
        import tree_sitter_hcl

        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))
    return _parser


class _TooBig(Exception):
    pass


class _Converter:
    def __init__(self, src: SourceFile, raw: bytes):
        self.src = src
        self.raw = raw
        self.ascii = len(raw) == len(src.text)
        self.nodes: dict = {}
        self.count = 0

    def offset(self, byte: int) -> int:
        if self.ascii:
            return byte
        return len(self.raw[:byte].decode("utf-8", "replace"))

    def span(self, node) -> Span:
        return self.src.span_of(self.offset(node.start_byte), self.offset(node.end_byte))

    def text(self, node) -> str:
        return self.raw[node.start_byte:node.end_byte].decode("utf-8", "replace")

    @staticmethod
    def _inner(node):
        """The value node of an `expression` wrapper (None when it has accessors: `var.x`, `a[0]`)."""
        while node.type == "expression":
            named = [c for c in node.children if c.is_named]
            if len(named) != 1:
                return None
            node = named[0]
        return node

    def hole(self, node) -> str:
        t = self.text(node)
        return t if "${" in t else "${" + t + "}"

    def value(self, node, path: tuple, key_span: Span | None):
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig()
        inner = self._inner(node)
        style = None
        if inner is not None and inner.type == "collection_value":
            inner = next((c for c in inner.children if c.is_named), None)
        if inner is None:
            out = self.hole(node)
        elif inner.type == "object":
            style = "{"
            out = {}
            for elem in inner.children:
                if elem.type != "object_elem":
                    continue
                exprs = [c for c in elem.children if c.type == "expression"]
                if len(exprs) != 2:
                    continue
                key = self.key(exprs[0])
                out[key] = self.value(exprs[1], path + (key,), self.span(exprs[0]))
        elif inner.type == "tuple":
            style = "["
            items = [c for c in inner.children if c.type == "expression"]
            out = [self.value(c, path + (i,), None) for i, c in enumerate(items)]
        elif inner.type == "literal_value":
            out, style = self.literal(inner)
        elif inner.type == "template_expr":
            out, style = self.template(inner)
        else:
            out = self.hole(inner)
        self.nodes[path] = NodeInfo(self.span(node), key_span, style)
        return out

    def key(self, node) -> str:
        inner = self._inner(node)
        if inner is not None and inner.type == "variable_expr":
            return self.text(inner)
        if inner is not None and inner.type == "literal_value":
            v, _ = self.literal(inner)
            return v if isinstance(v, str) else self.text(inner)
        return self.hole(node)

    def literal(self, node):
        child = next((c for c in node.children if c.is_named), None)
        if child is None:
            return self.text(node), None
        if child.type == "numeric_lit":
            t = self.text(child)
            try:
                return (float(t) if any(c in t for c in ".eE") else int(t)), None
            except ValueError:
                return t, None
        if child.type == "bool_lit":
            return self.text(child) == "true", None
        if child.type == "null_lit":
            return None, None
        if child.type == "string_lit":
            return _unescape("".join(self.text(c) for c in child.children if c.type == "template_literal")), '"'
        return self.text(child), None

    def template(self, node):
        child = next((c for c in node.children if c.is_named), None)
        if child is not None and child.type == "heredoc_template":
            return self.heredoc(child), "|"
        if child is not None and child.type == "quoted_template":
            parts = [c for c in child.children if c.type not in ("quoted_template_start", "quoted_template_end")]
            if all(c.type == "template_literal" for c in parts):
                return _unescape("".join(self.text(c) for c in parts)), '"'
            t = self.text(child)
            return t[1:-1] if t.startswith('"') and t.endswith('"') else t, '"'
        return self.hole(node), None

    def heredoc(self, node) -> str:
        t = self.text(node)
        lines = t.split("\n")
        head, body = lines[0], lines[1:-1]
        if head.startswith("<<-"):
            indents = [len(x) - len(x.lstrip(" ")) for x in body if x.strip()]
            cut = min(indents) if indents else 0
            body = [x[cut:] for x in body]
        return "\n".join(body) + ("\n" if body else "")


def _unescape(s: str) -> str:
    if "\\" not in s and "$${" not in s and "%%{" not in s:
        return s
    out, i = [], 0
    table = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in table:
            out.append(table[s[i + 1]])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out).replace("$${", "${").replace("%%{", "%{")


def _is_object(conv: _Converter, node) -> bool:
    keys = set()
    for elem in node.children:
        if elem.type == "object_elem":
            exprs = [c for c in elem.children if c.type == "expression"]
            if exprs:
                inner = conv._inner(exprs[0])
                if inner is not None and inner.type in ("variable_expr", "literal_value"):
                    keys.add(conv.key(exprs[0]))
    return "apiVersion" in keys and "kind" in keys


def load_objects(src: SourceFile, embedding, first_index: int = 0) -> tuple[list[Document], bool]:
    """Documents of the HCL objects holding `apiVersion` and `kind` (the outermost ones), and whether the file
    was too large to convert in full. `embedding`: what the documents' source says of its host (the caller's
    `readers.embedded.Embedding`, passed in so that this module stays below it)."""
    raw = src.text.encode("utf-8")
    tree = _get_parser().parse(raw)
    conv = _Converter(src, raw)
    vsrc = SourceFile(path=src.path, text=src.text, abspath=src.abspath, encoding=src.encoding, bom=src.bom,
                      newline=src.newline, embedding=embedding)
    docs: list[Document] = []
    stack = [tree.root_node]
    try:
        while stack:
            node = stack.pop()
            if node.type == "object" and _is_object(conv, node):
                conv.nodes = {}
                data = conv.value(node, (), None)
                docs.append(Document(vsrc, first_index + len(docs), data, conv.nodes, (), conv.span(node)))
                continue
            stack.extend(reversed(node.children))
    except _TooBig:
        return docs, True
    return docs, False
