"""Disruption behaviour over time (KPL420-KPL429): budgets simulated over a week, PDBs that block every drain,
durations that defeat themselves. The simulation lives in `karplint.disruption`; these rules only judge it.

Sources: kubernetes-sigs/karpenter `pkg/apis/v1/nodepool.go` (budgets), https://karpenter.sh/docs/concepts/disruption/,
https://docs.aws.amazon.com/eks/latest/userguide/automode.html and .../create-node-pool.html (EKS Auto Mode).
"""

from __future__ import annotations

from karplint.model import Parts, Resource, karpenter_resources, of_kinds
from karplint.model.durations import format_seconds, parse_field, parse_go_duration
from karplint.provisioning.placement import PLACEMENT_KEYS, can_land, scheduling_signature
from karplint.readers.templating import has_placeholder, has_placeholder_within
from karplint.rules import Violation, rule

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
    free = {reason: (first, tl.unlimited_minutes()) for reason, tl in lines.items()
            if (first := next((s for s in tl.segments if s.unlimited), None)) is not None}
    for b in budgets:
        if b.always or b.index is None or b.blocks or b.nodes == "100%":
            continue
        open_reasons = [reason for reason in lines if reason in free and (not v1 or b.applies_to(reason))]
        if not open_reasons:
            continue
        reason = open_reasons[0]
        names = ", ".join(open_reasons)
        names = "every disruption method" if names == "all" else names
        first, unlimited = free[reason]
        comp = complement(b)
        reasons_yaml = ""
        if b.reasons is not None:
            reasons_yaml = ", reasons: [" + ", ".join(b.reasons) + "]"
        if comp:
            fix = (f"help: to disrupt only in the window, add `{{nodes: \"0\", schedule: \"{comp[0]}\", "
                   f"duration: {comp[1]}{reasons_yaml}}}`; to cap it at all times, add an always-on budget "
                   f"such as `{{nodes: \"10%\"{reasons_yaml}}}`")
        else:
            fix = ("help: add `nodes: \"0\"` budgets scheduled over the rest of the week to disrupt only in the "
                   "window, or an always-on budget (e.g. `nodes: \"10%\"`) to cap it at all times")
        yield ctx.violation(
            res, BUDGETS + (b.index, "schedule"),
            f"outside this budget's window, {names} {'are' if len(open_reasons) > 1 or names.startswith('every') else 'is'}"
            " unlimited\n"
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


@rule("KPL424", "auto-mode-node-lifetime", category="disruption", severity="warning",
      summary="An EKS Auto Mode NodePool whose expireAfter (+ terminationGracePeriod) exceeds Auto Mode's 21-day limit",
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
    if expire > limit:
        what = "`Never`" if expire == float("inf") else f"{raw}"
        yield ctx.violation(
            res, EXPIRE,
            f"expireAfter {what} is beyond EKS Auto Mode's 21-day (504h) node lifetime\n"
            "help: set expireAfter to at most 504h minus terminationGracePeriod (e.g. 480h with the 24h default), so "
            "nodes are drained by Karpenter's expiration and not cut off\n"
            "note: Auto Mode terminates the instance first: \"nodes launched by EKS Auto Mode have a maximum "
            "lifetime of 21 days (which you can reduce)\" "
            "(https://docs.aws.amazon.com/eks/latest/userguide/automode.html)")
    elif expire + tgp > limit:
        yield ctx.violation(
            res, EXPIRE,
            "expireAfter plus terminationGracePeriod exceeds EKS Auto Mode's 21-day (504h) node lifetime\n"
            f"help: keep expireAfter + terminationGracePeriod at or below 504h (e.g. expireAfter "
            f"{format_seconds(limit - tgp)})\n"
            f"note: expireAfter {raw} plus terminationGracePeriod {tgp_shown}: a drain that starts at expiry can "
            "be cut off\n"
            "note: Auto Mode terminates instances at 21 days (https://docs.aws.amazon.com/eks/latest/userguide/"
            "automode.html) and gives NodeClaims a 24h terminationGracePeriod when the NodePool sets none "
            "(https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html)")


# ------------------------------------------------------------------------------------------ KPL421

EVICTED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Pod")  # drains evict them
SCALERS = ("HorizontalPodAutoscaler", "ScaledObject")  # replicas decided elsewhere: not judged


_NAMED = [("metadata", "name"), ("metadata", "namespace")]


def _pdb_workload_parts(res: Resource) -> list[tuple]:
    """What KPL421 reads of a workload: its name and namespace, replicas, pod labels and where its pods may land."""
    meta, spec = res.pod_template
    return [*_NAMED, ("spec", "replicas"), meta + ("labels",)] + [spec + (k,) for k in PLACEMENT_KEYS]


# KPL421 reads PodDisruptionBudgets (it reports on them), only a little of every workload they may select and of
# the autoscalers that decide those workloads' replicas.
_PDB_READS = (of_kinds("PodDisruptionBudget"), Parts(of_kinds(*EVICTED_KINDS), _pdb_workload_parts),
              Parts(of_kinds(*SCALERS), lambda res: [*_NAMED, ("spec", "scaleTargetRef")]))


# Selector evaluations plus (pod scheduling signature, NodePool) checks KPL421 makes in one run: an ordinary
# cluster needs a few thousand; 1,000 PDBs each selecting 10,000 workloads would need 10 million (minutes).
MAX_PDB_WORK = 1_000_000


def _indexed_terms(selector: dict) -> list[tuple[str, list]]:
    """(label, values) a pod must carry to match `selector`: a matchLabels pair (one value), an `In` expression
    (any of its values), an `Exists` expression ([None]: any value). Invalid terms are left to the full check."""
    out: list[tuple[str, list]] = []
    ml = selector.get("matchLabels")
    if isinstance(ml, dict):
        out.extend((k, [str(v)]) for k, v in ml.items())
    exprs = selector.get("matchExpressions")
    for e in exprs if isinstance(exprs, list) else ():
        if not isinstance(e, dict) or not isinstance(e.get("key"), str):
            continue
        values = e.get("values") or []
        if e.get("operator") == "In" and isinstance(values, list) and values:
            out.append((e["key"], list(dict.fromkeys(str(v) for v in values))))
        elif e.get("operator") == "Exists":
            out.append((e["key"], [None]))
    return out


def _selector_matches(selector: dict, labels: dict) -> bool:
    """Kubernetes label selector semantics (matchLabels AND matchExpressions); an empty selector matches all."""
    ml = selector.get("matchLabels") or {}
    if not isinstance(ml, dict):
        return False
    for k, v in ml.items():
        if str(labels.get(k, "\0")) != str(v):
            return False
    exprs = selector.get("matchExpressions") or []
    if not isinstance(exprs, list):
        return False
    for e in exprs:
        if not isinstance(e, dict):
            return False
        key, op = e.get("key"), e.get("operator")
        values = [str(v) for v in e.get("values") or []] if isinstance(e.get("values") or [], list) else []
        present = key in labels
        if op == "In" and not (present and str(labels[key]) in values):
            return False
        if op == "NotIn" and present and str(labels[key]) in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def _replicas(res: Resource) -> int | None:
    if res.kind == "Pod":
        return 1
    r = res.get(("spec", "replicas"))
    if r is None:
        return 1  # the API default for Deployment, StatefulSet, ReplicaSet, ReplicationController
    return r if isinstance(r, int) and not isinstance(r, bool) else None


def _scaled(model) -> set[tuple[str | None, str, str]]:
    out = set()
    for s in model.of_kind(*SCALERS):
        ref = s.get(("spec", "scaleTargetRef"))
        if isinstance(ref, dict) and isinstance(ref.get("name"), str):
            out.add((s.namespace, str(ref.get("kind") or "Deployment"), ref["name"]))
    return out


def _same_namespace(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _selected_pods(matched: list[Resource], scaled: set, memo: dict) -> tuple[list[int], int] | None:
    """(replicas of each matched workload, their total), or None when KPL421 does not judge them: no pod, an
    autoscaler owns a replica count (or it is not a number), or no replica at all. `memo`: per workload."""
    if not matched:
        return None
    counts = []
    for w in matched:
        c = memo.get(id(w), False)
        if c is False:
            owned = (w.namespace, w.kind, w.name) in scaled or (None, w.kind, w.name) in scaled
            c = memo[id(w)] = None if owned else _replicas(w)
        if c is None:
            return None
        counts.append(c)
    total = sum(counts)
    return (counts, total) if total else None


def _pdb_verdict(pdb: Resource, total: int) -> tuple[tuple, str] | None:
    """(path, why) when the PDB allows no eviction with all `total` selected pods healthy."""
    from karplint.disruption.budgets import allowed_nodes

    spec = pdb.spec
    if "maxUnavailable" in spec:
        v = spec["maxUnavailable"]
        text = str(v)
        if isinstance(v, bool):
            return None
        allowed = allowed_nodes(text, total)  # intstr, rounded up: what the disruption controller computes
        if allowed == 0:
            return ("spec", "maxUnavailable"), f"maxUnavailable {text}"
        return None
    if "minAvailable" in spec:
        v = spec["minAvailable"]
        if isinstance(v, bool):
            return None
        text = str(v)
        desired = allowed_nodes(text, total)
        if desired is not None and desired >= total:
            return ("spec", "minAvailable"), f"minAvailable {text}"
    return None


@rule("KPL421", "pdb-blocks-every-drain", category="disruption", severity="warning",
      summary="A PodDisruptionBudget that never allows an eviction for the pods it selects, on Karpenter nodes",
      reads=_PDB_READS + (karpenter_resources,))
def pdb_blocks_every_drain(model, ctx):
    pools = [np for np in model.nodepools() if np.version in ("v1", "v1beta1")
             and isinstance(np.get(TEMPLATE_SPEC), dict)]
    if not pools:
        return
    pdbs = [pdb for pdb in model.of_kind("PodDisruptionBudget")  # (policy/v1: a null selector selects no pod)
            if pdb.group == "policy" and isinstance(pdb.spec.get("selector"), dict)
            and not has_placeholder_within(pdb.spec)]
    if not pdbs:
        return
    scaled = _scaled(model)
    keys = {k for pdb in pdbs for k, _v in _indexed_terms(pdb.spec["selector"])}
    by_ns: dict[str | None, list[tuple]] = {}  # (workload, pod labels, namespace), read once (not once per PDB)
    everywhere: list[tuple] = []
    by_label: dict[tuple, list[tuple]] = {}  # (label, value or None) -> pods carrying it
    position: dict[int, int] = {}  # a workload's place in the run (candidates gathered from several lists)
    for w in model.resources:
        if w.kind not in EVICTED_KINDS or w.group not in ("", "apps") or w.pod_template is None:
            continue
        labels = w.get(w.pod_template[0] + ("labels",))
        if not isinstance(labels, dict):
            continue
        entry = (w, labels, w.namespace)
        by_ns.setdefault(entry[2], []).append(entry)
        position[id(w)] = len(everywhere)
        everywhere.append(entry)
        for k, v in labels.items():  # (a pod's own labels: never more than its document holds)
            if k in keys:
                by_label.setdefault((k, str(v)), []).append(entry)
                by_label.setdefault((k, None), []).append(entry)
    clean: dict[int, bool] = {}  # pods whose labels hold a placeholder are never matched (checked when met)

    def placeholder_free(w: Resource, labels: dict) -> bool:
        ok = clean.get(id(w))
        if ok is None:
            ok = clean[id(w)] = not has_placeholder_within(labels)
        return ok

    def candidates_of(pdb: Resource, selector: dict) -> list[tuple]:
        """The pods that may match: the fewest of those carrying one of its terms (in the order a scan of its
        namespace, then of the pods without one, meets them), else that scan."""
        best = None
        for key, values in _indexed_terms(selector):
            found = by_label.get((key, values[0]), [])
            if len(values) > 1:
                found = sorted((p for v in values for p in by_label.get((key, v), ())),
                               key=lambda p: position[id(p[0])])
            if best is None or len(found) < len(best):
                best = found
        if best is None:
            return everywhere if pdb.namespace is None else by_ns.get(pdb.namespace, []) + by_ns.get(None, [])
        if pdb.namespace is not None and not (isinstance(ml := selector.get("matchLabels"), dict) and ml):
            best = sorted(best, key=lambda p: p[2] is None)  # (stable: the scan's order)
        return best

    signatures: dict[int, str] = {}  # a workload's scheduling signature, worked out once
    landing: dict[str, list[Resource]] = {}  # a signature -> the NodePools its pods may land on, in order
    # PDBs with the same namespace and selector select the same pods: matched once, counted once, placed once.
    matches: dict[tuple, list[Resource]] = {}
    replicas: dict[int, int | None] = {}  # a workload's replicas, None when an autoscaler decides them or unknown
    pods_of: dict[tuple, tuple | None] = {}  # -> (replicas of each, their total), None when not judged
    hosts_of: dict[tuple, list[Resource]] = {}  # -> the NodePools those pods may land on
    work = 0  # selector evaluations and (signature, NodePool) checks: bounded per run
    not_checked: dict[str, list[Resource]] = {}  # file -> the PDBs left unchecked past the bound
    for pdb in pdbs:
        if work > MAX_PDB_WORK:
            not_checked.setdefault(pdb.doc.source.path, []).append(pdb)
            continue
        selector = pdb.spec["selector"]
        same = (pdb.namespace, repr(selector))
        matched = matches.get(same)
        if matched is None:
            candidates = candidates_of(pdb, selector)
            work += len(candidates)
            if work > MAX_PDB_WORK:
                not_checked.setdefault(pdb.doc.source.path, []).append(pdb)
                continue
            matched = matches[same] = [w for w, labels, ns in candidates
                                       if _same_namespace(pdb.namespace, ns)
                                       and _selector_matches(selector, labels) and placeholder_free(w, labels)]
        pods = pods_of.get(same)
        if pods is None:
            pods = pods_of[same] = _selected_pods(matched, scaled, replicas)
        if not pods:
            continue
        counts, total = pods
        verdict = _pdb_verdict(pdb, total)
        if verdict is None:
            continue
        path, why = verdict
        hosts = hosts_of.get(same)
        if hosts is None:
            hosts, seen, met = [], set(), set()  # (by identity: Resource's equality compares whole documents)
            for w in matched:
                signature = signatures.get(id(w))
                if signature is None:
                    spec = w.get(w.pod_template[1])
                    spec = spec if isinstance(spec, dict) else {}
                    signature = signatures[id(w)] = scheduling_signature(spec)
                    if signature not in landing:
                        work += len(pools)
                        landing[signature] = [np for np in pools if can_land(spec, np, signature)]
                if signature in met:
                    continue
                met.add(signature)
                for np in landing[signature]:
                    if id(np) not in seen:
                        hosts.append(np)
                        seen.add(id(np))
            hosts_of[same] = hosts
        if not hosts:
            continue
        shown = ", ".join(f"{w} ({c} replica{'s' if c != 1 else ''})" for w, c in zip(matched[:3], counts))
        if len(matched) > 3:
            shown += f" and {len(matched) - 3} more"
        with_tgp = [np for np in hosts if np.version == "v1" and np.get(TGP) is not None]
        without = [np for np in hosts if not (np.version == "v1" and np.get(TGP) is not None)]
        waits = []
        if with_tgp:
            waits.append("until terminationGracePeriod runs out on " + ", ".join(
                f"{np.name} ({np.get(TGP)})" for np in with_tgp[:3]))
        if without:
            waits.append("forever on " + ", ".join(str(np.name) for np in without[:3])
                         + " (no terminationGracePeriod)")
        yield ctx.violation(
            pdb, path,
            f"{why} allows no eviction of the {total} pod{'s' if total != 1 else ''} it selects: {shown}\n"
            + ("help: set maxUnavailable to 1 or more: 0 forbids every voluntary eviction\n" if path[-1] == "maxUnavailable"
               else f"help: keep minAvailable below the {total} pod{'s' if total != 1 else ''} (or use "
                    "`maxUnavailable: 1`), or run more replicas\n") +
            f"note: a node of NodePool {', '.join(str(np.name) for np in hosts[:3])} running these pods is never "
            f"consolidated, and drift and expiration wait {' and '.join(waits)} "
            "(https://karpenter.sh/docs/concepts/disruption/; kubernetes-sigs/karpenter#1789)")
    for file_pdbs in not_checked.values():
        first = file_pdbs[0]
        others = f" and {len(file_pdbs) - 1:,} other PodDisruptionBudget(s) of this file" if len(file_pdbs) > 1 else ""
        yield Violation(first.doc, first.doc.span(("spec", "selector")),
                        f"too large: matching PodDisruptionBudgets with workloads took over {MAX_PDB_WORK:,} steps "
                        f"in this run; KPL421 (pdb-blocks-every-drain) not checked for {first}{others}", first,
                        code="KPL004")


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
    free = [r for r, tl in lines.items() if tl.unlimited_minutes() == WEEK]
    if not free or len(free) == len(lines):
        return  # every reason unlimited: an empty-effect list, not a forgotten reason
    limited = [r for r in lines if r not in free]
    verb = "has" if len(free) == 1 else "have"
    yield ctx.violation(
        res, BUDGETS,
        f"{', '.join(free)} {verb} no disruption budget: unlimited at all times, while "
        f"{', '.join(limited)} {'is' if len(limited) == 1 else 'are'} limited\n"
        f"help: add a budget for {', '.join(free)} (e.g. `{{nodes: \"10%\", reasons: [{', '.join(free)}]}}`), or "
        "one without `reasons`, if they should be rate limited\n"
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
