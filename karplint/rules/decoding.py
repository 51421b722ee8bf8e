"""Values the API server stores but Karpenter cannot decode (KPL145).

The NodePool CRD's pattern for `consolidateAfter` and `expireAfter` was `^(([0-9]+(s|m|h))+)|(Never)$` until
v1.4.0: the alternation binds looser than the anchors, so it only checks that the value starts with a duration
(`1hr`, `5min`, `1h30` pass). Karpenter then decodes the field with Go's `time.ParseDuration`
(`NillableDuration.UnmarshalJSON`, kubernetes-sigs/karpenter `pkg/apis/v1/duration.go`, `pkg/apis/v1beta1/duration.go`),
which rejects them, and its NodePool informer fails to list ("failed to list *v1.NodePool: time: unknown unit "hr"
in duration "1hr"", kubernetes-sigs/karpenter#2055). v1.4.0 anchored the pattern (`^(([0-9]+(s|m|h))+|Never)$`,
commit 0ce6eb5d4), so from then on the API server rejects the value and KPL102 reports it; every v1beta1 CRD keeps
the loose pattern.
"""

from __future__ import annotations

import re

from karplint.model.durations import NEVER, parse_go_duration
from karplint.model.versions import V
from karplint.readers.templating import is_templated
from karplint.rules import rule

ANCHORED_SINCE = V("1.4.0")
# The pre-1.4.0 pattern, searched as the API server's OpenAPI validation does (ECMA-262 semantics: not anchored
# beyond its own ^ and $).
LOOSE_PATTERN = re.compile(r"^(([0-9]+(s|m|h))+)|(Never)$")
FIELDS = {
    "v1": (("spec", "disruption", "consolidateAfter"), ("spec", "template", "spec", "expireAfter")),
    "v1beta1": (("spec", "disruption", "consolidateAfter"), ("spec", "disruption", "expireAfter")),
}
# Unit spellings people write for Go's h, m and s.
_UNIT_WORDS = {"h": ("hours", "hour", "hrs", "hr"), "m": ("minutes", "minute", "mins", "min"),
               "s": ("seconds", "second", "secs", "sec")}
_WORDY = re.compile(r"(\d+)(" + "|".join(w for ws in _UNIT_WORDS.values() for w in ws) + r")")


def suggestion(value: str) -> str | None:
    """`value` with unit words replaced by Go's units (`1hr30mins` -> `1h30m`), if that makes a Go duration."""
    unit = {w: u for u, ws in _UNIT_WORDS.items() for w in ws}
    fixed = _WORDY.sub(lambda m: m.group(1) + unit[m.group(2)], value)
    return fixed if fixed != value and parse_go_duration(fixed) is not None else None


@rule("KPL145", "duration-not-decodable", category="schema", severity="error",
      summary="consolidateAfter/expireAfter like `1hr` or `5min`: the API server accepts it (before 1.4.0, and in "
              "v1beta1) but Karpenter cannot decode it and stops listing NodePools",
      kinds=("NodePool",))
def duration_not_decodable(res, ctx):
    fields = FIELDS.get(res.version) if res.group == "karpenter.sh" else None
    if fields is None or (res.version == "v1" and ctx.karpenter_version >= ANCHORED_SINCE):
        return  # v1 from 1.4.0: the API server rejects the value (KPL102)
    for path in fields:
        value = res.get(path)
        if not isinstance(value, str) or value == NEVER or is_templated(value) \
                or not LOOSE_PATTERN.search(value) or parse_go_duration(value) is not None:
            continue
        fixed = suggestion(value)
        yield ctx.violation(
            res, path,
            f"{path[-1]} {value!r} is not a Go duration: Karpenter cannot decode this NodePool\n"
            + (f"help: write {fixed!r}\n" if fixed else "help: write a Go duration such as 90m, 1h30m or 720h\n")
            + "note: the API server accepts it (its pattern checks only how the value begins), then Karpenter's "
              "NodePool informer fails to list every NodePool: nothing is provisioned or disrupted"
            + ("" if res.version == "v1beta1" else "; from Karpenter 1.4.0 the API server rejects it"))
