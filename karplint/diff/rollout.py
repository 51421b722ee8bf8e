"""How a drift rolls out: which disruption budgets govern the replacement of drifted nodes, at what pace, in which
windows of the week (computed by `karplint.disruption.budgets`, which follows Karpenter's own arithmetic).

What budgets do, per Karpenter (kubernetes-sigs/karpenter at 2266468104f36373ed002241afaee2d3bbc26078):
- `pkg/apis/v1/nodepool.go` `GetAllowedDisruptionsByReason`: the minimum over the active budgets naming the reason
  (or naming none); an allowance is counted on the pool's nodes (`numNodes`), so with only some nodes drifted the
  pace applies to those. v1beta1 budgets have no reasons and govern every disruption method.
- `pkg/apis/v1/nodepool_default.go`/the CRD: `budgets` defaults to `[{nodes: "10%"}]`.
- Budgets do NOT limit expiration (`expireAfter`: forceful, `pkg/controllers/nodeclaim/expiration`) nor the
  termination of nodes deleted by other means; a drift that is blocked is still replaced once the node expires.
"""

from __future__ import annotations

from datetime import datetime

from karplint.disruption.budgets import DAYS, REFERENCE_WEEK, Timeline, read_budgets, timelines
from karplint.model.versions import V
from karplint.wording import counted

DAY = 24 * 60
SOURCE_BUDGETS = "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go@2266468 (GetAllowedDisruptionsByReason)"
SOURCE_DEFAULT = "karpenter.sh_nodepools.yaml CRD default of spec.disruption.budgets: [{nodes: \"10%\"}]"
# `spec.replicas` (static capacity, alpha) is in the NodePool CRD from core v1.8.0 (absent at v1.7.x);
# kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml at tag v1.8.0.
REPLICAS_SINCE = V("1.8.0")
NOT_LIMITED = ("budgets do not limit expiration (expireAfter replaces drifted nodes when they expire, whatever "
               "the budgets say) nor nodes deleted by other means")


def nodes_for(pool, *, cli_nodes: int | None, config, release=None) -> int | None:
    """The node count the rollout pace is worked out for: `--nodes`, else the configuration's `diff-nodes` (one
    count for every pool, or a table by pool name with `"*"` for the others), else a static-capacity pool's
    `spec.replicas` (from release 1.8.0), else None (the pace is then said in percentages)."""
    if cli_nodes is not None:
        return cli_nodes
    configured = getattr(config, "diff_nodes", None) if config is not None else None
    if isinstance(configured, int) and not isinstance(configured, bool):
        return configured
    if isinstance(configured, dict):
        got = configured.get(pool.name, configured.get("*"))
        if got is not None:
            return got
    replicas = pool.get(("spec", "replicas"))
    if (pool.version == "v1" and isinstance(replicas, int) and not isinstance(replicas, bool) and replicas >= 0
            and (release is None or not release < REPLICAS_SINCE)):
        return replicas
    return None


def rollout(head_pool, *, drift_verdict: str, nodes: int | None, start: datetime | None = None) -> dict | None:
    """The replacement of the pool's drifted nodes under its (head) budgets; None when nothing is replaced."""
    if drift_verdict in ("none", "new", "removed"):
        return None
    v1 = head_pool.version == "v1"
    reason = "Drifted" if v1 else "all"
    disruption = head_pool.get(("spec", "disruption"))
    budgets = read_budgets(disruption, v1=v1)
    week_start = start or REFERENCE_WEEK
    line = timelines(budgets, v1=v1, start=week_start)[reason]
    governing = sorted({b.index for s in line.segments for b in s.active if b.index is not None})
    default = any(b.index is None for b in budgets)
    blocked = sum(s.end - s.start for s in line.segments if s.blocked)
    errors = [b for b in budgets if b.error]
    never = blocked == line.minutes
    windows = "never" if never else _windows(line, week_start)
    pace = "none" if never else _pace(line, nodes, week_start)
    some = drift_verdict == "some"
    if never:
        why = (f"budget {errors[0].index} is invalid ({errors[0].error}), so Karpenter blocks every disruption"
               if errors else "a budget of 0 nodes covers Drifted at every moment" if v1
               else "a budget of 0 nodes is always active")
        summary = f"never rolls out: {why}"
    elif nodes == 0:
        summary = "no node to replace (0 nodes assumed)"
    else:
        limits = list(dict.fromkeys(_short(_allowance(s, nodes)) for s in line.segments if not s.blocked))
        summary = limits[0] if len(limits) == 1 else " or ".join(limits) + " depending on the time"
        if windows != "always":
            summary += f", {_windows_short(windows)}"
        if some:
            summary += " (the drifted nodes only)"
    notes = []
    if drift_verdict == "unknown":
        notes.append("whether the nodes drift is not certain: this is the pace if they do")
    if default:
        notes.append("no budgets are written: the CRD default, 10% of the pool's nodes at a time, applies")
    if not v1:
        notes.append("v1beta1 budgets have no reasons: they govern drift, consolidation and expiration alike")
    if some and not never:
        notes.append("the allowance is counted on all of the pool's nodes and spent on the drifted ones")
    if not line.weekly:
        notes.append("a schedule depends on the date: this week is one example")
    notes.append(NOT_LIMITED)
    return {
        "reason": "Drifted",  # (v1beta1: the same budgets govern every method; see notes)
        "nodes": nodes,
        "budgets": governing,
        "default_budget": default,
        "never": never,
        "pace": pace,
        "windows": windows,
        "unlimited_minutes": line.unlimited_minutes(),
        "blocked_minutes": blocked,
        "summary": summary,
        "notes": notes,
        "source": SOURCE_DEFAULT if default else SOURCE_BUDGETS,
    }


def describe_timeline(line: Timeline, nodes: int | None = None, start: datetime = REFERENCE_WEEK) -> str:
    """One reason's week in words: "never", "10% of nodes at a time, at any time", "all at once, weekends only"."""
    if all(s.blocked for s in line.segments):
        return "never"
    windows = _windows(line, start)
    return f"{_pace(line, nodes, start)}, {_windows_short(windows)}"


# ------------------------------------------------------------------------------------------------- wording

def _pace(line: Timeline, nodes: int | None, start: datetime) -> str:
    """The allowance outside blocked time: one phrase per distinct allowance, with its windows when several."""
    by_limit: dict[str, list[tuple[int, int]]] = {}
    for s in line.segments:
        if s.blocked:
            continue
        by_limit.setdefault(_allowance(s, nodes), []).append((s.start, s.end))
    if list(by_limit) == ["all at once"]:
        return "all at once"
    if len(by_limit) == 1:
        return next(iter(by_limit))
    parts = [f"{limit} ({_describe(spans, start)})" for limit, spans in by_limit.items()]
    return "; ".join(parts)


def _allowance(segment, nodes: int | None) -> str:
    if segment.unlimited:
        return "all at once"
    if nodes is not None:
        allowed = min(segment.allowed(nodes), nodes)  # (a budget of 5 on a pool of 3 replaces the 3)
        written = segment.limit()
        if written.endswith("%"):
            return f"{written} of nodes at a time ({allowed:,} of {nodes:,})"
        return f"{allowed:,} of {counted(nodes, 'node')} at a time"
    values = sorted({b.nodes for b in segment.active})
    if len(values) == 1:
        v = values[0]
        return f"{v} of nodes at a time" if v.endswith("%") else f"{counted(int(v), 'node')} at a time"
    return f"the smallest of {', '.join(values)} nodes at a time"


def _short(pace: str) -> str:
    """"10% of nodes at a time (1 of 10 nodes at a time)" -> "10% at a time" for the headline."""
    return pace.split(" (")[0].replace(" of nodes at a time", " at a time")


def _windows(line: Timeline, start: datetime) -> str:
    allowed = [(s.start, s.end) for s in line.segments if not s.blocked]
    if sum(hi - lo for lo, hi in allowed) == line.minutes:
        return "always"
    return _describe(allowed, start)


def _windows_short(windows: str) -> str:
    return {"always": "at any time", "weekdays only": "weekdays only", "weekends only": "weekends only"}.get(
        windows, f"in {windows}" if "windows a week" in windows else f"only {windows}")


def _describe(spans: list[tuple[int, int]], start: datetime) -> str:
    """Minute spans of the week in words: "Mon-Fri 09:00-17:00 UTC", "weekends only", or a list of spans."""
    offset = (start.weekday() * DAY + start.hour * 60 + start.minute)  # minutes from Monday 00:00
    per_day: list[list[tuple[int, int]]] = [[] for _ in range(7)]
    for lo, hi in spans:
        lo, hi = lo + offset, hi + offset
        while lo < hi:
            day, into = divmod(lo, DAY)
            end = min(hi, (day + 1) * DAY)
            cur = per_day[day % 7]
            piece = (into, end - day * DAY)
            if cur and cur[-1][1] == piece[0]:
                cur[-1] = (cur[-1][0], piece[1])
            else:
                cur.append(piece)
            lo = end
    for d in range(7):
        per_day[d].sort()
    whole = [d for d in range(7) if per_day[d] == [(0, DAY)]]
    if len(whole) == sum(1 for d in per_day if d):
        if whole == [5, 6]:
            return "weekends only"
        if whole == [0, 1, 2, 3, 4]:
            return "weekdays only"
    groups: dict[tuple, list[int]] = {}
    for d in range(7):
        if per_day[d]:
            groups.setdefault(tuple(per_day[d]), []).append(d)
    if len(groups) > 3:
        return f"{counted(len(spans), 'window')} a week (see `karplint budgets`)"
    parts = []
    for pattern, days in groups.items():
        hours = "" if pattern == ((0, DAY),) else " " + ", ".join(f"{_hm(a)}-{_hm(b)}" for a, b in pattern)
        parts.append(f"{_day_ranges(days)}{hours}")
    return "; ".join(parts) + " UTC"


def _hm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def _day_ranges(days: list[int]) -> str:
    if days == list(range(7)):
        return "every day"
    runs: list[list[int]] = []
    for d in days:
        if runs and runs[-1][-1] == d - 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    return ", ".join(DAYS[r[0]] if len(r) == 1 else f"{DAYS[r[0]]}-{DAYS[r[-1]]}" for r in runs)
