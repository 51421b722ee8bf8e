"""Go durations (`time.ParseDuration`) and the narrower patterns Karpenter's CRDs accept for each field.

Karpenter fields are Go durations restricted by CRD patterns (the NodePool CRD at each release):

| field | CRD pattern |
|---|---|
| `expireAfter`, `consolidateAfter` | `^(([0-9]+(s|m|h))+|Never)$` |
| `terminationGracePeriod` | `^([0-9]+(s|m|h))+$` |
| `budgets[].duration` | `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$` |

The pod annotation `karpenter.sh/do-not-disrupt: "<duration>"` is parsed by Go's `time.ParseDuration` itself
(core `pkg/utils/pod/scheduling.go`, ≥ v1.12).
"""

from __future__ import annotations

import re

# Go's time.ParseDuration units, in seconds.
GO_UNITS: dict[str, float] = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 micro sign
    "μs": 1e-6,  # U+03BC Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}

_GO_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")

# The CRD pattern of each Karpenter duration field.
FIELD_PATTERNS: dict[str, re.Pattern] = {
    "expireAfter": re.compile(r"^(([0-9]+(s|m|h))+|Never)$"),
    "consolidateAfter": re.compile(r"^(([0-9]+(s|m|h))+|Never)$"),
    "terminationGracePeriod": re.compile(r"^([0-9]+(s|m|h))+$"),
    "budgets.duration": re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$"),
}

NEVER = "Never"
_GO_MAX_SECONDS = (2**63 - 1) / 1e9  # about 292 years


def parse_go_duration(text: str) -> float | None:
    """Seconds of a Go duration ("1h30m", "-5s", "1.5h", "0"), or None when Go would reject it."""
    if not isinstance(text, str):
        return None
    s = text.strip()
    if s != text or not s:
        return None
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        return None
    total, pos = 0.0, 0
    while pos < len(s):
        m = _GO_PART.match(s, pos)
        if not m:
            return None
        total += float(m.group(1)) * GO_UNITS[m.group(2)]
        pos = m.end()
    if not total <= _GO_MAX_SECONDS:  # time.ParseDuration: "invalid duration" past int64 nanoseconds (also inf, NaN)
        return None
    return sign * total


def parse_field(field: str, text) -> float | None:
    """Seconds of a Karpenter duration field when it matches that field's CRD pattern; inf for `Never`."""
    if not isinstance(text, str) or not FIELD_PATTERNS[field].match(text):
        return None
    if text == NEVER:
        return float("inf")
    return parse_go_duration(text)


def format_seconds(seconds: float) -> str:
    """A short human form: 604800 -> "168h", 90 -> "1m30s"."""
    if seconds == float("inf"):
        return NEVER
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{s}s" if s else "")
    return out or "0s"
