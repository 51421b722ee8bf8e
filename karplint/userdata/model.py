"""`analyze(res)`: everything karplint knows about one EC2NodeClass's userData, computed once per resource.

    analysis = analyze(res)          # None when spec.userData is absent or not a string
    analysis.family                  # "AL2", "AL2023", "Custom", ... (from amiFamily or the alias)
    analysis.content                 # Content(kind, reason): mime / shell / nodeconfig / toml / powershell / ...
    analysis.mime                    # MimeDocument or None
    analysis.parts                   # [Part]: one per MIME part, or one for the whole text, then one shell
                                     # part per cloud-config bootcmd/runcmd string item
    analysis.bootstraps              # [BootstrapAnalysis]: every bootstrap.sh call in shell parts, in order
    analysis.registered_taints       # what the node's kubelet registers (Custom), or None when unknown
    analysis.notes                   # [Note]: what could not be analysed, with spans

The types of an analysis live in karplint/userdata/analysis.py (imported from here too). The part analysers of
karplint/userdata/analysers.py (`PART_ANALYSERS`: content kind -> functions) run `fn(part, analysis)` for parts of
their kind ("nodeconfig", "toml", ...); they may set `part.registered_taints`, `part.registered_taints_span`,
`part.node_labels` and `part.data`, and append to `analysis.notes`. The registration taints of a Custom NodeClass
are then taken from the last part that sets them (nodeadm's later-wins merge, or the last bootstrap.sh call).
"""

from __future__ import annotations

import re
import weakref

from karplint.readers.document import per_document
from karplint.userdata import content as ct
from karplint.userdata.bootstrap import parse_bootstrap, validation_failures
from karplint.userdata.analysers import PART_ANALYSERS
from karplint.userdata.environment import ALWAYS_SET, assume_unassigned_empty, unused_extra_args_assignment
from karplint.userdata.analysis import (  # noqa: F401 - the analysis' types, imported from here by the rules
    BootstrapAnalysis, FileBudget, KubeletWord, Note, Part, UserDataAnalysis,
)
from karplint.userdata.kubelet import parse_kubelet_args, parse_node_labels, parse_taints, validate_node_labels
from karplint.userdata.mime import MAX_MIME_PARTS, parse_mime
from karplint.userdata.shell import ShellScript, bootstrap_calls, parse_script
from karplint.userdata.systemd import kubelet_extra_args_219, split_exec_252
from karplint.userdata.text import UserDataText


# ------------------------------------------------------------------------------------------------ analysis

@per_document
def analyze(res) -> UserDataAnalysis | None:
    """The userData analysis of an EC2NodeClass resource (cached per document). Never raises."""
    text = UserDataText.from_resource(res)
    if text is None:
        result = None
    else:
        family, source = ct.family_of(res)
        try:
            result = analyze_text(text, family, source, file_budget(text.source), _templated(res))
            result.ami_os = ct.alias_family(res) or family
        except Exception as exc:  # a library bug must never become a traceback in a lint run
            result = UserDataAnalysis(text, family, source, ct.Content(ct.UNKNOWN, "analysis failed"))
            result.notes.append(Note("internal", "userData analysis failed; nothing in this userData was verified\n"
                                                 f"note: {type(exc).__name__}: {exc}", text.span(0, 0)))
    return result


# EC2 takes at most 16 KiB of user data (raw, before base64: RunInstances / CreateLaunchTemplate reject more;
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html). karplint analyses up to four times that,
# so that every userData that could launch is analysed and a hostile one (millions of taints, MIME parts or
# bootstrap calls) costs bounded time: past it, nothing is analysed and a note says so.
EC2_USERDATA_LIMIT = 16 * 1024
MAX_ANALYSED_BYTES = 4 * EC2_USERDATA_LIMIT
# One file may hold hundreds of EC2NodeClasses (a 9 MB file of 200 with 45 KB of shell each took a minute and 2 GB):
# the userData analysed per file is bounded too, 8 of the largest analysed, 32 of the largest EC2 takes. bashlex, a
# cross-check of karplint's own scan costing about 10 us a byte, gets a quarter of that.
MAX_ANALYSED_BYTES_PER_FILE = 8 * MAX_ANALYSED_BYTES
MAX_PARSER_BYTES_PER_FILE = 2 * MAX_ANALYSED_BYTES


_FILE_BUDGETS: dict[object, tuple[weakref.ref, FileBudget]] = {}


def file_budget(source) -> FileBudget:
    """The budget of the file `source` belongs to: the source's own; blocks embedded in one host (Markdown,
    heredocs) are sources of their own with the host's path, and share one by path, renewed when the source it was
    opened for is gone (a later run)."""
    key = (source.path, source.abspath) if source.embedding is not None else id(source)
    entry = _FILE_BUDGETS.get(key)
    if entry is None or entry[0]() is None:  # (the entry goes with its source)
        entry = _FILE_BUDGETS[key] = (weakref.ref(source, lambda _r, k=key: _FILE_BUDGETS.pop(k, None)), FileBudget())
    return entry[1]


def _not_analysed(text: UserDataText, family: str | None, family_source: str, why: str, message: str,
                  ) -> UserDataAnalysis:
    analysis = UserDataAnalysis(text, family, family_source, ct.Content(ct.UNKNOWN, why))
    analysis.notes.append(Note("budget", message, text.span(0, 0)))
    return analysis


def _templated(res) -> bool:
    """The resource's document has a template hole (`${X}`, `{{ }}`, `<<X>>`, `$X`) outside its userData, or is
    embedded where its `$` is expanded before it is applied (an unquoted shell heredoc, a Terraform string)."""
    from karplint.readers.document import walk
    from karplint.readers.templating import is_placeholder

    embedding = getattr(res.doc.source, "embedding", None)
    if embedding is not None and embedding.escape:
        return True
    return any(is_placeholder(v) or any(is_placeholder(k) for k in (v if isinstance(v, dict) else ()))
               for path, v in walk(res.doc.data) if tuple(path[-2:]) != ("spec", "userData"))


def analyze_text(text: UserDataText, family: str | None, family_source: str = "amiFamily",
                 budget: FileBudget | None = None, templated: bool = False) -> UserDataAnalysis:
    """`budget`: the file's, when the analysis is one of many in a file (`analyze`); None: this text alone.
    `templated`: the manifest holds template holes elsewhere (`UserDataAnalysis.templated`)."""
    size = len(text.text.encode("utf-8", "surrogatepass"))
    if size > MAX_ANALYSED_BYTES:
        return _not_analysed(text, family, family_source, "too large to analyse",
                             f"userData is {size:,} bytes: too large, nothing in it was verified\n"
                             f"note: karplint analyses up to {MAX_ANALYSED_BYTES:,} bytes")
    if budget is not None:
        if budget.analysed + size > MAX_ANALYSED_BYTES_PER_FILE:
            return _not_analysed(text, family, family_source, "too large to analyse",
                                 f"userData not analysed: this file's userData is too large, nothing in this one "
                                 f"was verified\nnote: karplint analyses up to {MAX_ANALYSED_BYTES_PER_FILE:,} bytes "
                                 "of userData per file; split the file to have the rest checked")
        budget.analysed += size
    content = ct.detect(text.text, family)
    if content.kind == ct.MIME:
        mime = parse_mime(text.text)
        if len(mime.parts) > MAX_MIME_PARTS:
            return _not_analysed(text, family, family_source, "too many MIME parts",
                                 f"userData has {len(mime.parts):,} MIME parts: too many, nothing in it was "
                                 f"verified\nnote: karplint analyses up to {MAX_MIME_PARTS:,} parts")
    analysis = UserDataAnalysis(text, family, family_source, content)
    analysis.budget = budget
    analysis.templated = templated
    if content.kind == ct.MIME:
        analysis.mime = mime
        for idx, mp in enumerate(analysis.mime.parts):
            kind = ct.part_kind(mp.content_type, mp.body)
            analysis.parts.append(Part(idx, kind, mp.content_type, text.view(mp.body_start, mp.body_end)))
    elif content.kind != ct.EMPTY:
        analysis.parts.append(Part(None, content.kind, "", text))
    for part in list(analysis.parts):
        if part.kind == ct.CLOUD_CONFIG:
            # runcmd/bootcmd strings are shell commands: analyse each as a shell part of its own
            analysis.parts.extend(_cloud_config_commands(part))
    for part in analysis.parts:
        if part.kind == ct.SHELL:
            _analyse_shell(part, analysis)
        for fn in PART_ANALYSERS.get(part.kind, ()):
            try:
                fn(part, analysis)
            except Exception as exc:
                analysis.notes.append(Note("internal", f"{part.kind} analysis failed\nnote: {type(exc).__name__}: {exc}",
                                           part.view.span(0, 0)))
    return analysis


CLOUD_CONFIG_COMMAND_KEYS = ("bootcmd", "runcmd")


def _cloud_config_commands(part: Part) -> list[Part]:
    """One shell Part per string item of a cloud-config's bootcmd/runcmd (list items are exec'd without a shell
    and are not analysed). A plain one-line item keeps exact positions; others point at the item's start."""
    from karplint.readers.loader import syntax_depth_over

    if syntax_depth_over(part.view.text) is not None:  # the composer would overflow the C stack
        return []
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

        root = YAML(typ="safe", pure=True).compose(part.view.text)
    except Exception:  # not YAML: cloud-init ignores it; nothing to analyse here
        return []
    out: list[Part] = []
    if not isinstance(root, MappingNode):
        return out
    text = part.view.text
    for key, value in root.value:
        if not (isinstance(key, ScalarNode) and key.value in CLOUD_CONFIG_COMMAND_KEYS and isinstance(value, SequenceNode)):
            continue
        for item in value.value:
            if not isinstance(item, ScalarNode) or not isinstance(item.value, str):
                continue
            start, end = item.start_mark.index, item.end_mark.index
            if text[start:end] == item.value:
                view = part.view.view(start, end)
            else:
                view = UserDataText(item.value, part.view.source, part.view.span(start, start + 1), None,
                                    full_text=item.value)
            out.append(Part(part.index, ct.SHELL, f"text/cloud-config {key.value}", view))
    return out


# What the shell rules look at; a parse failure in a script that mentions none of it hides nothing they check.
_RELEVANT = re.compile(r"bootstrap\.sh|kubelet|nodeadm|KUBELET|/etc/eks/")


def _analyse_shell(part: Part, analysis: UserDataAnalysis) -> None:
    view = part.view
    relevant = _RELEVANT.search(view.text) is not None
    budget = analysis.budget
    if relevant and budget is not None:
        if budget.parser + len(view.text) > MAX_PARSER_BYTES_PER_FILE:
            relevant = False
            analysis.notes.append(Note(
                "budget", "this script was not cross-checked by a shell parser: this file's shell userData is too "
                          "large\nnote: commands were found by karplint's own scan only; karplint hands up to "
                          f"{MAX_PARSER_BYTES_PER_FILE:,} bytes of shell per file to the parser", view.span(0, 0)))
        else:
            budget.parser += len(view.text)
    script = parse_script(view.text, check_parser=relevant)
    part.script = script
    if script.parser == "line-scan":
        at = script.parse_error_offset if script.parse_error_offset is not None else 0
        if not 0 <= at < len(view.text.rstrip()):
            at = len(view.text) - len(view.text.lstrip())  # "at end of file": point at the script's first line
        analysis.notes.append(Note(
            "shell-parse",
            "the shell parser could not parse this script: parts of it were not checked\n"
            f"note: {script.parse_error}\n"
            "note: commands were found by a line-based scan, so constructs it does not understand were not checked",
            view.span(at, at + 1)))
    if script.unterminated:
        analysis.notes.append(Note("shell-parse", f"shell script: {script.unterminated}\n"
                                                  "note: the rest of the script was not analysed reliably", view.span(0, 0)))
    aborts = part.aborts = nounset_abort(script)
    for cmd, idx in bootstrap_calls(script):
        call = parse_bootstrap(cmd, idx, script)
        ba = BootstrapAnalysis(part, call, call.kubelet_extra_args, None)
        analysis.bootstraps.append(ba)
        ba.validation_failures = validation_failures(call)
        bad = next((m for w in cmd.words + cmd.assignments for m in [_BAD_SUBSTITUTION.search(w.raw)] if m), None)
        if aborts is not None and aborts[1] < cmd.end:
            ba.never_runs = aborts
        elif bad is not None:
            w = next(w for w in cmd.words + cmd.assignments if _BAD_SUBSTITUTION.search(w.raw))
            ba.never_runs = (f"`{bad.group(0)}` is a bash \"bad substitution\": bash skips this command",
                             w.start + w.raw.index(bad.group(0)))
        if ba.extra_args is not None and ba.extra_args.dynamic and not analysis.templated:
            others = [w for w in cmd.words + cmd.assignments if w is not ba.extra_args]
            resolved = assume_unassigned_empty(ba.extra_args, script, others)
            if resolved is not None:
                ba.extra_args, ba.empty_expansions = resolved
        if "--kubelet-extra-args" not in call.options and call.extra_args_from_env is None:
            ba.unexported_extra_args = unused_extra_args_assignment(script, cmd)
        _analyse_extra_args(ba)
        if ba.kubelet_fails or ba.unverifiable or ba.no_kubelet:
            continue  # unknown, or the node never gets a kubelet: other findings say so
        part.node_labels = [lab for _kw, _off, lab in ba.labels]  # --node-labels accumulate within one kubelet
        if ba.taints is not None:
            part.registered_taints = ba.taints
            part.registered_taints_span = ba.taint_word.span() if ba.taint_word else ba.command_span
        else:
            # bootstrap.sh ran without a usable --register-with-taints: the kubelet registers no taints
            part.registered_taints = []
            part.registered_taints_span = ba.command_span


# `${name.x}` (Terraform and other templates) is not a parameter expansion: bash reports "bad substitution" and does
# not run the command (the script goes on).
_BAD_SUBSTITUTION = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\.[^}\n]*\}")
_SET_U = re.compile(r"^set\s+(?:-[a-zA-Z]*u[a-zA-Z]*|(?:-[a-zA-Z]*\s+)*-o\s+nounset)\b")
_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def nounset_abort(script: ShellScript) -> tuple[str, int] | None:
    """Where a top-level `set -u` script aborts: the first top-level command or assignment after it that expands a
    variable the script never assigns (and the boot environment does not set). bash prints "NAME: unbound
    variable" and a non-interactive shell exits. `${NAME:-x}`-style defaults are not references of this kind."""
    on = None
    for cmd in script.commands:
        src = script.text[cmd.start:cmd.end]
        if _SET_U.match(src):
            on = cmd.start
            break
    if on is None:
        return None
    assigned = {a.name for a in script.assignments}
    assigned |= {m.group(1) for m in re.finditer(r"\b(?:read|for|local|declare|export|readonly)\s+(?:-\w+\s+)*"
                                                 r"([A-Za-z_][A-Za-z0-9_]*)", script.text)}
    items = [(c.start, w) for c in script.commands if c.start > on for w in c.assignments + c.words]
    items += [(a.offset, a.word) for a in script.assignments if a.offset > on and a.top_level and not a.in_command]
    for _, w in sorted(items, key=lambda t: t[0]):
        if "'" in w.raw:
            continue  # single quotes may hide the reference; stay on the safe side
        for m in _REF.finditer(w.raw):
            name = m.group(1) or m.group(2)
            if name not in assigned and name not in ALWAYS_SET:
                return (f"`set -u` is on and `{name}` is never assigned: bash aborts the script here with "
                        f"\"{name}: unbound variable\"", w.start + m.start())
    return None


def _analyse_extra_args(ba: BootstrapAnalysis) -> None:
    word = ba.extra_args
    if word is None:
        ba.flags = parse_kubelet_args([])
        return
    if word.dynamic:
        ba.unverifiable = True
        ba.flag_names_only = parse_kubelet_args([w.value for w in split_exec_252(word.value).words])
        return
    result = kubelet_extra_args_219(word.value)
    ba.systemd = result
    ba.kubelet_fails = result.exec_fails
    if result.dropped:
        ba.flags = parse_kubelet_args([])
        return
    argv = [KubeletWord(sw.value, [word.offsets[k] for k in sw.offsets if k < len(word.offsets)], ba.view)
            for sw in result.argv]
    ba.kubelet_argv = argv
    flags = parse_kubelet_args([w.value for w in argv])
    ba.flags = flags
    from karplint.userdata.kubelet_flags import problems

    ba.flag_problems = problems(flags, [w.value for w in argv])
    if ba.flag_problems:
        ba.kubelet_fails = True  # `unknown flag`, `invalid argument ... for "--x" flag`: the kubelet exits at start
    taint_uses = [u for u in flags.all("register-with-taints") if u.value is not None]
    for use in taint_uses:
        taints, errors = parse_taints(use.value)
        kw = argv[use.value_index]
        ba.taint_uses.append((kw, use.value_offset, use.value, errors))
        if any(e.fatal for e in errors):
            ba.kubelet_fails = True
    if taint_uses:
        kw, offset, value, errors = ba.taint_uses[-1]
        ba.taint_word, ba.taint_value_offset, ba.taint_errors = kw, offset, errors
        if not ba.kubelet_fails:
            ba.taints = parse_taints(value)[0]
    for use in flags.all("node-labels"):
        if use.value is None:
            continue
        kw = argv[use.value_index]
        labels = parse_node_labels(use.value)
        ba.labels.extend((kw, use.value_offset, lab) for lab in labels)
        ba.label_errors.extend((kw, use.value_offset, e) for e in validate_node_labels(labels))
    if flags.positionals or flags.missing_value or ba.label_errors:
        ba.kubelet_fails = True  # "unknown command", a flag without its value, or refused labels: kubelet exits

