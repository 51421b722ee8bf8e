"""Values written in the wrong form, which no CRD pattern catches (KPL609, KPL610): an instance profile given as
an ARN where Karpenter passes a name to EC2, and resource IDs written as tag values in selector terms, where they
select resources by tag instead of by ID."""

from __future__ import annotations

import re
from typing import Iterator

from karplint.model import Resource
from karplint.model.versions import V
from karplint.readers.templating import is_templated
from karplint.rules._legacy import judged
from karplint.rules.base import rule

NODECLASS_GROUP = "karpenter.k8s.aws"
KINDS = ("EC2NodeClass", "AWSNodeTemplate")

_INSTANCE_PROFILE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(?:\d{12})?:instance-profile/(?:[^\s]*/)?([\w+=,.@-]+)$")

# EC2 resource IDs: a prefix and 8 or 17 hexadecimal digits.
_ID = re.compile(r"^(subnet|sg|ami)-(?:[0-9a-f]{8}|[0-9a-f]{17})$")
_WHAT = {"subnet": "a subnet", "sg": "a security group", "ami": "an AMI"}
_WHAT_PLURAL = {"subnet": "subnet", "sg": "security group", "ami": "AMI"}
# Where each selector keeps its tags, per API, and the form that selects by ID there (v1alpha1's was the
# `aws-ids` key: aws/karpenter-provider-aws pkg/apis/v1alpha1/awsnodetemplate_validation.go@v0.31.4#L94).
_TERMS = ("subnetSelectorTerms", "securityGroupSelectorTerms", "amiSelectorTerms")
_V1ALPHA1_SELECTORS = ("subnetSelector", "securityGroupSelector", "amiSelector")
_TERM_OF_PREFIX = {"subnet": "subnetSelectorTerms", "sg": "securityGroupSelectorTerms", "ami": "amiSelectorTerms"}
_SELECTOR_OF_PREFIX = {"subnet": "subnetSelector", "sg": "securityGroupSelector", "ami": "amiSelector"}


def _nodeclass(res: Resource, ctx) -> bool:
    return res.group == NODECLASS_GROUP and judged(res, ctx, legacy=True)


@rule("KPL609", "instance-profile-arn", category="references", severity="error",
      summary="spec.instanceProfile given as an ARN: Karpenter passes it to EC2 as a name, which EC2 rejects",
      kinds=KINDS)
def instance_profile_arn(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res, ctx):
        return
    value = res.get(("spec", "instanceProfile"))
    if not isinstance(value, str) or is_templated(value):
        return
    m = _INSTANCE_PROFILE_ARN.match(value.strip())
    if m is None:
        return
    yield ctx.violation(res, ("spec", "instanceProfile"),
                        "instanceProfile is an ARN, but Karpenter passes it to EC2 as the profile's name\n"
                        f"help: write the name: `instanceProfile: {m.group(1)}`\n"
                        "note: EC2 refuses every launch ('Value (arn:…) for parameter iamInstanceProfile.name is "
                        f"invalid'), so no node of this {res.kind} starts")


def _id_tag_values(res: Resource) -> Iterator[tuple[tuple, str, str, str]]:
    """(path of the value, the value, its ID prefix, the field that would select by ID) for each tag value that is
    an EC2 resource ID."""
    base = ("spec", "provider") if res.kind == "Provisioner" else ("spec",)
    spec = res.get(base)
    if not isinstance(spec, dict):
        return
    if res.version in ("v1alpha1", "v1alpha5"):
        for field in _V1ALPHA1_SELECTORS:
            sel = spec.get(field)
            if not isinstance(sel, dict):
                continue
            for key, value in sel.items():
                if key in ("aws-ids", "aws::ids") or not isinstance(value, str):
                    continue  # (the ID selector itself)
                for part in value.split(","):
                    m = _ID.match(part.strip())
                    if m:
                        yield base + (field, key), value, m.group(1), f"`aws-ids` in {_SELECTOR_OF_PREFIX[m.group(1)]}"
                        break
        return
    for field in _TERMS:
        terms = spec.get(field)
        if not isinstance(terms, list):
            continue
        for i, term in enumerate(terms):
            tags = term.get("tags") if isinstance(term, dict) else None
            if not isinstance(tags, dict):
                continue
            for key, value in tags.items():
                ids = [_ID.match(p.strip()) for p in value.split(",")] if isinstance(value, str) else [None]
                if not all(ids):
                    continue
                prefix = ids[0].group(1)
                if len(ids) == 1:
                    instead = f"a term `- id: {value.strip()}` in {_TERM_OF_PREFIX[prefix]}"
                else:  # (v1alpha1's comma-separated `aws-ids` list, carried over)
                    instead = f"one term `- id: …` per ID in {_TERM_OF_PREFIX[prefix]}"
                yield ("spec", field, i, "tags", key), value, prefix, instead


# The first release whose selectors take IDs (`aws-ids`, pkg/cloudprovider/aws/apis/v1alpha1/provider.go@v0.10.1):
# before it a selector was tags only, and the way to pick resources was to tag them.
ID_SELECTION_SINCE = "0.10.1"


def _provisioner_provider(res: Resource, ctx) -> bool:
    """A v1alpha5 Provisioner with an inline AWS `provider`, at a release that serves it."""
    return (res.kind == "Provisioner" and res.group == "karpenter.sh" and res.version == "v1alpha5"
            and judged(res, ctx, legacy=True) and isinstance(res.get(("spec", "provider")), dict))


@rule("KPL610", "id-as-tag-value", category="references", severity="warning",
      summary="A subnet, security group or AMI ID written as a tag value in a selector: it selects by tag, not by ID",
      kinds=KINDS + ("Provisioner",))
def id_as_tag_value(res: Resource, ctx) -> Iterator:
    from karplint.model.versions import V

    if not (_nodeclass(res, ctx) or _provisioner_provider(res, ctx)):
        return
    legacy = res.version in ("v1alpha1", "v1alpha5")
    for path, value, prefix, instead in _id_tag_values(res):
        what = f"{_WHAT_PLURAL[prefix]} IDs" if "," in value else f"{_WHAT[prefix]} ID"
        if legacy and ctx.karpenter_version < V(ID_SELECTION_SINCE):
            how = (f"help: tag the {_WHAT_PLURAL[prefix]}s and select them by that tag (selection by ID, `aws-ids`, "
                   f"came in {ID_SELECTION_SINCE})\n")
        else:
            how = f"help: select it by ID with {instead}\n"
        yield ctx.violation(res, path,
                            f"`{value}` looks like {what}, not a tag value\n"
                            + how +
                            f"note: this term selects only resources tagged `{path[-1]}: {value}`; resources are "
                            "rarely tagged with their own ID, so it usually selects nothing")


ROLE_ARN_ACCEPTED_FROM = V("1.2.0")
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(?:\d{12})?:role/(?:[^\s]*/)?([\w+=,.@-]+)$")


@rule("KPL625", "node-role-arn", category="references", severity="error",
      summary="spec.role given as an ARN before Karpenter 1.2.0: Karpenter passes it to IAM as the role's name, "
              "which IAM rejects",
      kinds=("EC2NodeClass",))
def node_role_arn(res: Resource, ctx) -> Iterator:
    # pkg/apis/v1/ec2nodeclass.go `InstanceProfileRole` returns spec.role unchanged and
    # pkg/providers/instanceprofile/instanceprofile.go passes it as `RoleName` to iam:AddRoleToInstanceProfile
    # (aws/karpenter-provider-aws v0.32.0 to v1.1.x), whose RoleName pattern is [\w+=,.@-]+ (no ':' or '/'). From
    # v1.2.0 the provider keeps what follows the last '/' (`lo.LastOr(strings.Split(m.InstanceProfileRole(), "/")`,
    # instanceprofile.go@v1.2.0#L105), so an ARN works.
    if not _nodeclass(res, ctx) or ctx.karpenter_version >= ROLE_ARN_ACCEPTED_FROM:
        return
    value = res.get(("spec", "role"))
    if not isinstance(value, str) or is_templated(value):
        return
    m = _ROLE_ARN.match(value.strip())
    if m is None:
        return
    yield ctx.violation(res, ("spec", "role"),
                        f"role is an ARN, but Karpenter {ctx.karpenter_version} passes it to IAM as the role's name\n"
                        f"help: write the name: `role: {m.group(1)}`\n"
                        "note: IAM refuses the instance profile Karpenter creates for it (a role name has no ':' "
                        "or '/'), so the EC2NodeClass never becomes ready and no node starts\n"
                        "note: from Karpenter 1.2.0 the role's name is taken from an ARN")


# EC2 IDs: the prefix, then 8 or 17 lowercase hexadecimal digits. The CRD patterns of subnet, security group and
# AMI ids (`subnet-[0-9a-z]+`, `sg-[0-9a-z]+`, `ami-[0-9a-z]+`, pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml
# @v1.14.0#L679) are not anchored: `ssubnet-0123…` or `subnet-0123…,subnet-4567…` pass them, and Karpenter then
# selects nothing for that term, silently (aws/karpenter-provider-aws#5292).
_ID_FIELD_PREFIX = {"subnetSelectorTerms": "subnet", "securityGroupSelectorTerms": "sg", "amiSelectorTerms": "ami"}
_WELL_FORMED_ID = re.compile(r"^(?:subnet|sg|ami)-(?:[0-9a-f]{8}|[0-9a-f]{17})$")
# A well-formed ID inside a longer value: a typo around a real ID (`ssubnet-0123…`), or several IDs in one term.
# Placeholders (`ami-123`, `subnet-xxxx`) have none, and are left alone.
_ID_INSIDE = re.compile(r"(subnet|sg|ami)-(?:[0-9a-f]{17}|[0-9a-f]{8})(?![0-9a-z])")


@rule("KPL629", "malformed-selector-id", category="references", severity="error",
      summary="A selector term `id` that is not a well-formed subnet, security group or AMI ID (the CRD's "
              "unanchored pattern lets it through)", kinds=("EC2NodeClass",))
def malformed_selector_id(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res, ctx) or res.version not in ("v1beta1", "v1"):
        return
    for field, prefix in _ID_FIELD_PREFIX.items():
        terms = res.get(("spec", field))
        if not isinstance(terms, list):
            continue
        for i, term in enumerate(terms):
            value = term.get("id") if isinstance(term, dict) else None
            if not isinstance(value, str) or is_templated(value) or _WELL_FORMED_ID.match(value):
                continue
            inner = _ID_INSIDE.search(value)
            if inner is None or inner.group(1) != prefix:
                continue  # (a placeholder such as `ami-123`, or no ID at all: the CRD pattern or the docs' idiom)
            yield ctx.violation(
                res, ("spec", field, i, "id"),
                f"{field}[{i}].id {value!r} is not {_WHAT[prefix]} ID\n"
                f"help: write one ID per term: `{prefix}-` and 8 or 17 hexadecimal digits, e.g. "
                f"`{prefix}-0123456789abcdef0`\n"
                "note: the CRD's pattern is not anchored, so the API server accepts it; no resource has this ID, so "
                "the term selects nothing, and Karpenter says nothing when other terms select something")


# What EC2 DescribeImages takes as an owner: an account ID (12 digits) or one of its keywords
# (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeImages.html, `Owner.N`). Karpenter passes the
# values through (v1alpha1 `aws::owners`, comma-separated; v1beta1/v1 `amiSelectorTerms[].owner`). Only values no
# owner can have are judged: a path or an ARN (`/`, `:`, spaces). A word may be meant as an alias, and a short run of
# digits is the documentation's placeholder (`123456789`): neither is reported.
_OWNER_IMPOSSIBLE = re.compile(r"[/:\s]")
_ACCOUNT_ID = re.compile(r"^\d{12}$")


def _owner_values(res: Resource) -> Iterator[tuple[tuple, str]]:
    if res.version == "v1alpha1":
        sel = res.get(("spec", "amiSelector"))
        if isinstance(sel, dict) and isinstance(sel.get("aws::owners"), str):
            for part in sel["aws::owners"].split(","):
                yield ("spec", "amiSelector", "aws::owners"), part.strip()
        return
    terms = res.get(("spec", "amiSelectorTerms"))
    if isinstance(terms, list):
        for i, term in enumerate(terms):
            if isinstance(term, dict) and isinstance(term.get("owner"), str):
                yield ("spec", "amiSelectorTerms", i, "owner"), term["owner"].strip()


@rule("KPL707", "ami-owner-not-an-account", category="security", severity="warning",
      summary="An AMI owner that is neither an AWS account ID nor an owner keyword: the AMI selection finds no image",
      kinds=KINDS)
def ami_owner_not_an_account(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res, ctx):
        return
    for path, owner in _owner_values(res):
        if not owner or is_templated(owner) or _ACCOUNT_ID.match(owner) or not _OWNER_IMPOSSIBLE.search(owner):
            continue
        digits = re.sub(r"\D", "", owner)
        hint = f" (`{digits}`?)" if len(digits) == 12 else ""
        yield ctx.violation(
            res, path,
            f"AMI owner {owner!r} is not an AWS account ID\n"
            f"help: write the owning account's 12-digit ID{hint}, or `self`, `amazon`, `aws-marketplace`\n"
            "note: Karpenter passes owners to EC2 DescribeImages, which knows account IDs and those keywords only; "
            "the selector finds no image and no node launches (aws/karpenter-provider-aws#3864)")


@rule("KPL630", "security-group-name-ignores-tags", category="references", severity="warning",
      summary="A securityGroupSelectorTerms term with both `name` and `tags`: Karpenter selects by the name alone",
      kinds=("EC2NodeClass",))
def security_group_name_ignores_tags(res: Resource, ctx) -> Iterator:
    # pkg/providers/securitygroup/securitygroup.go `getFilterSets` (aws/karpenter-provider-aws v0.32.0 to v1.14.0):
    # a term's `id`, else its `name`, else its `tags` make the filter; the other fields of the term are dropped.
    if not _nodeclass(res, ctx) or res.version not in ("v1beta1", "v1"):
        return
    terms = res.get(("spec", "securityGroupSelectorTerms"))
    if not isinstance(terms, list):
        return
    # The CRD's CEL rule refuses `name` with other fields only when every term has them (`!self.all(...)`): then
    # the API server rejects the object and KPL130 says so; with another term beside it, it is admitted.
    if all(isinstance(t, dict) and "name" in t and ("tags" in t or "id" in t) for t in terms):
        return
    for i, term in enumerate(terms):
        if not isinstance(term, dict) or "id" in term:
            continue
        if isinstance(term.get("name"), str) and term["name"] and isinstance(term.get("tags"), dict) and term["tags"]:
            yield ctx.violation(
                res, ("spec", "securityGroupSelectorTerms", i, "tags"),
                f"securityGroupSelectorTerms[{i}] has `name`, so Karpenter ignores its `tags`\n"
                "help: select by name alone (unique names), or by tags alone (e.g. the group's `Name` tag and a VPC "
                "or cluster tag)\n"
                "note: Karpenter filters by `group-name` when a term has a name and drops the tags; every security "
                "group of that name is selected, in every VPC of the account (aws/karpenter-provider-aws#9157)",
                on="key")
