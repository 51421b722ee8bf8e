"""Untrusted text made safe for where it is written.

Everything in a report that comes from the checked tree (file names, YAML values quoted in messages, source
lines in code frames, userData excerpts) is untrusted: a pull request chooses it. Written raw, it could drive
the reader's terminal (ESC/CSI/OSC sequences: clipboard writes, titles, hyperlinks, screen clears), start a
line that GitHub Actions runs as a workflow command (`::error ...`, `::add-mask::`, `::stop-commands::`), or
break the output format (lone surrogates from non-UTF-8 file names). Reporters pass such text through these
functions; the escapes are visible (`\\x1b`), so nothing is hidden from the reader either.
"""

from __future__ import annotations

import re
import sys

# C0 controls but tab and newline, DEL, C1 controls, lone surrogates (non-UTF-8 bytes of file names), and the
# Unicode line separators and bidirectional overrides that reorder what a reader sees (CVE-2021-42574).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match) -> str:
    c = m.group(0)
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): show the byte
        return f"\\x{o - 0xDC00:02x}"
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def text(s: str) -> str:
    """For a terminal or a log: control characters shown as escapes; tabs and newlines kept."""
    return _UNSAFE.sub(_visible, s)


def line(s: str) -> str:
    """For a single line (a file name, a value inside a message line): newlines escaped too."""
    return _UNSAFE_LINE.sub(_visible, s)


# What JSON's encoder writes raw with ensure_ascii=False and a terminal may act on: DEL and C1 controls (\x9b is
# CSI), line separators, bidirectional overrides and isolates, lone surrogates. In JSON text they can only stand
# inside strings (its structure is ASCII), where a \u escape is the same value.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(s: str) -> str:
    """JSON text (what json.dumps wrote) with every character a terminal may act on as its \\u escape: the same
    JSON value, safe to print (C0 controls are the encoder's own escapes already)."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", s)


def no_commands(out: str) -> str:
    """No line of `out` starts (after blanks, which the Actions runner trims) with `::`, which GitHub Actions
    reads as a workflow command whatever the output format: the first colon of such a line is written as its
    visible escape."""
    if "::" not in out:
        return out
    return "\n".join(("\\x3a" + ln.lstrip()[1:]) if ln.lstrip().startswith("::") else ln for ln in out.split("\n"))


def name(s: str) -> str:
    """A file name or other single-line value that may start an output line."""
    return no_commands(line(s))


class Escaped:
    """A text stream wrapper that escapes what is written to it (each write being whole lines)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, s: str) -> int:
        return self.stream.write(no_commands(text(s)))

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return _isatty(self.stream)

    def __getattr__(self, attr):  # encoding, errors, fileno...: the stream's
        return getattr(self.stream, attr)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# A line that starts, after blanks and colour codes (which rich writes before a styled line), with `::`.
_COMMAND_START = re.compile(r"^((?:[ \t]|\x1b\[[0-9;]*m)*):(?=:)", re.M)


class _NoCommands(Escaped):
    """What a rich console writes: its own colour codes kept (untrusted text was escaped before rich styled it,
    `console`), no line starting with `::`."""

    def write(self, s: str) -> int:
        return self.stream.write(_COMMAND_START.sub(r"\1\\x3a", s) if "::" in s else s)


def console(*, stderr: bool = False, file=None, **options):
    """A rich Console for output that holds untrusted text: the one way commands build one. Markup, emoji codes
    and highlighting are off (a `[link=...]` or `[/]` in a label stays text); every piece of text is escaped as
    `text` does when rich renders it, before styling (so its own colour codes stay the only escapes); and no
    output line starts with `::`. `options`: rich.console.Console's."""
    from rich.console import Console, RenderHook

    class _EscapeText(RenderHook):
        def process_renderables(self, renderables):
            return [_Escaping(r) for r in renderables]

    stream = file if file is not None else (sys.stderr if stderr else sys.stdout)
    out = Console(file=_NoCommands(stream), markup=False, emoji=False, highlight=False, **options)
    out.push_render_hook(_EscapeText())
    return out


class _Escaping:
    """A renderable whose text segments are escaped (`text`); rich's control segments (cursor moves) are kept."""

    def __init__(self, renderable):
        self.renderable = renderable

    def __rich_console__(self, console, options):
        from rich.segment import Segment

        for seg in console.render(self.renderable, options):
            if seg.control or not _UNSAFE.search(seg.text):
                yield seg
            else:
                yield Segment(text(seg.text), seg.style)
