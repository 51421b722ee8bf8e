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
_OPAQUE_ENV = re.compile(r"(?:^|[\s;&|(`{])(?:source|\.|eval)\s")
_OPAQUE = re.compile(r"(?:^|[\s;&|(`{])(?:source|\.|eval|set\s+-[a-zA-Z]*[ua]|set\s+-o\s+(?:nounset|allexport))\s")


def assigned_names(script: ShellScript) -> set[str] | None:
    """Every variable name the script may assign; None when something in it could assign any name (`source`,
    `.`, `eval`) or changes what an unset name does (`set -u`, `set -a`)."""
    if _OPAQUE.search(script.text):
        return None
    names = {a.name for a in script.assignments}
    names |= {m.group(1) for m in _BINDS.finditer(script.text)}
    return names


@dataclass
class EmptyExpansion:
    name: str
    offset: int  # script offset of the `$`


def assume_unassigned_empty(word: Word, script: ShellScript, others: list[Word] = ()
                            ) -> tuple[Word, list[EmptyExpansion]] | None:
    """`word` as bash builds it when its unresolved expansions are variables the script never assigns (empty),
    with those expansions; None when any expansion is something else or may be set, or when the empty expansion
    could remove or split the word (unquoted). `others`: the command's other words; one of them expanding a
    variable the script never assigns too (`/etc/eks/bootstrap.sh $CLUSTER_NAME`) says the script is a template
    something fills in before it runs, so nothing is assumed."""
    if not word.dynamic or word.splits or not word.unknown:
        return None
    names = assigned_names(script)
    if names is None:
        return None
    for w in others:
        for text in w.unknown:
            m = _PLAIN_REF.fullmatch(text)
            if m and (m.group(1) or m.group(2)) not in names and (m.group(1) or m.group(2)) not in ALWAYS_SET:
                return None
    empty: set[str] = set()
    for text in word.unknown:
        m = _PLAIN_REF.fullmatch(text)
        name = m and (m.group(1) or m.group(2))
        if not name or name in names or name in ALWAYS_SET:
            return None
        empty.add(name)
    by_name: dict[str, list[Assignment]] = {}
    for a in script.assignments:
        by_name.setdefault(a.name, []).append(a)

    def env(name: str, at: int) -> str | None:
        if name in empty:
            return ""
        found = next((a for a in reversed(by_name.get(name, ())) if a.offset < at and not a.in_command), None)
        if found is None or found.value.dynamic or not found.top_level:
            return None
        return found.value.value

    rebuilt = make_word(word.raw, word.start, env)
    if rebuilt.dynamic or rebuilt.splits:
        return None
    refs = [EmptyExpansion(m.group(1) or m.group(2), word.start + m.start()) for m in _PLAIN_REF.finditer(word.raw)
            if (m.group(1) or m.group(2)) in empty]
    return rebuilt, refs


_ALLEXPORT = re.compile(r"set\s+(?:-[a-zA-Z]*a[a-zA-Z]*|(?:-[a-zA-Z]*\s+)*-o\s+allexport)\b")


def _export_marks(script: ShellScript, name: str) -> list[int]:
    """Offsets of the commands that give `name` the export attribute: `export NAME[=v]`, `declare -x`/`typeset -x
    NAME[=v]` (bash passes every later value of an exported name to child processes)."""
    out = []
    for cmd in script.commands:
        ws = [w.value for w in cmd.words]
        if not ws:
            continue
        opts = [w for w in ws[1:] if w.startswith("-")]
        if ws[0] == "export" and not any("n" in o for o in opts) or \
                ws[0] in ("declare", "typeset") and any("x" in o for o in opts):
            if any(w == name or w.startswith(name + "=") for w in ws[1:]):
                out.append(cmd.start)
    return out


def environment_assignment(script: ShellScript, name: str, before: int) -> tuple[Assignment | None, bool]:
    """The last assignment of `name` before offset `before` (not a command prefix) and whether it is in the
    environment of a command run at `before`: exported with it, marked by `export`/`declare -x` before that
    command, or assigned while `set -a` (allexport) is on."""
    last = None
    for a in script.assignments:
        if a.offset >= before:
            break
        if a.name == name and not a.in_command:
            last = a
    if last is None:
        return None, False
    if last.exported or any(m < before for m in _export_marks(script, name)):
        return last, True
    allexport = next((c.start for c in script.commands if _ALLEXPORT.match(script.text, c.start)), None)
    return last, allexport is not None and allexport < last.offset


def unused_extra_args_assignment(script: ShellScript, cmd: Command) -> Assignment | None:
    """The last `KUBELET_EXTRA_ARGS=...` before the bootstrap.sh command `cmd` that bootstrap.sh never sees: not
    exported (no `export`, `declare -x` or `set -a` before the call), not a prefix of this command, and not used
    by the script elsewhere (a `$KUBELET_EXTRA_ARGS` after it means the author passes it on some other way)."""
    if _OPAQUE_ENV.search(script.text) or any(p.raw.startswith("KUBELET_EXTRA_ARGS=") for p in cmd.assignments):
        return None
    last, exported = environment_assignment(script, "KUBELET_EXTRA_ARGS", cmd.start)
    if last is None or exported or not last.value.value.strip():
        return None
    if re.search(r"\$\{?KUBELET_EXTRA_ARGS\b", script.text[last.word.end:]):
        return None
    return last
