"""Values of the Karpenter Helm chart written where they are not a document of their own, read into `Document`s with
their positions in the host file (`rules/chart_values.py` checks them against the chart of the release):

* a Terraform `resource "helm_release"` whose chart is karpenter: each heredoc of its body (`values = [<<-EOT ...
  EOT]`), its `values = [yamlencode({...})]` objects (with the HCL grammar of readers/hcl.py, when installed), and
  its `set { name = "settings.clusterName" ... }` blocks (also `set_sensitive`, and the helm provider
  v3's `set = [{ name = ..., value = ... }]`), a document whose keys are the dotted names, positioned on the name;
* an Argo CD Application whose source chart is karpenter: its `helm.values` literal block string (`values: |`).

Every such document's source carries `Embedding.chart_values = (chart version or "", what installs it)`. Each
karpenter (or karpenter-crd) helm_release is also read as a document `{chart, repository, version}` of its literal
attributes, marked `Embedding.chart_reference` (for KPL154; release evidence skips it: model/repo_version.py reads
helm_release pins itself). What is a
mapping in the installing object (`spec.values` of a Flux HelmRelease, `helm.valuesObject`) is read where it is, by
the rule.
"""

from __future__ import annotations

import re

from karplint.readers.document import Document, NodeInfo
from karplint.readers.source import SourceFile, Span

MAX_RELEASES = 100  # helm_release blocks read per file
MAX_BLOCK = 1 << 16  # a helm_release block with its values heredocs
MAX_SET = 2_000  # `set` names read per file
KARPENTER_CHARTS = ("karpenter",)

_HELM_RELEASE = re.compile(r'^[ \t]*resource[ \t]+"helm_release"[ \t]+"([^"\n]*)"[ \t]*\{', re.M)
_TOP_ATTR = re.compile(r'^[ \t]*(chart|version|repository)[ \t]*=[ \t]*"([^"\n]*)"', re.M)
_HEREDOC = re.compile(r"<<(-?)([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?$", re.M)
_SET_NAME = re.compile(r'^[ \t]*\{?[ \t]*name[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)"', re.M)
_SET_BLOCK = re.compile(r'^[ \t]*(set|set_sensitive|set_list)[ \t]*(?:=[ \t]*\[|\{)', re.M)


def _reference(src: SourceFile, attrs: dict, where: dict, what: str, index: int) -> Document:
    """The helm_release's literal chart, repository and version as a document, each positioned on its string."""
    from karplint.readers.virtual import Embedding

    nodes: dict = {}
    for key, (a, b) in where.items():
        la, ca = src.position_of(a)
        lb, cb = src.position_of(b)
        nodes[(key,)] = NodeInfo(Span(la, ca, lb, cb, a, b), Span(la, ca, lb, cb, a, b), '"')
    nodes[()] = NodeInfo(nodes[(min(where, key=where.get),)].span, None, None)
    emb = Embedding(host_kind="hcl", chart_reference=(what,))
    ssrc = SourceFile(path=src.path, text=src.text, abspath=src.abspath, encoding=src.encoding, bom=src.bom,
                      newline=src.newline, embedding=emb)
    return Document(ssrc, index, dict(attrs), nodes, (), nodes[()].span)


def _is_karpenter(chart: str | None, repository: str | None, charts: tuple = KARPENTER_CHARTS) -> bool:
    if not chart:
        return False
    chart = chart.strip().rstrip("/")
    if chart.startswith((".", "/", "~")):
        return False  # (a local chart: its values are its own)
    return chart.rsplit("/", 1)[-1] in charts and (
        "/" in chart or repository is None or "karpenter" in repository or "aws" in repository)


def _block_end(text: str, start: int) -> int:
    """The end of the `{ ... }` opening at `start` (braces in strings counted too: heredocs of values rarely hold
    unbalanced ones), at most MAX_BLOCK characters on."""
    depth = 0
    stop = min(len(text), start + MAX_BLOCK)
    for i in range(start, stop):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return stop


def _closing(text: str, at: int) -> int:
    """Just after the bracket closing the one at `at` (`{` or `[`), or the end of `text`."""
    pair = {"{": "}", "[": "]"}[text[at]]
    depth = 0
    for i in range(at, len(text)):
        if text[i] == text[at]:
            depth += 1
        elif text[i] == pair:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _depth_at(body: str, pos: int) -> int:
    return body.count("{", 0, pos) - body.count("}", 0, pos)


def split_parameter_name(name: str) -> list[str]:
    """`serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn` -> its keys (Helm's `--set` syntax; a list index
    `tolerations[0]` ends the path: list items are not keys)."""
    name = name.replace("\\\\", "\\")
    keys, cur, i = [], [], 0
    while i < len(name):
        c = name[i]
        if c == "\\" and i + 1 < len(name):
            cur.append(name[i + 1])
            i += 2
            continue
        if c == ".":
            keys.append("".join(cur))
            cur = []
        elif c == "[":
            break
        else:
            cur.append(c)
        i += 1
    keys.append("".join(cur))
    return [k for k in keys if k]


def terraform_values(src: SourceFile, first_index: int) -> tuple[list[Document], list]:
    """(documents, problems) of the chart values of the karpenter `helm_release` blocks of a Terraform file."""
    from karplint.readers.virtual import Embedding, build
    from karplint.readers.loader import Problem, load
    from karplint.readers.regions import HostText, Region, min_indent

    text = src.text
    docs: list[Document] = []
    problems: list = []
    host = None
    names = 0
    parsed: dict = {}  # the file's HCL tree, parsed once for all its blocks
    for count, m in enumerate(_HELM_RELEASE.finditer(text)):
        if count >= MAX_RELEASES:
            break
        start = m.end() - 1
        end = _block_end(text, start)
        body = text[start:end]
        attrs: dict[str, str] = {}
        where: dict[str, tuple[int, int]] = {}
        for a in _TOP_ATTR.finditer(body):
            if _depth_at(body, a.start()) == 1 and a.group(1) not in attrs:
                attrs[a.group(1)] = a.group(2)
                where[a.group(1)] = (start + a.start(2), start + a.end(2))
        if not _is_karpenter(attrs.get("chart"), attrs.get("repository"), charts=KARPENTER_CHARTS + ("karpenter-crd",)):
            continue
        docs.append(_reference(src, attrs, where, f'helm_release "{m.group(1)}"', first_index + len(docs)))
        if not _is_karpenter(attrs.get("chart"), attrs.get("repository")):
            continue  # (karpenter-crd: no values of ours)
        what = (attrs.get("version", ""), f'helm_release "{m.group(1)}"')
        host = host or HostText(src)
        for h in _HEREDOC.finditer(body):
            first = src.position_of(start + h.end())[0] + 1
            closing = re.compile(r"^[ \t]*%s[ \t]*\r?$" % re.escape(h.group(2)), re.M).search(body, h.end())
            if closing is None:
                continue
            last = src.position_of(start + closing.start())[0]
            strip = min_indent(host, first, last) if h.group(1) == "-" else 0
            vsrc = build(host, Region(first, last, strip, terraform=True), "terraform", any_yaml=True)
            if vsrc is None:
                continue
            vsrc.embedding.chart_values = what
            got, probs = load(vsrc)
            problems.extend(Problem(p.code, p.message, vsrc.embedding.span(p.span, vsrc), p.severity)
                            for p in probs)
            for d in got:
                if isinstance(d.data, dict):
                    d.index = first_index + len(docs)
                    docs.append(d)
        if "encode(" in body:
            docs.extend(_encoded_values(src, start, end, what, first_index + len(docs), parsed))
        data: dict = {}
        nodes: dict = {}
        for s in _SET_BLOCK.finditer(body):
            for n in _SET_NAME.finditer(body, s.end() - 1, _closing(body, s.end() - 1)):
                names += 1
                if names > MAX_SET:
                    break
                keys = split_parameter_name(n.group(1))
                if not keys or "${" in n.group(1):
                    continue
                a, b = start + n.start(1), start + n.end(1)
                la, ca = src.position_of(a)
                lb, cb = src.position_of(b)
                span = Span(la, ca, lb, cb, a, b)
                node = data
                for i, k in enumerate(keys):
                    path = tuple(keys[:i + 1])
                    nodes.setdefault(path, NodeInfo(span, span, '"'))
                    if i == len(keys) - 1:
                        node.setdefault(k, "${set}")
                    else:
                        nxt = node.get(k)
                        if not isinstance(nxt, dict):
                            nxt = node[k] = {}
                        node = nxt
        if data:
            emb = Embedding(host_kind="hcl", chart_values=what)
            ssrc = SourceFile(path=src.path, text=text, abspath=src.abspath, encoding=src.encoding, bom=src.bom,
                              newline=src.newline, embedding=emb)
            nodes[()] = NodeInfo(nodes[next(iter(nodes))].span, None, None)
            docs.append(Document(ssrc, first_index + len(docs), data, nodes, (), nodes[()].span))
    return docs, problems


def _encoded_values(src: SourceFile, start: int, end: int, what: tuple, index: int, parsed: dict) -> list[Document]:
    """The `values = [yamlencode({...})]` (or jsonencode) objects of the helm_release block at text[start:end], read
    with the HCL grammar (readers/hcl.py) with a position for every node; nothing where it is not installed."""
    from karplint.readers import hcl
    from karplint.readers.virtual import Embedding

    if not hcl.available():
        return []
    if "raw" not in parsed:
        parsed["raw"] = src.text.encode("utf-8")
        parsed["tree"] = hcl._get_parser().parse(parsed["raw"])
    raw = parsed["raw"]
    lo, hi = len(src.text[:start].encode("utf-8")), len(src.text[:end].encode("utf-8"))
    vsrc = SourceFile(path=src.path, text=src.text, abspath=src.abspath, encoding=src.encoding, bom=src.bom,
                      newline=src.newline, embedding=Embedding(host_kind="hcl", chart_values=what))
    conv = hcl._Converter(vsrc, raw)
    out: list[Document] = []
    stack = [parsed["tree"].root_node]
    while stack:
        node = stack.pop()
        if node.end_byte <= lo or node.start_byte >= hi:
            continue
        if node.type == "function_call":
            name = next((c for c in node.children if c.type == "identifier"), None)
            args = next((c for c in node.children if c.type == "function_arguments"), None)
            if name is not None and raw[name.start_byte:name.end_byte] in (b"yamlencode", b"jsonencode") and args:
                arg = next((c for c in args.children if c.type == "expression"), None)
                if arg is not None and _inside_values(node, raw):
                    conv.nodes = {}
                    try:
                        data = conv.value(arg, (), None)
                    except hcl._TooBig:
                        return out
                    if isinstance(data, dict):
                        out.append(Document(vsrc, index + len(out), data, conv.nodes, (), conv.span(arg)))
                continue
        stack.extend(reversed(node.children))
    return out


def _inside_values(node, raw: bytes) -> bool:
    """Whether the call sits in a `values = [...]` attribute (of the helm_release block being read)."""
    while node is not None:
        if node.type == "attribute":
            ident = next((c for c in node.children if c.type == "identifier"), None)
            return ident is not None and raw[ident.start_byte:ident.end_byte] == b"values"
        node = node.parent
    return False


def application_values(src: SourceFile, docs: list) -> tuple[list[Document], list]:
    """(documents, problems) of the `helm.values` literal block strings of the Argo CD Applications among `docs`
    whose chart is karpenter."""
    from karplint.readers.virtual import build
    from karplint.readers.loader import Problem, load
    from karplint.readers.regions import HostText, Region, min_indent

    host = None
    out: list[Document] = []
    problems: list = []
    index = max((d.index for d in docs), default=-1) + 1
    for doc in docs:
        data = doc.data
        if not isinstance(data, dict) or data.get("kind") != "Application" or \
                not str(data.get("apiVersion", "")).startswith("argoproj.io/"):
            continue
        spec = data.get("spec")
        if not isinstance(spec, dict):
            continue
        sources = [(("spec", "source"), spec.get("source"))] + [
            (("spec", "sources", i), s) for i, s in enumerate(spec.get("sources") or ()
                                                                 if isinstance(spec.get("sources"), list) else ())]
        for where, source in sources:
            if not isinstance(source, dict) or not _is_karpenter(source.get("chart"), str(source.get("repoURL", ""))):
                continue
            helm = source.get("helm")
            if not isinstance(helm, dict) or not isinstance(helm.get("values"), str):
                continue
            info = doc.exact((*where, "helm", "values"))
            if info is None or info.style != "|":
                continue  # (a quoted or folded string: its lines are not the values' lines)
            first = info.span.line + 1
            end = info.span.end_line if info.span.end_column == 1 else info.span.end_line + 1
            if end <= first:
                continue
            host = host or HostText(src)
            vsrc = build(host, Region(first, end, min_indent(host, first, end)), "yaml", any_yaml=True)
            if vsrc is None:
                continue
            version = source.get("targetRevision")
            vsrc.embedding.chart_values = (version if isinstance(version, str) else "",
                                           f"Application {(data.get('metadata') or {}).get('name', '')}".strip())
            got, probs = load(vsrc)
            problems.extend(Problem(p.code, p.message, vsrc.embedding.span(p.span, vsrc), p.severity)
                            for p in probs)
            for d in got:
                if isinstance(d.data, dict):
                    d.index = index
                    index += 1
                    out.append(d)
    return out, problems
