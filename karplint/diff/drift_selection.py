"""The EC2NodeClass's dynamic drift checks, done from the text: AMI, subnet, security group and capacity
reservation selection (aws/karpenter-provider-aws pkg/cloudprovider/drift.go@bde0065). What the account resolves
(tags, names, SSM parameters, image dates) karplint cannot see: those changes are "unknown", saying so."""

from __future__ import annotations

from karplint.diff.drift_changes import (
    ABSENT, SRC_AMI, SRC_AMI_MAP, SRC_NODECLASS_HASH, SRC_RESERVATIONS, SRC_SECURITY_GROUPS, SRC_SUBNET, SRC_V1BETA1_HASH,
    canon, reason, same, show,
)
from karplint.model import Resource
from karplint.model.labels import ALIAS_FAMILIES
from karplint.readers.templating import has_placeholder_within


def _alias(spec: dict) -> tuple[str, str] | None:
    for term in spec.get("amiSelectorTerms") or ():
        if isinstance(term, dict) and isinstance(term.get("alias"), str) and "@" in term["alias"]:
            family, _, version = term["alias"].partition("@")
            return family.strip().lower(), version.strip()
    return None


def _ami_family(spec: dict) -> str | None:
    """The EC2NodeClass's `AMIFamily()`: `amiFamily`, else the alias's family."""
    family = spec.get("amiFamily")
    if isinstance(family, str):
        return family
    alias = _alias(spec)
    # (neither: `AMIFamily()` falls back to Custom, "unreachable" since validation asks for one of them)
    return ALIAS_FAMILIES.get(alias[0], alias[0]) if alias else "Custom"


def ami_reasons(obj: str, before: dict, after: dict, head: Resource, unsure: str | None) -> list[dict]:
    out = []
    fam_b, fam_h = _ami_family(before), _ami_family(after)
    field = "spec.amiSelectorTerms"
    if has_placeholder_within(before.get("amiSelectorTerms")) or has_placeholder_within(after.get("amiSelectorTerms")) \
            or has_placeholder_within(fam_b) or has_placeholder_within(fam_h):
        return [reason(obj, field, "unknown", "the AMI selection is templated: which images it selects is not known",
                       SRC_AMI)]
    if fam_b != fam_h:
        if head.version == "v1":  # v1 hashes the resolved family (`Hash` hashes `AMIFamily()`), not the field
            drifts = "unknown" if unsure or fam_b is None or fam_h is None else "all"
            out.append(reason(obj, "spec.amiFamily", drifts, (
                f"the AMI family resolves to {fam_h or 'nothing'} instead of {fam_b or 'nothing'}: the resolved "
                "family is part of the EC2NodeClass drift hash") + (f", but {unsure}" if unsure else ""),
                SRC_NODECLASS_HASH))
        else:  # v1beta1 hashes the field itself
            out.append(reason(obj, "spec.amiFamily", "unknown" if unsure else "all", (
                f"`amiFamily` changes from {fam_b} to {fam_h}: part of the EC2NodeClass drift hash") +
                (f", but {unsure}" if unsure else ""), SRC_V1BETA1_HASH))
        if _family_images(before) and _family_images(after) and "Custom" not in (fam_b, fam_h):
            # (images picked by the family, not by ids, names or tags: no image of the old family is selected)
            out.append(reason(obj, "spec.amiSelectorTerms", "all", (
                f"the images now come from the {fam_h} family instead of {fam_b}: no running node has one of them"),
                SRC_AMI))
            return out
    elif "amiFamily" in before or "amiFamily" in after:
        if not same(before.get("amiFamily"), after.get("amiFamily")) and head.version == "v1":
            out.append(reason(obj, "spec.amiFamily", "none", (
                f"`amiFamily` changes ({show(before.get('amiFamily', ABSENT))} -> "
                f"{show(after.get('amiFamily', ABSENT))}), but the family resolves to {fam_h} either way: the drift "
                "hash hashes the resolved family"), SRC_NODECLASS_HASH))
    terms_b, terms_h = before.get("amiSelectorTerms") or [], after.get("amiSelectorTerms") or []
    if same(terms_b, terms_h):
        return out
    alias_b, alias_h = _alias(before), _alias(after)
    if alias_b and alias_h and len(terms_b) == len(terms_h) == 1:
        (fb, vb), (fh, vh) = alias_b, alias_h
        if vb != vh and "latest" not in (vb.lower(), vh.lower()):
            out.append(reason(obj, field, "all", (
                f"the AMI alias moves from {fb}@{vb} to {fh}@{vh}: running nodes have an image of {vb}, which the "
                "new selection does not hold"), SRC_AMI))
        elif vb != vh:
            pinned = vb if vh.lower() == "latest" else vh
            out.append(reason(obj, field, "unknown", (
                f"the AMI alias moves from {fb}@{vb} to {fh}@{vh}: every node is replaced unless {pinned} is the "
                f"newest {fb} release (which SSM publishes; karplint cannot see it)"), SRC_AMI))
        return out
    ids_b, ids_h = _ids(terms_b), _ids(terms_h)
    if ids_b is not None and ids_h is not None:
        lost, added = sorted(ids_b - ids_h), sorted(ids_h - ids_b)
        if lost and not ids_b & ids_h:
            out.append(reason(obj, field, "all", (
                f"no AMI selected before stays selected ({', '.join(lost)} dropped): every node runs an image "
                "no longer selected"), SRC_AMI))
        elif lost:
            out.append(reason(obj, field, "some", (
                f"AMIs {', '.join(lost)} are no longer selected: nodes running them are replaced"), SRC_AMI))
        if added and ids_b & ids_h:
            out.append(reason(obj, field, "unknown", (
                f"AMIs {', '.join(added)} are newly selected: Karpenter gives each instance type the newest "
                "selected image that fits it, so nodes are replaced where an added image is newer than theirs "
                "(image dates are known only in the account)"), SRC_AMI_MAP))
        return out
    out.append(reason(obj, field, "unknown", (
        f"the AMI selection changes ({_describe_terms(terms_b)} -> {_describe_terms(terms_h)}): nodes whose image "
        "is no longer the one selected for their instance type are replaced; which images the terms select is "
        "resolved in the account"), SRC_AMI))
    return out


def _family_images(spec: dict) -> bool:
    """The images are the family's own: an alias, or (v1beta1) no terms at all (the family's SSM parameters)."""
    terms = spec.get("amiSelectorTerms") or []
    return not terms or _alias(spec) is not None and len(terms) == 1


def _ids(terms: list) -> set[str] | None:
    """The ids of terms that are all `{id: ...}`, else None."""
    ids = set()
    for t in terms:
        if not isinstance(t, dict) or set(t) != {"id"} or not isinstance(t["id"], str):
            return None
        ids.add(t["id"])
    return ids


def _describe_terms(terms: list) -> str:
    parts = []
    for t in terms[:3]:
        if isinstance(t, dict):
            parts.append(", ".join(f"{k}={show(v)}" for k, v in sorted(t.items())))
    more = f" and {len(terms) - 3} more" if len(terms) > 3 else ""
    return "[" + "; ".join(parts) + more + "]" if parts else "none"


def _subset_terms(old: list, new: list) -> bool:
    """Every old term is still there (terms are ORed: the selection can only grow)."""
    new_canon = {canon(t) for t in new}
    return all(canon(t) in new_canon for t in old)


def subnet_reasons(obj: str, before, after) -> list[dict]:
    field = "spec.subnetSelectorTerms"
    before, after = before or [], after or []
    if has_placeholder_within(before) or has_placeholder_within(after):
        return [reason(obj, field, "unknown", "the subnet selection is templated", SRC_SUBNET)]
    ids_b, ids_h = _ids(before), _ids(after)
    if ids_b is not None and ids_h is not None and ids_b:
        lost = sorted(ids_b - ids_h)
        if not lost:
            return [reason(obj, field, "none", (
                "subnets are only added: a node is replaced only when its own subnet is no longer selected"),
                SRC_SUBNET)]
        if not ids_b & ids_h:
            return [reason(obj, field, "all", (
                f"no subnet selected before stays selected ({', '.join(lost)} dropped): every node is in a subnet "
                "no longer selected"), SRC_SUBNET)]
        return [reason(obj, field, "some", (
            f"subnets {', '.join(lost)} are no longer selected: nodes in them are replaced"), SRC_SUBNET)]
    if _subset_terms(before, after):
        return [reason(obj, field, "none", (
            "subnet selector terms are only added (terms are ORed, so the selection only grows): a node is "
            "replaced only when its own subnet is no longer selected"), SRC_SUBNET)]
    return [reason(obj, field, "unknown", (
        f"the subnet selection changes ({_describe_terms(before)} -> {_describe_terms(after)}): nodes in subnets "
        "no longer selected are replaced; the terms are resolved in the account"), SRC_SUBNET)]


def security_group_reasons(obj: str, before, after) -> list[dict]:
    field = "spec.securityGroupSelectorTerms"
    before, after = before or [], after or []
    if has_placeholder_within(before) or has_placeholder_within(after):
        return [reason(obj, field, "unknown", "the security group selection is templated", SRC_SECURITY_GROUPS)]
    ids_b, ids_h = _ids(before), _ids(after)
    if ids_b is not None and ids_h is not None and ids_b and ids_h:
        if ids_b == ids_h:
            return []
        return [reason(obj, field, "all", (
            f"the security groups change ({', '.join(sorted(ids_b))} -> {', '.join(sorted(ids_h))}): a node "
            "whose security groups differ from the selected set in any way, even by one added, is replaced"),
            SRC_SECURITY_GROUPS)]
    return [reason(obj, field, "unknown", (
        f"the security group selection changes ({_describe_terms(before)} -> {_describe_terms(after)}): if the "
        "set it resolves to differs in any way (even one group added), every node is replaced; the terms are "
        "resolved in the account"), SRC_SECURITY_GROUPS)]


def reservation_reasons(obj: str, before, after) -> list[dict]:
    field = "spec.capacityReservationSelectorTerms"
    before, after = before or [], after or []
    if has_placeholder_within(before) or has_placeholder_within(after):
        return [reason(obj, field, "unknown", "the capacity reservation selection is templated", SRC_RESERVATIONS)]
    if not before or _subset_terms(before, after):
        return [reason(obj, field, "none", (
            "capacity reservations are only added: a node is replaced only when the reservation it runs in is no "
            "longer selected"), SRC_RESERVATIONS)]
    ids_b, ids_h = _ids(before), _ids(after)
    if ids_b is not None and ids_h is not None:
        lost = sorted(ids_b - ids_h)
        return [reason(obj, field, "some", (
            f"capacity reservations {', '.join(lost)} are no longer selected: nodes running in them are replaced "
            "(other nodes are not)"), SRC_RESERVATIONS)]
    return [reason(obj, field, "unknown", (
        "the capacity reservation selection changes: nodes running in reservations no longer selected are "
        "replaced; the terms are resolved in the account"), SRC_RESERVATIONS)]

