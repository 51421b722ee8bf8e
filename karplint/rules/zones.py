"""Zone names in NodePool requirements (KPL930): a `topology.kubernetes.io/zone` value that can name no
Availability Zone.

Karpenter's offerings carry the zone *name* of the EC2NodeClass's subnets under `topology.kubernetes.io/zone`
(aws/karpenter-provider-aws `pkg/providers/instancetype/offering/base_resolver.go@v1.14.1#L129`); the zone *ID*
is another label, `topology.k8s.aws/zone-id` (`pkg/apis/v1/labels.go@v1.14.1#L172`). A value that is a zone ID,
a Region, or a zone letter no Region has matches no offering: nothing launches for it, and while such a NodePool
exists Karpenter still counts its impossible zone among the domains of zonal topology spreads
(kubernetes-sigs/karpenter#3272).
"""

from __future__ import annotations

import re

from karplint.readers.templating import is_templated
from karplint.rules import rule
from karplint.rules._legacy import judged

ZONE_KEY = "topology.kubernetes.io/zone"

# Where the requirements are, per API (group, version, kind).
_REQUIREMENTS = {
    ("karpenter.sh", "v1", "NodePool"): ("spec", "template", "spec", "requirements"),
    ("karpenter.sh", "v1beta1", "NodePool"): ("spec", "template", "spec", "requirements"),
    ("karpenter.sh", "v1alpha5", "Provisioner"): ("spec", "requirements"),
}

# A Region name: `us-east-1`, `us-gov-west-1`, `eu-central-2` (no zone letter).
_REGION = re.compile(r"^[a-z]{2}(?:-[a-z]+)+-\d+$")
# An Availability Zone ID: `use1-az1`, `apne2-az4`, and Local Zone IDs such as `usw2-lax1-az1`.
_ZONE_ID = re.compile(r"^[a-z]{2,6}\d+(?:-[a-z]+\d+)?-az\d+$")
# A Region's own Availability Zone name: the Region and one letter. No Region has a zone past `f` (us-east-1 has
# a to f, the most of any); Local and Wavelength Zones have longer names and are not judged.
_ZONE_NAME = re.compile(r"^([a-z]{2}(?:-[a-z]+)+-\d+)([a-z])$")
LAST_ZONE_LETTER = "f"


def why_not_a_zone(value: str) -> str | None:
    """Why `value` names no Availability Zone, or None when it may."""
    if _ZONE_ID.match(value):
        return (f"{value!r} is an Availability Zone ID, not a zone name\n"
                "help: use the zone name (e.g. us-east-1a), or require the ID on topology.k8s.aws/zone-id")
    if _REGION.match(value):
        return (f"{value!r} is a Region, not an Availability Zone\n"
                f"help: name its zones ({value}a, {value}b...), or require the Region on topology.kubernetes.io/region")
    name = _ZONE_NAME.match(value)
    if name and name.group(2) > LAST_ZONE_LETTER:
        return (f"{value!r} is not an Availability Zone of {name.group(1)}: no Region has a zone letter past "
                f"{LAST_ZONE_LETTER!r}\n"
                "help: use a zone of the EC2NodeClass's subnets")
    return None


@rule("KPL930", "zone-not-an-availability-zone", category="provisioning", severity="warning",
      summary="A topology.kubernetes.io/zone requirement value that names no Availability Zone (a zone ID, a "
              "Region, an impossible letter)",
      kinds=("NodePool", "Provisioner"))
def zone_not_an_availability_zone(res, ctx):
    path = _REQUIREMENTS.get((res.group, res.version, res.kind))
    if path is None or not judged(res, ctx, legacy=True):
        return
    reqs = res.get(path)
    if not isinstance(reqs, list):
        return
    for i, req in enumerate(reqs):
        if not isinstance(req, dict) or req.get("key") != ZONE_KEY or req.get("operator") != "In":
            continue
        values = req.get("values")
        if not isinstance(values, list):
            continue
        for j, value in enumerate(values):
            if not isinstance(value, str) or is_templated(value):
                continue
            why = why_not_a_zone(value)
            if why is None:
                continue
            every = all(isinstance(v, str) and why_not_a_zone(v) for v in values)
            note = ("note: no value of this requirement is a zone: no offering matches, so nothing launches from "
                    f"this {res.kind}, and Karpenter still counts the value among the domains of zonal topology "
                    "spreads" if every else
                    "note: no offering has this zone; the other values still launch")
            yield ctx.violation(res, path + (i, "values", j), f"{why}\n{note}")
