"""Disruption of NodePools (KPL401-KPL406) and Provisioners (KPL430): consolidation settings, known buggy releases,
budgets. Pods and the
disruption of their nodes (do-not-disrupt, grace periods, KPL410-KPL415, KPL811): karplint/rules/do_not_disrupt.py.

Sources: the NodePool CRD of each release, https://karpenter.sh/docs/concepts/disruption/, the release notes, and the
issues each rule's doc names. Durations: `karplint.model.durations`; cron: `karplint.model.cron`.
"""

from __future__ import annotations

import difflib
from datetime import datetime
from dataclasses import dataclass
from typing import Callable

from karplint.model import cron

from karplint.fix import yamledit
from karplint.model.detect import reads_karpenter_release, target_karpenter, versions_in_play
from karplint.findings import Fix
from karplint.model import Resource
from karplint.rules import rule
from karplint.wording import and_list
from karplint.model.versions import V, Version
from karplint.readers.templating import has_placeholder

DISRUPTION = ("spec", "disruption")
BUDGETS = DISRUPTION + ("budgets",)
TEMPLATE_SPEC = ("spec", "template", "spec")

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
AUTO_MODE_GROUP = "eks.amazonaws.com"  # nodeClassRef.group of EKS Auto Mode NodePools

# v1 budget reasons accepted by each release line (the CRD enum): first release -> reasons.
BUDGET_REASONS: dict[str, tuple[str, ...]] = {
    "0.33.6": ("Underutilized", "Empty", "Drifted"),  # v1 served for the upgrade path (aws-v0.37.8 CRD)
}



def is_v1_nodepool(res: Resource) -> bool:
    return res.kind == "NodePool" and res.group == "karpenter.sh" and res.version == "v1"


# ------------------------------------------------------------------------------------------ KPL401

@rule("KPL401", "consolidate-after-required", category="disruption", severity="error",
      summary="A v1 NodePool `disruption` block without `consolidateAfter` is rejected by every released CRD",
      kinds=("NodePool",), fix="safe")
def consolidate_after_required(res, ctx):
    if not is_v1_nodepool(res):
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
    if is_v1_nodepool(res) and res.get(DISRUPTION) is None:
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
    for version, where in versions_in_play(ctx):
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
                + release_origin(where, version), on="key")


def _range(bug: BuggyRelease) -> str:
    return bug.first if bug.first == bug.last else f"{bug.first}–{bug.last}"


def release_origin(where: str, version) -> str:
    """A note saying where the targeted release came from ("" for the default, which --show-settings reports)."""
    rest = where[len(f"Karpenter {version}"):].strip()
    if not rest:
        return ""
    if rest.startswith("(set by "):
        return f"\nnote: the release is set by {rest[8:-1]}"
    return f"\nnote: the release comes {rest}"


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
    if not is_v1_nodepool(res):
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
                                + release_origin(where, version))


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
        listed = [str(r) for r in reasons] if isinstance(reasons, list) and reasons else list(ALL_REASONS)
        which = and_list(listed)
        yield ctx.violation(res, BUDGETS + (i, "nodes"),
                            f"budget `nodes: \"{nodes}\"` blocks {which} for good\n"
                            + ("help: add a schedule and duration if it should only hold part of the time\n"
                               if "schedule" not in b else
                               "help: make `duration` shorter than the time between two runs of the schedule if it "
                               "should only hold part of the time\n")
                            + ("" if "schedule" not in b else f"note: the budget is {how}\n")
                            + _blocked_note(listed))


ALL_REASONS = ("Drifted", "Empty", "Underutilized")
# What a node is never disrupted for while a zero budget blocks each reason (kubernetes-sigs/karpenter
# pkg/apis/v1/nodepool.go@v1.0.0 DisruptionReason: Underutilized, Empty, Drifted).
NEVER = {"Drifted": "replaced on drift", "Empty": "removed when empty", "Underutilized": "consolidated when "
         "underutilized"}


def _blocked_note(listed: list[str]) -> str:
    """What the zero budget stops, for its reasons only: a budget for Drifted leaves consolidation alone."""
    covered = [r for r in ALL_REASONS if r in listed]
    if len(covered) == len(ALL_REASONS):
        what = "nodes are then never consolidated or replaced on drift; "
    else:
        others = [r for r in ALL_REASONS if r not in covered]
        what = (f"nodes are then never {' or '.join(NEVER[r] for r in covered)}; {and_list(others)} "
                f"{'is' if len(others) == 1 else 'are'} not limited by this budget; " if covered else "")
    return f"note: {what}expiration, interruption and repair still apply (aws/karpenter-provider-aws#6383)"


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


# ------------------------------------------------------------------------------------------ KPL430

@rule("KPL430", "ttl-after-empty-with-consolidation", category="disruption", severity="error",
      summary="A v1alpha5 Provisioner sets both ttlSecondsAfterEmpty and consolidation.enabled: true (mutually exclusive)",
      kinds=("Provisioner",))
def ttl_after_empty_with_consolidation(res, ctx):
    # kubernetes-sigs/karpenter pkg/apis/v1alpha5/provisioner_validation.go@v0.32.0#L99-L101 (since
    # aws/karpenter v0.15.0 pkg/apis/provisioning/v1alpha5/provisioner_validation.go#L75)
    if res.group != "karpenter.sh" or res.version != "v1alpha5":
        return
    consolidation = res.get(("spec", "consolidation"))
    if not isinstance(consolidation, dict) or consolidation.get("enabled") is not True:
        return
    if res.get(("spec", "ttlSecondsAfterEmpty")) is None:
        return
    yield ctx.violation(
        res, ("spec", "ttlSecondsAfterEmpty"),
        "ttlSecondsAfterEmpty cannot be combined with consolidation.enabled: true\n"
        "help: remove ttlSecondsAfterEmpty: consolidation removes empty nodes too\n"
        "note: Karpenter's webhook rejects the Provisioner (\"expected exactly one, got both: consolidation.enabled, "
        "ttlSecondsAfterEmpty\"), v0.15 to v0.32",
        on="key")
