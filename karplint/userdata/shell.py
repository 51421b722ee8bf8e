"""Shell userData: commands and their argv as bash would build them, with offsets into the script.

bashlex 0.18 is not trusted for words (it drops nested quotes in `--opt='a="b"'`, mangles `$'...'` and
`"a"'b'"c"`) and fails outright on `<<'EOF'`, `[[ ]]`, `case`, `$(( ))` and arrays (idank/bashlex#99, #96, #68, #60). So:

* `scan(text)` is karplint's own tokenizer: it splits the script into simple commands (operators, newlines,
  heredoc bodies, comments, `\\`-newline continuations, `case` patterns, function headers), keeping each word's
  raw source span. It never raises.
* `unquote(raw, ...)` is bash quote removal on a word's raw text: `'...'`, `"..."` (backslash only before
  `$ \\` " newline`), `$'...'` ANSI-C escapes, `\\x`, backslash-newline removed, `\\r` kept as a word character.
  Every value character keeps the offset of the source character it came from.
* Words with unexpanded `$` or backticks are `dynamic`. Simple earlier assignments in the same script
  (`TAINTS=...` then `"--register-with-taints=${TAINTS}"`) are substituted; anything else stays dynamic.
* `parse_script(text)` runs bashlex (inside `except Exception`: it raises AttributeError/NotImplementedError
  too) only to learn whether a real parser understood the script; when it did not, `parser` is "line-scan" and
  `parse_error` says why, so rules can say the result is best effort instead of "ok".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

# ------------------------------------------------------------------------------------------------ data


@dataclass
class Word:
    raw: str
    start: int  # offsets of the raw word in the script
    end: int
    value: str  # after expansion of known variables and quote removal
    offsets: list[int]  # script offset of the source character of each value character
    dynamic: bool = False  # contains an expansion whose value is unknown at lint time
    quoted: bool = False  # any quoting or escaping was removed
    variables: tuple[str, ...] = ()  # variables substituted from earlier assignments
    unknown: tuple[str, ...] = ()  # expansions left unresolved (their text)
    splits: bool = False  # an unresolved unquoted expansion: bash may split it into several words

    def value_span(self, i: int, j: int) -> tuple[int, int]:
        """Script offsets covering value[i:j] (for a finding inside the value)."""
        if not self.offsets:
            return self.start, self.end
        i = max(0, min(i, len(self.offsets) - 1))
        j = max(i + 1, min(j, len(self.offsets)))
        lo = min(self.offsets[i:j])
        hi = max(self.offsets[i:j]) + 1
        return lo, hi


@dataclass
class Redirect:
    op: str  # ">", ">>", "<", "<<", "<<-", "<<<", ">&", "&>", ...
    fd: str  # "" or the io number
    target: Word | None
    start: int
    end: int
    heredoc_body: tuple[int, int] | None = None  # script offsets of a heredoc's body
    heredoc_quoted: bool = False  # <<'EOF': body not expanded


@dataclass
class Command:
    words: list[Word]  # the argv words (assignment prefixes excluded)
    assignments: list[Word]  # NAME=value prefixes
    redirects: list[Redirect]
    start: int
    end: int
    line: int  # 1-based line in the script
    pipe_from: "Command | None" = None  # the command whose output is piped into this one

    @property
    def argv(self) -> list[str]:
        return [w.value for w in self.words]

    @property
    def dynamic(self) -> bool:
        return any(w.dynamic for w in self.words)


@dataclass
class Assignment:
    name: str
    word: Word  # the whole NAME=value word
    value: Word  # the value part (quote-removed, variables substituted)
    exported: bool
    offset: int
    in_command: bool  # a prefix of a command (`A=b cmd`): only that command sees it
    top_level: bool = True  # not inside if/case/loop/function/subshell, not after && or ||


@dataclass
class ShellScript:
    text: str
    commands: list[Command]
    assignments: list[Assignment]
    parser: str  # "bashlex": bashlex parsed it too; "line-scan": bashlex failed; "not-checked": bashlex not run
    parse_error: str | None = None
    parse_error_offset: int | None = None
    unterminated: str | None = None  # the scanner itself hit an unterminated quote/heredoc

    def exported(self, name: str, before: int) -> Assignment | None:
        """The last exported assignment of `name` before offset `before` (environment pickup)."""
        found = None
        for a in self.assignments:
            if a.offset >= before:
                break
            if a.name == name and a.exported and not a.in_command:
                found = a
        return found


# ------------------------------------------------------------------------------------------------ quote removal

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_SPECIAL_PARAMS = "@*#?-$!0123456789"

Env = Callable[[str, int], "str | None"]  # (variable name, offset of use) -> static value or None


def _match_paren(text: str, i: int, open_ch: str, close_ch: str) -> int:
    """Index after the `close_ch` matching text[i] == open_ch, skipping quotes; len(text) if unterminated."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ch == "(":
            j = text.find("'", i + 1)
            i = n if j == -1 else j + 1
            continue
        if c == '"':
            i = _skip_double(text, i)
            continue
        if c == "`":
            j = text.find("`", i + 1)
            i = n if j == -1 else j + 1
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _skip_double(text: str, i: int) -> int:
    """Index after the `"` closing the double-quoted string opened at text[i]; len(text) if unterminated."""
    n = len(text)
    i += 1
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and i + 1 < n and text[i + 1] in "({":
            i = _match_paren(text, i + 1, text[i + 1], ")" if text[i + 1] == "(" else "}")
            continue
        if c == "`":
            j = text.find("`", i + 1)
            i = n if j == -1 else j + 1
            continue
        i += 1
    return n


def _ansi_c(text: str, i: int, out: list, offs: list) -> int:
    """Decode $'...' starting at text[i] == "'" (after the $); returns the index after the closing quote."""
    n = len(text)
    i += 1
    while i < n:
        c = text[i]
        if c == "'":
            return i + 1
        if c == "\\" and i + 1 < n:
            e = text[i + 1]
            if e in _ANSI_SIMPLE:
                out.append(_ANSI_SIMPLE[e])
                offs.append(i)
                i += 2
                continue
            if e == "x":
                m = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2:])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    offs.append(i)
                    i += 2 + len(m.group(0))
                    continue
            if e in "01234567":
                m = re.match(r"[0-7]{1,3}", text[i + 1:])
                out.append(chr(int(m.group(0), 8) & 0xFF))
                offs.append(i)
                i += 1 + len(m.group(0))
                continue
            if e == "c" and i + 2 < n:
                out.append(chr(ord(text[i + 2]) & 0x1F))
                offs.append(i)
                i += 3
                continue
            if e in "uU":
                m = re.match(r"[0-9A-Fa-f]{1,%d}" % (4 if e == "u" else 8), text[i + 2:])
                if m:
                    try:
                        out.append(chr(int(m.group(0), 16)))
                    except (ValueError, OverflowError):
                        out.append("?")
                    offs.append(i)
                    i += 2 + len(m.group(0))
                    continue
            out.append("\\")
            offs.append(i)
            out.append(e)
            offs.append(i + 1)
            i += 2
            continue
        out.append(c)
        offs.append(i)
        i += 1
    return n


@dataclass
class _Unquoted:
    value: str
    offsets: list[int]
    dynamic: bool
    quoted: bool
    variables: list[str]
    unknown: list[str]
    splits: bool = False


def _expansion(raw: str, i: int) -> tuple[int, str | None, str]:
    """At raw[i] == "$": (end index, simple variable name or None, expansion text). end == i+1 for a literal $."""
    n = len(raw)
    if i + 1 >= n:
        return i + 1, None, ""
    c = raw[i + 1]
    if c == "{":
        end = _match_paren(raw, i + 1, "{", "}")
        inner = raw[i + 2:end - 1]
        name = inner if _NAME.fullmatch(inner) else None
        return end, name, raw[i:end]
    if c == "(":
        end = _match_paren(raw, i + 1, "(", ")")
        return end, None, raw[i:end]
    m = _NAME.match(raw, i + 1)
    if m:
        return m.end(), m.group(0), raw[i:m.end()]
    if c in _SPECIAL_PARAMS:
        return i + 2, None, raw[i:i + 2]
    return i + 1, None, ""  # "$" followed by anything else is literal


# The longest variable value the simulation expands: far above any real kubelet argument, and a bound on the
# memory a few hundred bytes of `A=$A$A` lines can claim (each doubles the value).
MAX_EXPANDED_VALUE = 256 * 1024


def unquote(raw: str, base: int = 0, env: Env | None = None) -> _Unquoted:
    """Bash quote removal of one word's raw text; offsets are `base` + index into `raw`."""
    out: list[str] = []
    offs: list[int] = []
    dynamic = False
    quoted = False
    variables: list[str] = []
    unknown: list[str] = []
    splits = False
    n = len(raw)
    i = 0

    def expand(at: int, in_double: bool) -> int:
        nonlocal dynamic, splits
        end, name, text = _expansion(raw, at)
        if not text:  # literal $
            out.append("$")
            offs.append(base + at)
            return at + 1
        value = env(name, base + at) if (env is not None and name) else None
        if value is not None and len(value) > MAX_EXPANDED_VALUE:
            value = None  # an expansion bomb (A=$A$A ...): unknown from here on, so it cannot grow further
        if value is not None and (in_double or not any(ch in value for ch in " \t\n*?[")):
            out.extend(value)
            offs.extend([base + at] * len(value))
            variables.append(name)
        else:
            dynamic = True
            splits = splits or not in_double
            unknown.append(text)
            out.extend(text)
            offs.extend(range(base + at, base + end))
        return end

    def substitute(at: int, in_double: bool) -> int:
        """A `...` command substitution: unknown at lint time, kept verbatim; word-split unless quoted."""
        nonlocal dynamic, splits
        end = raw.find("`", at + 1)
        end = n if end == -1 else end + 1
        dynamic = True
        splits = splits or not in_double
        unknown.append(raw[at:end])
        out.extend(raw[at:end])
        offs.extend(range(base + at, base + end))
        return end

    while i < n:
        c = raw[i]
        if c == "\\":
            quoted = True
            if i + 1 < n:
                if raw[i + 1] == "\n":  # line continuation: both characters vanish
                    i += 2
                    continue
                out.append(raw[i + 1])
                offs.append(base + i + 1)
                i += 2
            else:
                out.append("\\")
                offs.append(base + i)
                i += 1
            continue
        if c == "'":
            quoted = True
            j = raw.find("'", i + 1)
            j = n if j == -1 else j
            out.extend(raw[i + 1:j])
            offs.extend(range(base + i + 1, base + j))
            i = j + 1
            continue
        if c == "$" and i + 1 < n and raw[i + 1] == "'":
            quoted = True
            sub_out: list[str] = []
            sub_offs: list[int] = []
            i = _ansi_c(raw, i + 1, sub_out, sub_offs)
            out.extend(sub_out)
            offs.extend(base + o for o in sub_offs)
            continue
        if c == "$" and i + 1 < n and raw[i + 1] == '"':  # $"..." (locale translation): a double-quoted string
            i += 1
            continue
        if c == '"':
            quoted = True
            i += 1
            while i < n and raw[i] != '"':
                d = raw[i]
                if d == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
                    if raw[i + 1] != "\n":
                        out.append(raw[i + 1])
                        offs.append(base + i + 1)
                    i += 2
                    continue
                if d == "$":
                    i = expand(i, True)
                    continue
                if d == "`":
                    i = substitute(i, True)
                    continue
                out.append(d)
                offs.append(base + i)
                i += 1
            i += 1
            continue
        if c == "$":
            i = expand(i, False)
            continue
        if c == "`":
            i = substitute(i, False)
            continue
        out.append(c)
        offs.append(base + i)
        i += 1
    return _Unquoted("".join(out), offs, dynamic, quoted, variables, unknown, splits)


def make_word(raw: str, start: int, env: Env | None = None) -> Word:
    u = unquote(raw, start, env)
    return Word(raw, start, start + len(raw), u.value, u.offsets, u.dynamic, u.quoted, tuple(u.variables),
                tuple(u.unknown), u.splits)


# ------------------------------------------------------------------------------------------------ scanner

_OPERATORS = ("&&", "||", ";;", ";&", "|&", ";", "&", "|", "(", ")")
_REDIRECT = re.compile(r"(\d*)(<<<|<<-|<<|<>|>>|>\||>&|<&|&>>|&>|>|<)")
_WORD_END = set(" \t\n;&|()<>")
_RESERVED_PREFIX = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "fi", "done",
                    "esac"}


@dataclass
class _Token:
    kind: str  # "word", "op", "redir", "newline"
    text: str
    start: int
    end: int
    redirect: Redirect | None = None


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.tokens: list[_Token] = []
        self.pending_heredocs: list[tuple[Redirect, str, bool]] = []  # (redirect, delimiter, strip tabs)
        self.unterminated: str | None = None

    def scan(self) -> list[_Token]:
        text = self.text
        n = len(text)
        i = 0
        while i < n:
            c = text[i]
            if c in " \t":
                i += 1
                continue
            if c == "\\" and i + 1 < n and text[i + 1] == "\n":
                i += 2
                continue
            if c == "\n":
                self.tokens.append(_Token("newline", "\n", i, i + 1))
                i += 1
                if self.pending_heredocs:
                    i = self._read_heredocs(i)
                continue
            if c == "#":
                j = text.find("\n", i)
                i = n if j == -1 else j
                continue
            m = _REDIRECT.match(text, i)
            if m and not (c in "<>" and i + 1 < n and text[i + 1] == "("):
                i = self._redirect(m)
                continue
            for op in _OPERATORS:
                if text.startswith(op, i):
                    self.tokens.append(_Token("op", op, i, i + len(op)))
                    i += len(op)
                    break
            else:
                end = self._word_end(i)
                self.tokens.append(_Token("word", text[i:end], i, end))
                i = end
        return self.tokens

    def _word_end(self, i: int) -> int:
        text = self.text
        n = len(text)
        start = i
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == "'":
                j = text.find("'", i + 1)
                if j == -1:
                    self.unterminated = self.unterminated or f"unterminated single quote at offset {i}"
                    return n
                i = j + 1
                continue
            if c == '"':
                j = _skip_double(text, i)
                if j >= n and not text.endswith('"'):
                    self.unterminated = self.unterminated or f"unterminated double quote at offset {i}"
                i = j
                continue
            if c == "$" and i + 1 < n and text[i + 1] == "'":
                j = i + 2
                while j < n and text[j] != "'":
                    j += 2 if text[j] == "\\" else 1
                i = min(n, j + 1)
                continue
            if c == "$" and i + 1 < n and text[i + 1] in "({":
                i = _match_paren(text, i + 1, text[i + 1], ")" if text[i + 1] == "(" else "}")
                continue
            if c == "`":
                j = text.find("`", i + 1)
                i = n if j == -1 else j + 1
                continue
            if c in "<>" and i + 1 < n and text[i + 1] == "(" and i == start:  # process substitution
                i = _match_paren(text, i + 1, "(", ")")
                continue
            if c == "(" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\+?=", text[start:i]):  # array assignment
                i = _match_paren(text, i, "(", ")")
                continue
            if c in _WORD_END:
                break
            i += 1
        return min(i, n)

    def _redirect(self, m: re.Match) -> int:
        text = self.text
        op, fd = m.group(2), m.group(1)
        i = m.end()
        n = len(text)
        while i < n and text[i] in " \t":
            i += 1
        target = None
        if i < n and text[i] not in "\n;&|()<>":
            end = self._word_end(i)
            target = make_word(text[i:end], i)
            i = end
        red = Redirect(op, fd, target, m.start(), i)
        if op in ("<<", "<<-") and target is not None:
            red.heredoc_quoted = target.quoted
            self.pending_heredocs.append((red, target.value, op == "<<-"))
        self.tokens.append(_Token("redir", text[m.start():i], m.start(), i, red))
        return i

    def _read_heredocs(self, i: int) -> int:
        text = self.text
        n = len(text)
        for red, delim, strip_tabs in self.pending_heredocs:
            body_start = i
            while True:
                if i >= n:
                    red.heredoc_body = (body_start, n)
                    self.unterminated = self.unterminated or f"here-document delimited by end of text (wanted {delim!r})"
                    break
                j = text.find("\n", i)
                line_end = n if j == -1 else j
                line = text[i:line_end]
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    red.heredoc_body = (body_start, i)
                    i = n if j == -1 else j + 1
                    break
                i = n if j == -1 else j + 1
        self.pending_heredocs = []
        return i


_DEPTH_CHANGE = {"if": 1, "while": 1, "until": 1, "{": 1, "fi": -1, "done": -1, "}": -1}
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_DECLARE = {"export", "declare", "typeset", "local", "readonly"}


_BARE_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _field_split(w: Word, t, env) -> list[Word]:
    """bash word splitting of an unquoted `$NAME` whose value is known: the value split on IFS whitespace (default
    IFS), each field a word of its own (an empty value gives no word). Anything else is returned as it is."""
    m = _BARE_REF.fullmatch(t.text)
    if not m or not w.splits:
        return [w]
    value = env(m.group(1) or m.group(2), t.start)
    if value is None or any(ch in value for ch in "*?["):
        return [w]  # unknown, or pathname expansion could change it
    return [Word(t.text, t.start, t.end, f, [t.start] * len(f), False, False, (m.group(1) or m.group(2),))
            for f in value.split()]


_HEREDOC_SUBST = re.compile(r"\$\(cat\s*<<(-?)\s*(?:'(\w+)'|\"(\w+)\"|\\(\w+)|(\w+))[ \t]*\n(.*?)\n[ \t]*"
                            r"(?:\2|\3|\4|\5)[ \t]*\n?\)", re.S)


def _heredoc_substitution(value: Word) -> Word | None:
    """`$(cat <<'EOF' ... EOF)` as a whole assignment value: the here-document body, trailing newlines removed (as
    command substitution does). With an unquoted delimiter the body is expanded: `\\`-newline joins lines and
    `\\\\`, `\\$`, `\\``  lose their backslash; a body with `$` or a backtick stays unknown. `<<-` strips leading tabs."""
    m = _HEREDOC_SUBST.fullmatch(value.raw)
    if not m:
        return None
    body = m.group(6) + "\n"
    start = value.start + m.start(6)
    chars, offs = list(body), list(range(start, start + len(body)))
    if m.group(5) is not None:  # unquoted delimiter
        if "$" in body or "`" in body:
            return None
        out_c: list[str] = []
        out_o: list[int] = []
        i = 0
        while i < len(chars):
            if chars[i] == "\\" and i + 1 < len(chars) and chars[i + 1] in "\\$`\n":
                if chars[i + 1] != "\n":
                    out_c.append(chars[i + 1])
                    out_o.append(offs[i + 1])
                i += 2
                continue
            out_c.append(chars[i])
            out_o.append(offs[i])
            i += 1
        chars, offs = out_c, out_o
    if m.group(1):  # <<- removes leading tabs of each line
        keep = [k for k in range(len(chars)) if not (chars[k] == "\t" and (k == 0 or chars[k - 1] == "\n"
                                                                           or all(c == "\t" for c in chars[
                                                                               max(0, "".join(chars[:k]).rfind("\n") + 1):k])))]
        chars, offs = [chars[k] for k in keep], [offs[k] for k in keep]
    while chars and chars[-1] == "\n":
        chars.pop()
        offs.pop()
    return Word(value.raw, value.start, value.end, "".join(chars), offs, False, True)


def _split_assignment(word: Word) -> tuple[str, int] | None:
    m = _ASSIGNMENT.match(word.raw)
    return (m.group(1), m.end()) if m else None


def scan(text: str) -> tuple[list[Command], list[Assignment], str | None]:
    """Karplint's own command scan: (commands, assignments, unterminated-construct note). Never raises."""
    scanner = _Scanner(text)
    tokens = scanner.scan()
    commands: list[Command] = []
    assignments: list[Assignment] = []

    by_name: dict[str, list[Assignment]] = {}  # filled alongside `assignments`, in text order

    def env(name: str, at: int) -> str | None:
        found = None
        for a in reversed(by_name.get(name, ())):
            if a.offset < at and not a.in_command:
                found = a
                break
        if found is None or found.value.dynamic or not found.top_level:
            return None  # unknown, or assigned conditionally: its value at run time is not known
        return found.value.value

    def record(a: Assignment) -> None:
        assignments.append(a)
        by_name.setdefault(a.name, []).append(a)

    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(off: int) -> int:
        import bisect

        return bisect.bisect_right(line_starts, off)

    current: list[_Token] = []
    case_state: list[str] = []  # stack: "subject" (before `in`), "pattern", "body"
    pipe_prev: Command | None = None
    depth = 0  # nesting in compound commands (if/loops/case/braces/subshells)
    conditional = False  # the current command follows && or ||

    def flush(next_op: str | None) -> None:
        nonlocal current, pipe_prev, depth, conditional
        toks = current
        current = []
        top = depth <= 0 and not conditional
        conditional = next_op in ("&&", "||")
        words = [t for t in toks if t.kind == "word"]
        redirects = [t.redirect for t in toks if t.kind == "redir"]
        if not words and not redirects:
            pipe_prev = None
            return
        # reserved words that introduce a command: drop them so the real command name comes first
        while words and words[0].text in _RESERVED_PREFIX:
            words = words[1:]
        if words and words[0].text in ("for", "select"):
            pipe_prev = None
            depth += 1  # closed by `done`
            return  # `for x in a b c` lists values, not a command
        if words and words[0].text == "function":
            pipe_prev = None
            depth += 1 if words[-1].text == "{" else 0
            return
        built_words: list[Word] = []
        prefix: list[Word] = []
        argv_started = False
        declare = False
        for t in words:
            w = make_word(t.text, t.start, env)
            split = _split_assignment(w)
            if not argv_started and split:
                prefix.append(w)
                continue
            if argv_started and declare and split:
                name, vstart = split
                value = make_word(t.text[vstart:], t.start + vstart, env)
                record(Assignment(name, w, value, built_words[0].value == "export", t.start, False,
                                  top and built_words[0].value != "local"))
            if not argv_started:
                declare = w.value in _DECLARE
            argv_started = True
            built_words.extend(_field_split(w, t, env))
        start = toks[0].start
        end = toks[-1].end
        for w in prefix:
            name, vstart = _split_assignment(w)
            value = make_word(w.raw[vstart:], w.start + vstart, env)
            value = _heredoc_substitution(value) or value
            record(Assignment(name, w, value, False, w.start, bool(built_words), top))
        if built_words or redirects:
            cmd = Command(built_words, prefix, redirects, start, end, line_of(start), pipe_prev)
            commands.append(cmd)
            pipe_prev = cmd if next_op == "|" else None
        else:
            pipe_prev = None

    i = 0
    while i < len(tokens):
        t = tokens[i]
        if case_state and case_state[-1] == "subject":
            if t.kind == "word" and t.text == "in":
                case_state[-1] = "pattern"
            i += 1
            continue
        if case_state and case_state[-1] == "pattern":
            if t.kind == "word" and t.text == "esac":
                case_state.pop()
                depth -= 1
            elif t.kind == "op" and t.text == ")":
                case_state[-1] = "body"
            i += 1
            continue
        if t.kind == "word" and not current and t.text == "case":
            case_state.append("subject")
            depth += 1
            i += 1
            continue
        if case_state and case_state[-1] == "body" and t.kind == "op" and t.text in (";;", ";&"):
            flush(None)
            case_state[-1] = "pattern"
            i += 1
            continue
        if case_state and case_state[-1] == "body" and t.kind == "word" and t.text == "esac" and not current:
            case_state.pop()
            depth -= 1
            i += 1
            continue
        if t.kind == "word" and t.text in _RESERVED_PREFIX and not [x for x in current if x.kind != "op"]:
            # `then cmd`, `do cmd`, `fi`, `done`: the keyword separates commands
            flush(None)
            depth += _DEPTH_CHANGE.get(t.text, 0)
            i += 1
            continue
        if t.kind in ("word", "redir"):
            # `name() {`: a function header, not a command
            if (t.kind == "word" and not current and i + 2 < len(tokens) and tokens[i + 1].text == "("
                    and tokens[i + 2].text == ")"):
                i += 3
                continue
            current.append(t)
            i += 1
            continue
        # operator or newline
        flush(t.text if t.kind == "op" else None)
        if t.kind == "op" and t.text in ("(", ")"):
            depth += 1 if t.text == "(" else -1
        i += 1
    flush(None)
    return commands, assignments, scanner.unterminated


def _bashlex_check(text: str) -> tuple[str | None, int | None]:
    """(error message, offset) when bashlex cannot parse `text`, else (None, None)."""
    if text.strip() == "" or all(ln.strip() == "" or ln.lstrip().startswith("#") for ln in text.split("\n")):
        return None, None  # bashlex raises AttributeError on empty/comment-only input; nothing to parse anyway
    try:
        from karplint.userdata.bashlex_tables import import_bashlex

        bashlex = import_bashlex()  # `import bashlex` without recomputing its parser tables
        bashlex.parse(text)
    except Exception as exc:  # ParsingError, MatchedPairError, NotImplementedError, AttributeError, ...
        msg = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        pos = getattr(exc, "position", None)
        return f"{type(exc).__name__}: {msg}".strip(), pos if isinstance(pos, int) else None
    return None, None


def parse_script(text: str, check_parser: bool = True) -> ShellScript:
    """Commands of a shell script plus how well it was understood. Never raises.

    `check_parser=False` skips bashlex (slow on large scripts) when the caller does not need to know whether a real
    parser understood the script; `parser` is then "not-checked"."""
    try:
        commands, assignments, unterminated = scan(text)
    except Exception as exc:  # defensive: a scanner bug must become a note, never a traceback
        return ShellScript(text, [], [], "line-scan", f"internal scanner error: {type(exc).__name__}: {exc}", 0)
    if not check_parser:
        return ShellScript(text, commands, assignments, "not-checked", None, None, unterminated)
    error, pos = _bashlex_check(text)
    parser = "bashlex" if error is None else "line-scan"
    return ShellScript(text, commands, assignments, parser, error, pos, unterminated)


# ------------------------------------------------------------------------------------------------ locating commands

BOOTSTRAP_PATH = "/etc/eks/bootstrap.sh"
# wrappers that run their argument as the command (option words they may take before it)
_WRAPPERS = {"exec": (), "sudo": ("-u", "-g", "-C"), "env": (), "command": (), "nohup": (), "time": (),
             "nice": ("-n",), "bash": (), "sh": (), "stdbuf": (), "source": (), ".": ()}


def command_name_index(cmd: Command) -> int:
    """Index of the word that is the program run by `cmd` (after exec/sudo/env/bash and their options)."""
    words = cmd.words
    i = 0
    while i < len(words):
        name = words[i].value.rsplit("/", 1)[-1]
        if name not in _WRAPPERS:
            return i
        takes = _WRAPPERS[name]
        i += 1
        while i < len(words):
            v = words[i].value
            if name == "env" and _ASSIGNMENT.match(v):
                i += 1
            elif v in takes:
                i += 2
            elif v.startswith("-") and v != "-":
                if name in ("bash", "sh") and v in ("-c",):
                    return len(words)  # an inline script: not a simple program call
                i += 1
            else:
                break
    return i


def is_bootstrap(word: Word) -> bool:
    v = word.value
    return v == BOOTSTRAP_PATH or v.endswith("/eks/bootstrap.sh") or v == "bootstrap.sh" or v == "./bootstrap.sh"


def program(cmd: Command) -> tuple[int, Word] | None:
    i = command_name_index(cmd)
    if i < len(cmd.words):
        return i, cmd.words[i]
    return None


def bootstrap_calls(script: ShellScript) -> list[tuple[Command, int]]:
    """Commands running /etc/eks/bootstrap.sh (directly, via exec/sudo/bash, or via a variable)."""
    out = []
    for cmd in script.commands:
        p = program(cmd)
        if p and is_bootstrap(p[1]):
            out.append((cmd, p[0]))
    return out


def nodeadm_calls(script: ShellScript) -> list[tuple[Command, int]]:
    out = []
    for cmd in script.commands:
        p = program(cmd)
        if p and p[1].value.rsplit("/", 1)[-1] == "nodeadm":
            out.append((cmd, p[0]))
    return out


_SYSTEMCTL_KUBELET_VERBS = ("restart", "start", "stop", "reload", "try-restart", "reload-or-restart", "kill")


def kubelet_restarts(script: ShellScript) -> list[Command]:
    """`systemctl restart|start|stop|... kubelet` (also `service kubelet restart`)."""
    out = []
    for cmd in script.commands:
        p = program(cmd)
        if not p:
            continue
        i, w = p
        args = [x.value for x in cmd.words[i + 1:]]
        units = [a for a in args if a in ("kubelet", "kubelet.service")]
        if w.value.rsplit("/", 1)[-1] == "systemctl" and units and any(a in _SYSTEMCTL_KUBELET_VERBS for a in args):
            out.append(cmd)
        elif w.value.rsplit("/", 1)[-1] == "service" and args[:1] == ["kubelet"] and len(args) > 1:
            out.append(cmd)
    return out


# Files whose edit changes what the kubelet runs with.
KUBELET_CONFIG_FILES = (
    re.compile(r"^/etc/kubernetes/kubelet/kubelet-config\.json$"),
    re.compile(r"^/etc/kubernetes/kubelet/config\.json(\.d/.*)?$"),
    re.compile(r"^/etc/systemd/system/kubelet\.service(\.d/.*)?$"),
    re.compile(r"^/etc/eks/kubelet/environment$"),
    re.compile(r"^/etc/sysconfig/kubelet$"),
)
# Programs that write the files named in their arguments (echo/cat/jq write only through redirections).
_FILE_WRITERS = {"sed", "tee", "cp", "mv", "install", "crudini", "ln"}


def is_kubelet_config(path: str) -> bool:
    return any(p.match(path) for p in KUBELET_CONFIG_FILES)


@dataclass
class ConfigWrite:
    cmd: Command
    path: str
    how: str  # "redirect", "sed -i", "tee", ...
    start: int
    end: int


def kubelet_config_writes(script: ShellScript) -> list[ConfigWrite]:
    """Commands that write a kubelet config/unit file: redirections into it, `sed -i`, `tee`, `cp`/`mv` onto it."""
    out = []
    for cmd in script.commands:
        for red in cmd.redirects:
            if red.op in (">", ">>", ">|", "&>", "&>>") and red.target is not None and is_kubelet_config(red.target.value):
                out.append(ConfigWrite(cmd, red.target.value, f"{red.op} redirection", red.start, red.end))
        p = program(cmd)
        if not p:
            continue
        i, w = p
        name = w.value.rsplit("/", 1)[-1]
        if name not in _FILE_WRITERS:
            continue
        args = cmd.words[i + 1:]
        if name == "sed" and not any(a.value.startswith("-i") or a.value == "--in-place" or
                                     a.value.startswith("--in-place=") for a in args):
            continue  # sed without -i writes to stdout
        # sed/tee/crudini may name several files; cp/mv/install/ln write their last argument
        targets = args if name in ("sed", "tee", "crudini") else args[-1:]
        for a in targets:
            if is_kubelet_config(a.value):
                out.append(ConfigWrite(cmd, a.value, name + (" -i" if name == "sed" else ""), a.start, a.end))
    return out


@dataclass
class FileAccess:
    """A command that writes or reads one file, at the word or redirection naming it."""

    cmd: Command
    path: str
    write: bool
    how: str  # "> redirection", "sed -i", "cp", "cat", ...
    start: int
    end: int


def file_accesses(script: ShellScript, is_target: Callable[[str], bool]) -> list[FileAccess]:
    """Commands that write a file `is_target` accepts (redirections into it, `sed -i`, `tee`, `crudini`, the last
    argument of `cp`/`mv`/`install`/`ln`) or read it (a `<` redirection, any other argument naming it)."""
    out = []
    for cmd in script.commands:
        for red in cmd.redirects:
            if red.target is None or not is_target(red.target.value):
                continue
            if red.op in (">", ">>", ">|", "&>", "&>>"):
                out.append(FileAccess(cmd, red.target.value, True, f"{red.op} redirection", red.start, red.end))
            elif red.op == "<":
                out.append(FileAccess(cmd, red.target.value, False, "< redirection", red.start, red.end))
        p = program(cmd)
        if not p:
            continue
        i, w = p
        name = w.value.rsplit("/", 1)[-1]
        args = cmd.words[i + 1:]
        in_place = name == "sed" and any(a.value.startswith("-i") or a.value == "--in-place" or
                                         a.value.startswith("--in-place=") for a in args)
        for k, a in enumerate(args):
            if not is_target(a.value):
                continue
            if name in ("tee", "crudini") or in_place:
                write = True
            elif name in ("cp", "mv", "install", "ln"):
                write = k == len(args) - 1
            else:
                write = False
            out.append(FileAccess(cmd, a.value, write, name + (" -i" if in_place else ""), a.start, a.end))
    return out


KUBELET_DROPIN_DIR = "/etc/systemd/system/kubelet.service.d/"


@dataclass
class FileWrite:
    """Text a command writes into a file: a heredoc (`cat <<EOF > f`, `tee f <<EOF`) or echo/printf arguments."""

    cmd: Command
    path: str
    content: str
    content_start: int  # script offset of the content (exact for heredocs; the first argument for echo/printf)
    expanded: bool  # the shell expands $ in the content (unquoted heredoc, double-quoted echo)


def file_writes(script: ShellScript, path_prefix: str = "") -> list[FileWrite]:
    """Files written with literal content, for paths starting with `path_prefix`."""
    out = []
    for cmd in script.commands:
        heredoc = next((r for r in cmd.redirects if r.op in ("<<", "<<-") and r.heredoc_body), None)
        targets = [r.target.value for r in cmd.redirects
                   if r.op in (">", ">>", ">|") and r.target is not None and not r.target.dynamic]
        p = program(cmd)
        name = p[1].value.rsplit("/", 1)[-1] if p else ""
        if name == "tee" and p:
            targets += [w.value for w in cmd.words[p[0] + 1:] if not w.value.startswith("-")]
        targets = [t for t in targets if t.startswith(path_prefix)]
        if not targets:
            continue
        if heredoc is not None:
            s, e = heredoc.heredoc_body
            content, start, expanded = script.text[s:e], s, not heredoc.heredoc_quoted
        elif name in ("echo", "printf") and p and len(cmd.words) > p[0] + 1:
            args = cmd.words[p[0] + 1:]
            if args and args[0].value.startswith("-"):
                args = args[1:]
            if not args:
                continue
            content = " ".join(w.value for w in args).replace("\\n", "\n") if name == "printf" else \
                " ".join(w.value for w in args)
            start, expanded = args[0].start, True
        else:
            continue
        for t in targets:
            out.append(FileWrite(cmd, t, content, start, expanded))
    return out
