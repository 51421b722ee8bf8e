"""Text regions of a host file that hold YAML, the part of `readers.embedded` that finds them without building
anything: the host's lines (`HostText`), a region (`Region`), shell heredocs (`shell_regions`) and the cheap
test of whether a text holds a Kubernetes object (`is_kubernetes`). Shared by the Terraform, shell, Markdown
and AsciiDoc readers (`readers.embedded`, `readers.docblocks`); below both.

Shell heredocs (https://pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html#tag_19_07_04):
`<<-` strips leading tabs; an unquoted delimiter expands `$VAR`, which stays a hole. A `<<` inside quotes is
not a redirection (`sed "s/<<CLUSTER_NAME>>/x/"`: a placeholder, the karpenter-blueprints convention).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from karplint.readers.source import SourceFile

_K8S_API = re.compile(r"(?m)^( *)apiVersion:[ \t]*\S")
_K8S_KIND = re.compile(r"(?m)^( *)kind:[ \t]*\S")
_K8S_ITEMS = re.compile(r"(?m)^( *)items:[ \t]*(?:#.*)?\r?$")  # a List cut short before its `kind:` (`kubectl get`)
_TOP_KEY = re.compile(r"(?m)^( *)[^\s#-][^:\n]*:(?:[ \t]|$)")

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class HostText:
    """A host file's text by line."""

    def __init__(self, src: SourceFile):
        self.src = src
        self.text = src.text
        self.starts = src.line_starts()

    _closers: dict | None = None

    def candidates(self, marker: str, start: int):
        """Line numbers >= start whose text, without surrounding whitespace, is `marker` (at most 8: a closing
        line is usually the first; an index built once keeps a file of unclosed heredocs linear)."""
        if self._closers is None:
            self._closers = {}
            for n in range(1, len(self.starts) + 1):
                t = self.line(n).strip()
                if 0 < len(t) <= 64 and _WORD.fullmatch(t):
                    self._closers.setdefault(t, []).append(n)
        found = self._closers.get(marker, ())
        i = bisect.bisect_left(found, start)
        return found[i:i + 8]

    def line(self, n: int) -> str:
        """Host line n (1-based) with its newline."""
        s = self.starts[n - 1]
        e = self.starts[n] if n < len(self.starts) else len(self.text)
        return self.text[s:e]


@dataclass
class Region:
    first: int  # first body line (1-based)
    end: int  # the line after the body (the closing marker's line), exclusive
    strip: int  # at most this many leading whitespace characters are removed from each line
    strip_chars: str = " \t"
    terraform: bool = False  # template syntax of Terraform
    shell: bool = False  # an unquoted shell heredoc (not literal)
    markdown: bool = False  # a documentation block (Markdown or AsciiDoc)
    guessed: bool = False  # read as YAML by its content (an un-languaged fence): if it is not YAML, nothing
    attributes: bool = False  # AsciiDoc `subs=attributes`: `{name}` is an attribute reference, a hole
    callouts: bool = False  # AsciiDoc: a trailing `<1>` is a callout, not text
    unterminated: str = ""  # a shell heredoc without its delimiter line: the delimiter
    local: str = ""  # a Terraform heredoc that is the value of this local (`locals { NAME = <<YAML`)


def is_kubernetes(vtext: str) -> bool:
    """apiVersion and kind at the top level (the least indentation of the text, usually none)."""
    api = _K8S_API.search(vtext)
    if api is None or _K8S_KIND.search(vtext) is None:
        return False
    indents = {len(m.group(1)) for m in _TOP_KEY.finditer(vtext)}
    top = min(indents) if indents else 0
    return any(len(m.group(1)) == top for m in _K8S_API.finditer(vtext)) and \
        (any(len(m.group(1)) == top for m in _K8S_KIND.finditer(vtext))
         or any(len(m.group(1)) == top for m in _K8S_ITEMS.finditer(vtext)))


_SH_HEREDOC = re.compile(r"(?<!<)<<(-?)[ \t]*(\\?)(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\3")


def heredoc_start(line: str):
    """The first `<<WORD` of a shell line that is a heredoc redirection: not inside quotes (`"<<X>>"` is text)
    and not a `<<X>>` placeholder. None when there is none."""
    for m in _SH_HEREDOC.finditer(line):
        if line.startswith(">>", m.end()) or _quoted(line, m.start()):
            continue
        return m
    return None


# A shell prompt before a command in documentation: `$ `, `~$ `, `# ` (root), `user@host:~/dir$ `
_PROMPT = re.compile(r"^[ \t]*(?:[\w.-]+@[\w.-]+:\S*?)?~?[$#][ \t]+")
# `key: value`, `- key:`: a YAML line (`<<: *defaults` is a merge key, not a heredoc)
_YAML_KEY_LINE = re.compile(r"^[ \t]*(?:-[ \t]+)?[\w./\"'-]+:(?:[ \t]|\r?$)")


def without_prompt(line: str) -> str:
    """`line` without a leading shell prompt (documentation shows commands after one)."""
    m = _PROMPT.match(line)
    return line[m.end():] if m else line


def heredoc_command(line: str) -> bool:
    """Is `line` a shell command that opens a heredoc (`cat <<EOF | kubectl apply -f -`), optionally after a
    prompt, rather than a YAML line or a comment?"""
    cmd = without_prompt(line)
    return "<<" in cmd and not cmd.lstrip().startswith("#") and not _YAML_KEY_LINE.match(cmd) and \
        heredoc_start(cmd) is not None


def _quoted(line: str, pos: int) -> bool:
    """Is `pos` inside a single- or double-quoted string of the shell line (backslash escapes outside single quotes)?"""
    quote = ""
    i = 0
    while i < pos:
        c = line[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        i += 1
    return bool(quote)


def min_indent(host: HostText, first: int, end: int, chars: str = " \t") -> int:
    best = None
    for n in range(first, end):
        line = host.line(n).rstrip("\r\n")
        if not line.strip():
            continue
        w = len(line) - len(line.lstrip(chars))
        best = w if best is None else min(best, w)
    return best or 0


def shell_regions(host: HostText, first: int, end: int, outer: Region | None, prompts: bool = False) -> list[Region]:
    """The heredocs of shell lines first..end-1 (`outer`: the block or heredoc they sit in; without one, a heredoc
    without its delimiter runs to the end). `prompts`: a documentation block whose commands may follow a prompt,
    `# ` included (a root prompt, not a comment)."""
    out: list[Region] = []
    n = first
    while n < end:
        line = host.line(n)
        if prompts:
            line = without_prompt(line)
        m = heredoc_start(line) if "<<" in line else None
        if m is None or line.lstrip().startswith("#"):
            n += 1
            continue
        dash, quoted, marker = m.group(1) == "-", bool(m.group(2) or m.group(3)), m.group(4)
        base = outer.strip if outer else 0
        close = None
        for k in host.candidates(marker, n + 1):
            if k >= end:
                break
            body = host.line(k).rstrip("\r\n")
            lead = len(body) - len(body.lstrip(" \t"))
            body = body[min(base, lead):]
            if (body.lstrip("\t") if dash else body) == marker:
                close = k
                break
        missing = ""
        if close is None and outer is None:
            close, missing = end, marker  # bash reads a heredoc without its delimiter to the end of the file
        if close is None:
            n += 1
            continue
        # `<<-`: the shell strips every leading tab (after Terraform stripped its indentation)
        strip = min_indent(host, n + 1, close) if dash else base
        out.append(Region(n + 1, close, strip, " \t", terraform=bool(outer and outer.terraform), shell=not quoted,
                          unterminated=missing))
        n = close + 1
    return out
