"""Validate the cron schedules of NodePool disruption budgets, the way Karpenter parses them.

Karpenter parses `budgets[].schedule` with `github.com/robfig/cron/v3` `ParseStandard` (5 fields or a
descriptor), in UTC. The CRD pattern admits `@annually|@yearly|@monthly|@weekly|@daily|@midnight|@hourly` or
five whitespace-separated fields (the NodePool CRD; https://karpenter.sh/docs/concepts/disruption/). Field syntax follows robfig/cron
(`parser.go`): `*` or `?`, `a`, `a-b`, each optionally `/step`, comma-separated lists; month and weekday
names (JAN..DEC, SUN..SAT) case-insensitive; weekday range 0-6.
"""

from __future__ import annotations

from dataclasses import dataclass

from karplint.numbers import ascii_digits, integer

MACROS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")


@dataclass(frozen=True)
class CronField:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] stands for low + i


FIELDS = (
    CronField("minute", 0, 59),
    CronField("hour", 0, 23),
    CronField("day of month", 1, 31),
    CronField("month", 1, 12, ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")),
    CronField("day of week", 0, 6, ("sun", "mon", "tue", "wed", "thu", "fri", "sat")),
)


def _number(text: str, f: CronField) -> int | str:
    """The value of one bound, or an error message."""
    low = text.lower()
    if f.names and low in f.names:
        return f.low + f.names.index(low)
    if not ascii_digits(text):
        what = f" (or a name {f.names[0].upper()}..{f.names[-1].upper()})" if f.names else ""
        return f"{f.name} field: {text!r} is not a number{what}"
    if len(text.lstrip("0")) > 4:  # (out of every field's range, and no int() of thousands of digits)
        return f"{f.name} field: {text[:20]}{'...' if len(text) > 20 else ''} is out of range {f.low}-{f.high}"
    value = integer(text)  # (leading zeros: any number of them)
    if not f.low <= value <= f.high:
        return f"{f.name} field: {value} is out of range {f.low}-{f.high}"
    return value


def _check_field(text: str, f: CronField) -> str | None:
    for part in text.split(","):
        if not part:
            return f"{f.name} field: empty list item in {text!r}"
        rng, slash, step = part.partition("/")
        if slash:
            if not ascii_digits(step) or not step.strip("0"):
                return f"{f.name} field: step {step!r} must be a positive number"
            if len(step.lstrip("0")) > 19 or integer(step) > 2**63 - 1:  # robfig/cron's strconv.Atoi: int64
                return f"{f.name} field: step {step[:20]}{'...' if len(step) > 20 else ''} is out of range"
        if rng in ("*", "?"):
            continue
        lo_text, dash, hi_text = rng.partition("-")
        lo = _number(lo_text, f)
        if isinstance(lo, str):
            return lo
        if dash:
            hi = _number(hi_text, f)
            if isinstance(hi, str):
                return hi
            if hi < lo:
                return f"{f.name} field: range {rng!r} runs backwards"
    return None


def validate(schedule: str) -> str | None:
    """None when Karpenter accepts `schedule`, else why not."""
    if not isinstance(schedule, str):
        return "schedule must be a string"
    text = schedule.strip()
    if not text:
        return "schedule is empty"
    if text.startswith("@"):
        if text.lower() in MACROS and text == text.lower():
            return None
        if text.startswith("@every"):
            return "`@every` is not allowed by the NodePool CRD (only " + ", ".join(MACROS) + ")"
        return f"unknown schedule macro {text!r} (known: {', '.join(MACROS)})"
    if text.upper().startswith(("TZ=", "CRON_TZ=")):
        return "time zones are not supported in budget schedules (they are always UTC)"
    fields = text.split()
    if len(fields) != 5:
        return (f"expected exactly 5 fields (minute hour day-of-month month day-of-week), found {len(fields)}"
                + ("; a leading seconds field is not supported" if len(fields) == 6 else ""))
    for value, f in zip(fields, FIELDS):
        err = _check_field(value, f)
        if err:
            return err
    return None
