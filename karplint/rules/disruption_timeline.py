"""Disruption behaviour over time (KPL420-KPL429): budgets simulated over a week, durations that defeat
themselves (PDBs that block every drain, KPL421: `karplint.rules.pdb_drain`). The simulation lives in
`karplint.disruption`; these rules only judge it.

Sources: kubernetes-sigs/karpenter `pkg/apis/v1/nodepool.go` (budgets), https://karpenter.sh/docs/concepts/disruption/,
https://docs.aws.amazon.com/eks/latest/userguide/automode.html and .../create-node-pool.html (EKS Auto Mode).
"""

from __future__ import annotations

from karplint.model import Resource
from karplint.model.durations import format_seconds, parse_field, parse_go_duration
from karplint.readers.templating import has_placeholder, has_placeholder_within
from karplint.rules import rule
from karplint.wording import and_list

DISRUPTION = ("spec", "disruption")
BUDGETS = DISRUPTION + ("budgets",)
TEMPLATE_SPEC = ("spec", "template", "spec")
EXPIRE = TEMPLATE_SPEC + ("expireAfter",)
TGP = TEMPLATE_SPEC + ("terminationGracePeriod",)
AUTO_MODE_GROUP = "eks.amazonaws.com"

# EKS Auto Mode's own node lifetime facts (https://docs.aws.amazon.com/eks/latest/userguide/automode.html: "nodes
# launched by EKS Auto Mode have a maximum lifetime of 21 days (which you can reduce)"; create-node-pool.html:
# default expireAfter 336h, a 24h terminationGracePeriod applied to NodeClaims when the NodePool sets none).
AUTO_MODE = {
    "max_lifetime": 21 * 24 * 3600,
    "default_expire_after": 336 * 3600,
    "default_tgp": 24 * 3600,
}


def _karpenter_pool(res: Resource) -> bool:
    return res.kind == "NodePool" and res.group == "karpenter.sh" and res.version in ("v1", "v1beta1")


def _simulated(res: Resource):
    """(budgets, timelines per reason or None past the CRD's MAX_BUDGETS) of a NodePool, memoised on the resource
    (three rules ask for it)."""
    from karplint.disruption.budgets import read_budgets, timelines

    from karplint.disruption.budgets import MAX_BUDGETS

    cached = res.memo.get("budget timelines")
    if cached is None:
        v1 = res.version == "v1"
        budgets = read_budgets(res.get(DISRUPTION), v1=v1)
        # More budgets than the CRD allows: the API server rejects the NodePool (KPL106), nothing to simulate.
        lines = timelines(budgets, v1=v1) if len(budgets) <= MAX_BUDGETS else None
        cached = res.memo["budget timelines"] = (budgets, lines)
    return cached


def reasons_in_play(res: Resource) -> set[str] | None:
    """The budget reasons this v1 NodePool can be disrupted for (None: not v1, or every reason): `consolidateAfter:
    Never` turns off Empty and Underutilized, `consolidationPolicy: WhenEmpty` turns off Underutilized
    (kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go@v1.0.0#L87-L97 ShouldDisrupt,
    emptiness.go@v1.0.0#L46-L51; the same checks at v1.14.1 consolidation.go#L122-L133)."""
    if res.version != "v1":
        return None
    disruption = res.get(DISRUPTION)
    if not isinstance(disruption, dict):
        return None
    reasons = {"Drifted", "Empty", "Underutilized"}
    if disruption.get("consolidateAfter") == "Never":
        reasons -= {"Empty", "Underutilized"}
    if disruption.get("consolidationPolicy") == "WhenEmpty":
        reasons.discard("Underutilized")
    return reasons


# ------------------------------------------------------------------------------------------ KPL420

def _window(budget) -> str:
    """How a scheduled budget reads: "for 4h after each `0 2 * * *` (UTC)"."""
    return f"for {_hours(budget.duration)} after each `{budget.schedule_text}` (UTC)"


def _first_window(budget) -> str:
    """ "first window: Mon 02:00–Mon 06:00 UTC; " (the first hit of the reference week and its duration), or ""."""
    from datetime import timedelta

    from karplint.disruption.budgets import REFERENCE_WEEK, WEEK, clock

    if budget.schedule is None or not budget.duration:
        return ""
    s = budget.schedule  # (its first hit: the first day it fires, at its earliest time; not every hit of the week)
    day = next((d for d in range(7) if (when := REFERENCE_WEEK + timedelta(days=d)).month in s.months
                and s.day_matches(when)), None)
    if day is None or not s.hours or not s.minutes:
        return ""
    start = day * 1440 + min(s.hours) * 60 + min(s.minutes)
    return f"first window: {clock(start)}–{clock((start + budget.duration) % WEEK)} UTC; "


def _hours(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    return (f"{h}h" if h else "") + (f"{m}m" if m else "") or "0m"


def complement(budget, timeline_start=None) -> tuple[str, str] | None:
    """(schedule, duration) of a `nodes: "0"` budget covering exactly the time outside `budget`'s window, when
    its schedule fires once a day or once a week at one time; None otherwise."""
    from karplint.disruption.budgets import REFERENCE_WEEK, WEEK, active_intervals

    s = budget.schedule
    if s is None or not budget.duration or len(s.minutes) != 1 or len(s.hours) != 1 or not s.weekly:
        return None
    hits = s.hits(REFERENCE_WEEK, REFERENCE_WEEK.replace(day=REFERENCE_WEEK.day + 7))
    if len(hits) == 7:
        period = 24 * 60
    elif len(hits) == 1:
        period = WEEK
    else:
        return None
    if budget.duration >= period or not active_intervals(budget, REFERENCE_WEEK, WEEK):
        return None
    first = int((hits[0] - REFERENCE_WEEK).total_seconds() // 60)
    start = (first + budget.duration) % WEEK
    day, rest = divmod(start, 24 * 60)
    h, m = divmod(rest, 60)
    dow = "*" if period == 24 * 60 else ("sun", "mon", "tue", "wed", "thu", "fri", "sat")[(day + 1) % 7]
    # (REFERENCE_WEEK starts on a Monday: day 0 is cron weekday 1)
    return f"{m} {h} * * {dow}", _hours(period - budget.duration)


@rule("KPL420", "budget-window-not-exclusive", category="disruption", severity="warning",
      summary="A scheduled budget with nodes > 0 read as a maintenance window: outside it, its reasons are unlimited",
      kinds=("NodePool",))
def budget_window_not_exclusive(res, ctx):
    from karplint.disruption.budgets import clock

    if not _karpenter_pool(res) or has_placeholder_within(res.get(BUDGETS)):
        return
    v1 = res.version == "v1"
    budgets, lines = _simulated(res)
    if not budgets or any(b.error for b in budgets) or lines is None:
        return  # KPL403/KPL404/KPL106 and the schema report those; Karpenter then blocks every reason
    # Per reason, once (not once per budget): its first unlimited stretch and its unlimited minutes.
    in_play = reasons_in_play(res)  # (a reason the pool is never disrupted for is never "unlimited")
    free = {reason: (first, tl.unlimited_minutes()) for reason, tl in lines.items()
            if (in_play is None or reason in in_play)
            and (first := next((s for s in tl.segments if s.unlimited), None)) is not None}
    for b in budgets:
        if b.always or b.index is None or b.blocks or b.nodes == "100%":
            continue
        open_reasons = [reason for reason in lines if reason in free and (not v1 or b.applies_to(reason))]
        if not open_reasons:
            continue
        reason = open_reasons[0]
        names = "every disruption method" if open_reasons == ["all"] else and_list(open_reasons)
        first, unlimited = free[reason]
        comp = complement(b)
        reasons_yaml = ""
        # The suggested budgets name only the reasons left unlimited: one that also named the reasons other budgets
        # already limit (or this pool never uses) would block what the user allowed.
        if v1 and (b.reasons is not None or set(open_reasons) != set(lines)):
            reasons_yaml = ", reasons: [" + ", ".join(open_reasons) + "]"
        if comp:
            fix = (f"help: to disrupt only in the window, add `{{nodes: \"0\", schedule: \"{comp[0]}\", "
                   f"duration: {comp[1]}{reasons_yaml}}}`; to cap it at all times, add an always-on budget "
                   f"such as `{{nodes: \"10%\"{reasons_yaml}}}`")
        else:
            fix = ("help: add `nodes: \"0\"` budgets scheduled over the rest of the week to disrupt only in the "
                   "window, or an always-on budget (e.g. `nodes: \"10%\"`) to cap it at all times")
        yield ctx.violation(
            res, BUDGETS + (b.index, "schedule"),
            f"outside this budget's window, {names} {'are' if len(open_reasons) > 1 else 'is'} unlimited\n"
            f"{fix}\n"
            f"note: budget `nodes: \"{b.nodes}\"` limits {names} only {_window(b)}\n"
            f"note: {_first_window(b)}{_hours(unlimited)} of the 168h week have no active budget for "
            f"{'any method' if reason == 'all' else reason} (first unlimited stretch: "
            f"{clock(first.start)}–{clock(first.end)} UTC), and then Karpenter may disrupt every node of the "
            "pool at once: budgets only restrict while active, the most restrictive active one wins, and a written "
            "`budgets` list replaces the default 10% (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go "
            "GetAllowedDisruptionsByReason)",
            on="key")


# ------------------------------------------------------------------------------------------ durations

def _seconds(res: Resource, path, field: str) -> float | None:
    value = res.get(path)
    if value is None or has_placeholder_within(value):
        return None
    return parse_field(field, value if isinstance(value, str) else str(value))


def _auto_mode(res: Resource) -> bool:
    return res.get(TEMPLATE_SPEC + ("nodeClassRef", "group")) == AUTO_MODE_GROUP


@rule("KPL422", "expire-after-too-short", category="disruption", severity="warning",
      summary="expireAfter shorter than the configured bound (option min-expire-after): nodes are recycled continuously",
      kinds=("NodePool",), options={"min-expire-after": "1h"})
def expire_after_too_short(res, ctx):
    if not _karpenter_pool(res) or res.version != "v1":
        return
    expire = _seconds(res, EXPIRE, "expireAfter")
    bound_text = ctx.option("min-expire-after")
    bound = parse_go_duration(bound_text) if isinstance(bound_text, str) else None
    if expire is None or bound is None or expire >= bound or expire == float("inf"):
        return
    yield ctx.violation(
        res, EXPIRE,
        f"expireAfter {res.get(EXPIRE)} replaces every node of this pool within {format_seconds(expire)} of its "
        "launch\n"
        f"help: use hours or days (the default is 720h), or `Never`; the bound is option min-expire-after "
        f"({bound_text})\n"
        "note: expiration is forceful since v1.0 and is not limited by disruption budgets: nodes are drained as soon "
        "as they expire, pods restart continuously and the pool is mostly launching and draining "
        "(https://karpenter.sh/docs/concepts/disruption/#expiration)")


@rule("KPL423", "consolidate-after-exceeds-expire-after", category="disruption", severity="warning",
      summary="consolidateAfter at or above expireAfter: nodes expire before they can ever be consolidated",
      kinds=("NodePool",))
def consolidate_after_exceeds_expire_after(res, ctx):
    if not _karpenter_pool(res) or res.version != "v1":
        return
    consolidate = _seconds(res, DISRUPTION + ("consolidateAfter",), "consolidateAfter")
    expire = _seconds(res, EXPIRE, "expireAfter")
    if expire is None and res.get(EXPIRE) is None and isinstance(res.get(TEMPLATE_SPEC), dict):
        expire = (AUTO_MODE["default_expire_after"] if _auto_mode(res) else 720 * 3600)  # the defaults
    if consolidate is None or expire is None or consolidate == float("inf") or expire == float("inf"):
        return
    if consolidate < expire:
        return
    shown = res.get(EXPIRE) or f"{format_seconds(expire)} (the default)"
    yield ctx.violation(
        res, DISRUPTION + ("consolidateAfter",),
        f"consolidateAfter {res.get(DISRUPTION + ('consolidateAfter',))} is not shorter than expireAfter {shown}\n"
        "help: lower consolidateAfter well below expireAfter, or write `consolidateAfter: Never` if consolidation "
        "should be off\n"
        "note: consolidateAfter counts from the last pod scheduled to or removed from the node, expireAfter from its "
        "launch, so no node of this pool lives long enough to be consolidated "
        "(https://karpenter.sh/docs/concepts/disruption/)")


# What EKS Auto Mode answers when a NodePool asks for more: the API server rejects it ("NodePool \"…\" is invalid:
# spec.template.spec: the sum of expireAfter and terminationGracePeriod (defaulted to 24h) may not exceed 21 days",
# aws-controllers-k8s/test-infra#1000, a Flux apply to an Auto Mode cluster; awsdocs/amazon-eks-user-guide#986).
AUTO_MODE_REJECTS = ("the sum of expireAfter and terminationGracePeriod (defaulted to 24h) may not exceed 21 days")


@rule("KPL424", "auto-mode-node-lifetime", category="disruption", severity="error",
      summary="An EKS Auto Mode NodePool whose expireAfter + terminationGracePeriod exceeds 21 days: Auto Mode "
              "rejects it",
      kinds=("NodePool",))
def auto_mode_node_lifetime(res, ctx):
    if not _karpenter_pool(res) or res.version != "v1" or not _auto_mode(res):
        return
    limit = AUTO_MODE["max_lifetime"]
    raw = res.get(EXPIRE)
    if raw is None:
        return  # the Auto Mode default (336h) is within the limit
    expire = _seconds(res, EXPIRE, "expireAfter")
    if expire is None:
        return
    tgp = _seconds(res, TGP, "terminationGracePeriod")
    tgp_shown = res.get(TGP) if tgp is not None else f"{format_seconds(AUTO_MODE['default_tgp'])} (Auto Mode's default)"
    if tgp is None:
        tgp = AUTO_MODE["default_tgp"]
    if expire + tgp <= limit:
        return
    example = (f"terminationGracePeriod {res.get(TGP)}" if res.get(TGP) is not None
               else "the 24h default terminationGracePeriod")
    fix = (f"help: keep expireAfter + terminationGracePeriod at or below 504h (e.g. expireAfter "
           f"{format_seconds(max(limit - tgp, 0))} with {example})\n")
    lifetime = ("note: \"nodes launched by EKS Auto Mode have a maximum lifetime of 21 days (which you can reduce)\" "
                "(https://docs.aws.amazon.com/eks/latest/userguide/automode.html); NodeClaims get a 24h "
                "terminationGracePeriod when the NodePool sets none "
                "(https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html)")
    if expire == float("inf"):
        # The rejection seen names a sum of durations; whether `Never` is refused the same way is not documented.
        yield ctx.violation(
            res, EXPIRE,
            "expireAfter `Never` under EKS Auto Mode: nodes end at 21 days (504h), and Auto Mode may reject it\n" + fix
            + f"note: Auto Mode rejects finite values whose sum is larger (\"{AUTO_MODE_REJECTS}\", "
            "aws-controllers-k8s/test-infra#1000)\n" + lifetime,
            severity="warning")
        return
    yield ctx.violation(
        res, EXPIRE,
        "EKS Auto Mode rejects this NodePool: expireAfter plus terminationGracePeriod exceeds 21 days (504h)\n" + fix
        + f"note: expireAfter {raw} plus terminationGracePeriod {tgp_shown} is {format_seconds(expire + tgp)}\n"
        + f"note: Auto Mode answers \"{AUTO_MODE_REJECTS}\" on apply (aws-controllers-k8s/test-infra#1000; "
        "awsdocs/amazon-eks-user-guide#986)\n" + lifetime)


# ------------------------------------------------------------------------------------------ KPL425, KPL426

FORCEFUL_EXPIRATION_SINCE = "1.0.0"  # v1.0: expiration no longer waits for budgets (https://karpenter.sh/docs/upgrading/v1-migration/)


def _v1_timelines(res: Resource):
    """(budgets, timelines) of a v1 NodePool whose budgets are written, valid, not templated and no more than the
    CRD allows; else None."""
    if not _karpenter_pool(res) or res.version != "v1" or has_placeholder_within(res.get(BUDGETS)):
        return None
    if not isinstance(res.get(BUDGETS), list) or not res.get(BUDGETS):
        return None
    budgets, lines = _simulated(res)
    if not budgets or any(b.error for b in budgets) or lines is None:
        return None
    return budgets, lines


@rule("KPL425", "expiration-ignores-budgets", category="disruption", severity="info",
      summary="Budgets block every reason at some time while expireAfter still replaces nodes then (v1.0+)",
      kinds=("NodePool",))
def expiration_ignores_budgets(res, ctx):
    from karplint.disruption.budgets import WEEK, clock
    from karplint.model.versions import V

    if ctx.karpenter_version < V(FORCEFUL_EXPIRATION_SINCE):
        return
    got = _v1_timelines(res)
    if got is None or not isinstance(res.get(TEMPLATE_SPEC), dict):
        return
    expire = res.get(EXPIRE)
    if expire is not None and parse_field("expireAfter", expire if isinstance(expire, str) else "") in (None,
                                                                                                      float("inf")):
        return  # Never, templated or invalid (the schema rules report that)
    budgets, lines = got
    # minutes when every reason is blocked
    cuts = sorted({0, WEEK} | {p for tl in lines.values() for s in tl.segments for p in (s.start, s.end)})
    blocked_by: dict[int, bool] = {}  # segments with the same active budgets share the verdict

    def blocked_at(tl, i: int) -> bool:
        seg = tl.segments[i]
        verdict = blocked_by.get(id(seg.active))
        if verdict is None:
            verdict = blocked_by[id(seg.active)] = seg.blocked
        return verdict

    # One walk over the cuts, a cursor per distinct timeline (segments are sorted and cover the week; reasons
    # with the same budgets share theirs).
    distinct = list({id(tl.segments): tl for tl in lines.values()}.values())
    cursors = [0] * len(distinct)
    blocked = []
    for a, z in zip(cuts, cuts[1:]):
        every = True
        for n, tl in enumerate(distinct):
            i = cursors[n]
            while tl.segments[i].end <= a:
                i += 1
            cursors[n] = i
            every = every and blocked_at(tl, i)
        if every:
            blocked.append((a, z))
    if not blocked:
        return
    total = sum(z - a for a, z in blocked)
    when = "at all times" if total == WEEK else f"{_hours(total)} a week (first: {clock(blocked[0][0])}–" \
                                                 f"{clock(blocked[0][1])} UTC)"
    shown = f"expireAfter {expire}" if expire is not None else "the default expireAfter 720h"
    index = next(b.index for b in budgets if b.blocks)
    yield ctx.violation(
        res, BUDGETS + (index, "nodes"),
        f"budgets block every reason {when.split(' (first')[0]}, but {shown} still replaces nodes then\n"
        "help: if nodes must not be replaced in that window, set `expireAfter: Never` (and rely on drift inside "
        "the allowed window) or plan expirations around it\n"
        f"note: Drifted, Empty and Underutilized are blocked {when}\n"
        "note: since v1.0 expiration is forceful and not limited by disruption budgets, only by "
        "terminationGracePeriod and PodDisruptionBudgets (https://karpenter.sh/docs/concepts/disruption/#expiration; "
        "aws/karpenter-provider-aws#6980, kubernetes-sigs/karpenter#1590)")


@rule("KPL426", "reason-without-budget", category="disruption", severity="info",
      summary="Budgets are written but some reason is never limited by any of them (the default 10% is gone)",
      kinds=("NodePool",))
def reason_without_budget(res, ctx):
    from karplint.disruption.budgets import WEEK

    got = _v1_timelines(res)
    if got is None:
        return
    budgets, lines = got
    in_play = reasons_in_play(res)  # (Underutilized on a WhenEmpty pool: never a reason, so never unlimited)
    lines = {r: tl for r, tl in lines.items() if in_play is None or r in in_play}
    free = [r for r, tl in lines.items() if tl.unlimited_minutes() == WEEK]
    if not free or len(free) == len(lines):
        return  # every reason unlimited: an empty-effect list, not a forgotten reason
    limited = [r for r in lines if r not in free]
    verb = "has" if len(free) == 1 else "have"
    yield ctx.violation(
        res, BUDGETS,
        f"{and_list(free)} {verb} no disruption budget: unlimited at all times, while "
        f"{and_list(limited)} {'is' if len(limited) == 1 else 'are'} limited\n"
        f"help: add a budget for {and_list(free)} (e.g. `{{nodes: \"10%\", reasons: [{', '.join(free)}]}}`), or "
        f"one without `reasons`, if {'it' if len(free) == 1 else 'they'} should be rate limited\n"
        "note: a written `budgets` list replaces the default `nodes: \"10%\"`; a budget with `reasons` applies only "
        "to those reasons (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go; kubernetes-sigs/karpenter#1718)",
        on="key")


@rule("KPL427", "tgp-not-shorter-than-expire-after", category="disruption", severity="warning",
      summary="terminationGracePeriod at or above expireAfter: nodes may drain longer than they serve",
      kinds=("NodePool",))
def tgp_not_shorter_than_expire_after(res, ctx):
    if not _karpenter_pool(res) or res.version != "v1":
        return
    tgp = _seconds(res, TGP, "terminationGracePeriod")
    expire = _seconds(res, EXPIRE, "expireAfter")
    if tgp is None or expire is None or expire == float("inf") or tgp < expire:
        return
    yield ctx.violation(
        res, TGP,
        f"terminationGracePeriod {res.get(TGP)} is not shorter than expireAfter {res.get(EXPIRE)}\n"
        "help: keep terminationGracePeriod a fraction of expireAfter (e.g. expireAfter 168h with "
        "terminationGracePeriod 1h-24h)\n"
        "note: a node can spend longer draining than serving: an expired node is cordoned and drained for up to terminationGracePeriod while pods blocked by "
        "PodDisruptionBudgets or do-not-disrupt stay; its replacement expires in turn before that drain ends, so "
        "draining nodes pile up, each paid for (a node lives up to expireAfter + terminationGracePeriod: "
        "https://karpenter.sh/docs/concepts/disruption/#terminationgraceperiod; kubernetes-sigs/karpenter#1842)")


# ------------------------------------------------------------------------------------------ KPL428

# Instance labels of EKS Auto Mode (https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html, "EKS Auto
# Mode Supported Labels": "EKS Auto Mode uses different labels than Karpenter. Labels related to EC2 managed
# instances start with eks.amazonaws.com"). Karpenter's karpenter.k8s.aws/<suffix> -> Auto Mode's label.
AUTO_MODE_LABELS = {f"karpenter.k8s.aws/{s}": f"eks.amazonaws.com/{s}" for s in (
    "instance-hypervisor", "instance-encryption-in-transit-supported", "instance-category", "instance-generation",
    "instance-family", "instance-size", "instance-cpu", "instance-cpu-manufacturer", "instance-memory",
    "instance-ebs-bandwidth", "instance-network-bandwidth", "instance-gpu-name", "instance-gpu-manufacturer",
    "instance-gpu-count", "instance-gpu-memory", "instance-local-nvme")}
# Sizes Auto Mode never launches: "EKS Auto Mode will only create EC2 instances that meet the following requirements:
# More than 1 CPU; Instance size is not nano, micro or small"
# (https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html#auto-supported-instances).
AUTO_MODE_EXCLUDED_SIZES = frozenset({"nano", "micro", "small"})


def _only_excluded_sizes(key: str, op, values) -> bool:
    if op != "In" or not isinstance(values, list) or not values or any(has_placeholder_within(v) for v in values):
        return False
    vals = [str(v) for v in values]
    if key in ("eks.amazonaws.com/instance-size", "karpenter.k8s.aws/instance-size"):
        return set(vals) <= AUTO_MODE_EXCLUDED_SIZES
    if key in ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"):
        return all("." in v and v.rsplit(".", 1)[1] in AUTO_MODE_EXCLUDED_SIZES for v in vals)
    if key in ("eks.amazonaws.com/instance-cpu", "karpenter.k8s.aws/instance-cpu"):
        return vals == ["1"]
    return False


@rule("KPL428", "auto-mode-requirement", category="disruption", severity="warning",
      summary="An EKS Auto Mode NodePool requiring Karpenter's karpenter.k8s.aws/ labels or only instance sizes "
              "Auto Mode never launches",
      kinds=("NodePool",))
def auto_mode_requirement(res, ctx):
    if not _karpenter_pool(res) or res.version != "v1" or not _auto_mode(res):
        return
    reqs = res.get(TEMPLATE_SPEC + ("requirements",))
    if not isinstance(reqs, list):
        return
    for i, r in enumerate(reqs):
        if not isinstance(r, dict) or not isinstance(r.get("key"), str) or has_placeholder(r.get("key")):
            continue
        key, path = r["key"], TEMPLATE_SPEC + ("requirements", i, "key")
        if key in AUTO_MODE_LABELS:
            yield ctx.violation(
                res, path,
                f"`{key}` is not an EKS Auto Mode label\n"
                f"help: write `key: {AUTO_MODE_LABELS[key]}`\n"
                f"note: `{key}` is a label of self-managed Karpenter; Auto Mode labels its EC2 managed instances "
                "with eks.amazonaws.com/ keys, so this requirement "
                "does not select instance types as intended "
                "(https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html; "
                "awsdocs/amazon-eks-user-guide#1250 fixed the same mistake in AWS's own example)")
        elif _only_excluded_sizes(key, r.get("operator"), r.get("values")):
            yield ctx.violation(
                res, path,
                f"EKS Auto Mode never launches the instance sizes this requirement allows ({', '.join(map(str, r['values']))})"
                "\nhelp: allow larger sizes (Auto Mode launches instance types with more than 1 vCPU, not nano, micro "
                "or small)\n"
                "note: \"EKS Auto Mode will only create EC2 instances that meet the following requirements: More than 1 "
                "CPU; Instance size is not nano, micro or small\" (https://docs.aws.amazon.com/eks/latest/userguide/"
                "automode-learn-instances.html#auto-supported-instances); the NodePool stays Ready and never creates "
                "a NodeClaim (aws/containers-roadmap#2516)")
