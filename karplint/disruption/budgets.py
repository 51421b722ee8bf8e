"""The effective disruption budget of a NodePool, per reason, at every minute of a week (as intervals).

What Karpenter does (kubernetes-sigs/karpenter at 2266468104f36373ed002241afaee2d3bbc26078):

- `pkg/apis/v1/nodepool.go` `GetAllowedDisruptionsByReason`: the allowed number is the minimum over the budgets
  whose `reasons` is unset (nil: all reasons) or contains the reason; an inactive budget counts as unlimited
  (`math.MaxInt32`); no active budget at all means unlimited.
- `Budget.IsActive`: a budget without schedule and duration is always active; otherwise it is active at `t` when
  the schedule fires in `(t - duration, t]`, i.e. during `[hit, hit + duration)` after every hit, in UTC.
- `Budget.GetAllowedDisruptions`: `nodes` is an integer, or a percentage scaled by
  `intstr.GetScaledValueFromIntOrPercent(nodes, numNodes, roundUp=true)` = ceil(percent * numNodes / 100)
  (kubernetes/apimachinery `pkg/util/intstr/intstr.go`): 10% of 5 nodes allows 1.
- `MustGetAllowedDisruptions`: any budget error (an invalid schedule) makes every reason's allowance 0: the pool
  fails closed.
- `Disruption.Budgets` defaults to `[{nodes: "10%"}]` when the field is absent (CRD default); an explicit list
  replaces the default.
- `pkg/controllers/disruption/helpers.go` `BuildDisruptionBudgetMapping` then subtracts the pool's NotReady and
  already-disrupting nodes; numNodes counts only initialized, managed nodes. That state is not in the files.

Budgets limit only these reasons (v1 enum `Underutilized`, `Empty`, `Drifted`). v1beta1 budgets have no `reasons`
and apply to every disruption method of that API (consolidation, drift, expiration).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from karplint.disruption.schedule import Schedule, parse
from karplint.model.durations import FIELD_PATTERNS, parse_go_duration
from karplint.numbers import ascii_digits, integer

WEEK = 7 * 24 * 60  # minutes
REFERENCE_WEEK = datetime(2024, 1, 1)  # a Monday, 00:00 UTC: the week timelines are computed on by default

# Disruption reasons budgets can name, per API version and release line: first release -> reasons (the CRD enum).
V1_REASONS: dict[str, tuple[str, ...]] = {
    "0.33.6": ("Drifted", "Empty", "Underutilized"),  # v1 served from v0.33.6; the enum is unchanged to v1.14.1/main
}
V1BETA1_METHODS = "all"  # v1beta1 budgets have no reasons: one timeline for every method
DEFAULT_BUDGETS = ({"nodes": "10%"},)  # the CRD default of spec.disruption.budgets
NODES_PATTERN = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")  # the CRD pattern of budgets[].nodes


@dataclass(frozen=True)
class Budget:
    index: int | None  # position in spec.disruption.budgets; None for the CRD default
    nodes: str
    reasons: tuple[str, ...] | None  # None: every reason
    schedule_text: str | None = None
    duration: int | None = None  # minutes
    schedule: Schedule | None = None
    error: str | None = None  # why Karpenter cannot evaluate it (it then fails closed)

    @property
    def always(self) -> bool:
        return self.schedule_text is None and self.duration is None

    @property
    def blocks(self) -> bool:
        """`nodes` is 0 or 0%: nothing may be disrupted while it is active."""
        return allowed_nodes(self.nodes, 1_000_000) == 0

    def applies_to(self, reason: str) -> bool:
        return self.reasons is None or reason in self.reasons

    def allowed(self, total: int) -> int:
        value = allowed_nodes(self.nodes, total)
        return 0 if value is None else value


def allowed_nodes(nodes: str, total: int) -> int | None:
    """Karpenter's allowance for `nodes` on a pool of `total` nodes; None when `nodes` is not valid."""
    text = str(nodes)
    if ascii_digits(text):  # (`str.isdigit` admits `²`; Karpenter's strconv.Atoi reads int64)
        value = integer(text) if len(text.lstrip("0")) <= 19 else None
        return value if value is not None and value <= 2**63 - 1 else None
    if NODES_PATTERN.match(text):
        return math.ceil(float(text[:-1]) * float(total) / 100)
    return None


def _minutes(duration) -> int | None:
    if not isinstance(duration, str) or not FIELD_PATTERNS["budgets.duration"].match(duration):
        return None
    seconds = parse_go_duration(duration)
    return None if seconds is None else int(seconds // 60)


def read_budgets(disruption, *, v1: bool = True) -> list[Budget]:
    """The budgets of a NodePool's `spec.disruption` (the CRD default when `budgets` is absent)."""
    raw = disruption.get("budgets") if isinstance(disruption, dict) else None
    if raw is None:
        return [Budget(None, "10%", None)]
    if not isinstance(raw, list):
        return []
    out = []
    for i, b in enumerate(raw):
        if not isinstance(b, dict):
            continue
        # (`nodes: null` is pruned before the CRD default applies: https://kubernetes.io/docs/tasks/extend-kubernetes/
        # custom-resources/custom-resource-definitions/#defaulting-and-nullable)
        nodes = "10%" if b.get("nodes") is None else b["nodes"]
        nodes = str(nodes).lower() if isinstance(nodes, bool) else str(nodes)
        reasons = b.get("reasons") if v1 else None
        reasons = tuple(str(r) for r in reasons) if isinstance(reasons, list) else None
        schedule_text, duration_text = b.get("schedule"), b.get("duration")
        error = None
        if allowed_nodes(nodes, 1) is None:
            error = f"nodes {nodes!r} is neither a count nor a percentage"
        schedule = duration = None
        if schedule_text is not None or duration_text is not None:
            schedule_text = str(schedule_text) if schedule_text is not None else ""
            schedule = parse(schedule_text)
            duration = _minutes(duration_text)
            if schedule is None:
                error = error or ("`duration` without `schedule`" if b.get("schedule") is None
                                  else f"schedule {schedule_text!r} is not a valid cron expression")
            if duration is None:
                duration = 0
                error = error or ("`schedule` without `duration`" if duration_text is None
                                  else f"duration {duration_text!r} is not a valid budget duration")
        out.append(Budget(i, nodes, reasons, schedule_text, duration, schedule, error))
    return out


def reasons_for(v1: bool) -> tuple[str, ...]:
    return V1_REASONS["0.33.6"] if v1 else (V1BETA1_METHODS,)


@dataclass(frozen=True)
class Segment:
    """[start, end) minutes from the week's start during which the same budgets are active for a reason."""

    start: int
    end: int
    active: tuple[Budget, ...]  # active budgets applying to the reason; empty: unlimited

    @property
    def unlimited(self) -> bool:
        return not self.active

    @property
    def blocked(self) -> bool:
        return any(b.blocks or b.error for b in self.active)

    def allowed(self, total: int) -> int | None:
        """Nodes Karpenter may disrupt at once for this reason on a pool of `total` nodes; None = unlimited."""
        if not self.active:
            return None
        if any(b.error for b in self.active):
            return 0  # MustGetAllowedDisruptions returns 0 on any budget error
        return min(b.allowed(total) for b in self.active)

    def limit(self) -> str:
        """A short description: "unlimited", "0 (blocked)", "1", "min(5, 20%)"."""
        if not self.active:
            return "unlimited"
        if any(b.error for b in self.active):
            return "0 (invalid budget: Karpenter fails closed)"
        if self.blocked:
            return "0 (blocked)"
        values = sorted({b.nodes for b in self.active})
        return values[0] if len(values) == 1 else "min(" + ", ".join(values) + ")"


@dataclass
class Timeline:
    reason: str
    start: datetime
    minutes: int
    segments: list[Segment] = field(default_factory=list)
    weekly: bool = True  # False when a schedule depends on the day of month or month: this week is one example

    def unlimited_minutes(self) -> int:
        got = self.__dict__.get("_unlimited")  # (rules ask several times; segments never change once built)
        if got is None or got[0] != len(self.segments):
            got = self.__dict__["_unlimited"] = (len(self.segments),
                                                 sum(s.end - s.start for s in self.segments if s.unlimited))
        return got[1]

    def at(self, minute: int) -> Segment:
        import bisect

        starts = self.__dict__.get("_starts")
        if starts is None or len(starts) != len(self.segments):
            starts = self.__dict__["_starts"] = [s.start for s in self.segments]
        i = bisect.bisect_right(starts, minute) - 1
        if i < 0 or not self.segments[i].start <= minute < self.segments[i].end:
            raise IndexError(minute)
        return self.segments[i]

    def allowed_at(self, minute: int, total: int) -> int | None:
        return self.at(minute).allowed(total)

    def merged(self) -> list[tuple[int, int, str]]:
        """(start, end, limit) with consecutive equal limits joined: what a person reads."""
        out: list[tuple[int, int, str]] = []
        for s in self.segments:
            lim = s.limit()
            if out and out[-1][2] == lim:
                out[-1] = (out[-1][0], s.end, lim)
            else:
                out.append((s.start, s.end, lim))
        return out

    def when(self, minute: int) -> datetime:
        return self.start + timedelta(minutes=minute)


MAX_BUDGETS = 50  # the CRD's maxItems for spec.disruption.budgets: more is rejected, only these are simulated
MAX_LOOKBACK_DAYS = 28 * 366  # a cron schedule repeats within 28 years: no need to look further back


def active_intervals(budget: Budget, start: datetime, minutes: int) -> list[tuple[int, int]]:
    """[from, to) minute offsets in the window where `budget` is active (merged, sorted)."""
    if budget.always or budget.error:
        return [(0, minutes)]  # errors: Karpenter fails closed at every moment
    duration = budget.duration or 0
    if duration <= 0 or budget.schedule is None:
        return []
    end = start + timedelta(minutes=minutes)
    # Hits inside the window, plus the last hit before it when that one's window reaches into it (one is
    # enough: an earlier hit's window ends no later than the last one's).
    hits = budget.schedule.offsets(start, end)
    before = budget.schedule.last_hit_before(start, min(duration, MAX_LOOKBACK_DAYS * 1440))
    if before is not None:
        hits.insert(0, int((before - start).total_seconds() // 60))
    out: list[tuple[int, int]] = []
    for a in hits:
        lo, hi = max(a, 0), min(a + duration, minutes)
        if lo >= hi:
            continue
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def timelines(budgets: list[Budget], *, v1: bool = True, start: datetime = REFERENCE_WEEK,
              minutes: int = WEEK) -> dict[str, Timeline]:
    """One timeline per reason: the budgets active at each minute of [start, start + minutes). Only the first
    MAX_BUDGETS are simulated (the CRD rejects more). Linear in the windows' boundaries, of which a week has at
    most one per minute."""
    budgets = budgets[:MAX_BUDGETS]
    memo: dict[tuple, list[tuple[int, int]]] = {}  # budgets with the same window share its expansion
    windows = []
    for b in budgets:
        key = (b.always or bool(b.error), b.schedule_text, b.duration)
        if key not in memo:
            memo[key] = active_intervals(b, start, minutes)
        windows.append(key)
    weekly = all(b.always or b.error or b.schedule is None or b.schedule.weekly for b in budgets)
    errors = tuple(b for b in budgets if b.error)
    out: dict[str, Timeline] = {}
    done: dict[tuple[int, ...], list[Segment]] = {}  # reasons with the same budgets share their segments
    for reason in reasons_for(v1):
        mine = [k for k, b in enumerate(budgets) if not v1 or b.applies_to(reason)]
        if tuple(mine) in done:
            out[reason] = Timeline(reason, start, minutes, done[tuple(mine)], weekly)
            continue
        # A sweep over the window boundaries; the budgets sharing a window share one bit mask (toggled at its
        # boundaries: a window's intervals are merged, so they never touch).
        bits: dict[tuple, int] = {}
        for k in mine:
            bits[windows[k]] = bits.get(windows[k], 0) | (1 << k)
        toggles: dict[int, int] = {0: 0, minutes: 0}
        for key, mask in bits.items():
            for lo, hi in memo[key]:
                toggles[lo] = toggles.get(lo, 0) ^ mask
                toggles[hi] = toggles.get(hi, 0) ^ mask
        points = sorted(toggles)
        active = 0
        segments: list[Segment] = []
        chosen_of: dict[int, tuple[Budget, ...]] = {}
        last: int | None = None
        for lo, hi in zip(points, points[1:]):
            active ^= toggles[lo]
            if active == last:
                segments[-1] = Segment(segments[-1].start, hi, segments[-1].active)
                continue
            chosen = chosen_of.get(active)
            if chosen is None:
                # MustGetAllowedDisruptions: an error in any budget makes every reason 0 at every moment.
                chosen = chosen_of[active] = errors or tuple(b for k, b in enumerate(budgets) if active >> k & 1)
            segments.append(Segment(lo, hi, chosen))
            last = active
        done[tuple(mine)] = segments
        out[reason] = Timeline(reason, start, minutes, segments, weekly)
    return out


def nodepool_timelines(nodepool: dict, *, start: datetime = REFERENCE_WEEK, minutes: int = WEEK) -> dict[str, Timeline]:
    """Timelines of a NodePool document (plain data): v1 per reason, v1beta1 one for all methods."""
    v1 = str(nodepool.get("apiVersion", "")).endswith("/v1")
    spec = nodepool.get("spec") if isinstance(nodepool.get("spec"), dict) else {}
    return timelines(read_budgets(spec.get("disruption"), v1=v1), v1=v1, start=start, minutes=minutes)


# ---------------------------------------------------------------------------------------------- describing

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def clock(minute: int, start: datetime = REFERENCE_WEEK) -> str:
    """ "Mon 02:00" for a minute offset of the week (UTC)."""
    t = start + timedelta(minutes=minute)
    return f"{DAYS[t.weekday()]} {t:%H:%M}"


def span(lo: int, hi: int, start: datetime = REFERENCE_WEEK) -> str:
    return f"{clock(lo, start)}–{clock(hi, start)}"


def hours(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    return f"{h}h" + (f"{m:02d}m" if m else "")
