"""userData rules for kubelet flags the author wrote that silently never reach the kubelet on AL2 (KPL219-KPL221):
a variable the script never assigns, a `KUBELET_EXTRA_ARGS` that is not exported, and a single quote after which
systemd 219 drops the rest of the drop-in line.

Found by the differential against the real bootstrap.sh (tests/userdata/sandbox.py). The analysis lives in
`karplint.userdata` (environment.py, systemd.py); these functions only turn it into findings.
"""

from __future__ import annotations

from karplint.rules.base import rule
from karplint.rules._legacy import userdata_analysis
from karplint.rules.userdata_shell import NODECLASS, _bootstraps

_SHOWN = 120  # characters of a value quoted in a message


def _quoted(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


# ------------------------------------------------------------------------------------------------ KPL219

@rule("KPL219", "kubelet-extra-args-unassigned-variable", category="userdata", severity="warning",
      summary="--kubelet-extra-args expands a variable the script never assigns: bash makes it empty and what it "
              "was meant to hold never reaches the kubelet", kinds=NODECLASS)
def kubelet_extra_args_unassigned_variable(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        if not ba.empty_expansions or ba.never_runs is not None:
            continue
        w = ba.extra_args
        names = list(dict.fromkeys(e.name for e in ba.empty_expansions))
        first = ba.empty_expansions[0]
        listed = ", ".join(f"`{n}`" for n in names)
        verb = "is" if len(names) == 1 else "are"
        yield ctx.at(res, res.doc, ba.view.span(first.offset, first.offset + 1),
                     f"{listed} {verb} never assigned in this script: bash expands "
                     f"{'it' if len(names) == 1 else 'them'} to nothing\n"
                     f"help: assign {listed} before the bootstrap.sh call, or write the value in place\n"
                     f"note: bootstrap.sh gets --kubelet-extra-args `{_quoted(w.value)}`\n"
                     "note: cloud-init runs userData in an environment that does not set it")


# ------------------------------------------------------------------------------------------------ KPL220

@rule("KPL220", "kubelet-extra-args-not-exported", category="userdata", severity="error",
      summary="KUBELET_EXTRA_ARGS assigned but not exported before bootstrap.sh: bootstrap.sh never sees it",
      kinds=NODECLASS)
def kubelet_extra_args_not_exported(res, ctx):
    seen: set[tuple[int, int]] = set()  # (part, offset): one finding per assignment, however many calls follow
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        a = ba.unexported_extra_args
        if a is None or ba.never_runs is not None or (id(ba.part), a.offset) in seen:
            continue
        seen.add((id(ba.part), a.offset))
        yield ctx.at(res, res.doc, ba.view.span(a.word.start, a.word.end),
                     "KUBELET_EXTRA_ARGS is not exported: bootstrap.sh never sees it\n"
                     "help: write `export KUBELET_EXTRA_ARGS=...`, or pass the value with `--kubelet-extra-args`\n"
                     f"note: the kubelet starts without `{_quoted(a.value.value)}`\n"
                     "note: bootstrap.sh reads KUBELET_EXTRA_ARGS from its environment when --kubelet-extra-args is "
                     "absent; a shell variable that is not exported is not in a child process's environment")


# ------------------------------------------------------------------------------------------------ KPL221

@rule("KPL221", "kubelet-extra-args-cut-at-quote", category="userdata", severity="error",
      summary="A single quote in --kubelet-extra-args ends systemd 219's Environment= word: the rest of the "
              "value never reaches the kubelet", kinds=NODECLASS)
def kubelet_extra_args_cut_at_quote(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        sd, w = ba.systemd, ba.extra_args
        if sd is None or w is None or sd.cut_at is None or sd.dropped or sd.exec_fails:
            continue
        yield ctx.at(res, res.doc, ba.span(w, sd.cut_at, sd.cut_at + 1),
                     "a single quote ends KUBELET_EXTRA_ARGS on AL2: the rest of the value is dropped\n"
                     "help: use double quotes inside the value (systemd removes them), or none\n"
                     f"note: `{_quoted(sd.cut)}` never reaches the kubelet\n"
                     "note: bootstrap.sh writes Environment='KUBELET_EXTRA_ARGS=...' and systemd 219 ends the quoted "
                     "word at this quote; what follows is not part of the variable")
