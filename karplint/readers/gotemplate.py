"""Go templates (Helm chart templates, helmfile `.gotmpl`, `.tpl`): detection and a line-by-line masking that turns
a template into YAML karplint can read without rendering it.

    is_template(text) -> bool      actions `{{ ... }}` where YAML cannot hold them (a line of actions only, an
                                   action starting a value or a key outside quotes)
    Masker                         one template line at a time -> YAML text pieces, each with its offset in the
                                   line (the caller keeps the offsets: findings land on the template's columns)

What is certain in a template is its literal text: keys and literal values stay where they are. Every action is
unknown, except `{{ .Values.a.b }}` (optionally `| quote`) when the chart's values.yaml has that key as a plain
non-empty scalar: the value Helm would write with the chart's defaults. An unknown action stays a template hole
(`readers.templating`: rules and schema checks do not judge it), quoted where YAML needs it. A line of actions only
is emptied: control (`if`, `range`, `with`, `end`, `else`, `define`), comments and assignments produce no text;
an action that inserts text (`include`, `toYaml`, `.Values.x | nindent 8`) becomes a hole under the key above it
when that key has no value of its own, else is dropped and the document is incomplete (its missing fields are
not judged: `Masker.inserted`). Text inside `{{ define }}` is a named template, not output: dropped. An `if` on
chart values that values.yaml decides (`Condition`) is read as Helm renders it with those defaults: a branch that
does not render is dropped; any other condition keeps every branch.
Go template syntax: https://pkg.go.dev/text/template (actions, trim markers `{{-`/`-}}`, comments `{{/* */}}`).
"""

from __future__ import annotations

import re

from karplint.readers.elision import ELISIONS as _ELISIONS

_ACTION = re.compile(r"\{\{.*?\}\}")
_ONLY_ACTIONS = re.compile(r"^[ \t]*(?:\{\{.*?\}\}[ \t]*)+\r?\n?$")
_WORD = re.compile(r"\{\{-?\s*(/\*|else\s+if|[A-Za-z_]\w*|\$\w*\s*:?=|\.)")
_OPENERS = frozenset({"if", "range", "with", "define", "block"})
_CONTROL = frozenset({"end", "else", "else if", "break", "continue"}) | _OPENERS
# a value (after `key: ` or `- `) or a key (at the line's start) that begins with an action, outside quotes
_VALUE_AT = re.compile(r"^([ \t]*(?:-[ \t]+)*(?:[^\s\"'{#-][^:#]*?|\"[^\"]*\"|'[^']*')?:[ \t]+|[ \t]*(?:-[ \t]+)+)"
                       r"(\{\{.*?)[ \t]*(\r?\n?)$")
_KEY_AT = re.compile(r"^([ \t]*(?:-[ \t]+)*)(\{\{.*?\}\}[^:#\n]*?)(:(?:[ \t]|\r?\n?$))")
_EMPTY_KEY = re.compile(r"^([ \t]*)(?:-[ \t]+)*[^\s#-][^#]*?:[ \t]*(?:#.*)?\r?\n?$")
_VALUES_REF = re.compile(r"^\{\{-?\s*(?:quote\s+)?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*(\|\s*quote\s*)?-?\}\}$")
_QUOTE_FIRST = re.compile(r"^\{\{-?\s*quote\s")
_INDENT = re.compile(r"\|\s*n?indent\s+(\d+)\s*-?\}\}")  # (the last function of the pipeline sets it)


# The readings of a template tried, in order, by its readers: inserting actions as holes under their key, then
# dropped; `else` branches kept, then dropped (when both branches define the same keys).
READINGS = ({}, {"drop_else": True}, {"holes_as_values": False}, {"holes_as_values": False, "drop_else": True})


def has_actions(raw: bytes) -> bool:
    """The cheap byte check before any work: no `{{`, no template."""
    return b"{{" in raw


# a line whose value is a block scalar (`userData: |`, `- run: >-`, `script: |2 # note`): the more-indented lines
# after it are the scalar's text, where YAML holds any `{{ }}` as it is
_BLOCK_SCALAR_START = re.compile(r"^([ \t]*)(?:-[ \t]+)*(?:[^\s#][^#]*?:[ \t]+)?[|>][-+0-9]*[ \t]*(?:#.*)?\r?\n?$")


def is_template(text: str) -> bool:
    """Actions where YAML cannot hold them: a line that is only actions, or an action that begins a value or a key
    outside quotes. (An action inside a quoted string is valid YAML, read as a hole as before.) Lines inside a
    block scalar do not count: YAML holds their text whatever it is (a userData script quoting the docs'
    `{{ insertFile ... }}` is a manifest whose action reaches the node literally, aws/karpenter-provider-aws#7651)."""
    if "{{" not in text:
        return False
    block_indent = None  # indentation of the line that opened the block scalar we are in
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" \t"))
        if block_indent is not None and (not line.strip() or indent > block_indent):
            continue
        block_indent = None
        m = _BLOCK_SCALAR_START.match(line)
        if m and "{{" not in line:
            block_indent = len(m.group(1))
        if "{{" not in line:
            continue
        if _ONLY_ACTIONS.match(line) or _VALUE_AT.match(line) or _KEY_AT.match(line) or _quote_in_quotes(line):
            return True
    return False


def _quote_in_quotes(line: str) -> bool:
    """An action holding a quote inside a string of that quote (`name: "{{ include "x" . }}-test"`): the action's
    quote would end the YAML string."""
    actions = list(_ACTION.finditer(line))
    if not any('"' in m.group(0) or "'" in m.group(0) for m in actions):
        return False
    flat, starts, pos = [], [], 0
    for m in actions:
        flat.append(line[pos:m.start()])
        starts.append((sum(map(len, flat)), m.group(0)))
        flat.append("{{}}")
        pos = m.end()
    flat.append(line[pos:])
    text = "".join(flat)
    for q in _QUOTED.finditer(text):
        for at, action in starts:
            if q.start() < at < q.end() and q.group(0)[0] in action:
                return True
    return False


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def has_unquoted_action(text: str) -> bool:
    """An action outside quoted strings somewhere (`pool-{{ .x }}`, `[{{ .x }}]`): text meant for a template
    engine, not YAML, whatever YAML makes of it."""
    for line in text.splitlines():
        if "{{" in line and "{{" in _QUOTED.sub("", line):
            return True
    return False


def _scalar_text(value) -> str | None:
    """How Helm prints a values.yaml scalar in `{{ .Values.x }}`, when YAML reads it back as written; else None."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):  # (Helm prints large floats in exponent form: not guessed)
        return repr(value) if value == value and abs(value) < 1e6 else None
    if isinstance(value, str) and value.strip() == value and value and "\n" not in value \
            and re.fullmatch(r"[A-Za-z0-9_./@+=-][A-Za-z0-9_./@+=:-]*", value) and ": " not in value:
        return value
    return None


_CONDITION_TOKEN = re.compile(r"\s*(\(|\)|\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![\w.])|(?:not|and|or)\b)")


class Condition:
    """What an `if` on values makes of the chart's values.yaml (karplint/readers/helm_charts.py `chart_values`):
    `truth` {".a.b": bool or None (not certain)}, `mappings` the paths of maps (a key missing from one is null).
    Only `.Values.a.b`, `not X`, `and X Y...`, `or X Y...` and parentheses are evaluated; anything else is unknown."""

    def __init__(self, truth: dict, mappings):
        self.truth = truth
        self.mappings = frozenset(mappings)

    def value(self, path: str) -> bool | None:
        if path in self.truth:
            return self.truth[path]
        return False if path.rpartition(".")[0] in self.mappings else None  # (`.a.b` with `.a` missing: an error)

    def evaluate(self, text: str, dollar_only: bool) -> bool | None:
        """The truth of the pipeline `text` (after `if`), None when unknown. `dollar_only`: inside `with`/`range`,
        where `.` is not the chart's root (only `$.Values` is the values)."""
        tokens, pos = [], 0
        text = text.rstrip()
        while pos < len(text):
            m = _CONDITION_TOKEN.match(text, pos)
            if m is None:
                return None
            tok = m.group(1)
            if m.group(2) is not None:
                if dollar_only and not tok.startswith("$"):
                    return None
                tok = ("value", m.group(2))
            tokens.append(tok)
            pos = m.end()
        got, rest = self._command(tokens)
        return got if not rest else None

    def _command(self, tokens: list):
        """(truth or None, tokens left) of one command: a function applied to its operands, or one operand."""
        if tokens and tokens[0] in ("not", "and", "or"):
            args, rest = [], tokens[1:]
            while rest and rest[0] != ")":
                got, rest = self._operand(rest)
                if got is _BAD:
                    return None, ["?"]
                args.append(got)
            if (tokens[0] == "not") != (len(args) == 1) or not args or None in args:
                return None, ["?"]  # (an unknown operand: unknown, even where Go would short-circuit)
            return (not args[0] if tokens[0] == "not" else all(args) if tokens[0] == "and" else any(args)), rest
        got, rest = self._operand(tokens)
        return (None if got is _BAD else got), (rest if got is not _BAD else ["?"])

    def _operand(self, tokens: list):
        if not tokens:
            return _BAD, []
        tok = tokens[0]
        if isinstance(tok, tuple):
            return self.value(tok[1]), tokens[1:]
        if tok == "(":
            got, rest = self._command(tokens[1:])
            if not rest or rest[0] != ")":
                return _BAD, []
            return got, rest[1:]
        return _BAD, []


_BAD = object()  # (a condition that is not one of the evaluated forms)
_IF = re.compile(r"\{\{-?\s*(?:else\s+)?if\s(.*?)-?\}\}$", re.S)


class Masker:
    """A template's lines, one at a time, as YAML pieces. `values`: values.yaml's scalars by dotted path (".a.b").
    `holes_as_values`: an inserting action under a key without a value becomes that key's value (a hole); else it
    is dropped. `drop_else`: keep only the first branch of `if`/`else` (when both define the same keys).
    `condition`: what `if` conditions on values make of values.yaml (`Condition`); a branch known not to render
    with the chart's defaults is not read, and the others of its block are read as known or not."""

    def __init__(self, values: dict | None = None, *, holes_as_values: bool = True, drop_else: bool = False,
                 condition: Condition | None = None):
        self.options = {"holes_as_values": holes_as_values, "drop_else": drop_else, "condition": condition}
        self.values = values or {}
        self.holes_as_values = holes_as_values
        self.drop_else = drop_else
        self.condition = condition
        # per open block: [word, skipping, branch number, taken: True (a branch is known to render), False (every
        # branch so far known not to), None (not known)]
        self.stack: list[list] = []
        self.branches = 0
        self.line_branches: list[tuple] = []  # per line read so far: the branches it is in (outermost first)
        self.inserted = False  # an inserting action was dropped: the documents are incomplete
        # per line of inserting actions only (`{{- include "x" . }}`, `{{ toYaml .x | nindent 2 }}`): (line, the
        # least indentation of the text it inserts, whether that is certain (`indent`/`nindent N`))
        self.insertions: list[tuple[int, int, bool]] = []
        self.last_key_indent: int | None = None  # the last literal line was `key:` with no value: its indentation

    def _skipping(self) -> bool:
        return any(s[1] for s in self.stack)

    def _control(self, line: str) -> bool:
        """Update the block stack for a line of actions only; True when every action was control or a comment."""
        all_control = True
        for m in _ACTION.finditer(line):
            w = _WORD.match(m.group(0))
            word = re.sub(r"\s+", " ", w.group(1)) if w else ""
            if word == "/*" or (word.startswith("$") and word.rstrip().endswith("=")):
                continue
            if word in _OPENERS:
                self.branches += 1
                self.stack.append([word, word == "define", self.branches, False if word == "if" else None])
                if word == "if":
                    self._branch(self._truth(m.group(0)), False)
            elif word == "end":
                if self.stack:
                    self.stack.pop()
            elif word in ("else", "else if"):
                if self.stack:
                    self.branches += 1
                    self.stack[-1][2] = self.branches
                if self.stack and self.stack[-1][0] != "define":
                    self._branch(self._truth(m.group(0)) if word == "else if" else True, self.drop_else)
            elif word not in _CONTROL:
                all_control = False
        return all_control

    def _truth(self, action: str) -> bool | None:
        """The truth of an `if`/`else if` action's condition with the chart's defaults, None when unknown."""
        if self.condition is None:
            return None
        m = _IF.match(action)
        return None if m is None else self.condition.evaluate(m.group(1), any(
            b[0] in ("with", "range") for b in self.stack[:-1]))

    def _branch(self, holds: bool | None, drop: bool) -> None:
        """Enter a branch of the innermost block whose own condition `holds` (True for `else`; None: unknown): it
        renders when no branch before it did and its condition holds. `drop`: not read unless known to render."""
        block = self.stack[-1]
        before = block[3]  # some branch before renders (True), none does (False), not known (None)
        if before is True or holds is False:
            block[1] = True  # (known not to render)
        elif before is False and holds is True:
            block[1], block[3] = False, True
        else:
            block[1], block[3] = drop, None

    def pieces(self, line: str) -> list[tuple[str, int]] | None:
        """The YAML text for template `line` (with its newline) as (text, offset in `line` it starts at) pieces;
        None: the line produces no YAML (emptied)."""
        self.line_branches.append(tuple(b[2] for b in self.stack))
        if "{{" not in line:
            if self._skipping():
                return None
            if line.strip() in _ELISIONS:  # documentation showing a template: `...` stands for what is left out
                self.inserted = True
                return None
            self._note_literal(line)
            return [(line, 0)]
        if _ONLY_ACTIONS.match(line):
            skipping = self._skipping()
            control = self._control(line)
            if control or skipping or self._skipping():
                return None
            # an action that inserts text (include, toYaml, a value): a hole under a key without a value
            start = line.index("{{")
            set_indent = _INDENT.search(line)
            self.insertions.append((len(self.line_branches), int(set_indent.group(1)) if set_indent else start,
                                    set_indent is not None))
            end = len(line.rstrip("\r\n"))
            if self.holes_as_values and self.last_key_indent is not None:
                indent = " " * (self.last_key_indent + 2)
                self.last_key_indent = None
                return [(indent, 0), ("'{{ }}'", start), (line[end:], end)]
            self.inserted = True
            return None
        if self._skipping():
            return None
        return self._inline(line)

    def same_branches(self, a: int, b: int) -> bool:
        """Whether 1-based lines `a` and `b` are in the same branches of the same blocks: both rendered whenever
        one is (a key defined on both is a duplicate for sure; in two `if` blocks, only when both hold)."""
        lb = self.line_branches
        return 0 < a <= len(lb) and 0 < b <= len(lb) and lb[a - 1] == lb[b - 1]

    def inserts_between(self, a: int, b: int, indent: int) -> bool:
        """Whether a line between 1-based lines `a` and `b` inserts text that may start another mapping than the
        one at `indent` holding a key on both (a list item `- name:` from `{{- include "core" . }}` above the key's
        indentation, a document at the top level): the key twice, then, may be in two mappings. Text inserted at
        the mapping's own indentation (`| nindent 2` under keys at 2) only adds keys to it."""
        return any(a < n < b and (at < indent or (at == indent and (indent == 0 or not certain)))
                   for n, at, certain in self.insertions)

    def _note_literal(self, line: str) -> None:
        if not line.strip() or line.lstrip().startswith("#"):
            return
        m = _EMPTY_KEY.match(line)
        self.last_key_indent = len(m.group(1)) if m else None

    def _fill(self, action: str) -> str | None:
        m = _VALUES_REF.match(action)
        if m is None:
            return None
        text = _scalar_text(self.values.get(m.group(1)))
        if text is None:
            return None
        return f'"{text}"' if m.group(2) or _QUOTE_FIRST.match(action) else text

    def _inline(self, line: str) -> list[tuple[str, int]]:
        """A line with literal text and actions: known values filled in, an action that begins a value or a key
        quoted (a hole), the rest kept as written (an action inside a plain or quoted scalar is already a hole)."""
        self.last_key_indent = None
        pos = 0
        text_parts: list[tuple[str, int]] = []
        for m in _ACTION.finditer(line):
            action = m.group(0)
            filled = self._fill(action)
            if filled is None:
                if line[:m.start()].rstrip()[-1:] in ("[", ","):
                    filled = "'{{ }}'"  # (an item of a flow sequence, `[{{ .arch | quote }}]`: braces YAML would
                    # read as a flow mapping; quoted, a hole)
                elif not any(c in action for c in "\"'\\"):
                    continue
                else:
                    filled = "{{ }}"  # (quotes inside an action would end the YAML string around it: an empty hole)
            text_parts.append((line[pos:m.start()], pos))
            text_parts.append((filled, m.start()))
            pos = m.end()
        text_parts.append((line[pos:], pos))
        flat = "".join(t for t, _ in text_parts)
        if "{{" not in flat:
            self._note_literal(flat)
            return [p for p in text_parts if p[0]]
        # an action left at the start of a value or key: quote the whole value (or key) as a hole
        m = _VALUE_AT.match(flat)
        if m is not None:
            cut, value = len(m.group(1)), m.group(2)
            return self._requote(text_parts, cut, cut + len(value), value) + self._slice(text_parts, cut + len(value), len(flat))
        k = _KEY_AT.match(flat)
        if k is not None:
            cut, key_end = len(k.group(1)), len(k.group(1)) + len(k.group(2))
            return self._requote(text_parts, cut, key_end, k.group(2)) + self._slice(text_parts, key_end, len(flat))
        return [p for p in text_parts if p[0]]

    @staticmethod
    def _slice(parts: list[tuple[str, int]], a: int, b: int) -> list[tuple[str, int]]:
        """The pieces covering characters [a, b) of their concatenation."""
        out, pos = [], 0
        for text, off in parts:
            lo, hi = max(a, pos), min(b, pos + len(text))
            if lo < hi:
                # (a filled value maps to its action's start: offsets inside it are not the template's)
                out.append((text[lo - pos:hi - pos], off + (lo - pos)))
            pos += len(text)
        return out

    def _requote(self, parts, a: int, b: int, value: str) -> list[tuple[str, int]]:
        start = self._slice(parts, a, a + 1)[0][1] if b > a else 0
        if "'" not in value:
            q = "'"
        elif '"' not in value and "\\" not in value:
            q = '"'
        else:
            return self._slice(parts, 0, a) + [("'{{ }}'", start)]
        return self._slice(parts, 0, a) + [(q, start)] + self._slice(parts, a, b) + [(q, start)]


def block_as_template(build, got, probs, vsrc):
    """A Markdown block that does not read as YAML because it shows a Go/Helm template (`vsrc`, and what `load`
    made of it): read as a template, the first of READINGS that parses; else what it was, without its problems
    (documentation showing a template karplint cannot read: nothing to say). `build(masker)` makes the block's
    virtual source through a Masker (karplint/readers/virtual.py)."""
    from karplint.readers.loader import load

    if not is_template(vsrc.text):
        return got, probs, vsrc
    for opts in READINGS:
        vsrc2 = build(Masker(None, **opts))
        if vsrc2 is None:
            continue
        got2, probs2 = load(vsrc2)
        if not any(p.code == "KPL001" for p in probs2):
            vsrc2.embedding.fragment = True  # (a template shown in documentation: a snippet, what it lacks unknown)
            return got2, probs2, vsrc2
    return [], [], vsrc
