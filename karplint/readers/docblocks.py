"""Code blocks of documentation that hold Kubernetes YAML: Markdown fences and AsciiDoc listing blocks.

A block is read as what its language says (`yaml`: YAML; `bash`, `sh`, `console`: its shell heredocs), and a
block without a language by its content, because workshops write `cat <<EOF | kubectl apply -f -` in bare
fences: a shell heredoc -> the YAML inside it; a template (`{{`) -> nothing (the template readers' business);
apiVersion and kind at the top -> YAML, *guessed*: if it does not parse, it was not YAML (console output,
prose), and nothing is said; anything else -> nothing. A bare block is never "invalid YAML".
A `yaml` block whose first line is a shell command opening a heredoc, after a prompt or not
(`~$ cat <<EOF | kubectl apply -f -`), is a shell transcript labelled yaml: read as shell. A block that does not
parse and names no Karpenter apiVersion is documentation of other software: nothing is said (readers/embedded.py).

Markdown (https://spec.commonmark.org/0.31.2/#fenced-code-blocks): fences as markdown-it-py (a dependency of
rich) finds them, so that a fence inside an indented code block, an HTML block or another fence is not one;
the fence's indentation (a list item) is removed from the block's lines; fences in block quotes are left alone.
AsciiDoc (https://docs.asciidoctor.org/asciidoc/latest/verbatim/source-blocks/): a `----` (or `....`) block,
with the language of the `[source,LANG]` attribute line above it if any; trailing callouts (`<1>`) are not
text; with `subs="attributes"`, `{name}` is an attribute reference, a hole.
"""

from __future__ import annotations

import bisect
import re

from karplint.readers.regions import HostText, Region, heredoc_command, heredoc_start, is_kubernetes, shell_regions

YAML_LANGS = frozenset({"yaml", "yml"})
SHELL_LANGS = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session", "terminal"})
_GUESS_LINES = 200  # how much of a bare block the content test reads
# markdown-it-py costs ~60 us per list item: a hostile 5 MB file of `- x` lines would take minutes. Above this many
# lines, fences are found by a line scan instead (linear; it misses only CommonMark's finer points).
MARKDOWN_IT_MAX_LINES = 10_000
MARKDOWN_IT_MAX_CHARS = 1_000_000  # (deeply nested lists: ~0.35 s per MB)
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)")

_md = None


def _markdown():
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        _md = MarkdownIt("commonmark")
        _md.core.ruler.disable("inline")  # (block structure only: inline parsing is 60% of the time)
    return _md


def _by_language(host: HostText, lang: str, first: int, end: int, indent: int, **flags) -> list[Region]:
    """The regions of one code block (body lines first..end-1, `indent` stripped) of language `lang` ("" when
    it has none)."""
    body = [host.line(k)[indent:] for k in range(first, min(end, first + _GUESS_LINES))]
    if lang in YAML_LANGS:
        # a ```yaml block that starts with `~$ cat <<EOF | kubectl apply -f -`: a shell transcript, its YAML in
        # the heredoc (unclosed: read as YAML, as labelled)
        head = next((x for x in body if x.strip()), "")
        shell = _shell(host, first, end, indent, flags, prompts=True) if heredoc_command(head) else []
        return shell or [Region(first, end, indent, " \t", markdown=True, **flags)]
    if lang in SHELL_LANGS or (not lang and any(
            "<<" in x and not x.lstrip().startswith("#") and heredoc_start(x) for x in body)):
        return _shell(host, first, end, indent, flags)
    if lang or any("{{" in x for x in body):
        return []  # another language; or a template: not plain YAML
    if is_kubernetes("".join(body)):
        return [Region(first, end, indent, " \t", markdown=True, guessed=True, **flags)]
    return []


def _shell(host: HostText, first: int, end: int, indent: int, flags: dict, prompts: bool = False) -> list[Region]:
    out = shell_regions(host, first, end, Region(first, end, indent), prompts=prompts)
    for r in out:
        r.markdown = True
        r.callouts = flags.get("callouts", False)
    return out


def markdown_regions(host: HostText) -> list[Region]:
    out: list[Region] = []
    total = len(host.starts)
    if total > MARKDOWN_IT_MAX_LINES or len(host.text) > MARKDOWN_IT_MAX_CHARS:
        return _scanned_fences(host)
    for tok in _markdown().parse(host.text):
        if tok.type != "fence" or tok.map is None:
            continue
        start, after = tok.map  # 0-based: the opening fence's line, the line after the block
        opening = host.line(start + 1)
        if opening.lstrip(" \t").startswith(">"):
            continue  # in a block quote: its `>` prefixes are not stripped
        indent = len(opening) - len(opening.lstrip(" \t"))
        end = after  # 1-based: the closing fence's line, when there is one
        closing = host.line(end).strip() if end <= total else ""
        ch = tok.markup[0]
        if not (end > start + 1 and closing.startswith(tok.markup) and not closing.strip(ch)):
            end = after + 1  # unclosed: the block runs to the end of its container
        lang = tok.info.strip().split(maxsplit=1)[0].lower() if tok.info.strip() else ""
        out.extend(_by_language(host, lang.strip("{}."), start + 2, end, indent))
    return out


def _scanned_fences(host: HostText) -> list[Region]:
    """Fences by a line scan: an opening fence, then the first line of the same character at least as long."""
    out: list[Region] = []
    n, total = 1, len(host.starts)
    closers: dict[str, list[int]] = {}  # fence character -> lines made only of it (3+), built once: linear
    for k in range(1, total + 1):
        t = host.line(k).strip()
        if len(t) >= 3 and t[0] in "`~" and not t.strip(t[0]):
            closers.setdefault(t[0], []).append(k)
    while n <= total:
        line = host.line(n)
        m = _FENCE.match(line) if ("```" in line or "~~~" in line) else None
        if m is None:
            n += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        found = closers.get(fence[0], [])
        close = total + 1
        for i in range(bisect.bisect_right(found, n), len(found)):
            if len(host.line(found[i]).strip()) >= len(fence):
                close = found[i]
                break
        out.extend(_by_language(host, lang.strip("{}."), n + 1, close, indent))
        n = close + 1
    return out


_ADOC_ATTRS = re.compile(r"^\[(?:source)?,[ \t]*([A-Za-z0-9_+-]+)[^\]]*\][ \t]*\r?$|^\[source\][ \t]*\r?$")
_ADOC_SUBS_ATTRIBUTES = re.compile(r"subs[ \t]*=[ \t]*\"?[^\]\"]*attributes")
_ADOC_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|/{4,}|\+{4,})[ \t]*\r?$")


def asciidoc_regions(host: HostText) -> list[Region]:
    out: list[Region] = []
    n, total = 1, len(host.starts)
    lang, subs, attr_line = "", False, 0
    while n <= total:
        line = host.line(n)
        if line.startswith("["):
            m = _ADOC_ATTRS.match(line)
            if m is not None:
                lang, subs, attr_line = (m.group(1) or "").lower(), bool(_ADOC_SUBS_ATTRIBUTES.search(line)), n
            n += 1
            continue
        d = _ADOC_DELIMITER.match(line) if line[:1] in "-./+" else None
        if d is None:
            if line.strip() and not line.startswith("."):  # (a `.Title` line may sit between attributes and block)
                lang, subs, attr_line = "", False, 0
            n += 1
            continue
        delimiter = d.group(1)
        close = next((k for k in range(n + 1, total + 1) if host.line(k).rstrip("\r\n \t") == delimiter), total + 1)
        if delimiter[0] in "-." and attr_line:
            out.extend(_by_language(host, lang, n + 1, close, 0, callouts=True, attributes=subs))
        elif delimiter[0] in "-.":
            out.extend(_by_language(host, "", n + 1, close, 0, callouts=True))
        # comment (////) and passthrough (++++) blocks are skipped whole
        lang, subs, attr_line = "", False, 0
        n = close + 1
    return out
