"""Requirements drift of a NodePool, worked out statically: which running nodes the new requirements no longer
admit.

Karpenter (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go `areRequirementsDrifted`,
L170@6e7eab7) builds requirements from the NodeClaim's labels and asks `Compatible` (no options) with the
NodePool's `spec.template.spec.requirements`: a label the node lacks drifts it unless the new operator is NotIn or
DoesNotExist, and every key both define must intersect. Nodes carry the labels of their instance type, zone and
capacity type (well-known), and the template's labels. Running nodes are
taken to be what the base requirements admitted (launched under them):

- labels of instance types (family, size, arch, cpu...): the catalog types the base requirements admit, filtered
  again by the head's (`karplint.provisioning.nodepools.simulate_pool`, before minValues);
- capacity type and OS: their few values, compared as sets;
- zones, zone ids, region: values only the account knows; an explicit base list is compared, an open one is
  "unknown";
- custom labels: by the values written (requirements and template labels).

`node_drifts(new_requirements, labels)` is the check itself on one node's labels (for the translated upstream tests).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field

from karplint.model import Resource
from karplint.provisioning.catalog import Catalog
from karplint.provisioning.nodepools import CAPACITY_TYPE, OS, simulate_pool
from karplint.provisioning.requirements import (
    WELL_KNOWN_LABELS, Requirement, Requirements, from_labels, from_node_selector_terms,
)

SOURCE = "kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go@6e7eab7#L170"
# Keys whose values the nodes can have are few and known to karplint (the universe when the base leaves them open).
# (`reserved` only where the base names it: nodes run in reservations only when the EC2NodeClass selects some.)
_FEW_VALUES = {CAPACITY_TYPE: ("on-demand", "spot"), OS: ("linux", "windows")}
# Keys whose values only the account knows.
_ACCOUNT_VALUES = ("topology.kubernetes.io/zone", "topology.k8s.aws/zone-id", "topology.kubernetes.io/region")
_ZONES = ("topology.kubernetes.io/zone", "topology.k8s.aws/zone-id")  # (every node has them)
SHOWN_NAMES = 5
_PATH = ("spec", "template", "spec", "requirements")


def node_drifts(new_requirements: list[dict], labels: dict[str, str]) -> bool:
    """`areRequirementsDrifted` for a node with `labels` against NodePool requirements as written (`Compatible`
    without options: every key must be defined on the node, well-known ones too, unless NotIn/DoesNotExist)."""
    return from_labels(labels).compatible(from_node_selector_terms(new_requirements), frozenset()) is not None


@dataclass
class KeyOutcome:
    """What one requirement key does to running nodes: drifts "none" | "some" | "all" | "unknown"."""

    key: str
    drifts: str
    why: str
    lost: list[str] = field(default_factory=list)


def _requirements(np: Resource, catalog: Catalog):
    """(simulation, Requirements of spec.template.spec.requirements only, Requirements with template labels)."""
    if np.get(_PATH) is None:  # (no list: no requirement, as an empty one; the simulation wants a list)
        data = copy.copy(np.data)
        data["spec"] = spec = dict(np.spec)
        spec["template"] = template = dict(spec.get("template") or {}) if isinstance(spec.get("template"),
                                                                                    (dict, type(None))) else {}
        template["spec"] = dict(template.get("spec") or {}, requirements=[]) \
            if isinstance(template.get("spec"), (dict, type(None))) else {"requirements": []}
        np = Resource(dataclasses.replace(np.doc, data=data), np.api_version, np.kind)
    sim = simulate_pool(np, catalog)
    if sim.unknown:
        return sim, None, None
    written = Requirements()
    for s in sim.sources:
        if not s.label:
            written.add(s.requirement)
    return sim, written, sim.requirements


def requirements_drift(base: Resource, head: Resource, catalog: Catalog | None) -> list[KeyOutcome] | str:
    """Per key, what the head's requirements do to nodes launched under the base's; a str when they cannot be
    read (templated, malformed). `catalog` None: the bundled one."""
    if catalog is None:
        from karplint.provisioning.catalog import load

        catalog = load()
    base_sim, _, base_all = _requirements(base, catalog)
    head_sim, head_written, _ = _requirements(head, catalog)
    if base_all is None or head_written is None:
        return (base_sim.unknown or head_sim.unknown or "the requirements cannot be read")
    out: list[KeyOutcome] = []
    catalog_keys = set(catalog.label_keys())
    # Instance-type labels: the types the base admits, filtered by the head (custom keys never remove a type).
    head_names = {t.name for t in head_sim.compatible}
    old = [t.name for t in base_sim.compatible]
    lost = [n for n in old if n not in head_names]
    type_keys = sorted(k for k in head_written.keys() if k in catalog_keys and k not in _FEW_VALUES)
    if lost:
        drifts = "all" if len(lost) == len(old) else "some"
        out.append(KeyOutcome("instance types", drifts, (
            f"{_count(len(lost), 'instance type')} of the {len(old)} the old requirements allowed "
            f"({_names(lost)}) are no longer allowed ({', '.join(type_keys) or 'requirements'}): nodes of "
            f"{'them' if drifts == 'some' else 'every type'} no longer satisfy the requirements"), lost))
    for key in sorted(head_written.keys()):
        if key in catalog_keys and key not in _FEW_VALUES:
            continue
        new = head_written.get(key)
        outcome = _key_outcome(key, base_all, new)
        if outcome is not None:
            out.append(outcome)
    return out


def _key_outcome(key: str, base_all: Requirements, new: Requirement) -> KeyOutcome | None:
    old = base_all.by_key.get(key)
    op = new.operator()
    if key == "karpenter.sh/nodepool":
        return None
    if old is None:
        # The node has no such label (unless Karpenter or the cloud sets it: well-known labels).
        if key in _FEW_VALUES:
            kept = [v for v in _FEW_VALUES[key] if new.has(v)]
            lost = [v for v in _FEW_VALUES[key] if not new.has(v)]
            return _set_outcome(key, list(_FEW_VALUES[key]), kept, lost, open_base=True)
        if key in WELL_KNOWN_LABELS:
            if _admits_all(new):
                return None
            if key in _ZONES and not new.complement and not new.values:
                return KeyOutcome(key, "all", f"`{key}` is now {new}: no zone is allowed, and every node has one")
            return KeyOutcome(key, "unknown", (
                f"`{key}` is now required to be {new}; the values running nodes have are known only in the "
                "cluster: nodes outside it are replaced"))
        if op in ("NotIn", "DoesNotExist"):
            return None
        return KeyOutcome(key, "all", (
            f"the new requirement on custom label `{key}` ({new}) needs a label no running node has "
            "(`Compatible`: a custom label must be defined unless the operator is NotIn or DoesNotExist)"))
    if _covers(new, old):
        return None
    if not old.complement and old.values:
        values = sorted(old.values)
        kept = [v for v in values if new.has(v)]
        lost = [v for v in values if not new.has(v)]
        return _set_outcome(key, values, kept, lost, open_base=False)
    if key in _FEW_VALUES:
        universe = [v for v in _FEW_VALUES[key] if old.has(v)]
        kept = [v for v in universe if new.has(v)]
        lost = [v for v in universe if not new.has(v)]
        return _set_outcome(key, universe, kept, lost, open_base=False)
    if not new.complement and not new.values or new.gte is not None and new.lte is not None and new.gte > new.lte:
        return KeyOutcome(key, "all", f"`{key}` is now {new}, which no running node's label satisfies")
    what = "zones" if key in _ACCOUNT_VALUES else "values"
    return KeyOutcome(key, "unknown" if key in _ACCOUNT_VALUES or key in WELL_KNOWN_LABELS or old.complement
                      else "some", (
        f"`{key}` narrows from {old} to {new}: nodes with {what} outside it are replaced (which {what} running "
        "nodes have is known only in the cluster)"))


def _set_outcome(key: str, universe: list[str], kept: list[str], lost: list[str], open_base: bool) -> KeyOutcome | None:
    if not lost:
        return None
    if not kept:
        return KeyOutcome(key, "all", f"`{key}` no longer allows {_quoted(lost)}, every value running nodes can have",
                          lost)
    return KeyOutcome(key, "some", (
        f"`{key}` no longer allows {_quoted(lost)}: nodes with {'that value' if len(lost) == 1 else 'those values'} "
        f"are replaced, nodes with {_quoted(kept)} stay"), lost)


def _admits_all(r: Requirement) -> bool:
    return r.complement and not r.values and r.gte is None and r.lte is None


def _covers(new: Requirement, old: Requirement) -> bool:
    """Every value `old` admits, `new` admits too (so no node launched under `old` drifts on this key)."""
    if _admits_all(new):
        return True
    if not old.complement:
        return all(new.has(v) for v in old.values)  # (DoesNotExist: no value, nothing to lose)
    if not new.complement:
        return False
    if not new.values <= old.values:
        return False
    lo_ok = new.gte is None or (old.gte is not None and old.gte >= new.gte)
    hi_ok = new.lte is None or (old.lte is not None and old.lte <= new.lte)
    return lo_ok and hi_ok


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN_NAMES])
    return shown + (f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else "")


def _quoted(values: list[str]) -> str:
    return ", ".join(f"`{v}`" for v in values)
