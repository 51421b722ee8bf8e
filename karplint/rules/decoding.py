"""Values the API server stores but Karpenter cannot decode (KPL145) or reads otherwise than meant (KPL146).

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


# ------------------------------------------------------------------------------------------ KPL146
# The v1beta1 EC2NodeClass CRD typed `volumeSize` as an integer or a string (`x-kubernetes-int-or-string`, the
# integer branch unconstrained, the string one a quantity) until v0.37.0, which keeps only the string with its
# Gi/G/Ti/T pattern (aws/karpenter-provider-aws pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml at v0.36.1 and
# v0.37.0). Karpenter reads the field as a resource.Quantity: a bare number is bytes.
STRING_ONLY_SINCE = V("0.37.0")
_BARE_NUMBER = re.compile(r"^[0-9]+$")


def _bare_number(value) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and bool(_BARE_NUMBER.match(value)))


@rule("KPL146", "volume-size-without-unit", category="schema", severity="error",
      summary="A v1beta1 EC2NodeClass volumeSize written as a bare number (80, \"80\"): bytes, not GiB; the API server "
              "accepts it before 0.37.0",
      kinds=("EC2NodeClass",))
def volume_size_without_unit(res, ctx):
    if res.group != "karpenter.k8s.aws" or res.version != "v1beta1" or ctx.karpenter_version >= STRING_ONLY_SINCE:
        return  # from 0.37.0 (and in v1) the API server rejects it: KPL100 or KPL102
    mappings = res.get(("spec", "blockDeviceMappings"))
    if not isinstance(mappings, list):
        return
    for i, mapping in enumerate(mappings):
        path = ("spec", "blockDeviceMappings", i, "ebs", "volumeSize")
        value = res.get(path) if isinstance(mapping, dict) else None
        if not _bare_number(value):
            continue
        yield ctx.violation(
            res, path,
            f"volumeSize {value!r} has no unit: Karpenter reads it as {value} bytes\n"
            f"help: write {str(value) + 'Gi'!r}\n"
            "note: the API server accepts a bare number here, then the volume is far too small: pods find no "
            "ephemeral storage (\"no instance type has enough resources\") or EC2 refuses a volume smaller than "
            "the AMI's snapshot"
            + "; from Karpenter 0.37.0 the API server rejects it")
