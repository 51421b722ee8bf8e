"""userData rules for MIME and shell (AL2 bootstrap.sh, systemd 219, kubelet flags): KPL200-KPL229.

All analysis lives in `karplint.userdata`; these functions only turn its results into findings. Sources:
amazon-eks-ami's AL2 bootstrap.sh, systemd 219, kubelet flag parsing, bashlex, and Karpenter's bootstrap/ at v1.14.1.
"""

from __future__ import annotations

import difflib
import re

from karplint.findings import Edit, Fix
from karplint.rules.base import rule
from karplint.rules._legacy import judged, userdata_analysis
from karplint.userdata import content as ct
from karplint.userdata import kubelet as kl
from karplint.userdata import mime as mm
from karplint.userdata.bootstrap import HELP_OPTIONS, KARPENTER_KUBELET_FLAGS, VALUE_OPTIONS
from karplint.userdata.model import BootstrapAnalysis, KubeletWord, UserDataAnalysis
from karplint.userdata.shell import kubelet_config_writes, kubelet_restarts, program
from karplint.userdata.text import USERDATA_PATH, UserDataText
from karplint.model.versions import V

NODECLASS = ("EC2NodeClass", "AWSNodeTemplate")
UNREGISTERED_KEY, UNREGISTERED_EFFECT = "karpenter.sh/unregistered", "NoExecute"
UNREGISTERED = f"{UNREGISTERED_KEY}:{UNREGISTERED_EFFECT}"
# Families whose shell userData runs the AL2 bootstrap.sh (Custom: an AL2-style AMI when it calls bootstrap.sh).
BOOTSTRAP_FAMILIES = (ct.AL2, ct.CUSTOM, ct.UBUNTU, None)
# Families whose MIME userData Karpenter itself parses (and rejects when malformed).
KARPENTER_MIME_FAMILIES = (ct.AL2, ct.AL2023, ct.UBUNTU)
# Keys people write when they mean karpenter.sh/unregistered.
UNREGISTERED_NEAR_MISSES = ("karpenter.sh/uninitialized", "karpenter.sh/unregister", "karpenter.sh/not-registered",
                            "karpenter.sh/registered", "karpenter.sh/not-ready", "karpenter.k8s.aws/unregistered")
# Release range in which a missing registration taint is fatal (core `pkg/controllers/nodeclaim/lifecycle/registration.go`).
UNREGISTERED_FATAL_FROM, UNREGISTERED_FATAL_UNTIL = V("1.0.0"), V("1.3.0")
TEMPLATE_SUFFIXES = (".tpl", ".tftpl", ".tmpl", ".j2", ".jinja", ".jinja2", ".gotmpl", ".mustache", ".erb")
_TF_INTERPOLATION = re.compile(r"\$\{(?:module|var|local|data|each|count|path|terraform)\.[^}\n]*\}")
_GO_TEMPLATE = re.compile(r"\{\{[^}\n]*\}\}")




def _userdata_span(res):
    return res.doc.span(USERDATA_PATH)


# ------------------------------------------------------------------------------------------------ fixes

def _file_range(view: UserDataText, start: int, end: int) -> tuple[int, int] | None:
    """File offsets of view[start:end] when they are exact and on one file line."""
    if not view.exact or end <= start:
        return None
    fs = view.file_offset(start)
    fe = view.file_offset(end - 1)
    if fs is None or fe is None or fe + 1 - fs != end - start:
        return None
    return fs, fe + 1


def _minimal_edit(fs: int, old: str, new: str) -> Edit:
    """An Edit replacing `old` at file offset `fs` by `new`, touching only the characters that change."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    s = 0
    while s < min(len(old), len(new)) - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
        s += 1
    return Edit(fs + p, fs + len(old) - s, new[p:len(new) - s])


_SAFE_SHELL = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")


def _shell_quote(value: str) -> str:
    if value and _SAFE_SHELL.match(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _kubelet_value_for_single_quotes(value: str) -> str:
    """Inner quoting for a kubelet-args value inside bootstrap.sh's single-quoted drop-in: systemd removes double
    quotes, but a single quote would drop the whole KUBELET_EXTRA_ARGS, so turn single quotes into double ones."""
    return value.replace("'", '"')


# ------------------------------------------------------------------------------------------------ KPL270

@rule("KPL270", "userdata-over-ec2-limit", category="userdata", severity="error",
      summary="userData larger than the 16 KiB EC2 accepts: no instance of this EC2NodeClass can launch",
      kinds=NODECLASS)
def userdata_over_ec2_limit(res, ctx):
    from karplint.userdata.model import EC2_USERDATA_LIMIT

    text = UserDataText.from_resource(res) if judged(res, ctx, legacy=True) else None
    if text is None:
        return
    size = len(text.text.encode("utf-8", "surrogatepass"))
    if size > EC2_USERDATA_LIMIT:
        yield ctx.violation(res, USERDATA_PATH,
                            f"userData is {size:,} bytes, over EC2's {EC2_USERDATA_LIMIT:,}-byte limit\n"
                            "help: move large files to S3 or an AMI and fetch them from a short script\n"
                            "note: EC2 rejects the launch template, so Karpenter launches no node for this class "
                            "(and Karpenter's own bootstrap part adds to the size)")


# ------------------------------------------------------------------------------------------------ KPL200

@rule("KPL200", "userdata-not-verified", category="userdata", severity="info",
      summary="Part of a userData could not be analysed (shell parse failure, unresolved variables, unknown "
              "content), so karplint cannot say it is correct", kinds=NODECLASS)
def userdata_not_verified(res, ctx):
    a = userdata_analysis(res, ctx, legacy=True)
    if a is None:
        return
    for note in a.notes:
        yield ctx.at(res, res.doc, note.span, note.message)
    for ba in a.bootstraps:
        if ba.unverifiable and ba.extra_args is not None:
            w = ba.extra_args
            yield ctx.at(res, res.doc, ba.view.span(w.start, w.end),
                         f"cannot verify the kubelet flags passed to bootstrap.sh in `{w.raw}`\n"
                         f"note: it depends on {', '.join(f'`{u}`' for u in w.unknown) or 'a runtime expansion'}, "
                         "which is not assigned unconditionally earlier in this script")
        elif any(w.splits and not _TF_INTERPOLATION.search(w.raw) for w in ba.call.args):
            w = next(w for w in ba.call.args if w.splits and not _TF_INTERPOLATION.search(w.raw))
            yield ctx.at(res, res.doc, ba.view.span(w.start, w.end),
                         f"cannot verify the bootstrap.sh arguments: unquoted `{w.raw}`\n"
                         "note: it may expand to several words at run time")
    if a.family == ct.CUSTOM:
        taints, _part = a.registered_taints
        broken = any(ba.kubelet_fails or ba.no_kubelet for ba in a.bootstraps)
        if taints is None and not broken:
            unanalysed = [p for p in a.parts if p.kind in (ct.NODECONFIG, ct.TOML) and p.registered_taints is None]
            if a.mime is not None and not a.mime.parts:
                why = "its MIME structure could not be split into parts"
            elif unanalysed and unanalysed[0].data:
                why = (f"its {unanalysed[0].kind} part does not give the kubelet a usable set of registration taints "
                       "(see the other findings for this part)")
            elif unanalysed:
                why = f"its {unanalysed[0].kind} part was not analysed for registration taints"
            elif a.bootstraps:
                why = "its bootstrap.sh call could not be analysed"
            else:
                why = "no bootstrap.sh call or NodeConfig was found (the AMI may bootstrap on its own)"
            yield ctx.at(res, res.doc, _userdata_span(res),
                         f"cannot verify that this Custom userData registers {UNREGISTERED}\nnote: {why}")
    if a.family in (ct.AL2023, ct.CUSTOM) and a.content.kind == ct.UNKNOWN:
        yield ctx.at(res, res.doc, _userdata_span(res),
                     f"userData content not recognised; it was not analysed\nnote: {a.content.reason}")


# ------------------------------------------------------------------------------------------------ KPL201

def _runs_al2_bootstrap(a: UserDataAnalysis) -> bool:
    """bootstrap.sh is the real AL2 script: AL2/Ubuntu, or Custom unless an alias names a non-AL2 AMI."""
    return a.family in BOOTSTRAP_FAMILIES and a.ami_os in BOOTSTRAP_FAMILIES


def _bootstraps(a: UserDataAnalysis | None) -> list[BootstrapAnalysis]:
    if a is None or not _runs_al2_bootstrap(a):
        return []
    return a.bootstraps


@rule("KPL201", "bootstrap-equals-option", category="userdata", severity="error",
      summary="bootstrap.sh option written as --opt=value: silently ignored (or taken as the cluster name)",
      kinds=NODECLASS, fix="safe")
def bootstrap_equals_option(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        call = ba.call
        for eq in call.equals_forms:
            w = eq.word
            shown = w.value if len(w.value) <= 90 else w.value[:87] + "..."
            if eq.is_cluster_name:
                effect = ("it is the first positional word, so bootstrap.sh takes the whole word as the cluster "
                          "name and the node cannot authenticate to the cluster")
            elif eq.option == "--kubelet-extra-args":
                effect = ("bootstrap.sh stores it as an ignored positional: KUBELET_EXTRA_ARGS stays empty, no "
                          "drop-in is written and the kubelet starts without these flags (no taints, no labels)")
            else:
                effect = f"bootstrap.sh stores it as an ignored positional, so {eq.option} is never set"
            message = (f"bootstrap.sh ignores `{eq.option}=...`: it reads `{eq.option} VALUE`\n"
                       f"help: write `{eq.option} 'VALUE'` (two words)\n"
                       f"note: `{shown}` is not an option; {effect}")
            yield ctx.at(res, res.doc, ba.view.span(w.start, w.end), message, fix=_equals_fix(ba, eq))


def _equals_fix(ba: BootstrapAnalysis, eq) -> Fix | None:
    w = eq.word
    if w.dynamic or w.variables or "\n" in w.raw:
        return None
    if eq.is_cluster_name and len(ba.call.positionals) < 2:
        return None  # the rewrite would leave bootstrap.sh without a cluster name
    value = w.value[eq.value_offset:]
    if eq.option == "--kubelet-extra-args":
        quoted = "'" + _kubelet_value_for_single_quotes(value) + "'"
    else:
        quoted = _shell_quote(value)
    rng = _file_range(ba.view, w.start, w.end)
    if rng is None:
        return None
    replacement = f"{eq.option} {quoted}"
    if ba.part.content_type.startswith("text/cloud-config") and (": " in replacement or " #" in replacement):
        return None  # inside a YAML plain scalar of the cloud-config these would change the YAML structure
    return Fix(f"rewrite as `{eq.option} {quoted if len(quoted) < 60 else quoted[:57] + '...'}`", "safe",
               (_minimal_edit(rng[0], w.raw, replacement),))


# ------------------------------------------------------------------------------------------------ KPL202

@rule("KPL202", "bootstrap-argument-error", category="userdata", severity="error",
      summary="bootstrap.sh option without its value, value detached from its option, stray or missing "
              "positional (cluster name)", kinds=NODECLASS)
def bootstrap_argument_error(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        call = ba.call
        view = ba.view
        if any(w.splits for w in call.args):
            continue  # the word list is unknown at lint time (KPL200 says so)
        if call.help is not None:
            yield ctx.at(res, res.doc, view.span(call.help.start, call.help.end),
                         f"`{call.help.value}` makes bootstrap.sh print its help and exit 1\n"
                         "help: remove it\nnote: the node never joins")
            continue
        for failure in ba.validation_failures[:1]:  # the first failing check is the one that exits
            w = failure.word
            yield ctx.at(res, res.doc, view.span(w.start, w.end),
                         f"{failure.message}\nhelp: fix the value; with it bootstrap.sh never configures nor starts "
                         f"the kubelet, so the node never joins\nnote: {failure.note}")
        if call.aborts_at is not None:
            w = call.aborts_at
            yield ctx.at(res, res.doc, view.span(w.start, w.end),
                         f"`{w.value}` is the last word but takes a value\n"
                         "help: give it its value\n"
                         "note: bootstrap.sh aborts with `$2: unbound variable` (exit 1) before writing any "
                         "configuration; the node never joins")
        for opt, uses in call.options.items():
            for use in uses:
                if use.value.value in VALUE_OPTIONS or use.value.value in HELP_OPTIONS:
                    yield ctx.at(res, res.doc, view.span(use.option.start, use.option.end),
                                 f"`{opt}` has no value: bootstrap.sh takes `{use.value.value}` as its value\n"
                                 f"help: give `{opt}` its value\n"
                                 f"note: values are taken blindly, so `{use.value.value}` is not applied either")
        equals_words = {id(e.word) for e in call.equals_forms}
        cluster = call.cluster_name
        if cluster is None and call.aborts_at is None:
            yield ctx.at(res, res.doc, ba.command_span,
                         "bootstrap.sh is called without a cluster name\n"
                         "help: pass the cluster name as its first non-option argument\n"
                         "note: it exits with \"cluster name is not defined!\"")
        elif cluster is not None and id(cluster) not in equals_words and cluster.value.startswith("-") \
                and not cluster.dynamic:
            yield ctx.at(res, res.doc, view.span(cluster.start, cluster.end),
                         f"`{cluster.value}` is not a bootstrap.sh option: it becomes the cluster name\n"
                         "note: it is the first positional word")
        for w in call.positionals[1:]:
            if id(w) in equals_words:
                continue  # KPL201
            if w.value.strip(" \t\r") == "" and w is call.args[-1]:
                continue  # `\ ` at the end of a line: the broken continuation is reported below
            hint = ""
            args = ba.call.args
            prev_idx = next((k for k, x in enumerate(args) if x is w), 0) - 1
            owner = next((u for us in call.options.values() for u in us if prev_idx >= 0 and u.value is args[prev_idx]),
                         None)
            if owner is not None and owner.value.value in VALUE_OPTIONS:
                hint = (f"\nnote: it was meant as the value of `{owner.value.value}`, which `{owner.option.value}` "
                        "took as its own value")
            elif owner is not None:
                hint = (f"\nhelp: if it belongs to the value of `{owner.option.value}`, quote the whole value as one "
                        "word (e.g. --kubelet-extra-args '--a=1 --b=2')")
            yield ctx.at(res, res.doc, view.span(w.start, w.end),
                         f"bootstrap.sh ignores `{w.value}`\n"
                         f"note: only the first positional word (the cluster name `{cluster.value if cluster else ''}`)"
                         f" is used{hint}")
        yield from _continuation_breaks(res, ctx, ba)


def _continuation_breaks(res, ctx, ba: BootstrapAnalysis):
    """A `\\` followed by a space or CR ends the command: the next line runs as its own command (exit 127)."""
    script = ba.part.script
    cmds = script.commands
    idx = next((i for i, c in enumerate(cmds) if c is ba.call.cmd), None)
    if idx is None or idx + 1 >= len(cmds):
        return
    nxt = cmds[idx + 1]
    p = program(nxt)
    if p is None or not p[1].value.startswith("--") or nxt.line != ba.call.cmd.line + script.text.count(
            "\n", ba.call.cmd.start, ba.call.cmd.end) + 1:
        return
    text = script.text
    line_end = text.rfind("\n", 0, nxt.start)
    before = text[max(0, line_end - 3):line_end]
    why = ("a backslash followed by a space or carriage return does not continue the line"
           if re.search(r"\\[ \t\r]+$", before) else "the previous line does not end with a backslash")
    yield ctx.at(res, res.doc, ba.view.span(nxt.start, nxt.end),
                 "this line is not part of the bootstrap.sh command above\n"
                 "help: end the previous line with a backslash and nothing after it\n"
                 f"note: {why}: it runs as a separate command (`{p[1].value}: command not found`) and its options "
                 "never reach bootstrap.sh")


# ------------------------------------------------------------------------------------------------ KPL203

@rule("KPL203", "kubelet-extra-args-lost", category="userdata", severity="error",
      summary="KUBELET_EXTRA_ARGS that systemd 219 drops or cannot split, or kubelet argv the kubelet rejects",
      kinds=NODECLASS)
def kubelet_extra_args_lost(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        sd = ba.systemd
        w = ba.extra_args
        if sd is None or w is None:
            continue
        if sd.dropped or sd.exec_fails:
            at = sd.reason_at or 0
            span = ba.span(w, at, at + 1) if w.offsets else ba.view.span(w.start, w.end)
            if sd.exec_fails:
                msg = ("--kubelet-extra-args contains an unterminated double quote\n"
                       "note: systemd 219 cannot split $KUBELET_EXTRA_ARGS and the kubelet never starts")
            else:
                msg = (f"--kubelet-extra-args is lost on AL2: the kubelet starts without these flags\n"
                       f"note: {sd.reason}")
            yield ctx.at(res, res.doc, span, msg)
            continue
        if sd.truncated_at is not None:
            span = ba.span(w, sd.truncated_at, sd.truncated_at + 2)
            yield ctx.at(res, res.doc, span,
                         "an empty word (`\"\"` or `''`) in --kubelet-extra-args ends systemd 219's argument list\n"
                         f"note: `{sd.lost}` never reaches the kubelet")
        flags = ba.flags
        if flags is None:
            continue
        for i in flags.positionals:
            kw = ba.kubelet_argv[i]
            extra = ""
            if i > 0 and ba.kubelet_argv[i - 1].value.endswith(","):
                extra = ("\nhelp: remove the space after the comma\nnote: the previous word keeps a trailing comma "
                         "and this one becomes a separate argument")
            yield ctx.at(res, res.doc, kw.span(),
                         f"the kubelet receives `{kw.value}` as a separate argument and exits{extra}\n"
                         f"note: `unknown command \"{kw.value}\" for \"kubelet\"`")
        for i in flags.missing_value:
            kw = ba.kubelet_argv[i]
            yield ctx.at(res, res.doc, kw.span(),
                         f"kubelet flag `{kw.value}` is the last argument and has no value\n"
                         "note: the kubelet exits (flag needs an argument)")


# ------------------------------------------------------------------------------------------------ KPL204

_TAINT_HINTS = {
    kl.EMPTY_SPEC: "an empty taint (trailing comma, `,,`, or a space after a comma that systemd split off)",
    kl.LEADING_SPACE: "a space after a comma is kept as part of the next taint's key",
    kl.QUOTES: "literal quote characters reached the kubelet",
    kl.DOLLAR: "an unexpanded `$` reached the kubelet (a variable inside single quotes is not expanded)",
    kl.BAD_EFFECT: "effects are case-sensitive: NoSchedule, PreferNoSchedule or NoExecute",
    kl.NO_EFFECT: "every taint needs `:Effect`",
    kl.BAD_KEY: "taint keys are an optional lowercase DNS prefix plus `/` and a name of at most 63 characters",
    kl.BAD_VALUE: "taint values are at most 63 alphanumerics, `-`, `_` or `.`",
    kl.BAD_SPEC: "a taint is key[=value]:Effect",
    kl.DUPLICATE: "two taints with the same key and effect",
}


@rule("KPL204", "invalid-register-with-taints", category="userdata", severity="error",
      summary="--register-with-taints value the kubelet rejects (or silently drops), or repeated (last wins)",
      kinds=NODECLASS, fix="safe")
def invalid_register_with_taints(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        flags = ba.flags
        if flags is None:
            continue
        uses = flags.all("register-with-taints")
        for earlier in uses[:-1]:
            kw = ba.kubelet_argv[earlier.index]
            yield ctx.at(res, res.doc, kw.span(),
                         f"--register-with-taints is given {len(uses)} times: only the last one counts\n"
                         "help: merge the taints into one flag\n"
                         f"note: `{earlier.value}` is not registered", severity="warning")
        for kw, base, value, errors in ba.taint_uses:
            for err in errors:
                yield _taint_violation(res, ctx, ba, kw, base, value, err)


def _taint_violation(res, ctx, ba: BootstrapAnalysis, kw: KubeletWord, base: int, value: str, err: kl.TaintError):
    hint = _TAINT_HINTS.get(err.kind)
    if err.kind == kl.REMOVAL:
        msg = f"{err.message}: the node registers without it"
    else:
        said = kl.kubelet_flag_error("--register-with-taints", value, err.message)
        if len(said) > 260:
            said = said[:257] + "..."
        msg = "invalid --register-with-taints value: the kubelet exits"
        if err.kind == kl.BAD_EFFECT:
            meant = kl.near_miss_effect(value[err.start:err.end])
            if meant:
                msg += f"\nhelp: did you mean {meant}?"
        if hint:
            msg += f"\nnote: {hint}"
        msg += f"\nnote: the kubelet says: {said}"
    start, end = base + err.start, base + max(err.end, err.start + 1)
    if err.kind == kl.EMPTY_SPEC and err.start > 0:
        start, end = base + err.start - 1, base + err.start  # point at the comma
    return ctx.at(res, res.doc, kw.span(start, end), msg, fix=_taint_fix(ba, kw, base, err))


def _taint_fix(ba: BootstrapAnalysis, kw: KubeletWord, base: int, err: kl.TaintError) -> Fix | None:
    """Safe fixes: drop a trailing comma / the space after a comma / literal quotes (syntax only)."""
    view = ba.view
    if ba.extra_args is None or ba.extra_args.variables or not view.exact:
        return None
    edits: list[Edit] = []
    if err.kind == kl.EMPTY_SPEC and err.start > 0:
        comma = base + err.start - 1
        if comma != len(kw.value) - 1:
            return None  # ",," in the middle: which taint was meant is unknown
        rng = _file_range(view, kw.offsets[comma], kw.offsets[comma] + 1)
        if rng is None or view.text[kw.offsets[comma]] != ",":
            return None
        idx = ba.kubelet_argv.index(kw)
        nxt = ba.kubelet_argv[idx + 1] if idx + 1 < len(ba.kubelet_argv) else None
        if nxt is not None and nxt.offsets and ba.flags and (idx + 1) in ba.flags.positionals:
            # "a:NoSchedule, b:NoExecute": remove the whitespace so both taints stay in one word
            gap_start, gap_end = kw.offsets[comma] + 1, nxt.offsets[0]
            gap = view.text[gap_start:gap_end]
            if gap.strip(" \t") or not gap:
                return None
            rng = _file_range(view, gap_start, gap_end)
            if rng is None:
                return None
            return Fix("remove the space after the comma", "safe", (Edit(rng[0], rng[1], ""),))
        return Fix("remove the trailing comma", "safe", (Edit(rng[0], rng[1], ""),))
    if err.kind == kl.LEADING_SPACE:
        i = base + err.start
        while i < len(kw.value) and kw.value[i] in " \t":
            rng = _file_range(view, kw.offsets[i], kw.offsets[i] + 1)
            if rng is None:
                return None
            edits.append(Edit(rng[0], rng[1], ""))
            i += 1
        return Fix("remove the space after the comma", "safe", tuple(edits)) if edits else None
    if err.kind == kl.QUOTES:
        value = kw.value[base:]  # the whole taint spec around the error (the error may cover only the effect)
        spec_start = value.rfind(",", 0, err.start) + 1
        spec_end = value.find(",", err.start)
        lo, hi = base + spec_start, base + (len(value) if spec_end == -1 else spec_end)
        word_start = ba.extra_args.start
        for i in range(lo, min(hi, len(kw.value))):
            if kw.value[i] in "\"'":
                o = kw.offsets[i]
                if view.text[o] not in "\"'":
                    return None
                s = o
                while s > word_start and view.text[s - 1] == "\\":
                    s -= 1  # the quote reached the kubelet escaped (\\" in the script): remove the escapes too
                rng = _file_range(view, s, o + 1)
                if rng is None:
                    return None
                edits.append(Edit(rng[0], rng[1], ""))
        # also a quote just before the spec (e.g. `"a:NoSchedule"`)
        return Fix("remove the literal quote characters", "safe", tuple(edits)) if edits else None
    return None


# ------------------------------------------------------------------------------------------------ KPL205

@rule("KPL205", "invalid-node-labels", category="userdata", severity="error",
      summary="--node-labels the kubelet refuses at startup (restricted kubernetes.io/k8s.io keys, invalid "
              "keys or values)", kinds=NODECLASS)
def invalid_node_labels(res, ctx):
    for ba in _bootstraps(userdata_analysis(res, ctx, legacy=True)):
        for kw, base, err in ba.label_errors:
            said = err.message if len(err.message) < 240 else err.message[:237] + "..."
            if err.kind == "restricted":
                msg = ("restricted label in --node-labels: the kubelet exits\n"
                       "help: set such labels from a controller, or use an allowed prefix (node.kubernetes.io/, "
                       f"kubelet.kubernetes.io/) or your own domain\nnote: the kubelet says: {said}")
            else:
                msg = f"invalid --node-labels value: the kubelet exits\nnote: the kubelet says: {said}"
            yield ctx.at(res, res.doc, kw.span(base + err.start, base + max(err.end, err.start + 1)), msg)


# ------------------------------------------------------------------------------------------------ KPL206

@rule("KPL206", "custom-missing-unregistered-taint", category="userdata", severity="error",
      summary="amiFamily Custom userData whose kubelet does not register karpenter.sh/unregistered:NoExecute",
      kinds=NODECLASS, fix="unsafe")
def custom_missing_unregistered_taint(res, ctx):
    a = userdata_analysis(res, ctx)
    if a is None or a.family != ct.CUSTOM:
        return
    version = ctx.karpenter_version
    if version < UNREGISTERED_FATAL_FROM:
        return  # the registration taint exists from v1.0
    taints, part = a.registered_taints
    if taints is None or part is None:
        return  # unknown: KPL200 says so
    if part.script is not None and not _runs_al2_bootstrap(a):
        return  # bootstrap.sh does not run on this AMI (KPL209, KPL213)
    if any(t.same_as(UNREGISTERED_KEY, UNREGISTERED_EFFECT) for t in taints):
        return
    fatal = version < UNREGISTERED_FATAL_UNTIL
    consequence = (f"Karpenter {version} (like every release 1.0–1.2) marks the NodeClaim Registered=False "
                   "(UnregisteredTaintNotFound) and deletes it after 15 minutes" if fatal else
                   f"Karpenter {version} (like every release since 1.3) logs UnregisteredTaintMissing and registers it "
                   "anyway, but pods can land on the node before Karpenter has synced its labels and taints")
    near = _near_miss(taints)
    registered = ", ".join(str(t) for t in taints) or "no taints"
    msg = f"Custom userData does not register {UNREGISTERED}"
    if near is not None and near.key == UNREGISTERED_KEY:
        msg += (f"\nhelp: did you mean effect {UNREGISTERED_EFFECT} instead of {near.effect}? taints match on key and "
                "effect")
    elif near is not None:
        msg += f"\nhelp: did you mean {UNREGISTERED_KEY} instead of {near.key}?"
        if near.effect != UNREGISTERED_EFFECT:
            msg = msg[:-1] + f" with effect {UNREGISTERED_EFFECT}?"
    else:
        msg += "\nhelp: add it to the kubelet's --register-with-taints"
    msg += (f"\nnote: it registers {registered}\n"
            f"note: {consequence}")
    ba = next((b for b in reversed(a.bootstraps) if b.part is part and b.taint_word is not None), None)
    fix = _unregistered_fix(ba, near) if ba is not None else None
    if fix is None and part.script is not None:
        last = next((b for b in reversed(a.bootstraps) if b.part is part), None)
        fix = _add_taint_flag_fix(last) if last is not None and last.taint_word is None else None
    if fix is None and part.kind == ct.NODECONFIG:  # NodeConfig registerWithTaints list (userdata_nodes.py)
        from karplint.rules.userdata_nodes import unregistered_taint_fix

        fix = unregistered_taint_fix(res)
    yield ctx.at(res, res.doc, part.registered_taints_span or _userdata_span(res), msg,
                 fix=_in_file_newlines(fix, res.doc.source.newline), severity="error" if fatal else "warning")


def _in_file_newlines(fix: Fix | None, newline: str) -> Fix | None:
    """Inserted lines must use the file's line ending (a CRLF file stays CRLF)."""
    if fix is None or newline != "\r\n":
        return fix
    edits = tuple(Edit(e.start, e.end, re.sub(r"(?<!\r)\n", "\r\n", e.replacement)) for e in fix.edits)
    return Fix(fix.description, fix.safety, edits)


def _near_miss(taints: list[kl.Taint]) -> kl.Taint | None:
    for t in taints:
        if t.key in UNREGISTERED_NEAR_MISSES or (t.key == UNREGISTERED_KEY and t.effect != UNREGISTERED_EFFECT):
            return t
    keys = [t.key for t in taints]
    close = difflib.get_close_matches(UNREGISTERED_KEY, keys, n=1, cutoff=0.8)
    return next((t for t in taints if close and t.key == close[0]), None)


def _add_taint_flag_fix(ba: BootstrapAnalysis) -> Fix | None:
    """Append `--register-with-taints=karpenter.sh/unregistered:NoExecute` inside a quoted --kubelet-extra-args
    value that has no --register-with-taints yet (only when the value is one literal quoted word)."""
    w = ba.extra_args
    if w is None or w.dynamic or w.variables or not w.offsets or ba.systemd is None or ba.systemd.dropped:
        return None
    if len(w.raw) < 2 or w.raw[-1] not in "'\"" or w.offsets[-1] != w.end - 2 or "\n" in w.raw:
        return None  # the insertion point must be inside the closing quote
    rng = _file_range(ba.view, w.end - 1, w.end)
    if rng is None:
        return None
    flag = f"--register-with-taints={UNREGISTERED}"
    sep = " " if w.value.strip() else ""
    return Fix(f"add {flag} to --kubelet-extra-args", "unsafe", (Edit(rng[0], rng[0], sep + flag),))


def _unregistered_fix(ba: BootstrapAnalysis, near: kl.Taint | None) -> Fix | None:
    kw = ba.taint_word
    view = ba.view
    if kw is None or not view.exact or (ba.extra_args is not None and ba.extra_args.variables):
        return None
    base = ba.taint_value_offset
    if near is not None:
        # rename the near-miss taint in place: key (and effect) become karpenter.sh/unregistered:NoExecute
        lo, hi = base + near.start, base + near.end
        offs = kw.offsets[lo:hi]
        if len(offs) != hi - lo or not offs or offs[-1] - offs[0] != hi - lo - 1:
            return None
        rng = _file_range(view, offs[0], offs[-1] + 1)
        if rng is None:
            return None
        old = view.text[offs[0]:offs[-1] + 1]
        new = UNREGISTERED
        return Fix(f"replace `{old}` with `{new}`", "unsafe", (_minimal_edit(rng[0], old, new),))
    if not kw.offsets or len(kw.value) <= base:
        return None
    last = kw.offsets[-1]
    rng = _file_range(view, last, last + 1)
    if rng is None:
        return None
    return Fix(f"add {UNREGISTERED} to --register-with-taints", "unsafe", (Edit(rng[1], rng[1], f",{UNREGISTERED}"),))


# ------------------------------------------------------------------------------------------------ KPL207 / KPL208

@rule("KPL207", "al2-userdata-calls-bootstrap", category="userdata", severity="error",
      summary="AL2 userData calls /etc/eks/bootstrap.sh although Karpenter appends its own call (double bootstrap)",
      kinds=NODECLASS)
def al2_userdata_calls_bootstrap(res, ctx):
    # Legacy AWSNodeTemplates too: every release that serves them appends Karpenter's bootstrap.sh part after the
    # user's (aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/eksbootstrap.go@v0.29.2 Script).
    a = userdata_analysis(res, ctx, legacy=True)
    if a is None or a.family != ct.AL2:
        return
    if res.kind == "AWSNodeTemplate":
        where, settings = "the Provisioner's spec.kubeletConfiguration", "the Provisioner's labels, taints and max-pods"
    else:
        where, settings = "spec.kubelet", "the NodePool's labels, taints, karpenter.sh/unregistered and max-pods"
    for ba in a.bootstraps:
        _, word = program(ba.call.cmd)
        yield ctx.at(res, res.doc, ba.view.span(word.start, word.end),
                     "this userData calls bootstrap.sh, and so does Karpenter: the node bootstraps twice\n"
                     f"help: remove the call; set kubelet options in {where}, or edit kubelet-config.json with jq\n"
                     f"note: the first kubelet start registers the node without Karpenter's settings ({settings})")


@rule("KPL208", "al2-userdata-sets-karpenter-flags", category="userdata", severity="warning",
      summary="AL2 userData passes kubelet flags Karpenter sets itself (--register-with-taints, --node-labels, "
              "--max-pods)", kinds=NODECLASS)
def al2_userdata_sets_karpenter_flags(res, ctx):
    a = userdata_analysis(res, ctx)
    if a is None or a.family != ct.AL2:
        return
    instead = {"register-with-taints": "NodePool spec.template.spec.taints/startupTaints",
               "node-labels": "NodePool spec.template.metadata.labels",
               "max-pods": "EC2NodeClass spec.kubelet.maxPods"}
    for ba in a.bootstraps:
        if ba.flags is None and ba.flag_names_only is not None and ba.extra_args is not None:
            w = ba.extra_args  # dynamic value: name the flags its literal text sets, at the word
            for use in ba.flag_names_only.uses:
                if use.name in KARPENTER_KUBELET_FLAGS:
                    yield ctx.at(res, res.doc, ba.view.span(w.start, w.end),
                                 f"--{use.name} conflicts with the value Karpenter passes\n"
                                 f"help: use {instead[use.name]}\n"
                                 f"note: Karpenter passes --{use.name} to the kubelet in its own bootstrap call")
            continue
        if ba.flags is None:
            continue
        for use in ba.flags.uses:
            if use.name in KARPENTER_KUBELET_FLAGS:
                kw = ba.kubelet_argv[use.index]
                yield ctx.at(res, res.doc, kw.span(),
                             f"--{use.name} conflicts with the value Karpenter passes\n"
                             f"help: use {instead[use.name]}\n"
                             f"note: Karpenter passes --{use.name} to the kubelet in its own bootstrap call")


# ------------------------------------------------------------------------------------------------ KPL209

@rule("KPL209", "al2023-calls-bootstrap-sh", category="userdata", severity="error",
      summary="AL2023 userData calls /etc/eks/bootstrap.sh, a stub that exits 1 on AL2023", kinds=NODECLASS)
def al2023_calls_bootstrap_sh(res, ctx):
    a = userdata_analysis(res, ctx)
    if a is None or a.ami_os != ct.AL2023:
        return
    for ba in a.bootstraps:
        _, word = program(ba.call.cmd)
        yield ctx.at(res, res.doc, ba.view.span(word.start, word.end),
                     "bootstrap.sh does not exist on AL2023\n"
                     "help: configure the node with a NodeConfig (Content-Type: application/node.eks.aws) instead\n"
                     "note: /etc/eks/bootstrap.sh is a stub that prints \"bootstrap.sh has been removed\" and exits 1 "
                     "(aborting a `set -e` script)")


# ------------------------------------------------------------------------------------------------ KPL210

_MIME_ERRORS = (mm.MISSING_COLON, mm.NOT_MULTIPART, mm.NO_MEDIA_TYPE, mm.NO_BOUNDARY_PARAM,
                mm.BOUNDARY_NEVER_APPEARS, mm.PART_MISSING_COLON)


@rule("KPL210", "malformed-mime-userdata", category="userdata", severity="error",
      summary="MIME userData Karpenter cannot split: no blank line after the headers, non-multipart type, "
              "boundary never used, last part not terminated (closing boundary missing: info)", kinds=NODECLASS)
def malformed_mime_userdata(res, ctx):
    a = userdata_analysis(res, ctx, legacy=True)
    if a is None or a.mime is None:
        return
    karpenter_parses = a.family in KARPENTER_MIME_FAMILIES
    for p in a.mime.problems:
        span = a.text.span(p.start, max(p.end, p.start + 1))
        if p.kind == mm.NO_CLOSING_BOUNDARY:
            yield ctx.at(res, res.doc, span,
                         f"{p.message}\nhelp: end the document with the closing boundary so that appending a part "
                         "cannot break it\nnote: Karpenter and cloud-init accept this", severity="info")
            continue
        if p.kind == mm.UNTERMINATED_PART:
            if karpenter_parses:
                yield ctx.at(res, res.doc, span,
                             f"{p.message}\nhelp: end the document with the closing boundary line\n"
                             "note: Karpenter reads every part to merge its own, so it cannot merge this userData and "
                             f"fails to launch nodes for this {res.kind}")
            else:
                yield ctx.at(res, res.doc, span,
                             f"{p.message}\nhelp: end the document with the closing boundary line\n"
                             "note: cloud-init accepts it", severity="info")
            continue
        if p.kind == mm.MISSING_COLON:
            msg = ("no blank line after the MIME headers: the next line is read as a header\n"
                   f"help: add a blank line after the headers\nnote: {p.message}")
        elif p.kind == mm.PART_MISSING_COLON:
            msg = (f"MIME part headers must be followed by a blank line\nhelp: add a blank line after the headers\n"
                   f"note: {p.message.split(' (')[0]}")
        else:
            msg = p.message
        if karpenter_parses:
            msg += f"\nnote: Karpenter cannot merge this userData and fails to launch nodes for this {res.kind}"
            sev = None
        else:
            msg += "\nnote: Karpenter passes Custom userData verbatim, so the node's cloud-init reads it, leniently"
            sev = "warning"
        yield ctx.at(res, res.doc, span, msg, severity=sev)


# ------------------------------------------------------------------------------------------------ KPL211

@rule("KPL211", "kubelet-modified-after-bootstrap", category="userdata", severity="warning",
      summary="kubelet restarted, its configuration edited, or bootstrap.sh run again after bootstrap.sh started it "
              "(on AL2023: edited or restarted from a shell part instead of a NodeConfig)",
      kinds=NODECLASS)
def kubelet_modified_after_bootstrap(res, ctx):
    a = userdata_analysis(res, ctx)
    if a is not None and _nodeadm_configures_kubelet(a):
        yield from _nodeadm_kubelet_edits(res, ctx, a)
        return
    if a is None or not _runs_al2_bootstrap(a) or a.family == ct.AL2:
        return  # AL2: Karpenter's bootstrap runs after all user parts (KPL207 covers a user call)
    first = None
    for part in a.shell_parts:
        calls = [b for b in a.bootstraps if b.part is part]
        if first is None and calls:
            first = calls[0]
        if first is None:
            continue
        after = first.call.cmd.end if first.part is part else -1
        for b in calls:
            if b is not first and b.call.cmd.start >= after:
                _, word = program(b.call.cmd)
                yield ctx.at(res, res.doc, part.view.span(word.start, word.end),
                             "bootstrap.sh runs a second time\n"
                             f"note: the kubelet registered with the settings of the first call (userData line "
                             f"{first.view.line_of(first.call.cmd.start)}) and is restarted with different ones")
        for cmd in kubelet_restarts(part.script):
            if cmd.start >= after:
                yield ctx.at(res, res.doc, part.view.span(cmd.start, cmd.end),
                             "the kubelet is restarted after bootstrap.sh started it\n"
                             "help: put these changes before the bootstrap.sh call\n"
                             "note: it may already have registered the node with the old configuration")
        for w in kubelet_config_writes(part.script):
            if w.cmd.start >= after:
                yield ctx.at(res, res.doc, part.view.span(w.start, w.end),
                             f"{w.path.rsplit('/', 1)[-1]} is modified ({w.how}) after bootstrap.sh started the "
                             "kubelet\nhelp: edit it before the bootstrap.sh call\n"
                             f"note: the running kubelet does not see the change to {w.path} until it restarts")


def _nodeadm_configures_kubelet(a: UserDataAnalysis) -> bool:
    """nodeadm (AL2023) writes the kubelet's configuration and starts it: AL2023, or Custom with a NodeConfig part and
    no bootstrap.sh call."""
    if a.family == ct.AL2023:
        return True
    return a.family == ct.CUSTOM and not a.bootstraps and any(p.kind == ct.NODECONFIG for p in a.parts)


# AL2's kubelet files, which the AL2023 kubelet never reads (its unit runs `/usr/bin/kubelet $NODEADM_KUBELET_ARGS`
# with nodeadm's config.json and config.json.d/).
AL2_ONLY_KUBELET_FILES = ("/etc/kubernetes/kubelet/kubelet-config.json", "/etc/sysconfig/kubelet")
NODEADM_KUBELET_FILES = ("/etc/kubernetes/kubelet/config.json", "/etc/eks/kubelet/environment")


def _nodeadm_kubelet_edits(res, ctx, a: UserDataAnalysis):
    """KPL211 on AL2023: shell parts that edit the kubelet files nodeadm owns (or AL2's, which nothing reads there),
    set KUBELET_EXTRA_ARGS in a kubelet drop-in, or restart the kubelet nodeadm starts."""
    help_ = ("help: put the setting in a NodeConfig part (`application/node.eks.aws`): `spec.kubelet.config` for "
             "KubeletConfiguration fields, `spec.kubelet.flags` for flags")
    for part in a.shell_parts:
        script = part.script
        starts = sorted(c.start for c in script.commands)
        for w in kubelet_config_writes(script):
            span = part.view.span(w.start, w.end)
            if w.path in AL2_ONLY_KUBELET_FILES:
                yield ctx.at(res, res.doc, span,
                             f"AL2023 never reads AL2's kubelet configuration file\n{help_}\n"
                             f"note: {w.path} is AL2's; on AL2023 nodeadm writes /etc/kubernetes/kubelet/"
                             "config.json and config.json.d/ from the NodeConfigs, so this edit has no effect")
            elif w.path.startswith(NODEADM_KUBELET_FILES):
                yield ctx.at(res, res.doc, span,
                             f"nodeadm's kubelet file is modified ({w.how}) from a shell part\n"
                             f"{help_}\nnote: on AL2023 nodeadm owns {w.path}: it writes the kubelet's "
                             "config.json, its config.json.d drop-ins and /etc/eks/kubelet/environment from the merged "
                             "NodeConfigs and starts the kubelet itself; an edit made beside it is overwritten or missed, or needs a restart that races "
                             "with registration")
            elif w.path.startswith("/etc/systemd/system/kubelet.service"):
                nxt = next((s for s in starts if s > w.cmd.start), len(script.text))
                if "KUBELET_EXTRA_ARGS" in script.text[w.cmd.start:nxt]:
                    yield ctx.at(res, res.doc, span,
                                 f"a kubelet drop-in sets KUBELET_EXTRA_ARGS, which AL2023 never reads\n{help_}\n"
                                 f"note: {w.path} is AL2's way; AL2023's kubelet unit runs "
                                 "`/usr/bin/kubelet $NODEADM_KUBELET_ARGS`, the flags nodeadm writes to "
                                 "/etc/eks/kubelet/environment")
        for cmd in kubelet_restarts(script):
            yield ctx.at(res, res.doc, part.view.span(cmd.start, cmd.end),
                         f"the kubelet is restarted from a shell part on AL2023\n{help_}\n"
                         "note: nodeadm configures and starts the kubelet; restarting it from userData (the 'edit, "
                         "then restart' pattern of AL2) can register the node before or without the intended "
                         "configuration")


# ------------------------------------------------------------------------------------------------ KPL212

@rule("KPL212", "unrendered-template-in-userdata", category="userdata", severity="info",
      summary="Template expressions (Terraform ${module.x}, {{ }}) left in shell userData", kinds=NODECLASS)
def unrendered_template_in_userdata(res, ctx):
    a = userdata_analysis(res, ctx, legacy=True)
    if a is None:
        return
    path = res.doc.source.path.lower()
    if path.endswith(TEMPLATE_SUFFIXES) or "templates" in path.replace("\\", "/").split("/")[:-1]:
        return  # clearly a template file: it is rendered before use
    if getattr(res.doc.source.embedding, "host_kind", None) in ("gotemplate", "helm"):
        return  # read as a Go template (karplint/readers/chart_templates.py): likewise
    emb = res.doc.source.embedding
    # a Terraform heredoc: Terraform fills in its `${...}` before apply; only an escaped `$${` stays literal
    terraform_literals = set(emb.literals) if emb is not None and "terraform" in emb.escape else None
    for part in a.shell_parts:
        text = part.view.text
        # a "bad substitution" on a bootstrap.sh line means that call never runs: the node never joins
        on_bootstrap = [(ba.call.cmd.start, ba.call.cmd.end) for ba in a.bootstraps if ba.part is part]
        for m in list(_TF_INTERPOLATION.finditer(text)) + list(_GO_TEMPLATE.finditer(text)):
            if terraform_literals is not None and m.group(0).startswith("$") and \
                    part.view.span(m.start(), m.end()).offset not in terraform_literals:
                continue
            kind = "Terraform interpolation" if m.group(0).startswith("$") else "template expression"
            fatal = m.group(0).startswith("$") and any(lo <= m.start() < hi for lo, hi in on_bootstrap)
            if fatal:
                what = ("bash rejects it with \"bad substitution\" and skips the bootstrap.sh call: the node never "
                        "joins")
            elif m.group(0).startswith("$"):
                what = "bash rejects it with \"bad substitution\" and skips that command; the script goes on"
            else:
                what = "it is passed to the node literally"
            yield ctx.at(res, res.doc, part.view.span(m.start(), m.end()),
                         f"unrendered {kind} `{m.group(0)}` in shell userData\nhelp: render the template before "
                         f"applying the manifest\nnote: applied as is, {what}",
                         severity="error" if fatal else None)


# ------------------------------------------------------------------------------------------------ KPL213

# AMI OS -> content kinds its boot agent reads, and what it is called.
_AMI_READS = {
    ct.BOTTLEROCKET: ((ct.TOML,), "Bottlerocket reads userData as TOML settings"),
    "Windows2019": ((ct.POWERSHELL,), "Windows AMIs run userData as <powershell>"),
    "Windows2022": ((ct.POWERSHELL,), "Windows AMIs run userData as <powershell>"),
    "Windows2025": ((ct.POWERSHELL,), "Windows AMIs run userData as <powershell>"),
    ct.AL2: ((ct.MIME, ct.SHELL, ct.CLOUD_CONFIG), "AL2 runs cloud-init (MIME, shell or cloud-config); it has no nodeadm"),
}


@rule("KPL213", "custom-userdata-wrong-for-ami", category="userdata", severity="error",
      summary="amiFamily Custom with an alias AMI whose OS cannot read this kind of userData (e.g. shell for "
              "Bottlerocket)", kinds=NODECLASS)
def custom_userdata_wrong_for_ami(res, ctx):
    a = userdata_analysis(res, ctx)
    if a is None or a.family != ct.CUSTOM or a.ami_os not in _AMI_READS or a.content.kind == ct.EMPTY:
        return
    kinds, what = _AMI_READS[a.ami_os]
    if a.content.kind in kinds:
        return
    yield ctx.at(res, res.doc, _userdata_span(res),
                 f"{a.content.kind} userData for a {a.ami_os} AMI: the node does not join as intended\n"
                 f"help: write the userData in the format the {a.ami_os} AMI reads\n"
                 f"note: amiSelectorTerms selects a {a.ami_os} AMI, and this userData is {a.content.kind} "
                 f"({a.content.reason}); {what}, so the node gets none of these settings")


# ------------------------------------------------------------------------------------------------ KPL214

BOOTSTRAP_DROPIN = "30-kubelet-extra-args.conf"  # what bootstrap.sh writes --kubelet-extra-args into
_ENV_EXTRA_ARGS = re.compile(r"^[ \t]*Environment[ \t]*=.*\bKUBELET_EXTRA_ARGS=", re.M)


@rule("KPL214", "kubelet-dropin-overrides-extra-args", category="userdata", severity="error",
      summary="A kubelet drop-in that sets KUBELET_EXTRA_ARGS and sorts after bootstrap.sh's "
              "30-kubelet-extra-args.conf, replacing the flags passed with --kubelet-extra-args", kinds=NODECLASS)
def kubelet_dropin_overrides_extra_args(res, ctx):
    from karplint.userdata.shell import KUBELET_DROPIN_DIR, file_writes

    a = userdata_analysis(res, ctx)
    if a is None or not _runs_al2_bootstrap(a):
        return
    for part in a.shell_parts:
        for fw in file_writes(part.script, KUBELET_DROPIN_DIR):
            name = fw.path[len(KUBELET_DROPIN_DIR):]
            m = _ENV_EXTRA_ARGS.search(fw.content)
            if m is None or "/" in name or not name.endswith(".conf") or name <= BOOTSTRAP_DROPIN:
                continue
            if a.family == ct.AL2:
                whose = ("Karpenter's bootstrap.sh call passes the NodePool labels, taints, "
                         "karpenter.sh/unregistered:NoExecute and --max-pods in KUBELET_EXTRA_ARGS")
                sev = None
            elif any(b.extra_args is not None for b in a.bootstraps if b.part is part):
                whose = "the bootstrap.sh call's --kubelet-extra-args end up in KUBELET_EXTRA_ARGS"
                sev = "warning"
            else:
                continue
            mentions = re.search(r"\$\{?KUBELET_EXTRA_ARGS\b", fw.content) is not None
            escaped = re.search(r"\\\$\{?KUBELET_EXTRA_ARGS\b", fw.content) is not None
            if mentions and (escaped or not fw.expanded):
                note = ("\nnote: systemd does not expand `$KUBELET_EXTRA_ARGS` inside Environment=, so it does not "
                        "append to the earlier value either")
            elif mentions:
                note = ("\nnote: the shell expands `$KUBELET_EXTRA_ARGS` while writing the file, before bootstrap.sh "
                        "has set it, so it is empty there and appends nothing")
            else:
                note = ""
            start = fw.content_start + m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
            line_end = fw.content.find("\n", m.start())
            end = fw.content_start + (len(fw.content) if line_end == -1 else line_end)
            yield ctx.at(res, res.doc, part.view.span(start, end),
                         f"drop-in {name} replaces bootstrap.sh's KUBELET_EXTRA_ARGS\n"
                         "help: add the flags to --kubelet-extra-args (or spec.kubelet) instead\n"
                         f"note: {fw.path} sorts after {BOOTSTRAP_DROPIN}, so its value wins: {whose}, and those "
                         f"flags are lost{note}", severity=sev)


# ------------------------------------------------------------------------------------------------ KPL215

@rule("KPL215", "userdata-script-aborts", category="userdata", severity="error",
      summary="Shell userData that bash aborts at run time (`set -u` and a variable that is never assigned) "
              "before it reaches its bootstrap.sh call", kinds=NODECLASS)
def userdata_script_aborts(res, ctx):
    a = userdata_analysis(res, ctx, legacy=True)
    if a is None:
        return
    for part in a.shell_parts:
        if part.aborts is None:
            continue
        why, at = part.aborts
        after = [ba for ba in a.bootstraps if ba.part is part and ba.never_runs == part.aborts]
        first = why.split(":")[0]
        if after:
            yield ctx.at(res, res.doc, part.view.span(at, at + 1),
                         f"{first}: bash aborts before bootstrap.sh runs\nhelp: assign the variable, give it a "
                         "default (`${NAME:-}`) or drop `set -u`\nnote: a non-interactive bash exits at an unbound "
                         "variable under `set -u`; the rest of the script, including bootstrap.sh, never runs and "
                         "the node never joins")
        else:
            yield ctx.at(res, res.doc, part.view.span(at, at + 1),
                         f"{first}: bash aborts the rest of this script\nhelp: assign the variable, give it a "
                         "default (`${NAME:-}`) or drop `set -u`\nnote: a non-interactive bash exits at an unbound "
                         "variable under `set -u`", severity="warning")
