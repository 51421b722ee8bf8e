"""A region of a host file as a virtual `SourceFile`, and the `Embedding` that maps it back.

`build(host, region, kind)` extracts one region (readers.regions, readers.docblocks, readers.terraform_regions)
into a virtual source whose line N is the host's line N, with the host's indentation prefix removed and escapes
undone; `Embedding` maps every virtual offset back to the host's bytes, for spans and fix edits. The readers of
host files (readers.embedded, readers.kustomize, readers.chart_values) build their virtual sources here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from karplint.readers.elision import DOC_ELISION_LINE as _ELISION_LINE, FRAGMENT_SILENCED
from karplint.readers.regions import HostText as _Host, Region, is_kubernetes as _is_kubernetes
from karplint.readers.source import SourceFile, Span

# Markdown and AsciiDoc are documentation. A block that is a fragment (it has an elision `...`, or leaves out a structural part:
# see `_structural`) shows part of an object; what it leaves out is not missing from any cluster, so the verdicts
# about missing fields are dropped for it: required fields (KPL103), CEL rules (KPL130: "must specify one of"),
# v1's required consolidateAfter (KPL401). What a snippet shows is checked as usual (values, removed APIs, typos).
# A value that describes the values allowed (`consolidateAfter: 1m | Never`, `deviceIndex: int`) is not judged.
DESCRIBED_SILENCED = frozenset({"KPL100", "KPL101", "KPL102"})
# Blocks of one documentation file are alternative examples, not one manifest: the same name twice is no conflict.
DOCUMENTATION_SILENCED = frozenset({"KPL604"})

# ---------------------------------------------------------------------------------------------- mapping

@dataclass
class Embedding:
    """Where a virtual source's text comes from in its host file.

    `lines`: virtual line number (= host line number) -> (virtual line start, host line start, host content
    start: after the stripped prefix). `av`/`ah`: anchors, virtual offset -> host offset, from which the text is
    the same up to the next anchor. `prefix`: the stripped indentation, put back after a newline an edit
    inserts. `escape`: "terraform" (`${` and `%{` must be written `$${`/`%%{`), "shell" (an unquoted heredoc:
    `$`, backquote and backslash are not literal; such an edit is not offered) or both, or None."""

    lines: dict = field(default_factory=dict)
    by_vstart: dict = field(default_factory=dict)
    av: list = field(default_factory=list)
    ah: list = field(default_factory=list)
    prefix: str = ""
    escape: tuple = ()
    host_kind: str = ""
    fragment: bool = False
    # Terraform: virtual offsets of the `${` that were `$${` in the host, the only literal ones (the rest are
    # template holes Terraform fills in before apply)
    literals: list = field(default_factory=list)
    # documentation: lines whose value is a description of the values allowed (`expireAfter: 720h | Never`,
    # `deviceIndex: int`), not a value
    described: list = field(default_factory=list)
    # Karpenter chart values, not an object (readers/chart_values.py): (the chart version the release pins or "",
    # what installs it)
    chart_values: tuple = ()
    # a Terraform helm_release of the karpenter chart as a document {chart, repository, version} (its literal
    # attributes, positioned): (what installs it,)
    chart_reference: tuple = ()

    def _anchor(self, v: int) -> int:
        i = bisect.bisect_right(self.av, v) - 1
        if i < 0:
            return v
        return self.ah[i] + (v - self.av[i])

    def to_host(self, v: int, before_prefix: bool = False) -> int:
        n = self.by_vstart.get(v)
        if n is not None:
            _vs, hls, hcs = self.lines[n]
            return hls if before_prefix else hcs
        return self._anchor(v)

    def _column(self, line: int, h: int, fallback: int) -> int:
        entry = self.lines.get(line)
        return h - entry[1] + 1 if entry is not None else fallback

    def span(self, span: Span, vsrc: SourceFile | None = None) -> Span:
        """`span` (virtual) on the host file."""
        if span.line not in self.lines:
            return span
        if vsrc is not None:
            v1 = vsrc.offset_of(span.line, span.column)
            v2 = vsrc.offset_of(span.end_line, span.end_column) if span.end_line in self.lines else None
        else:
            v1, v2 = span.offset, span.end_offset
        h1 = self.to_host(v1)
        col = self._column(span.line, h1, span.column)
        if v2 is None or span.end_line not in self.lines:
            return Span(span.line, col, span.line, col + 1, h1, h1 + 1)
        h2 = self.to_host(v2)
        return Span(span.line, col, span.end_line, self._column(span.end_line, h2, span.end_column), h1, max(h1, h2))

    def _escaped(self, text: str) -> str | None:
        if "template" in self.escape:
            return None  # (an edit of a Go template is not an edit of YAML)
        if "shell" in self.escape and any(c in text for c in "$`\\"):
            return None
        if "terraform" in self.escape:
            text = text.replace("${", "$${").replace("%{", "%%{")
        return text

    def edit(self, e):
        """A fix `Edit` (virtual offsets) as an `Edit` on the host text, or None when it cannot be mapped."""
        from karplint.findings import Edit

        rep = self._escaped(e.replacement)
        if rep is None:
            return None
        start_line = self.by_vstart.get(e.start)
        end_line = self.by_vstart.get(e.end)
        p = self.prefix
        if start_line is not None and end_line is not None and (rep == "" or rep.endswith("\n")):
            # whole lines: from the host line starts, every inserted line gets the prefix
            h1, h2 = self.to_host(e.start, True), self.to_host(e.end, True)
            rep = "".join(p + seg if seg.strip() else seg for seg in rep.splitlines(keepends=True))
            return Edit(h1, h2, rep)
        h1, h2 = self.to_host(e.start), self.to_host(e.end)
        if "\n" in rep and p:
            rep = rep.replace("\n", "\n" + p)
        return Edit(h1, max(h1, h2), rep)

    def fix(self, fix):
        if fix is None or self.host_kind in ("hcl", "asciidoc"):  # (fixes edit YAML; AsciiDoc callouts are cut)
            return None
        from dataclasses import replace

        edits = []
        for e in fix.edits:
            m = self.edit(e)
            if m is None:
                return None  # one edit that cannot be written in the host: no fix offered
            edits.append(m)
        return replace(fix, edits=tuple(edits))


# A snippet that leaves out one of these shows a part of the object (a NodePool's requirements alone); a leaf
# missing under them (`nodeClassRef.group`) is a finding on an object that is otherwise written out.
_STRUCTURAL = frozenset({"spec", "template", "nodeClassRef", "requirements", "subnetSelectorTerms",
                         "securityGroupSelectorTerms", "amiSelectorTerms", "disruption"})


def _structural(field: str) -> bool:
    return field.count(".") <= 1 or field.rsplit(".", 1)[-1] in _STRUCTURAL


def documentation_filter(results: list, documents: list, key) -> list:
    """`results` (engine `Result`s of one file) without the verdicts that do not apply to documentation: see
    FRAGMENT_SILENCED and DOCUMENTATION_SILENCED. `key(doc)` is the engine's document key (`Result.doc`)."""
    docs = {key(d): d for d in documents if d.documentation_example}
    if not docs:
        return results
    # a part of the object's top is missing (`spec.template is required`, `spec.subnetSelectorTerms ...`):
    # a snippet; a deeper field missing (`spec.template.spec.nodeClassRef.group`) is a finding on an object
    fragments = {k for k, d in docs.items() if d.fragment} | \
        {x.doc for x in results if x.code == "KPL103" and x.doc in docs and _structural(x.message.split(" ", 1)[0])}
    return [x for x in results if not (x.doc in docs and (x.code in DOCUMENTATION_SILENCED or (
        x.doc in fragments and x.code in FRAGMENT_SILENCED) or (
        x.code in DESCRIBED_SILENCED and x.span.line in docs[x.doc].source.embedding.described)))]


# ---------------------------------------------------------------------------------------------- regions

_TF_ESCAPE = re.compile(r"\$\$\{|%%\{")
_TF_DIRECTIVE_LINE = re.compile(r"^[ \t]*(?:%\{~?[^}]*~?\}[ \t]*)+\r?\n?$")
_TF_DIRECTIVE = re.compile(r"%\{~?\s*(\w+)")
# `key: a | b` (alternatives) or `key: int` (a type): the API reference's way to describe a field, in docs
_DESCRIBED_VALUE = re.compile(r":[ \t]+(?:[\"']?[^\s\"'#|{\[][^#\n|]*? \| \S|(?:int|integer|string|String|bool|boolean|"
                              r"float|number|map|Map|list|object)[ \t]*(?:#.*)?\r?\n?$)")
_ELISION_COMMENT = re.compile(r"^[ \t]*#[ \t]*(?:\.\.\.|\u2026)")  # `# ... your requirements ...`


_INTERP = re.compile(r"\$\{[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*\}")
_HOLE_LINE = re.compile(r"^[ \t]*\$\{[^\n]*\}[ \t]*\r?\n?$")
_OPEN_KEY = re.compile(r"""^[ \t]*(?:-[ \t]+)?[^\s#'"][^#'"]*:[ \t]*(?:#[^\n]*)?\r?\n?$""")  # `values:`: its value below
_ADOC_CALLOUT = re.compile(r"(?:[ \t]+(?:#|//)?[ \t]*<(?:\d+|\.)>)+[ \t]*\r?\n?$")
_ADOC_ATTRIBUTE = re.compile(r"\{[A-Za-z0-9_][A-Za-z0-9_-]*\}")


def _one_hole(content: str) -> bool:
    """The line is one interpolation, `${` to its matching `}` (`${var.kms != null ? "kmsKeyId: x" : ""}`): what
    it inserts, a whole line or nothing, is unknown."""
    t = content.strip()
    if not t.startswith("${"):
        return False
    depth = 0
    for i, c in enumerate(t):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i == len(t) - 1
    return False


def _emit(text: str, offs: list, a: int, b: int, vlen: int, parts: list, emb: "Embedding") -> int:
    """Append text[a:b], whose characters sit at host offsets offs[a:b], one anchor per contiguous run."""
    i = a
    while i < b:
        j = i + 1
        while j < b and offs[j] == offs[j - 1] + 1:
            j += 1
        emb.av.append(vlen)
        emb.ah.append(offs[i])
        parts.append(text[i:j])
        vlen += j - i
        i = j
    return vlen


def _masked_line(content: str, offs: list, vlen: int, parts: list, emb: "Embedding", prev_indent: int,
                 under_key: bool = False) -> int:
    """A template line as YAML can read it when its holes would break the syntax (the second try, after a syntax
    error): a line holding only an interpolation (`${indent(4, yamlencode(...))}`: YAML the template inserts)
    becomes a comment; an interpolation outside quotes is quoted (`[${x}]` is a flow mapping to YAML).
    `under_key`: the last YAML line was a key with no value (`values:`), whose value a hole line at its
    indentation is (`${yamlencode(list)}` writes a block sequence there): unknown, not a missing key.
    `offs[i]`: the host offset of content[i] (escapes removed). Returns the new virtual length."""
    indent = len(content) - len(content.lstrip(" "))
    if under_key and indent == prev_indent and ": " not in content and _HOLE_LINE.match(content):
        content, offs = " " + content, [offs[0]] + offs  # one column deeper: YAML reads a scalar value there
    elif _HOLE_LINE.match(content) and (": " not in content and len(content) - len(content.lstrip(" ")) <= prev_indent
                                      or ": " in content and _one_hole(content)):
        # (deeper: the value of the key above; a conditional that yields a `key: value` line: an entry or nothing)
        emb.fragment = True  # what the template inserts here is unknown: it may hold what the object seems to lack
        emb.av.append(vlen)
        emb.ah.append(offs[0])
        seg = content.replace("$", "#", 1)
        parts.append(seg)
        return vlen + len(seg)
    content = _requoted_holes(content)
    pos = 0
    for m in _INTERP.finditer(content):
        before = content[:m.start()]
        hole = m.group(0)
        if before.count('"') % 2 or before.count("'") % 2:
            continue  # already in a quoted scalar
        if content[m.end():m.end() + 1] not in ("", " ", "\t", "\r", "\n", ",", "]", "}", "#"):
            continue  # `${x}-node`: part of a plain scalar, which quotes would end early
        q = "'" if '"' in hole else '"'
        if q in hole:
            continue
        vlen = _emit(content, offs, pos, m.start(), vlen, parts, emb)
        vlen = _emit(q, [offs[m.start()]], 0, 1, vlen, parts, emb)
        vlen = _emit(content, offs, m.start(), m.end(), vlen, parts, emb)
        vlen = _emit(q, [offs[m.end()]], 0, 1, vlen, parts, emb)
        pos = m.end()
    return _emit(content, offs, pos, len(content), vlen, parts, emb)


def _requoted_holes(content: str) -> str:
    """`cpu: "${var.k["cpu"]}"`: the quotes inside a hole would end the YAML string around it; the hole's text is
    opaque, so they become the other quote (same length: the columns stay)."""
    if '"${' not in content and "'${" not in content:
        return content
    out, pos = [], 0
    for m in _INTERP.finditer(content):
        out.append(content[pos:m.start()])
        before = "".join(out)
        hole = m.group(0)
        if before.count('"') % 2:
            hole = hole.replace('"', "'")
        elif before.count("'") % 2:
            hole = hole.replace("'", '"')
        out.append(hole)
        pos = m.end()
    out.append(content[pos:])
    return "".join(out)


_SHELL_ESCAPED_DOLLAR = re.compile(r"\\(?=\$)")


def build(host: _Host, region: Region, kind: str, mask: bool = False, masker=None,
           any_yaml: bool = False) -> SourceFile | None:
    """The virtual source of `region`, or None when it holds no Kubernetes object (then nothing is padded).
    `masker`: a Go template's `readers.gotemplate.Masker` (a ```yaml block showing a Helm template). `any_yaml`:
    whatever YAML it holds (chart values)."""
    emb = Embedding(host_kind=kind)
    emb.escape = tuple(x for x, on in (("terraform", region.terraform), ("shell", region.shell),
                                       ("template", masker is not None)) if on)
    parts: list[str] = []  # the body; the empty lines before it are added once it is known to be wanted
    vlen = region.first - 1
    skip_stack: list[bool] = []  # Terraform %{ if }: are we in a dropped `else` branch
    prev_indent = -1  # indentation of the last line holding YAML (for `_masked_line`)
    prev_open = False  # that line was a key with no value (for `_masked_line`)
    prefix = None
    text = host.text
    for n in range(region.first, region.end):
        hls = host.starts[n - 1]
        raw = host.line(n)
        w = 0
        while w < region.strip and w < len(raw) and raw[w] in region.strip_chars:
            w += 1
        hcs = hls + w
        emb.lines[n] = (vlen, hls, hcs)
        emb.by_vstart[vlen] = n
        content = raw[w:]
        if prefix is None and content.strip():
            prefix = raw[:w]
        nl = len(content) - len(content.rstrip("\r\n"))
        blank = False
        if region.terraform and "%{" in content and _TF_DIRECTIVE_LINE.match(content):
            for m in _TF_DIRECTIVE.finditer(content):
                word = m.group(1)
                if word in ("if", "for"):
                    skip_stack.append(False)
                elif word == "else" and skip_stack:
                    skip_stack[-1] = True
                elif word in ("endif", "endfor") and skip_stack:
                    skip_stack.pop()
            blank = True
        elif any(skip_stack):
            blank = True
        elif region.markdown and _ELISION_LINE.match(content):
            blank = emb.fragment = True
        elif region.markdown and "#" in content and _ELISION_COMMENT.match(content):
            emb.fragment = True
        if region.markdown and ": " in content and _DESCRIBED_VALUE.search(content):
            emb.described.append(n)
        if masker is not None and not blank:
            pieces = masker.pieces(content)
            if pieces is not None:
                for seg, off in pieces:
                    emb.av.append(vlen)
                    emb.ah.append(hcs + off)
                    parts.append(seg)
                    vlen += len(seg)
                continue
            blank = True
        if blank:
            emb.av.append(vlen)
            emb.ah.append(hls + len(raw) - nl)
            parts.append(content[len(content) - nl:])
            vlen += nl
            continue
        if mask and region.terraform and "${" in content and not _TF_ESCAPE.search(content):
            offs = list(range(hcs, hcs + len(content) + 1))
            vlen = _masked_line(content.replace("%{", "${"), offs, vlen, parts, emb, prev_indent, prev_open)
            prev_indent = len(content) - len(content.lstrip(" "))
            prev_open = False
            continue
        if mask and region.shell and "${" in content:
            # an unquoted heredoc: `\$` is the shell's literal `$`, and `${VAR}` a hole (envsubst, or the shell)
            drop = {m.start() for m in _SHELL_ESCAPED_DOLLAR.finditer(content)}
            offs = [hcs + i for i in range(len(content) + 1) if i not in drop]
            kept = "".join(c for i, c in enumerate(content) if i not in drop)
            vlen = _masked_line(kept, offs, vlen, parts, emb, prev_indent, prev_open)
            prev_indent = len(content) - len(content.lstrip(" "))
            prev_open = False
            continue
        if content.strip() and not content.lstrip().startswith("#"):
            prev_indent = len(content) - len(content.lstrip(" "))
            prev_open = _OPEN_KEY.match(content) is not None
        if region.callouts and "<" in content:
            m = _ADOC_CALLOUT.search(content)
            if m is not None:  # `key: value <1>`: the callout is AsciiDoc's, not the value's
                content = content[:m.start()] + content[len(content) - nl:]
        if region.attributes and "{" in content:
            pos = 0
            for m in _ADOC_ATTRIBUTE.finditer(content):  # `{name}` -> `${name}`, a hole
                for seg, h in ((content[pos:m.start()], hcs + pos), ("$", hcs + m.start())):
                    emb.av.append(vlen)
                    emb.ah.append(h)
                    parts.append(seg)
                    vlen += len(seg)
                pos = m.start()
            emb.av.append(vlen)
            emb.ah.append(hcs + pos)
            parts.append(content[pos:])
            vlen += len(content) - pos
            continue
        if region.terraform and "{" in content:
            pos = 0
            for m in _TF_ESCAPE.finditer(content):
                emb.av.append(vlen)
                emb.ah.append(hcs + pos)
                seg = content[pos:m.start()].replace("%{", "${")  # an inline directive: a hole
                parts.append(seg)
                vlen += len(seg)
                pos = m.start() + 1  # `$${` -> `${`, `%%{` -> `%{` (then a hole too)
                if content[m.start()] == "$":
                    emb.literals.append(vlen)
            emb.av.append(vlen)
            emb.ah.append(hcs + pos)
            seg = content[pos:].replace("%{", "${")
            parts.append(seg)
            vlen += len(seg)
            continue
        emb.av.append(vlen)
        emb.ah.append(hcs)
        parts.append(content)
        vlen += len(content)
    # the closing line: a line start with nothing stripped
    close_start = host.starts[region.end - 1] if region.end - 1 < len(host.starts) else len(text)
    emb.lines[region.end] = (vlen, close_start, close_start)
    emb.by_vstart.setdefault(vlen, region.end)
    emb.av.append(vlen)
    emb.ah.append(close_start)
    emb.prefix = prefix or ""
    body = "".join(parts)
    if not any_yaml and not _is_kubernetes(body):
        return None
    if not region.markdown and body.lstrip().startswith(("MIME-Version:", "Content-Type:", "#!")):
        return None  # a MIME document or a script (userData) that holds an object: not a manifest
    return SourceFile(path=host.src.path, text="\n" * (region.first - 1) + body, abspath=host.src.abspath,
                      encoding=host.src.encoding, bom=host.src.bom, newline=host.src.newline, embedding=emb)


