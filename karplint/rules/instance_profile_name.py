"""An instance profile named with characters IAM never allows in a name (KPL612): Karpenter passes the value to EC2
as `IamInstanceProfile.Name`, and EC2 refuses every launch with it. KPL609 covers the ARN of an EC2NodeClass or
AWSNodeTemplate; this rule covers every other malformed name, and the inline `spec.provider` of a v1alpha5
Provisioner (ARN included), which KPL609 does not read.

IAM's rule for an instance profile name: 1 to 128 characters of `[\\w+=,.@-]` (AWS IAM API Reference,
`CreateInstanceProfile`, parameter `InstanceProfileName`)."""

from __future__ import annotations

import re
from typing import Iterator

from karplint.model import Resource
from karplint.readers.templating import has_placeholder, is_placeholder
from karplint.rules._legacy import judged
from karplint.rules.base import rule

_NAME = re.compile(r"^[A-Za-z0-9_+=,.@-]{1,128}$")
_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(?:\d{12})?:instance-profile/(?:[^\s]*/)?([A-Za-z0-9_+=,.@-]+)$")
# A placeholder of another templating convention than karplint's readers know: documentation (`<profile-name>`),
# printf and str.format (`%s-profile`, `%(name)s`, `{cluster}-profile`), `#{var}`, `[[ .Var ]]`. The value is not
# known; saying nothing is the precise verdict.
_OTHER_PLACEHOLDER = re.compile(r"<[^<>]*>|%(?:\(\w+\))?[-+ #0-9.]*[sdvqi]|\{[^{}]*\}|\[\[.*\]\]")


def _where(res: Resource) -> tuple | None:
    """Path of the instance profile of the object, or None when it has none Karpenter reads."""
    if res.group == "karpenter.k8s.aws" and res.kind in ("EC2NodeClass", "AWSNodeTemplate"):
        return ("spec", "instanceProfile")
    if res.group == "karpenter.sh" and res.kind == "Provisioner" and res.version == "v1alpha5":
        return ("spec", "provider", "instanceProfile")
    return None


@rule("KPL612", "instance-profile-name-invalid", category="references", severity="error",
      summary="instanceProfile is not a valid IAM instance profile name: EC2 refuses every launch with it",
      kinds=("EC2NodeClass", "AWSNodeTemplate", "Provisioner"))
def instance_profile_name_invalid(res: Resource, ctx) -> Iterator:
    path = _where(res)
    if path is None or not judged(res, ctx, legacy=True):
        return
    value = res.get(path)
    if not isinstance(value, str) or has_placeholder(value) or is_placeholder(value) \
            or _OTHER_PLACEHOLDER.search(value) or _NAME.match(value):
        return
    arn = _ARN.match(value.strip())
    if arn is not None:
        if res.kind != "Provisioner":
            return  # KPL609 reports it
        help_ = f"help: write the name: `instanceProfile: {arn.group(1)}`"
        first = "instanceProfile is an ARN, but Karpenter passes it to EC2 as the profile's name"
    else:
        shown = value if len(value) <= 40 else value[:37] + "..."
        first = f"instanceProfile `{shown}` is not an IAM instance profile name"
        help_ = ("help: write the profile's name as IAM shows it: 1 to 128 letters, digits and `+=,.@_-` "
                 "(no `/`, spaces or brackets)")
    yield ctx.violation(res, path,
                        f"{first}\n{help_}\n"
                        "note: Karpenter passes it to EC2 as `IamInstanceProfile.Name`; EC2 refuses every launch "
                        f"('Invalid IAM Instance Profile name'), so no node of this {res.kind} starts")
