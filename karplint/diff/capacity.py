"""What a change does to a NodePool's capacity: the instance types it can launch before and after, its limits, and
the workloads that lose or gain their only NodePool (`karplint diff`'s "capacity" part).

The instance types come from the same simulation as `karplint simulate` (`provisioning.simulate.simulate_pools`,
each NodePool with what its EC2NodeClass says: AMI family, capacity reservations), on each side with that side's
EC2NodeClasses. A side that cannot be simulated (templated requirements, a static NodePool, a budget) is said to
be unknown, never guessed.

Limits follow kubernetes-sigs/karpenter@6e7eab7 (v1.14.1): the scheduler starts from the limits
(`pkg/controllers/provisioning/scheduling/scheduler.go#L183-L185`), keeps only instance types whose *capacity* fits
in what is left (`filterByRemainingResources`, #L1068-L1084; a `nodes` limit with nothing left stops the NodePool
outright, #L709-L714), and the provisioner refuses a launch once usage exceeds a limit
(`pkg/controllers/provisioning/provisioner.go#L471`, `pkg/apis/v1/nodepool.go#L190` `ExceededBy`); nothing removes
running nodes for it (aws/karpenter-provider-aws@bde0065 website/content/en/docs/concepts/nodepools.md#L418:
"nodes provisioning is prevented until some nodes have been terminated"). Instance capacity is at least the
catalog's allocatable, and cpu capacity is the vCPU count (aws/karpenter-provider-aws@bde0065
pkg/providers/instancetype/types.go#L332-L355 `computeCapacity`), so "no type fits under the limit" is certain.

Workloads are judged as `simulate` judges them (every workload but DaemonSets, against every NodePool of its side,
DaemonSet overhead included), but only where the change can matter: a workload that the pool hosted on the base
side and that no NodePool hosts on the head side is "no longer schedulable", one that only the pool hosts on the
head side and that no NodePool hosted on the base side is "newly schedulable". Verdicts are memoised per side (in
`Model.memo`) and shared by every pool of the change; "cannot tell" on either side says nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from karplint.model import Model, Resource
from karplint.provisioning import quantity
from karplint.provisioning.catalog import Catalog
from karplint.provisioning.nodepools import (ARCH, CAPACITY_TYPE, FAMILY, PoolSimulation, allocatable,
                                             explain_empty, simulate_pool, values_of)
from karplint.provisioning.placement import PlacementBudget
from karplint.provisioning.simulate import Omitted, simulate_pools
from karplint.provisioning.pods import Pod, read_pod
from karplint.provisioning.workloads import Verdict, daemons, host
from karplint.wording import counted

SHOWN = 20  # instance type names listed per direction
SHOWN_FAMILIES = 5  # families named in the summary phrase

LIMITS_SOURCE = ("kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go@6e7eab7#L1068; "
                 "pkg/controllers/provisioning/provisioner.go@6e7eab7#L471")
LIMITS_DOC = "aws/karpenter-provider-aws website/content/en/docs/concepts/nodepools.md@bde0065#L418"
# What the template says that decides which instance types the pool can launch (nodepools.simulate_pool reads it).
_TYPE_INPUTS = (("spec", "template", "spec", "requirements"), ("spec", "template", "metadata", "labels"),
                ("spec", "template", "spec", "kubelet"), ("spec", "template", "spec", "nodeClassRef"),
                ("metadata", "name"))


# ----------------------------------------------------------------------------------------------- one side

@dataclass
class _Side:
    """One side's simulation, worked out once and shared by every pair of the change (kept in `Model.memo`)."""

    model: Model
    catalog: Catalog
    sims: list[PoolSimulation]
    omitted: list[Omitted]
    facts_for: Any
    sim_of: dict[int, PoolSimulation] = field(default_factory=dict)
    _pods: list[Pod] | None = None
    _daemons: list | None = None
    hosts: dict = field(default_factory=dict)  # placement key -> (hostable, closest miss) over every NodePool

    @property
    def pools_complete(self) -> bool:
        """False when NodePools were left out (a budget) or are static (the cloud provider picks their types): "no
        NodePool can host it" cannot be said. (A templated NodePool answers "cannot tell" on its own.)"""
        return not any(o.path == ("metadata", "name") and o.resource.kind == "NodePool" for o in self.omitted) and \
            not any(np.get(("spec", "replicas")) is not None for np in self.model.nodepools())

    @property
    def pods(self) -> list[Pod]:
        if self._pods is None:
            # (every workload: the work is bounded by the placement budget, which counts the verdicts asked)
            found = [r for r in self.model.workloads() if not r.doc.documentation_example]
            self._pods = [p for p in map(read_pod, found) if p is not None]
            self._daemons = daemons(self._pods)
        return self._pods

    @property
    def daemons(self) -> list:
        self.pods  # noqa: B018 - (read with the pods)
        return self._daemons

    def sim(self, np: Resource) -> tuple[PoolSimulation | None, str | None]:
        """The NodePool's simulation on this side, or why there is none."""
        found = self.sim_of.get(id(np))
        if found is not None:
            return found, found.unknown
        if np.get(("spec", "replicas")) is not None:
            return None, "a static NodePool (spec.replicas): the cloud provider picks its instance type"
        if any(o.resource is np or o.path == ("metadata", "name") and o.resource.kind == "NodePool"
               for o in self.omitted):
            return None, "not simulated: the side has more NodePools than karplint's budget"
        sim = simulate_pool(np, self.catalog, self.facts_for(np))  # (not one of the model's: simulated alone)
        self.sim_of[id(np)] = sim
        return sim, sim.unknown

    def hostable(self, pod: Pod, budget: PlacementBudget) -> tuple[bool | None, Verdict | None]:
        """(can some NodePool of the side host the pod, the closest miss when none can); None: cannot tell (or
        the budget is spent)."""
        key = pod.placement_key
        found = self.hosts.get(key)
        if found is not None:
            return found
        unknown, closest = False, None
        for sim in self.sims:
            if not budget.take(1):
                return None, None
            v = host(pod, sim, self.daemons, any_type=True)
            if v.ok is True:
                self.hosts[key] = (True, None)
                return True, None
            if v.ok is None:
                unknown = True
            elif closest is None or (-v.stage, v.pool) < (-closest.stage, closest.pool):
                closest = v  # (the closest miss, as `simulate` ranks them: the latest stage, then the name)
        found = self.hosts[key] = (None, None) if unknown else (False, closest)
        return found


def _side(model: Model, catalog: Catalog) -> _Side:
    from karplint.rules._simulation import nodeclass_facts_resolver

    memo = model.memo.get("diff capacity")
    if memo is not None and memo.catalog is catalog:
        return memo
    facts_for = nodeclass_facts_resolver(model)
    omitted: list[Omitted] = []
    sims = simulate_pools(model, catalog, facts_for, omitted)
    side = model.memo["diff capacity"] = _Side(model, catalog, sims, omitted, facts_for)
    side.sim_of = {id(sim.nodepool): sim for sim in sims}
    return side


# ----------------------------------------------------------------------------------------------- instance types

def _order(catalog: Catalog) -> dict[str, int]:
    order = catalog.memo.get("order by name")
    if order is None:
        order = catalog.memo["order by name"] = {name: i for i, name in enumerate(catalog.types)}
    return order


def _sorted(names, catalog: Catalog) -> list[str]:
    order = _order(catalog)
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))  # catalog order, as `simulate` lists types


def _inputs(side: _Side | None, np: Resource | None) -> tuple | None:
    """What decides the pool's instance types, comparable across sides."""
    if np is None or side is None:
        return None
    return tuple(repr(np.get(p)) for p in _TYPE_INPUTS) + (np.get(("spec", "replicas")) is None, side.facts_for(np))


def _types(pair, base: _Side | None, head: _Side, catalog: Catalog) -> dict | None:
    before, why_before = base.sim(pair.base) if base is not None and pair.base is not None else (None, None)
    after, why_after = head.sim(pair.head) if pair.head is not None else (None, None)
    out: dict[str, Any] = {"types_before": None, "types_after": None, "gained": [], "lost": [], "gained_count": 0,
                           "lost_count": 0, "families_gained": [], "families_lost": [], "arch_gained": [],
                           "arch_lost": [], "capacity_types_gained": [], "capacity_types_lost": []}
    if why_before or why_after:
        if pair.base is not None and pair.head is not None and \
                _inputs(base, pair.base) == _inputs(head, pair.head):
            return None  # (whatever the types are, they are the same on both sides)
        out["types_unknown"] = "; ".join(f"{side}: {why}" for side, why in (("before", why_before),
                                                                              ("after", why_after)) if why)
    if before is not None and not why_before:
        out["types_before"] = len(before.types)
    if after is not None and not why_after:
        out["types_after"] = len(after.types)
    if out["types_before"] is not None and out["types_after"] is not None:
        old, new = {t.name for t in before.types}, {t.name for t in after.types}
        if old == new and _capacity_types(before) == _capacity_types(after):
            return None
        gained, lost = _sorted(new - old, catalog), _sorted(old - new, catalog)
        out.update(gained=gained[:SHOWN], lost=lost[:SHOWN], gained_count=len(gained), lost_count=len(lost))
        for key, label in ((FAMILY, "families"), (ARCH, "arch")):
            was = {t.labels.get(key) for t in before.types} - {None}
            now = {t.labels.get(key) for t in after.types} - {None}
            out[f"{label}_gained"], out[f"{label}_lost"] = sorted(now - was), sorted(was - now)
        was, now = _capacity_types(before), _capacity_types(after)
        out["capacity_types_gained"], out["capacity_types_lost"] = sorted(now - was), sorted(was - now)
        if not after.types and before.types:
            out["emptied_by"] = _emptied(after)
    elif out["types_before"] is None and out["types_after"] is None and "types_unknown" not in out:
        return None
    return out


def _capacity_types(sim: PoolSimulation) -> set[str]:
    """The capacity types the pool can launch (as `PoolSimulation.summary` says them, without its cpu/memory
    ranges)."""
    allowed = sim.requirements.get(CAPACITY_TYPE)
    return {c for c in values_of(sim.types, sim.type_reqs, CAPACITY_TYPE) if allowed.has(c)}


def _emptied(sim: PoolSimulation) -> str:
    if sim.min_values_short:
        key, (wanted, distinct) = sorted(sim.min_values_short.items())[0]
        return f"minValues {wanted} on `{key}` with only {counted(distinct, 'distinct value')} left"
    why = explain_empty(sim)
    if why is None or not why.keys:
        return "no instance type of the catalog matches"
    return ", ".join(f"`{k}`" for k in why.keys) + (" together leave none" if len(why.keys) > 1 else " leaves none")


# ----------------------------------------------------------------------------------------------- limits

def _limits_of(np: Resource | None) -> dict | None:
    if np is None:
        return None
    limits = np.get(("spec", "limits"))
    return {str(k): v for k, v in limits.items()} if isinstance(limits, dict) else None


def _shown(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _capacity_floor(it, resource: str, unknown: frozenset) -> Fraction | None:
    """A lower bound of the instance type's capacity of `resource` (what `filterByRemainingResources` compares):
    the vCPU count for cpu, else the catalog's allocatable (capacity minus overhead); None when unknown."""
    if resource == "nodes":
        return None  # (not an instance type's capacity: only `nodes: 0` stops the pool, see `_never`)
    if resource == "cpu":
        vcpus = quantity.parse(it.labels.get("karpenter.k8s.aws/instance-cpu"))
        if vcpus is not None:
            return vcpus
    if resource in ("pods", "ephemeral-storage") and resource in unknown:
        return None  # (maxPods, block devices: the class decides)
    got = allocatable(it).get(resource)
    return Fraction(got) if got is not None else None


def _never(sim: PoolSimulation | None, limits: dict[str, Fraction]) -> str | None:
    """Why no instance type of the pool fits under the limits on its own (the pool can never launch), or None."""
    if sim is None or sim.unknown or not sim.types or not limits:
        return None
    if limits.get("nodes") == 0:
        return "`nodes: 0`: no node may be launched"
    blocked_by: dict[str, tuple] = {}
    for it in sim.types:
        culprit = None
        for resource, limit in sorted(limits.items()):
            floor = _capacity_floor(it, resource, sim.facts.unknown_resources)
            if floor is not None and floor > limit:
                culprit = resource
                break
        if culprit is None:
            return None
        best = blocked_by.get(culprit)
        floor = _capacity_floor(it, culprit, sim.facts.unknown_resources)
        if best is None or floor < best[0]:
            blocked_by[culprit] = (floor, it.name)
    parts = [f"{resource} limit {quantity.show(resource, limits[resource])} is below the smallest admissible "
             f"instance type ({name}, {quantity.show(resource, floor)} {resource})"
             for resource, (floor, name) in sorted(blocked_by.items())]
    return "; ".join(parts)


def _parsed(limits: dict | None) -> dict[str, Fraction]:
    return {k: q for k, v in (limits or {}).items() if (q := quantity.parse(v)) is not None}


def _limits(pair, base_sim: PoolSimulation | None, head_sim: PoolSimulation | None) -> dict | None:
    before, after = _limits_of(pair.base), _limits_of(pair.head)
    if not before and not after:
        return None
    changes = []
    for resource in sorted(set(before or {}) | set(after or {})) if pair.base is not None and pair.head is not None \
            else ():  # (an added or removed pool: its limits are listed, there is no change to explain)
        old, new = (before or {}).get(resource), (after or {}).get(resource)
        q_old, q_new = quantity.parse(old), quantity.parse(new)
        if (q_old is not None and q_old == q_new) or (q_old is None and q_new is None and old == new):
            continue
        change = {"resource": resource, "before": None if old is None else _shown(old),
                  "after": None if new is None else _shown(new)}
        if new is None:
            change.update(change="removed", meaning=f"no {resource} limit any more: Karpenter launches nodes for "
                                                    "pending pods without that bound")
        elif q_new is None or (old is not None and q_old is None):
            change.update(change="unreadable", meaning="cannot tell: the quantity is not one karplint can read")
        elif old is None or q_new < q_old:
            change.update(change="added" if old is None else "lowered",
                          meaning=f"Karpenter launches no node that would take the pool's {resource} past "
                                  f"{_shown(new)}; running nodes are not removed, even when they are over it")
        else:
            change.update(change="raised", meaning=f"Karpenter may launch nodes up to {_shown(new)} {resource}")
        changes.append(change)
    never = _never(head_sim, _parsed(after)) if pair.head is not None else None
    if never and pair.base is not None and _never(base_sim, _parsed(before)):
        never = None  # (it could not launch before either: not this change's doing)
    if not changes and not never and pair.base is not None and pair.head is not None:
        return None
    out = {"before": before, "after": after, "changes": changes, "source": f"{LIMITS_SOURCE}; {LIMITS_DOC}"}
    if never:
        out["never_launches"] = f"{never}: the pool can never launch a node"
    return out


# ----------------------------------------------------------------------------------------------- workloads

def _key(res: Resource) -> tuple:
    return (res.kind, res.namespace, res.name)


def _paired(base: _Side, head: _Side) -> list[tuple[Pod, Pod, list[tuple[int, Resource]]]]:
    """Workloads (DaemonSets aside) present on both sides, by kind/namespace/name (and file when a name repeats
    on a side: kustomize overlays); what stays ambiguous is left out. Grouped by what a verdict reads of them on
    each side (most workloads share their constraints): (a base pod, a head pod, [(order, head workload)])."""
    memo = head.model.memo.setdefault("diff capacity pairs", {})
    found = memo.get(id(base))
    if found is not None and found[0] is base:
        return found[1]
    by_key: list[dict] = []
    for side in (base, head):
        got: dict[tuple, list[Pod]] = {}
        for pod in side.pods:
            if pod.res.kind != "DaemonSet" and pod.res.name is not None:
                got.setdefault(_key(pod.res), []).append(pod)
        by_key.append(got)
    pairs = []
    for key, olds in by_key[0].items():
        news = by_key[1].get(key)
        if not news:
            continue
        if len(olds) == 1 and len(news) == 1:
            pairs.append((olds[0], news[0]))
            continue
        for old in olds:
            same = [p for p in news if str(p.res.doc.path) == str(old.res.doc.path)]
            if len(same) == 1 and sum(str(p.res.doc.path) == str(old.res.doc.path) for p in olds) == 1:
                pairs.append((old, same[0]))
    groups: dict[tuple, tuple] = {}
    for n, (old, new) in enumerate(pairs):
        if old.unknown or new.unknown:
            continue  # (cannot tell: nothing is said)
        group = groups.setdefault((old.placement_key, new.placement_key), (old, new, []))
        group[2].append((n, new.res))
    out = list(groups.values())
    memo[id(base)] = (base, out)
    return out


def _name(res: Resource) -> str:
    return "/".join(str(p) for p in (res.kind, res.namespace, res.name) if p is not None)


def _line(res: Resource) -> int:
    doc = res.doc
    return doc.key_span(("metadata", "name")).line if res.name is not None else doc.span(()).line


def _closest(v: Verdict | None) -> str:
    return f"NodePool `{v.pool}`: {v.reason}" if v is not None else "no NodePool is left"


def _budget(base: _Side, head: _Side) -> PlacementBudget:
    """One placement budget for the whole change, as `simulate` has one per run: the pairs share each side's
    verdicts, and however many NodePools changed, no more verdicts than the budget are asked."""
    memo = head.model.memo.setdefault("diff capacity budgets", {})
    found = memo.get(id(base))
    if found is None or found[0] is not base:
        found = memo[id(base)] = (base, PlacementBudget())
    return found[1]


def _workloads(pair, base: _Side, head: _Side) -> dict | None:
    old_sim, why_old = base.sim(pair.base) if pair.base is not None else (None, None)
    new_sim, why_new = head.sim(pair.head) if pair.head is not None else (None, None)
    if why_old or why_new:
        return None  # (the pool's own verdicts cannot be told on a side: nothing is said about its workloads)
    for side, which in ((base, "base"), (head, "head")):
        if not side.pools_complete:
            return {"unschedulable": [], "schedulable": [],
                    "unknown": f"the {which} side has NodePools karplint does not simulate (static, or past a "
                               "budget): whether a workload has a NodePool there cannot be told"}
    # A pool that hosts exactly as before (same requirements, taints, types, node class facts and DaemonSets)
    # gives an unchanged workload the same verdict: only the workloads that changed themselves are asked.
    same = old_sim is not None and new_sim is not None and _hosting(old_sim, base) == _hosting(new_sim, head)
    budget = _budget(base, head)
    verdicts: dict[tuple, bool | None] = {}  # (side, placement key) -> the pool's verdict, asked once per pair

    def hosts(sim: PoolSimulation | None, side: _Side, pod: Pod) -> bool | None:
        if sim is None:
            return False  # (no such pool on that side)
        key = (side is head, pod.placement_key)
        if key not in verdicts:
            verdicts[key] = host(pod, sim, side.daemons, any_type=True).ok if budget.take(1) else None
        return verdicts[key]

    lost, gained = [], []
    for old, new, members in _paired(base, head):
        if same and old.placement_key == new.placement_key:
            continue
        was, now = hosts(old_sim, base, old), hosts(new_sim, head, new)
        if budget.left < 0:
            break
        changed = " (its own node selection, tolerations or requests changed too)" \
            if old.placement_key != new.placement_key else ""
        if was is True and now is False:
            hostable, closest = head.hostable(new, budget)
            if hostable is False:
                why = (f"NodePool `{pair.name}` no longer can: {host(new, new_sim, head.daemons, any_type=True).reason}"
                       if new_sim is not None else f"NodePool `{pair.name}`, which could host it, is removed")
                if closest is None:
                    why += "; no NodePool is left"
                elif closest.pool != pair.name:
                    why += f"; closest now: {_closest(closest)}"
                lost.extend((n, _entry(res, why + changed)) for n, res in members)
        elif was is False and now is True:
            hostable, closest = base.hostable(old, budget)
            if hostable is False:
                why = f"NodePool `{pair.name}` can host it now; before, " + (
                    f"no NodePool could (closest: {_closest(closest)})" if closest is not None else
                    "there was no NodePool")
                gained.extend((n, _entry(res, why + changed)) for n, res in members)
    lost = [entry for _n, entry in sorted(lost, key=lambda item: item[0])]  # (the workloads' order)
    gained = [entry for _n, entry in sorted(gained, key=lambda item: item[0])]
    out: dict[str, Any] = {"unschedulable": lost, "schedulable": gained}
    if budget.left < 0:
        out["unknown"] = f"not every workload was checked: {budget.too_large()}"
    elif not lost and not gained:
        return None
    return out


def _hosting(sim: PoolSimulation, side: _Side) -> tuple:
    """What `workloads.host` reads of a NodePool and its side, comparable across sides."""
    return (frozenset((k, r.complement, r.values, r.gte, r.lte, r.min_values)
                      for k, r in sim.requirements.by_key.items()),
            repr(sim.taints), [t.name for t in sim.types], sim.facts,
            [(d.pod.placement_key, d.name) for d in side.daemons])


def _entry(res: Resource, why: str) -> dict:
    return {"workload": _name(res), "file": str(res.doc.path), "line": _line(res), "why": why}


# ----------------------------------------------------------------------------------------------- the pair

def capacity_change(pair, *, base_model: Model, head_model: Model, catalog: Catalog,
                    base_release=None, release=None) -> dict | None:
    """What the change does to the pool's capacity (see the module's docstring); None when nothing about it
    changed. `base_release`/`release` are accepted for the contract: the bundled catalog is the same at every
    release, and the AMI family's effect (Windows: amd64 types only) comes from each side's EC2NodeClass."""
    if pair.kind != "NodePool" or (pair.base is None and pair.head is None):
        return None
    # (the two models live to the end: `karplint diff` freezes them out of the cyclic collector's sight once read,
    # which halves this function's time on a 10,000-file tree)
    head = _side(head_model, catalog)
    base = _side(base_model, catalog)
    types = _types(pair, base, head, catalog)
    base_sim = base.sim(pair.base)[0] if pair.base is not None else None
    head_sim = head.sim(pair.head)[0] if pair.head is not None else None
    limits = _limits(pair, base_sim, head_sim)
    workloads = _workloads(pair, base, head)
    if types is None and limits is None and workloads is None:
        return None
    out: dict[str, Any] = {"types_before": None, "types_after": None, "gained": [], "lost": [], "gained_count": 0,
                           "lost_count": 0, "families_gained": [], "families_lost": []}
    if types is not None:
        out.update(types)
    elif pair.head is not None and head_sim is not None and not head_sim.unknown:
        out["types_before"] = out["types_after"] = len(head_sim.types)  # (unchanged: said as such)
    out["limits"] = limits
    out["workloads"] = workloads
    out["summary"] = _summary(pair, out)
    return out


def _names(items: list[str], what: str) -> str:
    shown = ", ".join(items[:SHOWN_FAMILIES]) + (f" and {len(items) - SHOWN_FAMILIES:,} more"
                                                 if len(items) > SHOWN_FAMILIES else "")
    return f"{shown} {what}"


def _summary(pair, doc: dict) -> str:
    parts = []
    before, after = doc["types_before"], doc["types_after"]
    if doc.get("types_unknown"):
        parts.append(f"instance types cannot be told ({doc['types_unknown']})")
    elif pair.base is None and after is not None:
        parts.append(f"new NodePool: {counted(after, 'instance type')}")
    elif pair.head is None and before is not None:
        parts.append(f"NodePool removed: its {counted(before, 'instance type')} no longer launched by it")
    elif before is not None and after is not None and (doc["gained_count"] or doc["lost_count"] or
                                                        doc.get("capacity_types_gained") or
                                                        doc.get("capacity_types_lost")):
        notes = []
        for key, one, many in (("families_lost", "family lost", "families lost"),
                               ("families_gained", "family gained", "families gained"),
                               ("arch_lost", "architecture lost", "architectures lost"),
                               ("arch_gained", "architecture gained", "architectures gained"),
                               ("capacity_types_lost", "capacity lost", "capacity lost"),
                               ("capacity_types_gained", "capacity gained", "capacity gained")):
            if doc.get(key) and after:  # (none left: what emptied the pool is the news, not what it lost)
                notes.append(_names(doc[key], one if len(doc[key]) == 1 else many))
        counts = f"{after:,}" if before == after and not doc["gained_count"] else f"{before:,} -> {after:,}"
        text = f"{counts} instance types" + (f" ({'; '.join(notes)})" if notes else "")
        if doc.get("emptied_by"):
            text += f": {doc['emptied_by']}"
        parts.append(text)
    limits = doc.get("limits")
    if limits:
        for c in limits["changes"]:
            parts.append(f"{c['resource']} limit {c['change']}" + (
                f" {c['before']} -> {c['after']}" if c["before"] is not None and c["after"] is not None else ""))
        if limits.get("never_launches"):
            parts.append(limits["never_launches"])
    workloads = doc.get("workloads")
    if workloads:
        if workloads["unschedulable"]:
            parts.append(f"{counted(len(workloads['unschedulable']), 'workload')} no longer schedulable")
        if workloads["schedulable"]:
            parts.append(f"{counted(len(workloads['schedulable']), 'workload')} newly schedulable")
        if workloads.get("unknown"):
            parts.append(f"workloads: {workloads['unknown']}")
    return "; ".join(parts) if parts else "instance types and limits unchanged"
