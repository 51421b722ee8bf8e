"""What a userData script's shell variables give bootstrap.sh: variables it never assigns, and a
`KUBELET_EXTRA_ARGS` it assigns without exporting.

* bash expands a variable that is never assigned to nothing (no `set -u`), and cloud-init runs the script with
  an environment of its own that holds no such names: `"--register-with-taints=$TAINTS"` with TAINTS never set
  reaches bootstrap.sh as `--register-with-taints=`. `assume_unassigned_empty` computes that word, only when every
  unresolved expansion is a plain `$NAME`/`${NAME}` of such a variable and nothing in the script could set one
  (`source`, `.`, `eval`, a `read`, a loop variable, ...).
* bootstrap.sh takes `KUBELET_EXTRA_ARGS` from its environment only when `--kubelet-extra-args` is absent
  (`KUBELET_EXTRA_ARGS="${KUBELET_EXTRA_ARGS:-}"` after option parsing; the option sets it otherwise:
  awslabs/amazon-eks-ami templates/al2/runtime/bootstrap.sh@0ab84280#L83 and #L220): a plain assignment in the
  calling script is not in bootstrap.sh's environment. `unused_extra_args_assignment` finds one that is lost.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from karplint.userdata.shell import Assignment, Command, ShellScript, Word, make_word

# Variables bash or the boot environment (cloud-init runs scripts as root) always sets.
ALWAYS_SET = frozenset({
    "HOME", "PATH", "PWD", "SHELL", "USER", "HOSTNAME", "UID", "EUID", "PPID", "BASH", "BASH_VERSION", "RANDOM",
    "LINENO", "SECONDS", "OSTYPE", "HOSTTYPE", "MACHTYPE", "IFS", "SHLVL", "OLDPWD", "TERM", "LANG", "OPTIND", "PS4",
    "BASHPID", "GROUPS", "FUNCNAME", "BASH_SOURCE"})
_PLAIN_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# Builtins that assign the names they are given (or whose effect on variables is unknowable here).
_BINDS = re.compile(r"(?:^|[\s;&|(`{])(?:read|for|select|local|declare|typeset|export|readonly|getopts|mapfile|"
                    r"readarray|printf\s+-v|let)\s+(?:-[\w]+\s+)*([A-Za-z_][A-Za-z0-9_]*)")
_SOURCES = re.compile(r"(?:^|[\s;&|(`{])(?:source|\.|eval)\s")  # may assign any name
_UNSET_RULES = re.compile(r"(?:^|[\s;&|(`{])set\s+(?:-[a-zA-Z]*[ua]|-o\s+(?:nounset|allexport))")
_ALLEXPORT = re.compile(r"set\s+(?:-[a-zA-Z]*a[a-zA-Z]*|(?:-[a-zA-Z]*\s+)*-o\s+allexport)\b")
_EXTRA_ARGS = "KUBELET_EXTRA_ARGS"
_EXTRA_ARGS_REF = re.compile(r"\$\{?KUBELET_EXTRA_ARGS\b")


class ScriptEnvironment:
    """What one script does to variables, computed once per script (`of(script)`) so that a script with
    thousands of bootstrap.sh calls costs one pass, not one per call."""

    def __init__(self, script: ShellScript):
        text = script.text
        self.sources = _SOURCES.search(text) is not None
        self.unset_rules = _UNSET_RULES.search(text) is not None
        self.assigned = {a.name for a in script.assignments} | {m.group(1) for m in _BINDS.finditer(text)}
        self.by_name: dict[str, list[Assignment]] = {}
        for a in script.assignments:
            if not a.in_command:
                self.by_name.setdefault(a.name, []).append(a)
        self.offsets = {n: [a.offset for a in v] for n, v in self.by_name.items()}
        self.export_marks: dict[str, list[int]] = {}  # name -> offsets of `export NAME`, `declare -x NAME`
        self.allexport: int | None = None  # offset of the first `set -a`
        for cmd in script.commands:
            ws = [w.value for w in cmd.words]
            if not ws:
                continue
            if self.allexport is None and ws[0] == "set" and _ALLEXPORT.match(text, cmd.start):
                self.allexport = cmd.start
            opts = [w for w in ws[1:] if w.startswith("-")]
            if ws[0] == "export" and not any("n" in o for o in opts) or \
                    ws[0] in ("declare", "typeset") and any("x" in o for o in opts):
                for w in ws[1:]:
                    if not w.startswith("-"):
                        self.export_marks.setdefault(w.partition("=")[0], []).append(cmd.start)
        self.extra_args_refs = [m.start() for m in _EXTRA_ARGS_REF.finditer(text)]

    def last_assignment(self, name: str, before: int) -> Assignment | None:
        """The last assignment of `name` before offset `before` (command prefixes excluded)."""
        k = bisect.bisect_left(self.offsets.get(name, ()), before)
        return self.by_name[name][k - 1] if k else None

    def static_value(self, name: str, at: int) -> str | None:
        """The value of `name` at offset `at` when it is known (as the shell scan substitutes it)."""
        a = self.last_assignment(name, at)
        if a is None or a.value.dynamic or not a.top_level:
            return None
        return a.value.value

    def never_assigned(self, name: str) -> bool:
        return not self.sources and not self.unset_rules and name not in self.assigned and name not in ALWAYS_SET


def of(script: ShellScript) -> ScriptEnvironment:
    env = script.__dict__.get("_environment")
    if env is None:
        env = script.__dict__["_environment"] = ScriptEnvironment(script)
    return env


@dataclass
class EmptyExpansion:
    name: str
    offset: int  # script offset of the `$`


def _plain_name(text: str) -> str | None:
    m = _PLAIN_REF.fullmatch(text)
    return (m.group(1) or m.group(2)) if m else None


def assume_unassigned_empty(word: Word, script: ShellScript, others: list[Word] = ()
                            ) -> tuple[Word, list[EmptyExpansion]] | None:
    """`word` as bash builds it when its unresolved expansions are variables the script never assigns (empty),
    with those expansions; None when any expansion is something else or may be set (`source`, `.`, `eval`, a
    `read`, a loop variable, ...; `set -u` aborts instead: KPL215), or when the empty expansion could remove or
    split the word (unquoted). `others`: the command's other words; one of them expanding a variable the script
    never assigns too (`/etc/eks/bootstrap.sh $CLUSTER_NAME`) says the script is a template something fills in
    before it runs, so nothing is assumed."""
    if not word.dynamic or word.splits or not word.unknown:
        return None
    senv = of(script)
    empty = {_plain_name(t) for t in word.unknown}
    if None in empty or not all(senv.never_assigned(n) for n in empty):
        return None
    if any(n is not None and senv.never_assigned(n) for w in others for n in map(_plain_name, w.unknown)):
        return None

    def env(name: str, at: int) -> str | None:
        return "" if name in empty else senv.static_value(name, at)

    rebuilt = make_word(word.raw, word.start, env)
    if rebuilt.dynamic or rebuilt.splits:
        return None
    refs = [EmptyExpansion(m.group(1) or m.group(2), word.start + m.start()) for m in _PLAIN_REF.finditer(word.raw)
            if (m.group(1) or m.group(2)) in empty]
    return rebuilt, refs


def environment_assignment(script: ShellScript, name: str, before: int) -> tuple[Assignment | None, bool]:
    """The last assignment of `name` before offset `before` (not a command prefix) and whether it is in the
    environment of a command run at `before`: exported with it, marked by `export`/`declare -x` before that
    command, or assigned while `set -a` (allexport) is on."""
    senv = of(script)
    last = senv.last_assignment(name, before)
    if last is None:
        return None, False
    marks = senv.export_marks.get(name, ())
    if last.exported or (marks and marks[0] < before):
        return last, True
    return last, senv.allexport is not None and senv.allexport < last.offset


def unused_extra_args_assignment(script: ShellScript, cmd: Command) -> Assignment | None:
    """The last `KUBELET_EXTRA_ARGS=...` before the bootstrap.sh command `cmd` that bootstrap.sh never sees: not
    exported (no `export`, `declare -x` or `set -a` before the call), not a prefix of this command, and not used
    by the script elsewhere (a `$KUBELET_EXTRA_ARGS` after it means the author passes it on some other way)."""
    senv = of(script)
    if senv.sources or any(p.raw.startswith(_EXTRA_ARGS + "=") for p in cmd.assignments):
        return None
    last, exported = environment_assignment(script, _EXTRA_ARGS, cmd.start)
    if last is None or exported or not last.value.value.strip():
        return None
    refs = senv.extra_args_refs
    if refs and refs[-1] >= last.word.end:
        return None
    return last
