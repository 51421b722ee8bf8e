"""Whether applying the head side drifts running nodes, and why: per EC2NodeClass and per NodePool.

Karpenter drifts a node in two ways (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go
`isDrifted` L86@6e7eab7, aws/karpenter-provider-aws pkg/cloudprovider/drift.go `isNodeClassDrifted` L44@bde0065):

- statically: the NodePool's `spec.template` and the EC2NodeClass's `spec` are hashed (fields tagged
  `hash:"ignore"` left out, slices as sets, zero values ignored); a NodeClaim launched under another hash drifts.
  Which fields count, per release, is the generated drift table (`karplint.diff.drift_table.field_rule`).
- dynamically: the requirements a node's labels no longer satisfy (`drift_requirements`), the AMI, subnets,
  security groups and capacity reservations the EC2NodeClass resolves in the account. Those are judged here from
  the text as far as it goes, and say what only the cluster knows.

Both sides' specs get their CRD defaults first (the API server stores them), so writing a default out is no change.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from karplint.diff.drift_requirements import SOURCE as REQUIREMENTS_SOURCE, requirements_drift
from karplint.model import Resource
from karplint.model.labels import ALIAS_FAMILIES
from karplint.model.versions import LATEST, V, Version
from karplint.readers.templating import has_placeholder_within
from karplint.schema.validate import format_path

CORE = "kubernetes-sigs/karpenter"
AWS = "aws/karpenter-provider-aws"
CORE_SHA, AWS_SHA = "6e7eab7", "bde0065"  # the v1.14.1 tags of both repositories


def _core(path: str, line: int) -> str:
    return f"{CORE} {path}@{CORE_SHA}#L{line}"


def _aws(path: str, line: int) -> str:
    return f"{AWS} {path}@{AWS_SHA}#L{line}"


SRC_NODEPOOL_STATIC = _core("pkg/controllers/nodeclaim/disruption/drift.go", 154)
SRC_NODEPOOL_HASH = _core("pkg/apis/v1/nodepool.go", 336)
SRC_NODEPOOL_REHASH = _core("pkg/controllers/nodepool/hash/controller.go", 97)
SRC_OWNER = _core("pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go", 157)
SRC_NODECLASS_STATIC = _aws("pkg/cloudprovider/drift.go", 181)
SRC_NODECLASS_HASH = _aws("pkg/apis/v1/ec2nodeclass.go", 597)
SRC_NODECLASS_REHASH = _aws("pkg/controllers/nodeclass/hash/controller.go", 88)
SRC_NODECLASS_FINALIZE = _aws("pkg/controllers/nodeclass/controller.go", 214)
SRC_AMI = _aws("pkg/cloudprovider/drift.go", 84)
SRC_AMI_MAP = _aws("pkg/providers/amifamily/ami.go", 228)
SRC_SUBNET = _aws("pkg/cloudprovider/drift.go", 112)
SRC_SECURITY_GROUPS = _aws("pkg/cloudprovider/drift.go", 130)
SRC_RESERVATIONS = _aws("pkg/cloudprovider/drift.go", 148)

# The hash versions per release (first release with each; releases sorted by version: the 0.3x patch lines got
# v1 and the v1 API back-ported). Read from the tags: core pkg/apis/{v1beta1,v1}/nodepool.go `NodePoolHashVersion`,
# provider pkg/apis/{v1beta1,v1}/ec2nodeclass.go `EC2NodeClassHashVersion`. None: no hash versioning yet.
_SHARED_0_3X = [("0.32.0", None), ("0.32.9", "v1"), ("0.33.0", None), ("0.33.4", "v1"), ("0.33.6", "v3"),
                ("0.34.0", None), ("0.34.5", "v1"), ("0.34.7", "v3"), ("0.35.0", None), ("0.35.4", "v1"),
                ("0.35.6", "v3"), ("0.36.0", "v2"), ("0.36.3", "v3"), ("0.37.0", "v2"), ("0.37.1", "v3")]
HASH_VERSIONS: dict[str, list[tuple[str, str | None]]] = {
    "NodePool": _SHARED_0_3X + [("1.0.0", "v3")],
    "EC2NodeClass": _SHARED_0_3X + [("1.0.0", "v3"), ("1.1.0", "v4"), ("1.12.0", "v5")],
}
HASH_VERSION_SOURCE = {"NodePool": _core("pkg/apis/v1/nodepool.go", 334),
                       "EC2NodeClass": _aws("pkg/apis/v1/ec2nodeclass.go", 595)}

_HASH_SOURCE = {"NodePool": SRC_NODEPOOL_HASH, "EC2NodeClass": SRC_NODECLASS_HASH}
_RANK = {"all": 3, "some": 2, "unknown": 1, "none": 0}
_ABSENT = object()


def hash_version(kind: str, release: Version | None) -> str | None:
    """The drift hash version Karpenter `release` writes for `kind` (None: before hash versioning)."""
    release = release or LATEST
    found = None
    for first, version in HASH_VERSIONS[kind]:
        if V(first) <= release:
            found = version
    return found


def combine(verdicts) -> str:
    """"all" wins over "some" over "unknown" over "none"."""
    best = "none"
    for v in verdicts:
        if _RANK.get(v, 1) > _RANK[best]:
            best = v if v in _RANK else "unknown"
    return best


def reason(obj: str, field: str | None, drifts: str, why: str, source: str) -> dict:
    return {"object": obj, "field": field, "drifts": drifts, "why": why, "source": source}


# ------------------------------------------------------------------------------------------------ field changes

def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _canon(value: Any) -> Any:
    """A comparable form in which lists are sets (the hash's `SlicesAsSets`) and maps are unordered."""
    if isinstance(value, dict):
        return ("map", tuple(sorted(((k, _canon(v)) for k, v in value.items() if v is not None), key=repr)))
    if isinstance(value, list):
        return ("set", tuple(sorted((_canon(v) for v in value), key=repr)))
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return ("num", value)
    return ("str", str(value))


def same(a: Any, b: Any) -> bool:
    return _canon(a) == _canon(b)


def _zero(value: Any) -> bool:
    return value is _ABSENT or value is None or value in (False, 0, "") or value == {} or value == []


def field_changes(a: Any, b: Any, path: tuple = ()) -> list[tuple[tuple, Any, Any]]:
    """(path, before, after) of every difference of `b` from `a`; _ABSENT for a missing key. Lists that hold the
    same items in another order are no change; lists of the same length are compared item by item."""
    out: list[tuple[tuple, Any, Any]] = []
    _walk(a, b, path, out)
    return out


def _walk(a: Any, b: Any, path: tuple, out: list) -> None:
    if a is None:
        a = _ABSENT
    if b is None:
        b = _ABSENT
    if a is _ABSENT and b is _ABSENT or a is not _ABSENT and b is not _ABSENT and same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            _walk(a.get(k, _ABSENT), b.get(k, _ABSENT), path + (k,), out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, path + (i,), out)
        return
    out.append((path, a, b))


def with_defaults(value: Any, schema: dict | None) -> Any:
    """`value` with the CRD's defaults filled in where the API server fills them (absent properties of objects
    that are present)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        out = dict(value)
        for k, sub in props.items():
            if not isinstance(sub, dict):
                continue
            if k not in out and "default" in sub:
                out[k] = _plain(sub["default"])
            if k in out:
                out[k] = with_defaults(out[k], sub)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [with_defaults(v, schema["items"]) for v in value]
    return value


def _spec(res: Resource, release: Version | None) -> dict:
    spec = _plain(res.spec)
    try:
        from karplint.schema import schema_for

        found = schema_for(res, release or LATEST)
    except (ValueError, OSError, KeyError, TypeError):  # (an apiVersion no release serves: no defaults)
        found = None
    if found is not None:
        props = found[1].get("properties") if isinstance(found[1], dict) else None
        spec_schema = props.get("spec") if isinstance(props, dict) else None
        spec = with_defaults(spec, spec_schema)
    return spec


def _show(value: Any) -> str:
    if value is _ABSENT:
        return "unset"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------------------------------- the table

def _field_rule_of(rules: Callable | None) -> Callable:
    if rules is not None:
        return rules
    from karplint.diff.drift_table import field_rule  # the table stream's module

    return field_rule


def _table_reasons(obj: str, kind: str, api_version: str, changes: list, release: Version | None,
                   rules: Callable, hash_unsure: str | None) -> list[dict]:
    """One reason per table row that the changes touch."""
    by_row: dict[str, dict] = {}
    for path, before, after in changes:
        rule = rules(kind, api_version, path, release)
        row = rule.path if rule.drifts is not None and rule.path else format_path(path)
        templated = has_placeholder_within(before) or has_placeholder_within(after)
        zero_only = (before is _ABSENT and _zero(after)) or (after is _ABSENT and _zero(before))
        shown = f"`{format_path(path)}` ({_show(before)} -> {_show(after)})"
        if rule.drifts is None or rule.how == "unknown":
            r = reason(obj, row, "unknown", f"{shown}: karplint's drift table has no verdict for this field "
                       f"at {release or LATEST}", rule.source or _HASH_SOURCE[kind])
        elif rule.how.startswith("dynamic:"):
            r = reason(obj, row, "unknown", f"{shown}: checked by Karpenter against what the cluster resolves "
                       f"({rule.how[8:]}), which karplint cannot see", rule.source)
        elif not rule.drifts:
            r = reason(obj, row, "none", f"{shown}: not part of the {kind} drift hash (`hash:\"ignore\"`)",
                       rule.source)
        elif templated:
            r = reason(obj, row, "unknown", f"{shown}: part of the {kind} drift hash, but templated: whether "
                       "the rendered value changes is not known", rule.source)
        elif zero_only:
            r = reason(obj, row, "unknown", f"{shown}: part of the {kind} drift hash, which ignores zero "
                       "values of some Go types (hashstructure `IgnoreZeroValue`): between unset and an empty or "
                       "zero value, whether the hash changes depends on the field's Go type", rule.source)
        elif hash_unsure:
            r = reason(obj, row, "unknown", f"{shown}: part of the {kind} drift hash, but {hash_unsure}",
                       rule.source)
        else:
            r = reason(obj, row, "all", f"{shown}: part of the {kind} drift hash: every node launched before "
                       "is replaced", rule.source)
        kept = by_row.get(row)
        if kept is None or _RANK[r["drifts"]] > _RANK[kept["drifts"]]:
            by_row[row] = r
    return list(by_row.values())


def _api_version_unsure(base: Resource, head: Resource) -> str | None:
    if base.api_version == head.api_version:
        return None
    return (f"the apiVersion changes from {base.api_version} to {head.api_version}: Karpenter hashes the object as "
            "the API server converts it, which karplint does not rebuild")


def _unreadable_spec(obj: str, base: Resource, head: Resource, source: str) -> list[dict]:
    """A reason when either side's `spec` is no mapping (a template expression, a scalar): nothing to compare."""
    raw = [r.data.get("spec") for r in (base, head)]
    if all(v is None or isinstance(v, dict) for v in raw) or same(raw[0], raw[1]):
        return []
    return [reason(obj, "spec", "unknown", f"`spec` is {_show(raw[1])} (was {_show(raw[0])}), not a mapping "
                   "karplint can compare", source)]


def _release_reasons(kind: str, obj: str, base_release: Version | None,
                     release: Version | None) -> tuple[list[dict], str | None]:
    """(reasons about a release change between the sides, why hash changes are uncertain or None)."""
    if base_release is None or release is None or base_release == release:
        return [], None
    before, after = hash_version(kind, base_release), hash_version(kind, release)
    if before == after:
        return [reason(obj, None, "none", (
            f"the release changes from {base_release} to {release}; the {kind} drift hash version stays "
            f"{after or 'unversioned'}, so the upgrade alone does not drift nodes by the hash"),
            HASH_VERSION_SOURCE[kind])], None
    rehash = SRC_NODEPOOL_REHASH if kind == "NodePool" else SRC_NODECLASS_REHASH
    unsure = (f"the {kind} drift hash version changes from {before or 'unversioned'} to {after} "
              f"({base_release} -> {release}): Karpenter then re-hashes running NodeClaims without drifting "
              "them, so a change applied together with the upgrade may not replace nodes")
    return [reason(obj, None, "unknown", unsure[0].upper() + unsure[1:], rehash)], unsure


# ------------------------------------------------------------------------------------------------ EC2NodeClass

def nodeclass_drift(base: Resource | None, head: Resource | None, *, release: Version | None,
                    base_release: Version | None = None, rules: Callable | None = None) -> list[dict]:
    """Every reason for the nodes of the pools using this EC2NodeClass, drifting and not drifting ones.
    `rules`: the table lookup (default `drift_table.field_rule`)."""
    res = head if head is not None else base
    if res is None:
        return []
    obj = f"EC2NodeClass/{res.name}"
    if base is None:
        return [reason(obj, None, "none", "a new EC2NodeClass: no running node was launched from it",
                       SRC_NODECLASS_STATIC)]
    if head is None:
        return [reason(obj, None, "none", (
            "the EC2NodeClass is deleted: its finalizer waits until no NodeClaim uses it, so running nodes are "
            "not drifted; NodePools that still name it cannot launch new nodes"), SRC_NODECLASS_FINALIZE)]
    unreadable = _unreadable_spec(obj, base, head, SRC_NODECLASS_HASH)
    if unreadable:
        return unreadable
    rules = _field_rule_of(rules)
    out, unsure = _release_reasons("EC2NodeClass", obj, base_release, release)
    unsure = unsure or _api_version_unsure(base, head)
    before, after = _spec(base, base_release or release), _spec(head, release)
    changes = field_changes(before, after, ("spec",))
    dynamic = {"amiSelectorTerms", "amiFamily", "subnetSelectorTerms", "securityGroupSelectorTerms",
               "capacityReservationSelectorTerms"}
    touched = {path[1] for path, _, _ in changes if len(path) > 1}
    hashed = [c for c in changes if len(c[0]) < 2 or c[0][1] not in dynamic]
    out += _table_reasons(obj, "EC2NodeClass", head.api_version, hashed, release, rules, unsure)
    if touched & {"amiSelectorTerms", "amiFamily"}:
        out += _ami_reasons(obj, before, after, head, unsure)
    if "subnetSelectorTerms" in touched:
        out += _subnet_reasons(obj, before.get("subnetSelectorTerms"), after.get("subnetSelectorTerms"))
    if "securityGroupSelectorTerms" in touched:
        out += _security_group_reasons(obj, before.get("securityGroupSelectorTerms"),
                                       after.get("securityGroupSelectorTerms"))
    if "capacityReservationSelectorTerms" in touched:
        out += _reservation_reasons(obj, before.get("capacityReservationSelectorTerms"),
                                    after.get("capacityReservationSelectorTerms"))
    return out


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


def _ami_reasons(obj: str, before: dict, after: dict, head: Resource, unsure: str | None) -> list[dict]:
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
        else:
            out.append(reason(obj, "spec.amiFamily", "unknown" if unsure else "all", (
                f"`amiFamily` changes from {fam_b} to {fam_h}: the nodes' images come from another family") +
                (f", but {unsure}" if unsure else ""), SRC_AMI))
    elif "amiFamily" in before or "amiFamily" in after:
        if not same(before.get("amiFamily"), after.get("amiFamily")) and head.version == "v1":
            out.append(reason(obj, "spec.amiFamily", "none", (
                f"`amiFamily` now states the family the alias already resolved to ({fam_h}): the drift hash "
                "hashes the resolved family, which is unchanged"), SRC_NODECLASS_HASH))
    terms_b, terms_h = before.get("amiSelectorTerms") or [], after.get("amiSelectorTerms") or []
    if same(terms_b, terms_h):
        return out
    alias_b, alias_h = _alias(before), _alias(after)
    if alias_b and alias_h and len(terms_b) == len(terms_h) == 1:
        (fb, vb), (fh, vh) = alias_b, alias_h
        if fb != fh:
            out.append(reason(obj, field, "all", (
                f"the AMI alias moves from {fb}@{vb} to {fh}@{vh}: images of another family, which no running "
                "node has"), SRC_AMI))
        elif vb != vh and "latest" not in (vb.lower(), vh.lower()):
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
            parts.append(", ".join(f"{k}={_show(v)}" for k, v in sorted(t.items())))
    more = f" and {len(terms) - 3} more" if len(terms) > 3 else ""
    return "[" + "; ".join(parts) + more + "]" if parts else "none"


def _subset_terms(old: list, new: list) -> bool:
    """Every old term is still there (terms are ORed: the selection can only grow)."""
    new_canon = {_canon(t) for t in new}
    return all(_canon(t) in new_canon for t in old)


def _subnet_reasons(obj: str, before, after) -> list[dict]:
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


def _security_group_reasons(obj: str, before, after) -> list[dict]:
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


def _reservation_reasons(obj: str, before, after) -> list[dict]:
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


# ---------------------------------------------------------------------------------------------------- NodePool

def nodepool_drift(pair, *, release: Version | None, nodeclass_reasons: list[dict], catalog,
                   base_release: Version | None = None, rules: Callable | None = None) -> dict:
    """The drift verdict of one NodePool pair (the contract's `Pair`), its own reasons plus its EC2NodeClass's."""
    res = pair.head if pair.head is not None else pair.base
    obj = f"NodePool/{pair.name}"
    if pair.base is None:
        return _verdict("new", [], [reason(obj, None, "none", "a new NodePool: no node of it runs yet",
                                            SRC_NODEPOOL_STATIC)], "a new NodePool: no node runs yet")
    if pair.head is None:
        return _verdict("removed", [], [reason(obj, None, "none", (
            "the NodePool is deleted: its NodeClaims are owned by it, so Kubernetes deletes them and their nodes "
            "are drained and deleted, not drifted"), SRC_OWNER)],
            "the NodePool is removed: its nodes are deleted, not replaced")
    unreadable = _unreadable_spec(obj, pair.base, pair.head, SRC_NODEPOOL_HASH)
    if unreadable:
        return _verdict("unknown", unreadable, [], "nodes may be replaced: " + unreadable[0]["why"])
    rules = _field_rule_of(rules)
    out, unsure = _release_reasons("NodePool", obj, base_release, release)
    unsure = unsure or _api_version_unsure(pair.base, pair.head)
    before, after = _spec(pair.base, base_release or release), _spec(pair.head, release)
    changes = field_changes(before, after, ("spec",))
    reqs_path = ("spec", "template", "spec", "requirements")
    own = [c for c in changes if c[0][:4] != reqs_path]
    ref_path = ("spec", "template", "spec", "nodeClassRef")
    ref_changed = [c for c in own if c[0][:4] == ref_path and c[0][4:5] in (("name",), ("kind",), ("group",), ())]
    table = _table_reasons(obj, "NodePool", res.api_version, own, release, rules, unsure)
    if ref_changed and not unsure:
        name_b = (before.get("template") or {}).get("spec", {}).get("nodeClassRef", {})
        name_h = (after.get("template") or {}).get("spec", {}).get("nodeClassRef", {})
        for r in table:
            if r["field"] and r["field"].startswith("spec.template.spec.nodeClassRef") and r["drifts"] == "all":
                r["why"] = (f"nodeClassRef now names {_ref(name_h)} instead of {_ref(name_b)}: part of the NodePool "
                            "drift hash: every node is replaced")
    out += table
    if any(c[0][:4] == reqs_path for c in changes):
        out += _requirement_reasons(obj, pair.base, pair.head, catalog)
    out += [dict(r) for r in nodeclass_reasons]
    out = _feature_gate(obj, out, release)
    drifting = [r for r in out if r["drifts"] != "none"]
    verdict = combine(r["drifts"] for r in drifting)
    return _verdict(verdict, drifting, [r for r in out if r["drifts"] == "none"], _summary(verdict, drifting))


# Before 0.33.0 drift was an alpha feature gate, off by default (core pkg/operator/options/options.go
# `FEATURE_GATES` default "Drift=false" at v0.32.0, "Drift=true" from v0.33.0; the gate is gone in v1).
DRIFT_DEFAULT_ON = V("0.33.0")
SRC_GATE = f"{CORE} pkg/operator/options/options.go@14dda61#L99"


def _feature_gate(obj: str, reasons: list[dict], release: Version | None) -> list[dict]:
    """Below 0.33.0 nodes drift only where the Drift feature gate was turned on: drifting reasons become unknown."""
    if release is None or release >= DRIFT_DEFAULT_ON or not any(r["drifts"] in ("all", "some") for r in reasons):
        return reasons
    out = []
    for r in reasons:
        if r["drifts"] in ("all", "some"):
            r = dict(r, drifts="unknown", why=r["why"] + f" (if the Drift feature gate is on: {r['drifts']})")
        out.append(r)
    out.append(reason(obj, None, "unknown", (
        f"at {release} drift is an alpha feature gate, off by default (`settings.featureGates.drift`): with it "
        "off, no node is replaced for drift"), SRC_GATE))
    return out


def _ref(ref) -> str:
    if not isinstance(ref, dict):
        return "nothing"
    return f"{ref.get('kind') or 'EC2NodeClass'}/{ref.get('name')}"


def _requirement_reasons(obj: str, base: Resource, head: Resource, catalog) -> list[dict]:
    field = "spec.template.spec.requirements"
    found = requirements_drift(base, head, catalog)
    if isinstance(found, str):
        return [reason(obj, field, "unknown", f"the requirements change, but karplint cannot read them: {found}",
                       REQUIREMENTS_SOURCE)]
    if not found:
        return [reason(obj, field, "none", (
            "the requirements change, but admit everything the old ones did: requirements are not part of the "
            "drift hash (`hash:\"ignore\"`), and every running node still satisfies them"), REQUIREMENTS_SOURCE)]
    out = []
    for k in found:
        r = reason(obj, field, k.drifts, k.why, REQUIREMENTS_SOURCE)
        if k.key == "instance types":
            r["lost_instance_types"] = len(k.lost)
        if k.lost:
            r["lost"] = k.lost[:20]
            r["lost_count"] = len(k.lost)
        out.append(r)
    return out


def _verdict(verdict: str, reasons: list[dict], not_drifting: list[dict], summary: str) -> dict:
    return {"verdict": verdict, "reasons": reasons, "not_drifting": not_drifting, "summary": summary}


def _summary(verdict: str, drifting: list[dict]) -> str:
    if verdict == "none":
        return "no node is replaced"
    if verdict == "all":
        return "every node is replaced"
    if verdict == "some":
        parts = []
        for r in drifting:
            if r["drifts"] != "some":
                continue
            n = r.get("lost_instance_types")
            if n:
                parts.append(f"nodes of {n} instance type{'s' if n != 1 else ''} no longer allowed are replaced")
            else:
                parts.append(r["why"])
        return "; ".join(parts) if parts else "some nodes are replaced"
    first = next((r for r in drifting if r["drifts"] == "unknown"), None)
    return "nodes may be replaced: " + (first["why"] if first else "karplint cannot tell")
