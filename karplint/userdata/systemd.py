"""How systemd carries `KUBELET_EXTRA_ARGS` to the kubelet (userdata.md §2.2-2.3).

AL2 ships systemd 219, AL2023 systemd 252. bootstrap.sh writes the drop-in

    [Service]
    Environment='KUBELET_EXTRA_ARGS=<value>'

literally, and `kubelet.service` runs `ExecStart=/usr/bin/kubelet ... $KUBELET_ARGS $KUBELET_EXTRA_ARGS`, where a
word that is exactly `$NAME` is split into words.

* `environment_219(rvalue)`: `Environment=` parsing. A word starting with a quote runs to the next unescaped same
  quote, which must be followed by whitespace or the end of the line, else "Trailing garbage, ignoring." and
  nothing is assigned. Words are C-unescaped and must be `NAME=value`.
* `kubelet_extra_args_219(value)`: the whole AL2 path for one bootstrap.sh value: a single quote or a newline in
  the value drops the variable; then `split_exec_219`.
* `split_exec_219(value)`: `$VAR` splitting in ExecStart: separators space/TAB/LF/CR, quotes removed anywhere in a
  word, `\\x` -> `x`; an unterminated `"` makes exec fail (kubelet never starts); an unterminated `'` is accepted;
  an empty word (`""`) ends the list.
* `split_exec_252(value)`: unbalanced quotes tolerated, `""` yields an empty argument.

Every word keeps, for each of its characters, the index of the source character in the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SEPARATORS = " \t\n\r"
_CUNESCAPE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
              '"': '"', "'": "'", "s": " "}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class SplitWord:
    value: str
    offsets: list[int]  # index in the input of each value character
    start: int
    end: int


@dataclass
class ExecSplit:
    words: list[SplitWord] = field(default_factory=list)
    exec_fails: bool = False  # unterminated double quote (219): the unit's ExecStart fails
    error: str | None = None
    error_at: int | None = None
    truncated_at: int | None = None  # an empty word ended the list here; later words are lost
    lost: str = ""  # the text that never reaches the kubelet


def _next_word(value: str, i: int) -> tuple[int, int, list[str], list[int], str | None, int] | None:
    """The word of an ExecStart line starting at or after `i` (separators skipped), with quotes and backslashes
    removed as both systemd versions do: (start, end, chars, offsets, quote left open, where it opened); None at
    the end of the line. The versions differ only in what they make of an empty word or an open quote."""
    n = len(value)
    while i < n and value[i] in _SEPARATORS:
        i += 1
    if i >= n:
        return None
    start = i
    chars: list[str] = []
    offs: list[int] = []
    quote: str | None = None
    quote_at = 0
    while i < n:
        c = value[i]
        if quote is None and c in _SEPARATORS:
            break
        if c == "\\" and i + 1 < n:
            chars.append(value[i + 1])
            offs.append(i + 1)
            i += 2
            continue
        if quote is None and c in "'\"":
            quote, quote_at = c, i
            i += 1
            continue
        if quote is not None and c == quote:
            quote = None
            i += 1
            continue
        chars.append(c)
        offs.append(i)
        i += 1
    return start, i, chars, offs, quote, quote_at


def split_exec_219(value: str) -> ExecSplit:
    out = ExecSplit()
    i = 0
    while (word := _next_word(value, i)) is not None:
        start, i, chars, offs, quote, quote_at = word
        if quote == '"':
            out.exec_fails = True
            out.error = 'unterminated double quote: systemd 219 cannot split the command line and the kubelet never starts'
            out.error_at = quote_at
            return out
        if not chars:  # an empty word ("" or '') ends the list in 219
            if i < len(value) and value[i:].strip(_SEPARATORS):
                out.truncated_at = start
                out.lost = value[i:].strip(_SEPARATORS)
            return out
        out.words.append(SplitWord("".join(chars), offs, start, i))
    return out


def split_exec_252(value: str) -> ExecSplit:
    """systemd 252 (EXTRACT_RELAX|EXTRACT_UNQUOTE): open quotes are tolerated and "" is an empty argument."""
    out = ExecSplit()
    i = 0
    while (word := _next_word(value, i)) is not None:
        start, i, chars, offs, _, _ = word
        out.words.append(SplitWord("".join(chars), offs, start, i))
    return out


def cunescape(word: str) -> tuple[str, list[int]] | None:
    """systemd `cunescape`: (text, index in `word` of each output character), or None for an invalid escape."""
    out: list[str] = []
    offs: list[int] = []
    i = 0
    while i < len(word):
        c = word[i]
        if c == "\\" and i + 1 < len(word):
            e = word[i + 1]
            if e in _CUNESCAPE:
                out.append(_CUNESCAPE[e])
                offs.append(i)
                i += 2
                continue
            if e == "x" and re.match(r"[0-9a-fA-F]{2}", word[i + 2:i + 4]):
                out.append(chr(int(word[i + 2:i + 4], 16)))
                offs.append(i)
                i += 4
                continue
            if re.match(r"[0-7]{3}", word[i + 1:i + 4]):
                out.append(chr(int(word[i + 1:i + 4], 8)))
                offs.append(i)
                i += 4
                continue
            return None  # invalid escape: the word is rejected
        out.append(c)
        offs.append(i)
        i += 1
    return "".join(out), offs


def _cunescape(word: str) -> str | None:
    r = cunescape(word)
    return None if r is None else r[0]


@dataclass
class EnvResult:
    assignments: dict[str, str] = field(default_factory=dict)
    error: str | None = None  # why (part of) the line was ignored
    error_at: int | None = None


def environment_219(rvalue: str) -> EnvResult:
    """Parse the value of one `Environment=` line the way systemd 219 does."""
    res = EnvResult()
    n = len(rvalue)
    i = 0
    words: list[str] = []
    while i < n:
        while i < n and rvalue[i] in " \t":
            i += 1
        if i >= n:
            break
        if rvalue[i] in "'\"":
            q = rvalue[i]
            j = i + 1
            while j < n and not (rvalue[j] == q and rvalue[j - 1] != "\\"):
                j += 1
            if j >= n:
                return EnvResult({}, f"unterminated {q}: Trailing garbage, ignoring.", i)
            if j + 1 < n and rvalue[j + 1] not in " \t":
                return EnvResult({}, "Trailing garbage, ignoring.", j + 1)
            words.append(rvalue[i + 1:j])
            i = j + 1
            continue
        j = i
        while j < n and rvalue[j] not in " \t":
            j += 1
        words.append(rvalue[i:j])
        i = j
    for w in words:
        un = _cunescape(w)
        name, eq, val = (un or "").partition("=")
        if un is None or not eq or not _ENV_NAME.match(name) or any(ord(c) < 32 and c != "\t" for c in un):
            res.error = f"Invalid environment assignment, ignoring: {w}"
            continue
        res.assignments[name] = val
    return res


@dataclass
class ExtraArgsResult:
    """What the kubelet receives from one KUBELET_EXTRA_ARGS value on AL2 (systemd 219)."""

    argv: list[SplitWord] = field(default_factory=list)
    dropped: bool = False  # the Environment= line assigned nothing: kubelet runs without the extra args
    reason: str | None = None
    reason_at: int | None = None  # index in the value
    exec_fails: bool = False
    truncated_at: int | None = None
    lost: str = ""


def kubelet_extra_args_219(value: str) -> ExtraArgsResult:
    """The AL2 path for a bootstrap.sh `--kubelet-extra-args` value (empty value: no drop-in, no args)."""
    res = ExtraArgsResult()
    if value == "":
        return res
    nl = value.find("\n")
    if nl != -1:
        res.dropped = True
        res.reason = ("the value contains a newline: the drop-in line Environment='KUBELET_EXTRA_ARGS=... is cut "
                      "there, its quote is never closed and systemd 219 ignores the whole assignment")
        res.reason_at = nl
        return res
    sq = value.find("'")
    if sq != -1:
        res.dropped = True
        res.reason = ("the value contains a single quote: bootstrap.sh writes Environment='KUBELET_EXTRA_ARGS=...' "
                      "and systemd 219 stops the quoted word at it (\"Trailing garbage, ignoring.\"), so nothing "
                      "is assigned")
        res.reason_at = sq
        return res
    env = environment_219("'KUBELET_EXTRA_ARGS=" + value + "'")
    if "KUBELET_EXTRA_ARGS" not in env.assignments:
        res.dropped = True
        res.reason = f"systemd 219 rejects the Environment= line: {env.error}"
        res.reason_at = max(0, (env.error_at or 0) - len("'KUBELET_EXTRA_ARGS="))
        return res
    unescaped, index = cunescape(value)  # the Environment= word was C-unescaped: keep each char's source index
    split = split_exec_219(unescaped)
    for w in split.words:
        w.offsets = [index[k] if k < len(index) else k for k in w.offsets]
        w.start = index[w.start] if w.start < len(index) else w.start
    if split.truncated_at is not None and split.truncated_at < len(index):
        split.truncated_at = index[split.truncated_at]
    if split.error_at is not None and split.error_at < len(index):
        split.error_at = index[split.error_at]
    res.argv = split.words
    if split.exec_fails:
        res.exec_fails = True
        res.reason = split.error
        res.reason_at = split.error_at
    if split.truncated_at is not None:
        res.truncated_at = split.truncated_at
        res.lost = split.lost
    return res
