"""Budget schedules expanded into the minutes they fire, as Karpenter's cron library does.

Karpenter parses `budgets[].schedule` with `cron.ParseStandard("TZ=UTC " + schedule)` (robfig/cron v3;
kubernetes-sigs/karpenter `pkg/apis/v1/nodepool.go` `Budget.IsActive` at 2266468104f36373ed002241afaee2d3bbc26078).
What this module reproduces of robfig/cron v3 (`parser.go` `getRange`, `parseDescriptor`; `spec.go` `dayMatches`):

- fields minute, hour, day of month, month, day of week (0-6, Sunday 0); `*` or `?`, `a`, `a-b`, each with an
  optional `/step`; `a/step` means `a-max/step`; month and weekday names;
- a field written `*` or `?` (not `*/n` with n > 1) is a "star": when day of month or day of week is a star, a day
  must match both, otherwise either (Vixie cron's rule);
- descriptors `@yearly`/`@annually` (0 0 1 1 *), `@monthly` (0 0 1 * *), `@weekly` (0 0 * * 0), `@daily`/`@midnight`
  (0 0 * * *), `@hourly` (0 * * * *).

Invalid schedules are not expanded here: `karplint.model.cron.validate` says why (rules report it as KPL403).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from karplint.model import cron
from karplint.numbers import integer

DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}



@dataclass(frozen=True)
class Schedule:
    """The sets a cron expression matches, and whether its day fields are stars."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    days_star: bool
    weekdays_star: bool

    @property
    def weekly(self) -> bool:
        """True when the schedule repeats every week (day of month and month unrestricted)."""
        if self.months != frozenset(range(1, 13)):
            return False
        if self.days == frozenset(range(1, 32)):
            return True
        # a restricted day of month ORed with a restricted weekday, or ANDed with a star weekday: not weekly
        return False

    def day_matches(self, day: datetime) -> bool:
        dom = day.day in self.days
        # Python: Monday 0 .. Sunday 6; cron: Sunday 0 .. Saturday 6
        dow = (day.weekday() + 1) % 7 in self.weekdays
        if self.days_star or self.weekdays_star:
            return dom and dow
        return dom or dow

    def hits(self, start: datetime, end: datetime) -> list[datetime]:
        """Every minute in [start, end) the schedule fires (naive datetimes, UTC)."""
        return [start + timedelta(minutes=m) for m in self.offsets(start, end)]

    def offsets(self, start: datetime, end: datetime) -> list[int]:
        """The minutes from `start` at which the schedule fires in [start, end)."""
        out: list[int] = []
        day = datetime(start.year, start.month, start.day)
        times = sorted(h * 60 + m for h in self.hours for m in self.minutes)
        lo, hi = 0, int((end - start).total_seconds() // 60)
        while day < end:
            if day.month in self.months and self.day_matches(day):
                base = int((day - start).total_seconds() // 60)
                out.extend(base + t for t in times if lo <= base + t < hi)
            day += timedelta(days=1)
        return out

    def last_hit_before(self, t: datetime, within_minutes: int) -> datetime | None:
        """The last minute before `t` the schedule fires, if within `within_minutes` of it (scanning days back)."""
        if within_minutes <= 0:
            return None
        limit = t - timedelta(minutes=within_minutes)
        times = sorted(((h, m) for h in self.hours for m in self.minutes), reverse=True)
        day = datetime(t.year, t.month, t.day)
        while day + timedelta(days=1) > limit:
            if day.month in self.months and self.day_matches(day):
                for h, m in times:
                    hit = day.replace(hour=h, minute=m)
                    if hit < t:
                        return hit if hit > limit else None
            day -= timedelta(days=1)
            if day.year < 2:
                return None
        return None


def _value(text: str, f: cron.CronField) -> int:
    low = text.lower()
    if f.names and low in f.names:
        return f.low + f.names.index(low)
    return integer(text)  # (validated: a few digits after any number of leading zeros)


def _field(text: str, f: cron.CronField) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        rng, slash, step_text = part.partition("/")
        step = integer(step_text) if slash else 1
        lo_text, dash, hi_text = rng.partition("-")
        if rng in ("*", "?"):
            lo, hi = f.low, f.high
            part_star = step == 1  # robfig: `*/n` with n > 1 is no star
        else:
            lo = _value(lo_text, f)
            hi = _value(hi_text, f) if dash else (f.high if slash else lo)
            part_star = False
        star = star or part_star
        values.update(range(lo, hi + 1, step))
    return frozenset(values), star


def parse(text: str) -> Schedule | None:
    """The expanded schedule, or None when `cron.validate` rejects it."""
    if not isinstance(text, str) or cron.validate(text) is not None:
        return None
    expr = DESCRIPTORS.get(text.strip(), text.strip())
    fields = expr.split()
    parsed = [_field(v, f) for v, f in zip(fields, cron.FIELDS)]
    (minutes, _), (hours, _), (days, days_star), (months, _), (weekdays, weekdays_star) = parsed
    return Schedule(text, minutes, hours, days, months, weekdays, days_star, weekdays_star)
