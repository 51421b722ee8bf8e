"""A line-by-line Python port of the systemd 219 code that carries `KUBELET_EXTRA_ARGS` on AL2.

Source: redhat-plumbers/systemd-rhel7 at d2d5f303e9062eff40a0a78ffa7dae0a3e9412e0 (branch rhel-7.9, systemd 219
as shipped by RHEL 7 / Amazon Linux 2):

* `src/shared/fileio.c` `read_line`: `\\n` and NUL end a line.
* `src/shared/conf-parser.c` `config_parse` (continuation loop) and `parse_line`: a line ending in an unescaped
  backslash has that backslash replaced by a space and is joined with the next line; `#`/`;` lines are comments.
* `src/shared/util.c` `strcspn_escaped`, `split` (FOREACH_WORD_QUOTED), `cunescape_length_with_prefix`
  (invalid escapes are kept literally), `unquote_first_word`; `src/shared/strv.c` `strv_split_quoted`.
* `src/core/load-fragment.c` `config_parse_environ`; `src/shared/env-util.c` `env_assignment_is_valid`,
  `env_value_is_valid`; `src/shared/util.c` `string_has_cc`, `replace_env_argv` (a word that is `$NAME` is
  replaced by `strv_split_quoted(value, relax=true)`; an error makes the exec fail).

Every string is carried with `idx`, the index of each character in the caller's source (-1 for characters the
caller did not write), so findings can point at the user's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

WHITESPACE = " \t\n\r"
COMMENTS = "#;"
_ENV_NAME = re.compile(r"^[A-Za-z0-9_]+$")  # VALID_CHARS_ENV_NAME = DIGITS LETTERS "_"; env_name_is_valid_n
_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"',
           "'": "'", "s": " "}


def strcspn_escaped(s: str, start: int, reject: str) -> int:
    """util.c `strcspn_escaped` on s[start:]: length of the prefix without an unescaped `reject` character."""
    escaped = False
    n = 0
    while start + n < len(s):
        ch = s[start + n]
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in reject:
            break
        n += 1
    return n - escaped  # if s ends in \, return index of previous char


def split_quoted(s: str) -> tuple[list[tuple[int, int]], int | None]:
    """util.c `split(..., WHITESPACE, quoted=true)` iterated as FOREACH_WORD_QUOTED: the (start, length) of each
    word (quotes excluded) and, when the iteration stopped early, where (`state` not empty: "Trailing garbage")."""
    words: list[tuple[int, int]] = []
    cur = 0
    n = len(s)
    while True:
        if cur >= n:
            return words, None
        while cur < n and s[cur] in WHITESPACE:
            cur += 1
        if cur >= n:
            return words, None
        if s[cur] in "'\"":
            q = s[cur]
            ln = strcspn_escaped(s, cur + 1, q)
            after = cur + ln + 1
            if after >= n or s[after] != q or (after + 1 < n and s[after + 1] not in WHITESPACE):
                return words, cur  # right quote missing or garbage at the end
            words.append((cur + 1, ln))
            cur = after + 1
        else:
            ln = strcspn_escaped(s, cur, WHITESPACE)
            if cur + ln < n and s[cur + ln] not in WHITESPACE:
                return words, cur  # unfinished escape
            words.append((cur, ln))
            cur += ln


def cunescape_length(s: str, idx: list[int]) -> tuple[str, list[int]]:
    """util.c `cunescape_length_with_prefix`: C unescaping; an invalid escape is taken literally."""
    out: list[str] = []
    oidx: list[int] = []
    f = 0
    n = len(s)
    while f < n:
        remaining = n - f
        if s[f] != "\\":
            out.append(s[f])
            oidx.append(idx[f])
            f += 1
            continue
        remaining -= 1
        if remaining == 0:  # copy trailing backslash verbatim
            out.append(s[f])
            oidx.append(idx[f])
            break
        at = idx[f]
        f += 1
        e = s[f]
        if e in _SIMPLE:
            out.append(_SIMPLE[e])
            oidx.append(at)
        elif e == "x":
            a = int(s[f + 1], 16) if remaining >= 2 and s[f + 1] in "0123456789abcdefABCDEF" else -1
            b = int(s[f + 2], 16) if remaining >= 3 and s[f + 2] in "0123456789abcdefABCDEF" else -1
            # C reads f[1], f[2] when remaining >= 2: f[2] may be the terminating NUL (not a hex digit)
            if a < 0 or b < 0 or (a == 0 and b == 0):
                out += ["\\", "x"]
                oidx += [at, idx[f]]
            else:
                out.append(_byte((a << 4) | b))
                oidx.append(at)
                f += 2
        elif e in "01234567":
            digits = s[f:f + 3] if remaining >= 3 else ""
            if len(digits) == 3 and all(d in "01234567" for d in digits) and digits != "000":
                out.append(_byte(int(digits, 8) & 0xFF))  # (char) cast keeps the low byte
                oidx.append(at)
                f += 2
            else:
                out += ["\\", e]
                oidx += [at, idx[f]]
        else:
            out += ["\\", e]
            oidx += [at, idx[f]]
        f += 1
    return "".join(out), oidx


def _byte(b: int) -> str:
    """One byte from an escape: ASCII as is, a high byte as a lone surrogate (not valid UTF-8 on its own)."""
    return chr(b) if b < 0x80 else chr(0xDC00 + b)


def _has_cc(v: str) -> bool:
    return any((0 < ord(c) < 32 and c != "\t") or ord(c) == 127 for c in v)


def env_assignment_is_valid(e: str) -> bool:
    name, eq, value = e.partition("=")
    if not eq or not _ENV_NAME.match(name):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not _has_cc(value)


@dataclass
class Environ:
    values: dict[str, tuple[str, list[int]]] = field(default_factory=dict)
    errors: list[tuple[str, int]] = field(default_factory=list)  # (message, index in the caller's source)


def config_parse_environ(rvalue: str, idx: list[int], env: Environ) -> None:
    """load-fragment.c `config_parse_environ` (no unit specifiers in our drop-in)."""
    if rvalue == "":
        env.values.clear()
        return
    words, stopped = split_quoted(rvalue)
    for start, ln in words:
        n, nidx = cunescape_length(rvalue[start:start + ln], idx[start:start + ln])
        if not env_assignment_is_valid(n):
            env.errors.append((f"Invalid environment assignment, ignoring: {rvalue}", idx[start] if ln else -1))
            continue
        name, _, val = n.partition("=")
        env.values[name] = (val, nidx[len(name) + 1:])
    if stopped is not None:
        env.errors.append(("Trailing garbage, ignoring.", idx[stopped]))


def logical_lines(text: str, idx: list[int]) -> list[tuple[str, list[int]]]:
    """read_line + the continuation loop of conf-parser.c `config_parse`."""
    lines: list[tuple[str, list[int]]] = []
    cont: tuple[str, list[int]] | None = None
    pos = 0
    n = len(text)
    while pos < n:
        end = pos
        while end < n and text[end] not in "\n\0":
            end += 1
        l, lidx = text[pos:end], idx[pos:end]
        pos = end + 1
        p, pidx = (cont[0] + l, cont[1] + lidx) if cont is not None else (l, lidx)
        cont = None
        escaped = False
        for ch in p:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
        if escaped:
            cont = (p[:-1] + " ", pidx)
            continue
        lines.append((p, pidx))
    return lines  # a continuation pending at EOF is never parsed


def _strip(s: str, idx: list[int]) -> tuple[str, list[int]]:
    a, b = 0, len(s)
    while a < b and s[a] in WHITESPACE:
        a += 1
    while b > a and s[b - 1] in WHITESPACE:
        b -= 1
    return s[a:b], idx[a:b]


def parse_service_environment(text: str, idx: list[int]) -> Environ:
    """`parse_line` for every logical line of a unit drop-in, applying `Environment=` of section [Service]."""
    env = Environ()
    section = None
    for raw, ridx in logical_lines(text, idx):
        line, lidx = _strip(raw, ridx)
        if not line or line[0] in COMMENTS + "\n":
            continue
        if line[0] == "[":
            section = line[1:-1] if line.endswith("]") else None
            continue
        eq = line.find("=")
        if eq < 0:
            continue  # "Missing '='."
        key, _ = _strip(line[:eq], lidx[:eq])
        rvalue, vidx = _strip(line[eq + 1:], lidx[eq + 1:])
        if section == "Service" and key == "Environment":
            config_parse_environ(rvalue, vidx, env)
    return env


def unquote_first_word(s: str, p: int, relax: bool) -> tuple[int, list[int] | None, int]:
    """util.c `unquote_first_word`: (rc, indexes into s of the word's characters or None, new p).
    rc 1 = a word, 0 = none (also for an empty word such as `""`), -1 = -EINVAL."""
    START, VALUE, VALUE_ESCAPE, SQ, SQ_ESCAPE, DQ, DQ_ESCAPE, SPACE = range(8)
    state = START
    out: list[int] | None = None
    n = len(s)
    while True:
        c = s[p] if p < n else "\0"
        if state == START:
            if c == "\0":
                break
            if c in WHITESPACE:
                p += 1
                continue
            state = VALUE
        if state == VALUE:
            if c == "\0":
                break
            if c == "'":
                state = SQ
            elif c == "\\":
                state = VALUE_ESCAPE
            elif c == '"':
                state = DQ
            elif c in WHITESPACE:
                state = SPACE
            else:
                out = (out or []) + [p]
        elif state in (VALUE_ESCAPE, SQ_ESCAPE, DQ_ESCAPE):
            if c == "\0":
                if relax:
                    break
                return -1, None, p
            out = (out or []) + [p]
            state = {VALUE_ESCAPE: VALUE, SQ_ESCAPE: SQ, DQ_ESCAPE: DQ}[state]
        elif state == SQ:
            if c == "\0":
                if relax:
                    break
                return -1, None, p
            if c == "'":
                state = VALUE
            elif c == "\\":
                state = SQ_ESCAPE
            else:
                out = (out or []) + [p]
        elif state == DQ:
            if c == "\0":
                return -1, None, p
            if c == '"':
                state = VALUE
            elif c == "\\":
                state = DQ_ESCAPE
            else:
                out = (out or []) + [p]
        elif state == SPACE:
            if c == "\0" or c not in WHITESPACE:
                break
        p += 1
    if out is None:
        return 0, None, p
    return 1, out, p


def strv_split_quoted(s: str, relax: bool = True) -> tuple[int, list[list[int]], int]:
    """strv.c `strv_split_quoted`: (rc, words as index lists into s, where the scan stopped)."""
    words: list[list[int]] = []
    p = 0
    while True:
        r, w, p = unquote_first_word(s, p, relax)
        if r < 0:
            return r, words, p
        if r == 0:
            return 0, words, p
        words.append(w)  # type: ignore[arg-type]
