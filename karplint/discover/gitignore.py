"""`.gitignore` patterns matched in time linear in the pattern and the path, whatever the patterns.

A `.gitignore` comes with the checked tree, so it is untrusted: translated into backtracking regular expressions
(as pathspec's pure-Python backend does), 45 bytes of `*a*a*a...` take exponential time on a long file name,
and 100,000 patterns take seconds to compile. Here a pattern is a list of path segments matched with git's
rules (gitignore(5), and `wildmatch.c` for the segments): `*`, `?` and `[...]` within a segment, `**` across
segments, `!` negation, trailing `/` for directories only, a `/` at the start or in the middle anchoring it to
the `.gitignore`'s directory. Each segment is matched by the greedy two-pointer wildcard algorithm (no
exponential backtracking: at most len(segment) x len(name) steps) and `**` by dynamic programming over segments.
Patterns are indexed by their literal last segment, their `*.ext` suffix or their first anchored segment, so a
path is compared only with the patterns that can match it; the last matching pattern decides, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CLASS = re.compile(r"\[(!|\^)?(\]?[^\]]*)\]")


@dataclass(frozen=True)
class Pattern:
    index: int
    negated: bool
    dir_only: bool
    anchored: bool
    segments: tuple[str, ...]  # `**` stands alone as a segment


def _unescape_trailing_spaces(line: str) -> str:
    """Trailing spaces are ignored unless quoted with a backslash (gitignore(5))."""
    end = len(line)
    while end > 0 and line[end - 1] == " " and not (end > 1 and line[end - 2] == "\\"):
        end -= 1
    return line[:end]


def parse(lines: list[str]) -> list[Pattern]:
    out: list[Pattern] = []
    for raw in lines:
        line = _unescape_trailing_spaces(raw.rstrip("\r\n"))
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/") and not line.endswith("\\/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line  # a slash at the start or in the middle (a trailing one was removed above)
        segments = tuple(s for s in line.split("/") if s != "")
        if not segments:
            continue
        # `a/**/**/b` is `a/**/b`; a leading `**` is unanchored (matches in any directory)
        collapsed: list[str] = []
        for s in segments:
            if s == "**" and collapsed and collapsed[-1] == "**":
                continue
            collapsed.append(s)
        if collapsed[0] == "**":
            anchored = True  # `**/x` is written relative to the .gitignore's directory, matching at any depth
        out.append(Pattern(len(out), negated, dir_only, anchored, tuple(collapsed)))
    return out


def _class_match(cls: str, ch: str) -> tuple[bool, int] | None:
    """Match `ch` against the bracket expression at the start of `cls`: (matched, length) or None if `cls`
    does not start a valid bracket expression (then `[` is literal)."""
    i = 1
    negate = False
    if i < len(cls) and cls[i] in "!^":
        negate = True
        i += 1
    start = i
    hit = False
    while i < len(cls):
        c = cls[i]
        if c == "]" and i > start:
            return (hit != negate), i + 1
        if c == "\\" and i + 1 < len(cls):
            i += 1
            c = cls[i]
        if i + 2 < len(cls) and cls[i + 1] == "-" and cls[i + 2] != "]":
            hi = cls[i + 2]
            if hi == "\\" and i + 3 < len(cls):
                hi = cls[i + 3]
                i += 1
            if c <= ch <= hi:
                hit = True
            i += 3
            continue
        if c == ch:
            hit = True
        i += 1
    return None


def _tokens(seg: str) -> list[tuple[str, str]]:
    """A segment as tokens: ("*", ""), ("?", ""), ("[", expression) or ("c", literal character)."""
    toks: list[tuple[str, str]] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        if c == "\\" and i + 1 < len(seg):
            toks.append(("c", seg[i + 1]))
            i += 2
        elif c == "*":
            if not (toks and toks[-1][0] == "*"):
                toks.append(("*", ""))
            i += 1
        elif c == "?":
            toks.append(("?", ""))
            i += 1
        elif c == "[":
            probe = _class_match(seg[i:], "\0")
            if probe is None:
                toks.append(("c", "["))
                i += 1
            else:
                toks.append(("[", seg[i:i + probe[1]]))
                i += probe[1]
        else:
            toks.append(("c", c))
            i += 1
    return toks


def _token_matches(tok: tuple[str, str], ch: str) -> bool:
    kind, val = tok
    if kind == "?":
        return True
    if kind == "c":
        return val == ch
    got = _class_match(val, ch)
    return bool(got and got[0])


def segment_match(seg: str, name: str, _cache: dict = {}) -> bool:  # noqa: B006 - a deliberate memo
    """One path segment against one pattern segment, greedy with a single backtrack point: O(len x len)."""
    toks = _cache.get(seg)
    if toks is None:
        toks = _cache[seg] = _tokens(seg)
        if len(_cache) > 100_000:
            _cache.clear()
    p = n = 0
    star_p, star_n = -1, 0
    while n < len(name):
        if p < len(toks) and toks[p][0] == "*":
            star_p, star_n = p, n
            p += 1
        elif p < len(toks) and _token_matches(toks[p], name[n]):
            p += 1
            n += 1
        elif star_p >= 0:
            p = star_p + 1
            star_n += 1
            n = star_n
        else:
            return False
    while p < len(toks) and toks[p][0] == "*":
        p += 1
    return p == len(toks)


def _segments_match(segs: tuple[str, ...], parts: list[str]) -> bool:
    """All of `parts` against `segs`, `**` matching zero or more parts: DP over (segment, part), O(S x P)."""
    P = len(parts)
    # reach[j]: the segments so far can match the first j parts
    reach = [False] * (P + 1)
    reach[0] = True
    last = len(segs) - 1
    for i, seg in enumerate(segs):
        nxt = [False] * (P + 1)
        if seg == "**":
            trailing = i == last and i > 0  # `abc/**` matches everything inside abc, not abc itself
            seen = False
            for j in range(P + 1):
                if trailing:
                    nxt[j] = seen
                    seen = seen or reach[j]
                else:
                    seen = seen or reach[j]
                    nxt[j] = seen
        else:
            for j in range(P):
                if reach[j] and segment_match(seg, parts[j]):
                    nxt[j + 1] = True
        reach = nxt
        if not any(reach):
            return False
    return reach[P]


def pattern_matches(pat: Pattern, rel: str, is_dir: bool) -> bool:
    """`rel`: the path relative to the .gitignore's directory, `/`-separated, no trailing slash."""
    if pat.dir_only and not is_dir:
        return False
    parts = rel.split("/")
    if not pat.anchored:  # no slash in the pattern: matches the last component at any depth
        return len(pat.segments) == 1 and segment_match(pat.segments[0], parts[-1])
    return _segments_match(pat.segments, parts)


_WILD = set("*?[\\")


class GitIgnore:
    """The patterns of one .gitignore, indexed so that a path meets only those that can match it."""

    def __init__(self, lines: list[str]):
        self.patterns = parse(lines)
        self.by_name: dict[str, list[Pattern]] = {}  # unanchored, literal: the last component's exact name
        self.by_suffix: dict[str, list[Pattern]] = {}  # unanchored `*<literal>`: the name's suffix after a dot
        self.by_first: dict[str, list[Pattern]] = {}  # anchored, literal first segment
        self.general: list[Pattern] = []
        for pat in self.patterns:
            first = pat.segments[0]
            if not pat.anchored and not (_WILD & set(first)):
                self.by_name.setdefault(first, []).append(pat)
            elif not pat.anchored and first.startswith("*.") and not (_WILD & set(first[1:])):
                self.by_suffix.setdefault(first[first.rfind("."):], []).append(pat)
            elif pat.anchored and first != "**" and not (_WILD & set(first)):
                self.by_first.setdefault(first, []).append(pat)
            else:
                self.general.append(pat)

    def decide(self, rel: str, is_dir: bool, parents: bool = False) -> bool | None:
        """True: ignored; False: re-included by a negation; None: no pattern matches. With `parents`, a path
        inside an ignored directory is ignored too (a walk never reaches it; a path named directly can)."""
        if parents and "/" in rel:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                if self.decide("/".join(parts[:i]), True):
                    return True
        return self._decide(rel, is_dir)

    def _decide(self, rel: str, is_dir: bool) -> bool | None:
        parts = rel.split("/")
        name = parts[-1]
        candidates: list[Pattern] = list(self.by_name.get(name, ()))
        dot = name.rfind(".")
        if dot >= 0:
            candidates += [p for p in self.by_suffix.get(name[dot:], ()) if name.endswith(p.segments[0][1:])]
        candidates += self.by_first.get(parts[0], ())
        best: Pattern | None = None
        for pat in candidates:
            if (best is None or pat.index > best.index) and pattern_matches(pat, rel, is_dir):
                best = pat
        for pat in reversed(self.general):
            if best is not None and pat.index < best.index:
                break
            if pattern_matches(pat, rel, is_dir):
                best = pat
                break
        return None if best is None else not best.negated
