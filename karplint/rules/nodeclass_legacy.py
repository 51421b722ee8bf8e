"""What Karpenter's webhook and launch-template code did with a legacy AWS node template (KPL620-KPL622): a
`karpenter.k8s.aws/v1alpha1` AWSNodeTemplate, or the inline `spec.provider` of a `karpenter.sh/v1alpha5`
Provisioner. These objects had no CEL rules: the webhook validated them (`pkg/apis/v1alpha1/provider_validation.go`,
`awsnodetemplate_validation.go`), or, before a check existed, the field was silently ignored. Judged only at a
target release that serves the object (`_legacy.judged`).

Sources (aws/karpenter-provider-aws, tags named per fact): the launch-template exclusions of
`validateLaunchTemplate` (v0.6.2: securityGroupSelector, metadataOptions, amiFamily, instanceProfile; v0.7.0:
blockDeviceMappings) and of `validateUserData` (v0.14.0: userData); the restricted tag keys of
`RestrictedTagPatterns` (`pkg/apis/v1alpha1/register.go`, v0.28.0); the volume size conversion of
`launchtemplate.go` `volumeSize` (decimal GB rounded up before v0.18.0, truncated to whole GiB from v0.18.0 (#2608)
to v0.23.x, rounded up from v0.24.0, commit 0f2615029).
"""

from __future__ import annotations

import math
import re
from typing import Iterator

from karplint.model import Resource
from karplint.model.versions import V
from karplint.readers.templating import has_placeholder
from karplint.rules._legacy import judged
from karplint.rules.base import rule

KINDS = ("AWSNodeTemplate", "Provisioner")

# Fields a launch template owns, and the first release whose webhook rejects them beside `launchTemplate`
# (before it, Karpenter launched from the template and ignored them).
LAUNCH_TEMPLATE_OWNS: dict[str, str] = {
    "securityGroupSelector": "0.6.2",
    "metadataOptions": "0.6.2",
    "amiFamily": "0.6.2",
    "instanceProfile": "0.6.2",
    "blockDeviceMappings": "0.7.0",
    "userData": "0.14.0",
}

RESTRICTED_TAGS_SINCE = "0.28.0"
RESTRICTED_TAGS = (
    re.compile(r"^kubernetes\.io/cluster/[0-9A-Za-z][A-Za-z0-9\-_]*$"),
    re.compile(r"^karpenter\.sh/provisioner-name$"),
    re.compile(r"^karpenter\.sh/managed-by$"),
)

VOLUME_SIZE_ROUNDED_UP_SINCE = "0.24.0"
# Before 0.18.0 the size went to EC2 in decimal GB rounded up (`ScaledValue(resource.Giga)`,
# pkg/cloudprovider/aws/launchtemplate.go@v0.17.0): never smaller than asked, so nothing to truncate (#2608).
VOLUME_SIZE_GIB_SINCE = "0.18.0"
# Quantity suffixes (Kubernetes resource.Quantity) and their factor in bytes.
_SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50}
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(k|M|G|T|P|Ki|Mi|Gi|Ti|Pi)?$")
GIB = 2**30


def _provider(res: Resource, ctx) -> tuple[tuple, dict] | None:
    """(path, mapping) of the AWS settings of a legacy object the target release serves: an AWSNodeTemplate's
    spec, a Provisioner's spec.provider."""
    if not judged(res, ctx, legacy=True):
        return None
    if res.kind == "AWSNodeTemplate" and res.group == "karpenter.k8s.aws" and res.version == "v1alpha1":
        path: tuple = ("spec",)
    elif res.kind == "Provisioner" and res.group == "karpenter.sh" and res.version == "v1alpha5":
        path = ("spec", "provider")
    else:
        return None
    body = res.get(path)
    return (path, body) if isinstance(body, dict) else None


@rule("KPL620", "launch-template-conflict", category="references", severity="error",
      summary="launchTemplate beside fields the launch template owns: rejected by the webhook, or ignored before it",
      kinds=KINDS)
def launch_template_conflict(res: Resource, ctx) -> Iterator:
    found = _provider(res, ctx)
    if found is None:
        return
    path, body = found
    if "launchTemplate" not in body or body.get("launchTemplate") in (None, ""):
        return
    for field, since in LAUNCH_TEMPLATE_OWNS.items():
        if field not in body or (field == "userData" and res.kind != "AWSNodeTemplate"):
            continue
        if ctx.karpenter_version >= V(since):
            yield ctx.violation(
                res, path + (field,),
                f"{field} beside launchTemplate is rejected by Karpenter {ctx.karpenter_version}'s webhook\n"
                f"help: set it in the launch template, or drop launchTemplate and let Karpenter build one\n"
                f"note: the launch template owns the {field}; Karpenter refuses both (\"expected exactly one, got "
                f"both\") since {since}", on="key")
        else:
            yield ctx.violation(
                res, path + (field,),
                f"{field} beside launchTemplate is ignored by Karpenter {ctx.karpenter_version}\n"
                f"help: set it in the launch template, or drop launchTemplate and let Karpenter build one\n"
                f"note: nodes launch with the launch template's own {field}; from {since} the webhook rejects "
                f"both", on="key", severity="warning")


@rule("KPL621", "legacy-restricted-tag", category="references", severity="error",
      summary="A tag key Karpenter reserves (kubernetes.io/cluster/*, karpenter.sh/provisioner-name, "
              "karpenter.sh/managed-by) in a v1alpha1 AWSNodeTemplate or a Provisioner's provider",
      kinds=KINDS)
def legacy_restricted_tag(res: Resource, ctx) -> Iterator:
    found = _provider(res, ctx)
    if found is None or ctx.karpenter_version < V(RESTRICTED_TAGS_SINCE):
        return
    path, body = found
    tags = body.get("tags")
    if not isinstance(tags, dict):
        return
    for key in tags:
        if not isinstance(key, str) or has_placeholder(key):
            continue
        if any(p.match(key) for p in RESTRICTED_TAGS):
            yield ctx.violation(
                res, path + ("tags", key),
                f"tag {key!r} is reserved by Karpenter: the webhook rejects the object\n"
                "help: remove it; Karpenter tags its instances with the cluster and provisioner itself\n"
                f"note: Karpenter {RESTRICTED_TAGS_SINCE} and later refuse these keys (\"tag contains a restricted "
                "tag matching …\"), so the object is not updated and its nodes keep the old settings",
                on="key")


def _bytes(quantity: str) -> float | None:
    m = _QUANTITY.match(quantity.strip())
    if m is None:
        return None
    return float(m.group(1)) * _SUFFIX[m.group(2) or ""]


@rule("KPL622", "volume-size-truncated", category="references", severity="warning",
      summary="A blockDeviceMappings volumeSize that is not a whole number of GiB, truncated by Karpenter "
              "0.18.0 to 0.23.x", kinds=KINDS)
def volume_size_truncated(res: Resource, ctx) -> Iterator:
    found = _provider(res, ctx)
    if found is None or not V(VOLUME_SIZE_GIB_SINCE) <= ctx.karpenter_version < V(VOLUME_SIZE_ROUNDED_UP_SINCE):
        return
    path, body = found
    mappings = body.get("blockDeviceMappings")
    if not isinstance(mappings, list):
        return
    for i, mapping in enumerate(mappings):
        ebs = mapping.get("ebs") if isinstance(mapping, dict) else None
        size = ebs.get("volumeSize") if isinstance(ebs, dict) else None
        if not isinstance(size, str) or has_placeholder(size):
            continue
        total = _bytes(size)
        if total is None or total % GIB == 0:
            continue
        gib = int(total / GIB)
        yield ctx.violation(
            res, path + ("blockDeviceMappings", i, "ebs", "volumeSize"),
            f"volumeSize {size} is {total / GIB:.2f} GiB: Karpenter {ctx.karpenter_version} launches a "
            f"{gib} GiB volume\n"
            f"help: write the size in Gi (e.g. `{math.ceil(total / GIB)}Gi`)\n"
            "note: from 0.18.0 to 0.23.x Karpenter converts the size to whole GiB by truncation; a volume smaller than "
            "the AMI's snapshot fails every launch (\"Volume of size … is smaller than snapshot\")")


# The inline `spec.provider` of a v1alpha5 Provisioner is a RawExtension: the CRD accepts any JSON, and Karpenter's
# webhook decodes it into its AWS provider struct (pkg/cloudprovider/aws/apis/v1alpha1/provider.go@v0.10.1#L35:
# string fields, string-to-string maps). A value of another JSON type fails that decoding and the webhook refuses
# the Provisioner ("expect \" or n, but found [", aws/karpenter-provider-aws#1850). The AWSNodeTemplate has a typed
# CRD schema: KPL100 covers it.
PROVIDER_STRINGS = ("amiFamily", "instanceProfile", "launchTemplate", "userData")
PROVIDER_STRING_MAPS = ("subnetSelector", "securityGroupSelector", "amiSelector", "tags")


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "null" if value is None else "a string"


@rule("KPL107", "provisioner-provider-field-type", category="schema", severity="error",
      summary="A v1alpha5 Provisioner's inline provider with a field of the wrong type: the webhook cannot decode it",
      kinds=("Provisioner",))
def provisioner_provider_field_type(res: Resource, ctx) -> Iterator:
    found = _provider(res, ctx)
    if found is None or res.kind != "Provisioner":
        return
    path, body = found
    wrong: list[tuple[tuple, str, str]] = []
    for field in PROVIDER_STRINGS:
        if field in body and not isinstance(body[field], str):
            wrong.append(((field,), "a string", _json_type(body[field])))
    for field in PROVIDER_STRING_MAPS:
        value = body.get(field)
        if field not in body:
            continue
        if not isinstance(value, dict):
            wrong.append(((field,), "a mapping of strings", _json_type(value)))
            continue
        for key, item in value.items():
            if not isinstance(item, str):
                wrong.append(((field, key), "a string", _json_type(item)))
    for sub, want, got in wrong:
        shown = ".".join(str(p) for p in sub)
        fix = "write several IDs as one comma-separated string" if got == "a list" and sub[-1] in (
            "aws-ids", "aws::ids") else f"write {want}"
        yield ctx.violation(
            res, path + sub,
            f"spec.provider.{shown} must be {want}, not {got}\n"
            f"help: {fix}\n"
            "note: the CRD keeps `provider` as free JSON, so the API server does not check it; Karpenter's webhook "
            "decodes it into its AWS settings, fails (\"expect \\\" or n, but found [\") and refuses the "
            "Provisioner")
