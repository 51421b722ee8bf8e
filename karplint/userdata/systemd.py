"""How systemd carries `KUBELET_EXTRA_ARGS` to the kubelet (bootstrap.sh's drop-in; systemd 219, redhat-plumbers/systemd-rhel7 at d2d5f303, and 252).

AL2 ships systemd 219, AL2023 systemd 252. bootstrap.sh writes the drop-in

    [Service]
    Environment='KUBELET_EXTRA_ARGS=<value>'

literally, and `kubelet.service` runs `ExecStart=/usr/bin/kubelet ... $KUBELET_ARGS $KUBELET_EXTRA_ARGS`, where a
word that is exactly `$NAME` is split into words.

* `environment_219(rvalue)`: `Environment=` parsing. A word starting with a quote runs to the next unescaped same
  quote, which must be followed by whitespace or the end of the line, else "Trailing garbage, ignoring." and
  the iteration stops (words before it are kept). Words are C-unescaped (invalid escapes kept literally) and must
  be `NAME=value`.
* `kubelet_extra_args_219(value)`: the whole AL2 path for one bootstrap.sh value: the drop-in as bootstrap.sh
  writes it, read by systemd's config parser (a line ending in `\\` is joined with the next), then `split_exec_219`.

The 219 functions run on `systemd219`, a line-by-line port of systemd 219's C code (source and commit there).
* `split_exec_219(value)`: `$VAR` splitting in ExecStart: separators space/TAB/LF/CR, quotes removed anywhere in a
  word, `\\x` -> `x`; an unterminated `"` makes exec fail (kubelet never starts); an unterminated `'` is accepted;
  an empty word (`""`) ends the list.
* `split_exec_252(value)`: unbalanced quotes tolerated, `""` yields an empty argument.

Every word keeps, for each of its characters, the index of the source character in the value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_SEPARATORS = " \t\n\r"


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
    """`$VAR` splitting in an ExecStart of systemd 219: `replace_env_argv` -> `strv_split_quoted(relax=true)`
    (ported in `systemd219`). An unterminated `"` fails the exec; an empty word ends the list."""
    from karplint.userdata import systemd219 as sd

    out = ExecSplit()
    rc, words, stop = sd.strv_split_quoted(value, relax=True)
    if rc < 0:
        out.exec_fails = True
        out.error = 'unterminated double quote: systemd 219 cannot split the command line and the kubelet never starts'
        out.error_at = next((k for k in range(min(stop, len(value)) - 1, -1, -1) if value[k] == '"'), 0)
        return out
    for w in words:
        out.words.append(SplitWord("".join(value[k] for k in w), list(w), w[0], w[-1] + 1))
    rest = value[stop:].strip(_SEPARATORS)
    if rest:
        k = stop
        while k > 0 and value[k - 1] in _SEPARATORS:
            k -= 1
        while k > 0 and value[k - 1] not in _SEPARATORS:
            k -= 1
        out.truncated_at = k
        out.lost = rest
    return out


def split_exec_252(value: str) -> ExecSplit:
    """systemd 252 (EXTRACT_RELAX|EXTRACT_UNQUOTE): open quotes are tolerated and "" is an empty argument."""
    out = ExecSplit()
    i = 0
    while (word := _next_word(value, i)) is not None:
        start, i, chars, offs, _, _ = word
        out.words.append(SplitWord("".join(chars), offs, start, i))
    return out


@dataclass
class EnvResult:
    assignments: dict[str, str] = field(default_factory=dict)
    error: str | None = None  # why (part of) the line was ignored
    error_at: int | None = None


def environment_219(rvalue: str) -> EnvResult:
    """The value of one `Environment=` line as systemd 219 parses it (`config_parse_environ`, ported in
    `systemd219`): words are split with quotes, C-unescaped (invalid escapes kept) and must be NAME=value."""
    from karplint.userdata import systemd219 as sd

    env = sd.Environ()
    sd.config_parse_environ(rvalue.strip(sd.WHITESPACE), list(range(len(rvalue))), env)
    res = EnvResult({k: v for k, (v, _) in env.values.items()})
    if env.errors:
        res.error, res.error_at = env.errors[-1]
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
    # a single quote followed by whitespace ended the drop-in's quoted word: systemd assigned the value up to it
    # and the rest of the line (`cut`, from index `cut_at` in the value) never becomes KUBELET_EXTRA_ARGS
    cut_at: int | None = None
    cut: str = ""


def _closing_quote(value: str) -> int | None:
    """Index of the `'` in the value that ends the drop-in's `'KUBELET_EXTRA_ARGS=...` word (systemd 219's
    `split_quoted`: a quoted word runs to the next same quote not escaped by a backslash)."""
    i = 0
    while i < len(value):
        if value[i] == "\\":
            i += 2
            continue
        if value[i] == "'":
            return i
        i += 1
    return None


def kubelet_extra_args_219(value: str) -> ExtraArgsResult:
    """The AL2 path for a bootstrap.sh `--kubelet-extra-args` value (empty value: no drop-in, no args), computed
    with the line-by-line port of systemd 219 in `systemd219`: bootstrap.sh writes the drop-in below, systemd's
    config parser joins `\\`-continued lines and parses `Environment=`, and `ExecStart=... $KUBELET_EXTRA_ARGS`
    splits the value with `strv_split_quoted(relax)`."""
    from karplint.userdata import systemd219 as sd

    res = ExtraArgsResult()
    if value == "":
        return res
    head, tail = "[Service]\nEnvironment='KUBELET_EXTRA_ARGS=", "'\n"
    text = head + value + tail
    idx = [-1] * len(head) + list(range(len(value))) + [len(value)] * len(tail)
    env = sd.parse_service_environment(text, idx)
    if "KUBELET_EXTRA_ARGS" not in env.values:
        res.dropped = True
        msg, at = env.errors[0] if env.errors else ("nothing assigned", 0)
        if "\n" in value:
            why = ("the value contains a newline: the drop-in line Environment='KUBELET_EXTRA_ARGS=... is cut "
                   "there (no `\\` continuation), its quote is never closed")
            at = value.index("\n")
        elif "'" in value:
            why = ("the value contains a single quote: bootstrap.sh writes Environment='KUBELET_EXTRA_ARGS=...' "
                   "and systemd 219 ends the quoted word there")
            at = value.index("'")
        else:
            why = "systemd 219 rejects the Environment= line"
        res.reason = f'{why} ("{msg}"), so systemd 219 assigns nothing'
        res.reason_at = max(0, min(at, len(value) - 1)) if at >= 0 else 0
        return res
    assigned, aidx = env.values["KUBELET_EXTRA_ARGS"]
    q = _closing_quote(value)
    if q is not None and value[q + 1:].strip(sd.WHITESPACE) and all(k < q for k in aidx):
        res.cut_at, res.cut = q, value[q + 1:].strip(sd.WHITESPACE)
    rc, words, stop = sd.strv_split_quoted(assigned, relax=True)
    for w in words:
        offs = [aidx[k] for k in w]
        res.argv.append(SplitWord("".join(assigned[k] for k in w), offs, offs[0], offs[-1] + 1))
    if rc < 0:
        res.argv = []
        res.exec_fails = True
        res.reason = ('unterminated double quote: systemd 219 cannot split the command line and the kubelet '
                      'never starts')
        opened = next((k for k in range(stop - 1, -1, -1) if assigned[k] == '"'), 0)
        res.reason_at = max(0, aidx[opened]) if aidx else 0
        return res
    rest = assigned[stop:].strip(sd.WHITESPACE)
    if rest:  # an empty word ("" or '') ended the list
        k = stop
        while k > 0 and assigned[k - 1] in sd.WHITESPACE:
            k -= 1
        while k > 0 and assigned[k - 1] not in sd.WHITESPACE:
            k -= 1
        res.truncated_at = max(0, aidx[k]) if k < len(aidx) else None
        res.lost = rest
    return res
