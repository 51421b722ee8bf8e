"""userData rules on the kubelet's own flag parsing (KPL216-KPL218): flag names, value types and versions.

The verdicts come from `karplint.userdata.kubelet_flags` (the table generated from the kubelet's registration code by
scripts/gen_kubelet_flags.py). Flags reach the kubelet from an AL2/Custom `bootstrap.sh --kubelet-extra-args` (after
systemd 219's splitting) or from a NodeConfig's `kubelet.flags` (AL2023/Custom, after nodeadm's env-file line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from karplint.rules.base import rule
from karplint.rules._legacy import userdata_analysis
from karplint.userdata import content as ct
from karplint.userdata import kubelet_flags as kf

NODECLASS = ("EC2NodeClass", "AWSNodeTemplate")
OPTIONS_GO = "cmd/kubelet/app/options/options.go"

# value type -> what to write instead (help lines)
TYPE_HELP = {
    "bool": "a boolean (true or false)",
    "int32": "a whole number (e.g. 110)",
    "int64": "a whole number",
    "int": "a whole number",
    "uint32": "a non-negative whole number",
    "uint64": "a non-negative whole number",
    "verbosity": "a non-negative whole number (e.g. 2)",
    "float64": "a number",
    "duration": "a Go duration with a unit (e.g. 30s, 5m, 1h)",
    "string-slice": "a comma-separated list",
    "map-string-string": "comma-separated key=value pairs (e.g. cpu=100m,memory=200Mi)",
    "map-string-string-nosplit": "one key=value pair per flag",
    "map-langle": "comma-separated signal<threshold pairs (e.g. memory.available<200Mi)",
    "multimap-colon": "comma-separated name:value pairs",
    "map-string-bool": "comma-separated Gate=true|false pairs",
    "ip": "an IP address",
    "quantity": "a quantity (e.g. 512, 1Ki, 2Mi)",
}


@dataclass
class FlagSite:
    """Where one kubelet argv comes from, with a way to map an argv word to a manifest span."""

    argv: list[str]
    flags: object  # KubeletFlags
    problems: list  # kubelet_flags.FlagProblem
    span_of: object  # (word_index, start, end) -> Span
    source: str  # "--kubelet-extra-args" or "kubelet.flags"




def _sites(res, ctx) -> Iterator[FlagSite]:
    a = userdata_analysis(res, ctx, legacy=True)  # (flags the kubelet refuses: true at every release)
    if a is None:
        return
    from karplint.rules.userdata_shell import _bootstraps

    for ba in _bootstraps(a):
        if ba.flags is None or not ba.kubelet_argv or ba.no_kubelet:
            continue
        argv = ba.kubelet_argv

        def span_of(i: int, s: int, e: int, argv=argv):
            return argv[i].span(s, e)

        yield FlagSite([w.value for w in argv], ba.flags, ba.flag_problems, span_of, "--kubelet-extra-args")
    if a.family not in (ct.AL2023, ct.CUSTOM, None):
        return
    from karplint.userdata import nodeadm
    from karplint.userdata.analysers import nodeconfig_docs
    from karplint.userdata.kubelet import parse_kubelet_args

    parts = [(p, d) for p in a.parts if p.kind == ct.NODECONFIG for d in nodeconfig_docs(p)]
    docs = [d for _, d in parts]
    if not docs or any(d.fatal for d in docs):
        return
    words = nodeadm.kubelet_argv(docs)
    argv = [w for w, _, _ in words]
    flags = parse_kubelet_args(argv)

    def item_span(i: int, s: int, e: int):
        _, item_index, doc_index = words[i]
        part, doc = parts[doc_index]
        item = next(f for f in doc.flags if f.index == item_index)
        return part.view.span(item.start, item.end)

    yield FlagSite(argv, flags, kf.problems(flags, argv), item_span, "kubelet.flags")


def _problems(res, ctx, kinds: tuple[str, ...]):
    """(site, problem) for each flag problem of these kinds in the NodeClass's kubelet flags."""
    for site in _sites(res, ctx):
        for p in site.problems:
            if p.kind in kinds:
                yield site, p


def _cluster_minor(ctx) -> str | None:
    return kf.parse_minor((ctx.cluster or {}).get("kubernetes-version"))


# ------------------------------------------------------------------------------------------------ KPL216

@rule("KPL216", "unknown-kubelet-flag", category="userdata", severity="error",
      summary="A kubelet flag no supported Kubernetes version has (typo, removed flag, bad shorthand): the kubelet "
              "exits at start and the node never joins", kinds=NODECLASS)
def unknown_kubelet_flag(res, ctx):
    for site, p in _problems(res, ctx, (kf.UNKNOWN, kf.SHORTHAND)):
        word = site.argv[p.word_index]
        if p.kind == kf.SHORTHAND:
            msg = (f"`{word.partition('=')[0]}` is not a kubelet flag: the kubelet exits at start\n"
                   f"help: long flags take two dashes (`-{word.partition('=')[0]}`)\n"
                   f"note: the kubelet stops with `failed to parse kubelet flag: {p.message}` and the node "
                   "never joins")
        else:
            entry = kf.table()["flags"].get(p.name) or {}  # (Windows-only flags too: info() leaves them out)
            guess = kf.suggest(p.name)
            help_ = f"help: did you mean `--{guess}`?" if guess else \
                f"help: check the name against `kubelet --help` ({OPTIONS_GO})"
            if entry.get("removed_in"):
                help_ = "help: remove it (or move the setting to the kubelet configuration file)"
                why = f"; `--{p.name}` was removed in Kubernetes {entry['removed_in']}"
            elif entry.get("os") == "windows":
                why = f"; `--{p.name}` exists only in Windows builds of the kubelet"
            else:
                why = ""
            msg = (f"`--{p.name}` is not a kubelet flag: the kubelet exits at start\n{help_}\n"
                   f"note: the kubelet stops with `failed to parse kubelet flag: {p.message}` and the node "
                   f"never joins{why}")
        yield ctx.at(res, res.doc, site.span_of(p.word_index, p.start, p.end), msg)


# ------------------------------------------------------------------------------------------------ KPL217

@rule("KPL217", "kubelet-flag-bad-value", category="userdata", severity="error",
      summary="A kubelet flag value of the wrong type (--max-pods=20.5, --kube-reserved=cpu, a duration without "
              "unit): the kubelet exits at start", kinds=NODECLASS)
def kubelet_flag_bad_value(res, ctx):
    for site, p in _problems(res, ctx, (kf.BAD_VALUE, kf.BAD_RESOURCE)):
        entry = kf.info(p.name) or {}
        if p.kind == kf.BAD_RESOURCE:
            msg = (f"`--{p.name}` reserves something the kubelet cannot: the kubelet exits at start\n"
                   f"help: reserve only {', '.join(kf.RESERVABLE)}, each as name=quantity (e.g. cpu=100m)\n"
                   f"note: `failed to run Kubelet: {p.message}`; the node never joins")
        else:
            want = TYPE_HELP.get(entry.get("type", ""), entry.get("type", "another value"))
            msg = (f"`--{p.name}` value is not {want.split(' (')[0]}: the kubelet exits at start\n"
                   f"help: --{p.name} takes {want}\n"
                   f"note: the kubelet stops with `failed to parse kubelet flag: {p.message}` and the node "
                   "never joins")
        yield ctx.at(res, res.doc, site.span_of(p.word_index, p.start, p.end), msg)


# ------------------------------------------------------------------------------------------------ KPL218

def _range(minors: tuple[str, ...]) -> str:
    if len(minors) == 1:
        return minors[0]
    all_ = kf.minors()
    if all(m in all_ for m in minors) and all_.index(minors[-1]) - all_.index(minors[0]) == len(minors) - 1:
        return f"{minors[0]}-{minors[-1]}"
    return ", ".join(minors)


@rule("KPL218", "kubelet-flag-not-in-version", category="userdata", severity="error",
      summary="A kubelet flag the node's Kubernetes version does not have (removed, or not yet added); a warning "
              "naming the versions when [cluster] kubernetes-version is not set", kinds=NODECLASS)
def kubelet_flag_not_in_version(res, ctx):
    minor = _cluster_minor(ctx)
    for site in _sites(res, ctx):
        reported = {p.use_index for p in site.problems}
        for i, use in enumerate(site.flags.uses):
            if i in reported or not site.argv[use.index].startswith("--") or kf.unknown_everywhere(use.name):
                continue
            av = kf.availability(use.name, minor)
            if av.known_everywhere:
                continue
            raw = site.argv[use.index][2:].partition("=")[0]
            span = site.span_of(use.index, 0, len(raw) + 2)
            hist = (av.entry or {}).get("history", "")
            if minor is not None:
                msg = (f"`--{use.name}` does not exist in Kubernetes {minor}: the kubelet exits at start\n"
                       "help: remove the flag (or move the setting to the kubelet configuration file)\n"
                       f"note: {av.why}\n"
                       f"note: the kubelet stops with `failed to parse kubelet flag: unknown flag: --{raw}`; "
                       f"source: {hist}")
                yield ctx.at(res, res.doc, span, msg)
            else:
                msg = (f"`--{use.name}` does not exist in Kubernetes {_range(av.missing_in)}\n"
                       "help: set `[cluster] kubernetes-version` so karplint can tell, or remove the flag\n"
                       f"note: {av.why}; on those versions the kubelet exits at start\n"
                       f"note: source: {hist}")
                yield ctx.at(res, res.doc, span, msg, severity="warning")
