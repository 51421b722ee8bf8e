"""Disruption (KPL4xx) and removed disruption annotations (KPL81x).

Sources: the NodePool CRD of each release, https://karpenter.sh/docs/concepts/disruption/, the release notes, and the
issues each rule's doc names. Durations: `karplint.model.durations`; cron: `karplint.model.cron`.
"""

from __future__ import annotations

import difflib
from datetime import datetime
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from typing import Callable

from karplint.model import cron

from karplint.fix import yamledit
from karplint.model.detect import deployed_karpenter, reads_karpenter_release, target_karpenter
from karplint.model.durations import format_seconds, parse_field, parse_go_duration
from karplint.findings import Fix
from karplint.model import Model, Resource, karpenter_annotated_pods, karpenter_resources, pods_with_grace_period
from karplint.provisioning.placement import PlacementBudget, can_land, scheduling_signature
from karplint.rules import rule
from karplint.model.versions import V, Version
from karplint.readers.templating import has_placeholder

DISRUPTION = ("spec", "disruption")
BUDGETS = DISRUPTION + ("budgets",)
TEMPLATE_SPEC = ("spec", "template", "spec")
TGP = TEMPLATE_SPEC + ("terminationGracePeriod",)
EXPIRE = TEMPLATE_SPEC + ("expireAfter",)
TEMPLATE_ANNOTATIONS = ("spec", "template", "metadata", "annotations")

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
AUTO_MODE_GROUP = "eks.amazonaws.com"  # nodeClassRef.group of EKS Auto Mode NodePools
DEFAULT_EXPIRE_AFTER = "720h"  # the NodePool CRD default
DURATION_FORM_SINCE = V("1.12.0")  # pod do-not-disrupt "<duration>", core pkg/utils/pod/scheduling.go (v1.12)

# v1 budget reasons accepted by each release line (the CRD enum): first release -> reasons.
BUDGET_REASONS: dict[str, tuple[str, ...]] = {
    "0.33.6": ("Underutilized", "Empty", "Drifted"),  # v1 served for the upgrade path (aws-v0.37.8 CRD)
}

# Annotations removed in v1.0 and what replaced them (https://karpenter.sh/docs/upgrading/v1-migration/).
REMOVED_ANNOTATIONS: dict[str, tuple[str, str, str]] = {
    # key: (replacement, deprecated in, removed in)
    "karpenter.sh/do-not-evict": (DO_NOT_DISRUPT, "0.32.0", "1.0.0"),
    "karpenter.sh/do-not-consolidate": (DO_NOT_DISRUPT, "0.32.0", "1.0.0"),
}


def _is_v1_nodepool(res: Resource) -> bool:
    return res.kind == "NodePool" and res.group == "karpenter.sh" and res.version == "v1"


# ------------------------------------------------------------------------------------------ KPL401

@rule("KPL401", "consolidate-after-required", category="disruption", severity="error",
      summary="A v1 NodePool `disruption` block without `consolidateAfter` is rejected by every released CRD",
      kinds=("NodePool",), fix="safe")
def consolidate_after_required(res, ctx):
    if not _is_v1_nodepool(res):
        return
    disruption = res.get(DISRUPTION)
    if not isinstance(disruption, dict) or "consolidateAfter" in disruption:
        return
    fix = None
    if disruption:
        after = "consolidationPolicy" if "consolidationPolicy" in disruption else None
        edits = yamledit.insert_entry(res.doc, DISRUPTION, "consolidateAfter", "0s", after=after)
        if edits:
            fix = Fix("add `consolidateAfter: 0s` (Karpenter's default when it defaults the field)", "safe", edits)
    yield ctx.violation(
        res, DISRUPTION,
        "spec.disruption.consolidateAfter is missing: the API server rejects this NodePool\n"
        "help: add `consolidateAfter: 0s` to keep today's behaviour\n"
        "note: every released v1 CRD requires it once `disruption` is written (`spec.disruption.consolidateAfter: "
        "Required value`); only an absent `disruption` is defaulted (aws/karpenter-provider-aws#8846)",
        on="key", fix=fix)


# ------------------------------------------------------------------------------------------ KPL402

def _v1_nodepool_without_disruption(res: Resource) -> tuple | None:
    if _is_v1_nodepool(res) and res.get(DISRUPTION) is None:
        return ("spec",)
    return None


def _provisioner_eviction_args(res: Resource) -> tuple | None:
    if res.kind != "Provisioner" or res.group != "karpenter.sh":
        return None
    kubelet = res.get(("spec", "kubeletConfiguration"))
    if not isinstance(kubelet, dict):
        return None
    for key in ("evictionHard", "evictionSoft"):
        if isinstance(kubelet.get(key), dict) and kubelet[key]:
            return ("spec", "kubeletConfiguration", key)
    return None


@dataclass(frozen=True)
class BuggyRelease:
    first: str  # first affected release
    last: str  # last affected release
    fixed: str  # first release with the fix
    affects: Callable[[Resource], tuple | None]  # the path the bug hits in this resource, or None
    what: str
    sources: tuple[str, ...]
    advice: str | None = None  # replaces "upgrade to {fixed} or later" when the evidence names no fixed release


def _when_empty_pool(res: Resource) -> tuple | None:
    if res.kind == "NodePool" and res.group == "karpenter.sh" and \
            res.get(DISRUPTION + ("consolidationPolicy",)) == "WhenEmpty":
        return DISRUPTION + ("consolidationPolicy",)
    return None


BUGGY_RELEASES: tuple[BuggyRelease, ...] = (
    BuggyRelease(
        "1.0.0", "1.0.3", "1.0.4", _v1_nodepool_without_disruption,
        "a v1 NodePool without `spec.disruption` gets no disruption defaults, so consolidation is off",
        ("kubernetes-sigs/karpenter#1662", "the v1.0.4 release notes (absent disruption defaulted)"),
    ),
    BuggyRelease(
        "0.27.3", "0.27.3", "0.28.0", _provisioner_eviction_args,
        "kubelet eviction thresholds are rendered as `memory.available<…` without quotes, the bootstrap script "
        "fails on `<` and the node never joins (the fix, aws/karpenter-provider-aws#3841, merged 2023-05-02; "
        "0.28.0 is the first release certain to carry it)",
        ("aws/karpenter-provider-aws#3818", "aws/karpenter-provider-aws#3841"),
    ),
    BuggyRelease(
        "0.37.0", "0.37.0", "0.37.1", _when_empty_pool,
        "WhenEmpty NodePools were reported to stop removing empty nodes until the controller was restarted; one "
        "report, whose logs carry commit 490ef94 (the v0.37.0 tag), closed after the reporter upgraded within 0.37; "
        "no fix commit is named",
        ("aws/karpenter-provider-aws#7523",),
        advice="upgrade to the newest 0.37.x patch (v0.37.7) or to v1; meanwhile, restarting the controller "
               "unblocked it",
    ),
)


@rule("KPL402", "known-buggy-release", category="disruption", severity="warning",
      summary="The deployed or targeted Karpenter release has a known bug that this configuration hits",
      kinds=("NodePool", "Provisioner"),
      reads=(reads_karpenter_release,))
def known_buggy_release(res, ctx):
    if res.get(("spec", "template", "spec", "nodeClassRef", "group")) == AUTO_MODE_GROUP:
        return  # EKS Auto Mode runs AWS's own Karpenter, not the release deployed in the run
    for version, where in _versions_in_play(ctx):
        for bug in BUGGY_RELEASES:
            if not V(bug.first) <= version <= V(bug.last):
                continue
            path = bug.affects(res)
            if path is None:
                continue
            yield ctx.violation(
                res, path,
                f"Karpenter {version} has a known bug this configuration hits\n"
                f"help: {bug.advice or f'upgrade to {bug.fixed} or later'}\n"
                f"note: in Karpenter {_range(bug)} {bug.what} ({', '.join(bug.sources)})"
                + _release_origin(where, version), on="key")


def _range(bug: BuggyRelease) -> str:
    return bug.first if bug.first == bug.last else f"{bug.first}–{bug.last}"


def _release_origin(where: str, version) -> str:
    """A note saying where the targeted release came from ("" for the default, which --show-settings reports)."""
    rest = where[len(f"Karpenter {version}"):].strip()
    if not rest:
        return ""
    if rest.startswith("(set by "):
        return f"\nnote: the release is set by {rest[8:-1]}"
    return f"\nnote: the release comes {rest}"


def _versions_in_play(ctx) -> list[tuple[Version, str]]:
    """The explicit target, else every distinct release deployed in the run (a monorepo may hold several)."""
    if ctx.version_source != "default":
        version, where, _ = target_karpenter(ctx)
        return [(version, where)]
    found = deployed_karpenter(ctx.model)
    if found is None:
        return []
    out: dict[Version, str] = {}
    for version, where in found.all:
        out.setdefault(version, f"Karpenter {version} from {where}")
    return list(out.items())


# ------------------------------------------------------------------------------------------ budgets

def _budgets(res: Resource) -> list[tuple[int, dict]]:
    budgets = res.get(BUDGETS)
    if not isinstance(budgets, list):
        return []
    return [(i, b) for i, b in enumerate(budgets) if isinstance(b, dict)]


@rule("KPL403", "invalid-budget-schedule", category="disruption", severity="error",
      summary="A disruption budget `schedule` that is not a valid 5-field cron expression or macro",
      kinds=("NodePool",))
def invalid_budget_schedule(res, ctx):
    if res.group != "karpenter.sh":
        return
    for i, b in _budgets(res):
        schedule = b.get("schedule")
        if schedule is None or has_placeholder(schedule):
            continue
        err = cron.validate(schedule if isinstance(schedule, str) else str(schedule))
        if err:
            yield ctx.violation(res, BUDGETS + (i, "schedule"),
                                f"invalid budget schedule {schedule!r}: {err}\n"
                                "help: write a 5-field cron expression (minute hour day month weekday) or a macro\n"
                                "note: Karpenter parses it as standard cron (robfig/cron ParseStandard, UTC) and "
                                "cannot evaluate this budget")


@rule("KPL404", "budget-schedule-duration-pair", category="disruption", severity="error",
      summary="A disruption budget has `schedule` without `duration` or `duration` without `schedule`",
      kinds=("NodePool",))
def budget_schedule_duration_pair(res, ctx):
    if res.group != "karpenter.sh":
        return
    for i, b in _budgets(res):
        has_s, has_d = "schedule" in b, "duration" in b
        if has_s and not has_d:
            yield ctx.violation(res, BUDGETS + (i, "schedule"),
                                "budget has `schedule` but no `duration`: the API server rejects it\n"
                                "help: add how long each scheduled window lasts, e.g. `duration: 8h`\n"
                                "note: the CRD says \"'schedule' must be set with 'duration'\"",
                                on="key")
        elif has_d and not has_s:
            yield ctx.violation(res, BUDGETS + (i, "duration"),
                                "budget has `duration` but no `schedule`: the API server rejects it\n"
                                "help: add a cron `schedule`, or drop `duration` for an always-active budget\n"
                                "note: the CRD says \"'schedule' must be set with 'duration'\"",
                                on="key")


def _reasons_for(version: Version) -> tuple[str, ...] | None:
    known = [r for r in BUDGET_REASONS if V(r) <= version]
    return BUDGET_REASONS[known[-1]] if known else None


@rule("KPL405", "unknown-budget-reason", category="disruption", severity="error",
      summary="A v1 disruption budget lists a reason the targeted Karpenter release does not know",
      kinds=("NodePool",),
      reads=(reads_karpenter_release,))
def unknown_budget_reason(res, ctx):
    if not _is_v1_nodepool(res):
        return
    version, where, _ = target_karpenter(ctx)
    allowed = _reasons_for(version)
    if allowed is None:
        return
    for i, b in _budgets(res):
        reasons = b.get("reasons")
        if not isinstance(reasons, list):
            continue
        for j, reason in enumerate(reasons):
            if reason in allowed or has_placeholder(reason):
                continue
            close = difflib.get_close_matches(str(reason), allowed, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? (" if close else "use one of "
            yield ctx.violation(res, BUDGETS + (i, "reasons", j),
                                f"unknown budget reason {reason!r} for Karpenter {version}\n"
                                f"help: {hint}{', '.join(allowed)}{', case-sensitive)' if close else ''}"
                                + _release_origin(where, version))


@rule("KPL406", "disruption-disabled-by-budget", category="disruption", severity="info",
      summary="A budget `nodes: \"0\"` without a schedule turns voluntary disruption off for good",
      kinds=("NodePool",))
def disruption_disabled_by_budget(res, ctx):
    if res.group != "karpenter.sh":
        return
    for i, b in _budgets(res):
        nodes = b.get("nodes")
        if str(nodes).strip() not in ("0", "0%"):
            continue
        how = "with no schedule"
        if "schedule" in b:
            covers = _scheduled_for_good(b)
            if covers is None:
                continue
            how = covers
        reasons = b.get("reasons")
        which = (", ".join(str(r) for r in reasons) if isinstance(reasons, list) and reasons
                 else "Drifted, Empty and Underutilized")
        yield ctx.violation(res, BUDGETS + (i, "nodes"),
                            f"budget `nodes: \"{nodes}\"` blocks {which} for good\n"
                            + ("help: add a schedule and duration if it should only hold part of the time\n"
                               if "schedule" not in b else
                               "help: make `duration` shorter than the time between two runs of the schedule if it "
                               "should only hold part of the time\n")
                            + ("" if "schedule" not in b else f"note: the budget is {how}\n")
                            + "note: nodes are then never consolidated or replaced on drift; expiration, interruption "
                            "and repair still apply (aws/karpenter-provider-aws#6383)")


def _scheduled_for_good(b: dict) -> str | None:
    """"active for 24h after each `0 0 * * *`, every minute of the week" when a scheduled budget never lapses
    (its windows cover the whole week and the schedule is weekly); else None."""
    if any(has_placeholder(v) for v in (b.get("schedule"), b.get("duration")) if isinstance(v, str)):
        return None
    from karplint.disruption.budgets import WEEK, active_intervals, read_budgets

    parsed = read_budgets({"budgets": [b]})
    if len(parsed) != 1 or parsed[0].error or parsed[0].schedule is None or not parsed[0].schedule.weekly:
        return None
    if active_intervals(parsed[0], datetime(2024, 1, 1), WEEK) != [(0, WEEK)]:
        return None
    return f"active for {b.get('duration')} after each `{b.get('schedule')}` (UTC), every minute of the week,"


# ------------------------------------------------------------------------------------------ do-not-disrupt

@dataclass
class Pod:
    res: Resource
    meta_path: tuple
    spec_path: tuple

    @cached_property  # asked once per NodePool for each pod: computed once (the data never changes in a run)
    def annotations(self) -> dict:
        a = self.res.get(self.meta_path + ("annotations",))
        return a if isinstance(a, dict) else {}

    @cached_property
    def spec(self) -> dict:
        s = self.res.get(self.spec_path)
        return s if isinstance(s, dict) else {}

    @cached_property
    def signature(self) -> str:
        return scheduling_signature(self.spec)

    def can_land(self, np: Resource) -> bool:
        return can_land(self.spec, np, self.signature)


def _pods(model: Model) -> list[Pod]:
    cache = model.memo.get("disruption pods")
    if cache is None:
        cache = []
        for res in model.workloads():
            meta, spec = res.pod_template
            cache.append(Pod(res, meta, spec))
        model.memo["disruption pods"] = cache
    return cache


# Kinds whose pods run to completion: their do-not-disrupt protection ends when they finish, which is what
# Karpenter's docs recommend it for (batch work), so they never block a node for good.
RUN_TO_COMPLETION = ("Job", "CronJob")


def _protected(pod: Pod) -> bool:
    """Long-running pods permanently protected by do-not-disrupt ("true"; a duration expires, Jobs finish)."""
    if pod.annotations.get(DO_NOT_DISRUPT) != "true" or pod.res.kind in RUN_TO_COMPLETION:
        return False
    return not (pod.res.kind == "Pod" and pod.spec.get("restartPolicy") in ("Never", "OnFailure"))


def _protected_pods(model: Model) -> list[Pod]:
    """`[p for p in _pods(model) if _protected(p)]`, memoised like `_pods` (NodePool rules ask once per pool)."""
    cache = model.memo.get("disruption protected pods")
    if cache is None:
        cache = [p for p in _pods(model) if _protected(p)]
        model.memo["disruption protected pods"] = cache
    return cache


def _by_signature(pods: list[Pod]) -> dict[str, list[Pod]]:
    out: dict[str, list[Pod]] = {}
    for p in pods:
        out.setdefault(p.signature, []).append(p)
    return out


def _landing(groups: dict[str, list[Pod]], np: Resource, ctx, code: str) -> list[Pod] | None:
    """The pods of `groups` (`_by_signature`) that can land on `np`, asking once per scheduling signature (most pods
    share theirs); None once the rule's budget of pod-NodePool verdicts is spent (`_placement_budget`: each pod
    counts, as each may be listed)."""
    if not _placement_budget(ctx, code).take(sum(len(pods) for pods in groups.values())):
        return None
    out = []
    for signature, pods in groups.items():
        if pods[0].can_land(np):
            out.extend(pods)
    return out


def _placement_budget(ctx, code: str) -> PlacementBudget:
    """The run's budget of pod-NodePool verdicts for rule `code` (its own: a rule's verdicts never depend on
    which other rules ran)."""
    return ctx.model.memo.setdefault(("placement budget", code), PlacementBudget())


def _pool_not_checked(ctx, res: Resource, code: str):
    """KPL004 on the first NodePool the rule's budget left out (the rest go unsaid: one notice per run)."""
    budget = _placement_budget(ctx, code)
    if ctx.model.memo.setdefault(("placement budget said", code), res) is res:
        yield ctx.too_large(res, ("metadata", "name"), (
            f"NodePool `{res.name}` and the NodePools after it were not checked against the run's pods ({code}): "
            f"{budget.too_large()}"))


def _names(pods: list[Pod], limit: int = 3) -> str:
    names = [str(p.res) for p in pods[:limit]]
    more = f" and {len(pods) - limit} more" if len(pods) > limit else ""
    return ", ".join(names) + more


def _v1_pools(model: Model) -> list[Resource]:
    return [np for np in model.nodepools() if _is_v1_nodepool(np) and isinstance(np.get(TEMPLATE_SPEC), dict)]


@rule("KPL410", "do-not-disrupt-without-tgp", category="disruption", severity="warning",
      summary="Long-running pods with `karpenter.sh/do-not-disrupt: \"true\"` can land on a NodePool without terminationGracePeriod",
      reads=(karpenter_resources, karpenter_annotated_pods))
def do_not_disrupt_without_tgp(model, ctx):
    pools = [np for np in _v1_pools(model) if np.get(TGP) is None]
    if not pools:
        return
    pools_for: dict[str, list[Resource]] = {}  # by scheduling signature: most pods share theirs
    budget = PlacementBudget()
    for pod in _pods(model):
        if not _protected(pod):
            continue
        hits = pools_for.get(pod.signature)
        if hits is None:
            if not budget.take(len(pools)):
                yield ctx.too_large(pod.res, ("metadata", "name"), (
                    f"{pod.res} and the pods after it were not checked against the NodePools without "
                    f"terminationGracePeriod (KPL410): {budget.too_large()}"))
                return
            # (four are enough to name three and say there are more)
            hits = pools_for[pod.signature] = list(islice((np for np in pools if pod.can_land(np)), 4))
        if not hits:
            continue
        names = ", ".join(np.name or "<unnamed>" for np in hits[:3]) + (" …" if len(hits) > 3 else "")
        yield ctx.violation(
            pod.res, pod.meta_path + ("annotations", DO_NOT_DISRUPT),
            f"do-not-disrupt pods can land on NodePools without terminationGracePeriod ({names})\n"
            "help: set spec.template.spec.terminationGracePeriod on the NodePool, or give the annotation a duration "
            "(Karpenter ≥ 1.12)\n"
            f"note: a node running {pod.res} is never consolidated or replaced on drift, and an expiring node waits "
            "for it forever (kubernetes-sigs/karpenter#1789)",
            on="key")


@rule("KPL411", "expire-after-without-tgp", category="disruption", severity="warning",
      summary="expireAfter (default 720h) without terminationGracePeriod while do-not-disrupt pods can land there",
      kinds=("NodePool",),
      reads=(karpenter_annotated_pods,))
def expire_after_without_tgp(res, ctx):
    if not _is_v1_nodepool(res) or not isinstance(res.get(TEMPLATE_SPEC), dict) or res.get(TGP) is not None:
        return
    expire = res.get(EXPIRE)
    if expire == "Never" or has_placeholder(expire):
        return
    groups = ctx.model.memo.get("disruption protected groups")
    if groups is None:
        groups = ctx.model.memo["disruption protected groups"] = _by_signature(_protected_pods(ctx.model))
    pods = _landing(groups, res, ctx, "KPL411")
    if pods is None:
        yield from _pool_not_checked(ctx, res, "KPL411")
        return
    if not pods:
        return
    shown = f"expireAfter {expire}" if expire is not None else f"the default expireAfter {DEFAULT_EXPIRE_AFTER}"
    path = EXPIRE if expire is not None else TEMPLATE_SPEC
    yield ctx.violation(
        res, path,
        "no terminationGracePeriod: expiring nodes wait forever for do-not-disrupt pods\n"
        "help: set spec.template.spec.terminationGracePeriod\n"
        f"note: nodes expire after {shown.removeprefix('expireAfter ')}; {_names(pods)} use karpenter.sh/do-not-disrupt: \"true\"; expiration is forceful since Karpenter "
        "1.0, so expiring nodes are cordoned and start draining, then wait for those pods forever "
        "(kubernetes-sigs/karpenter#1789)",
        on="key")


def _grace_seconds(pod: Pod) -> int | None:
    g = pod.spec.get("terminationGracePeriodSeconds")
    return g if isinstance(g, int) and not isinstance(g, bool) else None


@rule("KPL412", "tgp-shorter-than-pod-grace", category="disruption", severity="warning",
      summary="NodePool terminationGracePeriod shorter than a matching pod's terminationGracePeriodSeconds",
      kinds=("NodePool",),
      reads=(pods_with_grace_period,))
def tgp_shorter_than_pod_grace(res, ctx):
    if not _is_v1_nodepool(res):
        return
    tgp = parse_field("terminationGracePeriod", res.get(TGP))
    if tgp is None:
        return
    groups = ctx.model.memo.get("disruption graceful groups")
    if groups is None:  # (signature -> its pods with a grace period, the longest first)
        graceful = sorted((p for p in _pods(ctx.model) if _grace_seconds(p) is not None),
                          key=lambda p: -_grace_seconds(p))
        groups = ctx.model.memo["disruption graceful groups"] = _by_signature(graceful)
    if not _placement_budget(ctx, "KPL412").take(len(groups)):  # (the scan below)
        yield from _pool_not_checked(ctx, res, "KPL412")
        return
    longer_groups = {}
    for signature, pods in groups.items():
        if _grace_seconds(pods[0]) > tgp:
            longer_groups[signature] = [p for p in pods if _grace_seconds(p) > tgp]
    landing = _landing(longer_groups, res, ctx, "KPL412") if longer_groups else []
    if landing is None:
        yield from _pool_not_checked(ctx, res, "KPL412")
        return
    order = ctx.model.memo.get("disruption pod order")
    if order is None:
        order = ctx.model.memo["disruption pod order"] = {id(p): i for i, p in enumerate(_pods(ctx.model))}
    longer = [(_grace_seconds(p), p) for p in sorted(landing, key=lambda p: order[id(p)])]  # (the model's order)
    if not longer:
        return
    longer.sort(key=lambda x: -x[0])
    g, pod = longer[0]
    yield ctx.violation(
        res, TGP,
        f"terminationGracePeriod {res.get(TGP)} is shorter than its pods' grace period (up to {format_seconds(g)})\n"
        "help: raise terminationGracePeriod above the pods' terminationGracePeriodSeconds\n"
        f"note: {_names([p for _, p in longer])} ask for up to {g}s; Karpenter deletes such pods as soon as the node "
        "starts draining, bypassing PodDisruptionBudgets and do-not-disrupt, so they never get their full grace "
        "period")


@rule("KPL413", "tgp-too-long", category="disruption", severity="warning",
      summary="NodePool terminationGracePeriod above the configured bound (option max-termination-grace-period)",
      kinds=("NodePool",), options={"max-termination-grace-period": "168h"})
def tgp_too_long(res, ctx):
    if not _is_v1_nodepool(res):
        return
    tgp = parse_field("terminationGracePeriod", res.get(TGP))
    bound_text = ctx.option("max-termination-grace-period")
    bound = parse_go_duration(bound_text) if isinstance(bound_text, str) else None
    if tgp is None or bound is None or tgp <= bound:
        return
    yield ctx.violation(
        res, TGP,
        f"terminationGracePeriod {res.get(TGP)} is above {bound_text}\n"
        "help: lower it, or raise the rule's option max-termination-grace-period\n"
        "note: a draining node may live that long after expiry or drift; a node's lifetime is up to expireAfter + "
        "terminationGracePeriod")


def _annotation_sites(model: Model):
    """(resource, annotations path, kind of site) for pods, NodePool templates and Nodes."""
    for pod in _pods(model):
        yield pod.res, pod.meta_path + ("annotations",), "pod"
    for np in model.nodepools():
        yield np, TEMPLATE_ANNOTATIONS, "node"
    for node in model.of_kind("Node", group=""):
        yield node, ("metadata", "annotations"), "node"


@rule("KPL414", "invalid-do-not-disrupt-value", category="disruption", severity="error",
      summary="A karpenter.sh/do-not-disrupt value Karpenter ignores (pods: \"true\" or a duration; nodes: \"true\")",
      reads=(karpenter_resources, karpenter_annotated_pods, reads_karpenter_release))
def invalid_do_not_disrupt_value(model, ctx):
    version, where, _ = target_karpenter(ctx)
    for res, path, site in _annotation_sites(model):
        ann = res.get(path)
        if not isinstance(ann, dict) or DO_NOT_DISRUPT not in ann:
            continue
        value = ann[DO_NOT_DISRUPT]
        vpath = path + (DO_NOT_DISRUPT,)
        if value == "true" or value == "false" or has_placeholder(value):
            continue  # "false" is ignored, which is what it says
        if not isinstance(value, str):
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            yield ctx.violation(res, vpath, f"annotation value is a {type(value).__name__}, not a string\n"
                                f"help: quote it (`\"{shown}\"`)\nnote: the API server rejects a bare "
                                f"{type(value).__name__}")
            continue
        if site == "node":
            yield ctx.violation(res, vpath, f"Karpenter ignores do-not-disrupt {value!r} on a node\n"
                                "help: write \"true\"\nnote: on a node or NodePool template it is honoured only "
                                "when exactly \"true\"")
            continue
        seconds = parse_go_duration(value)
        if seconds is not None and seconds > 0:
            if version < DURATION_FORM_SINCE:
                yield ctx.violation(res, vpath, f"Karpenter {version} ignores do-not-disrupt {value!r}: the pod is "
                                    "not protected\n"
                                    f"help: write \"true\", or upgrade to Karpenter {DURATION_FORM_SINCE}\n"
                                    f"note: the duration form needs Karpenter ≥ {DURATION_FORM_SINCE}"
                                    + _release_origin(where, version))
            continue
        yield ctx.violation(res, vpath, f"Karpenter ignores do-not-disrupt {value!r}: the pod is not protected\n"
                            "help: write \"true\" or a positive Go duration (e.g. \"30m\", Karpenter ≥ 1.12)")


# ------------------------------------------------------------------------------------------ KPL811

@rule("KPL811", "removed-disruption-annotation", category="deprecation", severity="error",
      summary="karpenter.sh/do-not-evict or karpenter.sh/do-not-consolidate, removed in v1.0 (use do-not-disrupt)",
      fix="safe",
      reads=(karpenter_resources, karpenter_annotated_pods, reads_karpenter_release))
def removed_disruption_annotation(model, ctx):
    version, where, _ = target_karpenter(ctx)
    for res, path, site in _annotation_sites(model):
        ann = res.get(path)
        if not isinstance(ann, dict):
            continue
        for key, (replacement, deprecated, removed) in REMOVED_ANNOTATIONS.items():
            if key not in ann or version < V(removed):
                continue
            fix = None
            if replacement not in ann:
                edits = yamledit.rename_key(res.doc, path + (key,), replacement)
                if edits:
                    fix = Fix(f"rename `{key}` to `{replacement}`", "safe", edits)
            yield ctx.violation(
                res, path + (key,),
                f"`{key}` is ignored by Karpenter {version}: the {'pod' if site == 'pod' else 'node'} is not "
                f"protected\nhelp: use `{replacement}`\n"
                f"note: deprecated in Karpenter {deprecated}, removed in {removed}"
                + _release_origin(where, version),
                on="key", fix=fix)


@rule("KPL415", "do-not-disrupt-on-workload", category="disruption", severity="warning",
      summary="karpenter.sh/do-not-disrupt on a Deployment/StatefulSet/Job's own metadata, where Karpenter never looks",
      scope="file")
def do_not_disrupt_on_workload(model, ctx):
    keys = (DO_NOT_DISRUPT, *REMOVED_ANNOTATIONS)
    for pod in _pods(model):
        if pod.meta_path == ("metadata",):
            continue  # a bare Pod: its own metadata is the pod's
        own = pod.res.get(("metadata", "annotations"))
        if not isinstance(own, dict):
            continue
        for key in keys:
            if key in own and key not in pod.annotations:
                where = ".".join(pod.meta_path) + ".annotations"
                yield ctx.violation(
                    pod.res, ("metadata", "annotations", key),
                    f"`{key}` on the {pod.res.kind}'s own metadata does nothing\n"
                    f"help: move it to {where} so the pods carry it\n"
                    "note: Karpenter reads pod annotations", on="key")
