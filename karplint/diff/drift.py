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

from typing import Callable

from karplint.diff.drift_changes import (
    ABSENT, CORE, SRC_NODECLASS_FINALIZE, SRC_NODECLASS_HASH, SRC_NODECLASS_REHASH, SRC_NODECLASS_STATIC,
    SRC_NODEPOOL_HASH, SRC_NODEPOOL_REHASH, SRC_NODEPOOL_STATIC, SRC_OWNER, aws_source, core_source, field_changes,
    SRC_CONVERSION, is_zero, literal_change, nodepool_as_v1, reason, same, show, stored_spec,
)
from karplint.diff.drift_requirements import SOURCE as REQUIREMENTS_SOURCE, requirements_drift
from karplint.diff.drift_selection import ami_reasons, reservation_reasons, security_group_reasons, subnet_reasons
from karplint.diff.drift_table import field_rule, hash_version as table_hash_version
from karplint.model import Resource
from karplint.model.versions import LATEST, V, Version
from karplint.readers.templating import has_placeholder_within
from karplint.schema.validate import format_path

# Hash versions come from the drift table (every provider release tag: the late 0.32-0.35 patches back-ported v1);
# a version missing before a release's table column means hash versioning had not started.
HASH_VERSION_SOURCE = {"NodePool": core_source("pkg/apis/v1/nodepool.go", 334),
                       "EC2NodeClass": aws_source("pkg/apis/v1/ec2nodeclass.go", 595)}


class _NoRule:
    path, drifts, how, source = "", None, "unknown", ""


_NO_RULE = _NoRule()
_HASH_SOURCE = {"NodePool": SRC_NODEPOOL_HASH, "EC2NodeClass": SRC_NODECLASS_HASH}
_RANK = {"all": 3, "some": 2, "unknown": 1, "none": 0}


def hash_version(kind: str, release: Version | None) -> str | None:
    """The drift hash version Karpenter `release` writes for `kind` (None: before hash versioning)."""
    found = table_hash_version(kind, release or LATEST)
    return found["version"] if found else None


def _hash_version_source(kind: str, release: Version | None) -> str:
    found = table_hash_version(kind, release or LATEST)
    return found["source"] if found else HASH_VERSION_SOURCE[kind]


def combine(verdicts) -> str:
    """"all" wins over "some" over "unknown" over "none"."""
    best = "none"
    for v in verdicts:
        if _RANK.get(v, 1) > _RANK[best]:
            best = v if v in _RANK else "unknown"
    return best



# --------------------------------------------------------------------------------------------------- the table

def _field_rule_of(rules: Callable | None) -> Callable:
    return rules if rules is not None else field_rule


def _table_reasons(obj: str, kind: str, api_version: str, changes: list, release: Version | None,
                   rules: Callable, hash_unsure: str | None) -> list[dict]:
    """One reason per table row that the changes touch."""
    by_row: dict[str, dict] = {}
    for path, before, after in changes:
        try:
            rule = rules(kind, api_version, path, release)
        except (LookupError, ValueError):  # (a kind or apiVersion the table has no column for)
            rule = _NO_RULE
        row = rule.path if rule.drifts is not None and rule.path else format_path(path)
        templated = ((has_placeholder_within(before) or has_placeholder_within(after))
                     and not literal_change(before, after))
        zero_only = (before is ABSENT and is_zero(after)) or (after is ABSENT and is_zero(before))
        shown = f"`{format_path(path)}` ({show(before)} -> {show(after)})"
        if rule.drifts is None or rule.how == "unknown":
            r = reason(obj, row, "unknown", f"{shown}: karplint's drift table has no verdict for this field "
                       f"at {release or LATEST}", rule.source or _HASH_SOURCE[kind])
        elif rule.how.startswith("dynamic:"):
            r = reason(obj, row, "unknown", f"{shown}: left out of the hash; Karpenter's `{rule.how[8:]}` drift "
                       "check decides, against state in the cluster karplint cannot see", rule.source)
        elif not rule.drifts:
            outside = kind == "NodePool" and tuple(path[:2]) != ("spec", "template")
            r = reason(obj, row, "none", f"{shown}: not part of the {kind} drift hash " + (
                "(it hashes `spec.template` only)" if outside else "(`hash:\"ignore\"`)"), rule.source)
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
    return [reason(obj, "spec", "unknown", f"`spec` is {show(raw[1])} (was {show(raw[0])}), not a mapping "
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
            _hash_version_source(kind, release))], None
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
    before, after = stored_spec(base, base_release or release), stored_spec(head, release)
    changes = field_changes(before, after, ("spec",))
    dynamic = {"amiSelectorTerms", "amiFamily", "subnetSelectorTerms", "securityGroupSelectorTerms",
               "capacityReservationSelectorTerms"}
    touched = {path[1] for path, _, _ in changes if len(path) > 1}
    hashed = [c for c in changes if len(c[0]) < 2 or c[0][1] not in dynamic]
    out += _table_reasons(obj, "EC2NodeClass", head.api_version, hashed, release, rules, unsure)
    if touched & {"amiSelectorTerms", "amiFamily"}:
        out += ami_reasons(obj, before, after, head, unsure)
    if "subnetSelectorTerms" in touched:
        out += subnet_reasons(obj, before.get("subnetSelectorTerms"), after.get("subnetSelectorTerms"))
    if "securityGroupSelectorTerms" in touched:
        out += security_group_reasons(obj, before.get("securityGroupSelectorTerms"),
                                       after.get("securityGroupSelectorTerms"))
    if "capacityReservationSelectorTerms" in touched:
        out += reservation_reasons(obj, before.get("capacityReservationSelectorTerms"),
                                    after.get("capacityReservationSelectorTerms"))
    return out


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
    before, after = stored_spec(pair.base, base_release or release), stored_spec(pair.head, release)
    if (pair.base.api_version, pair.head.api_version) == ("karpenter.sh/v1beta1", "karpenter.sh/v1"):
        converted = nodepool_as_v1(before, from_v1beta1=True), nodepool_as_v1(after, from_v1beta1=False)
        if None not in converted:  # (compared as the API server stores both: v1)
            before, after = converted
            out.append(reason(obj, "apiVersion", "none", (
                "the NodePool moves from karpenter.sh/v1beta1 to v1: compared as Karpenter converts the v1beta1 "
                "object (expireAfter into the template, nodeClassRef's group and kind spelled out)"), SRC_CONVERSION))
        else:
            unsure = unsure or _api_version_unsure(pair.base, pair.head)
    else:
        unsure = unsure or _api_version_unsure(pair.base, pair.head)
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
