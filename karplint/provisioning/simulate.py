"""The whole run simulated: every NodePool's launchable instance types, every workload's possible NodePools.

Used by the KPL9xx rules and by `karplint simulate`. The caller tells what each NodePool's EC2NodeClass says
(`facts_for`), so this package needs no rule helpers.

The work is bounded (SECURITY.md, "Time and memory bombs"): at most `MAX_POOLS` NodePools and `MAX_WORKLOADS`
workloads, `MAX_DISTINCT_VALUES` distinct requirement values over the run's NodePools (an unknown value costs a
spelling search through the catalog), and `placement.MAX_PLACEMENT_CHECKS` pod-NodePool verdicts. What a budget
leaves out is listed in `Omitted`, never dropped silently: the rules report it as KPL004, `simulate` prints it.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any, Callable

from karplint.model import Model, Resource
from karplint.provisioning.catalog import Catalog
from karplint.provisioning.nodepools import (NODECLASS_KEY, NodeClassFacts, PoolSimulation, class_incompatible,
                                             explain_empty, simulate_pool)
from karplint.provisioning.placement import PlacementBudget
from karplint.provisioning.pods import Pod, read_pod, runtime_class_overheads
from karplint.provisioning.workloads import Verdict, daemons, host
from karplint.readers.templating import has_placeholder

MAX_POOLS = 500
MAX_WORKLOADS = 5000
# Distinct (key, value) pairs written in the NodePools' requirements. The catalog holds about 3,000 distinct label
# values, and NodePools repeat each other's: only hostile input comes near.
MAX_DISTINCT_VALUES = 20_000
SHOWN_VERDICTS = 10  # per workload, `simulate` lists the NodePools that can host it and the closest misses


@dataclass
class Omitted:
    """What a budget left out, on the resource where it starts: `path` is where to report it."""

    resource: Resource
    path: tuple
    message: str


@dataclass
class WorkloadResult:
    pod: Pod
    verdicts: list[Verdict] = field(default_factory=list)  # closest miss first; at most `SHOWN_VERDICTS`
    counts: dict = field(default_factory=dict)  # True / False / None -> how many NodePools said so
    scope: Any = None  # the `provisioning.scope.Scope` it was judged in

    @property
    def hostable(self) -> bool | None:
        """True if some NodePool can host it, None if some cannot tell, False if none can."""
        if self.counts.get(True):
            return True
        if self.counts.get(None) or not self.counts:
            return None
        return False


@dataclass
class RunSimulation:
    pools: list[PoolSimulation]
    workloads: list[WorkloadResult]
    omitted: list[Omitted] = field(default_factory=list)


def _values_written(np: Resource) -> list[tuple[str, str]]:
    """(key, value) of every value the NodePool's requirements list (what `pool_sources` will read)."""
    items = np.get(("spec", "template", "spec", "requirements"))
    out = []
    for item in items if isinstance(items, list) else ():
        values = item.get("values") if isinstance(item, dict) else None
        if isinstance(values, list):
            key = str(item.get("key"))
            out.extend((key, str(v)) for v in values if not isinstance(v, (dict, list)))
    return out


def simulate_pools(model: Model, catalog: Catalog,
                   facts_for: Callable[[Resource], NodeClassFacts] = lambda np: NodeClassFacts(),
                   omitted: list[Omitted] | None = None) -> list[PoolSimulation]:
    """Every NodePool's simulation, in the model's order; what the budgets leave out goes to `omitted`."""
    out = []
    nodepools = list(model.nodepools())
    seen: set[tuple[str, str]] = set()
    overlays = overlay_resources(model)
    for i, np in enumerate(nodepools):
        if i == MAX_POOLS:
            if omitted is not None:
                omitted.append(Omitted(np, ("metadata", "name"), (
                    f"NodePool `{np.name}` and the {len(nodepools) - MAX_POOLS - 1:,} after it were not simulated: "
                    f"too large (the run has {len(nodepools):,} NodePools, over karplint's budget of {MAX_POOLS:,})"
                    "\nnote: no provisioning verdict (KPL901-KPL910) covers them, and no workload of the run is "
                    "checked against the NodePools (KPL910)")))
            break
        if np.get(("spec", "replicas")) is not None:
            continue  # static NodePool: the cloud provider picks the type
        written = _values_written(np)
        new = {kv for kv in written if kv not in seen}
        if len(seen) + len(new) > MAX_DISTINCT_VALUES:
            sim = PoolSimulation(np, np.name or "?", unknown="its requirements are too large to simulate")
            out.append(sim)
            if omitted is not None:
                omitted.append(Omitted(np, ("spec", "template", "spec", "requirements"), (
                    f"NodePool `{np.name}` was not simulated: too large (its requirements list {len(written):,} "
                    f"values, {len(new):,} of them new to the run, over karplint's budget of "
                    f"{MAX_DISTINCT_VALUES:,} distinct requirement values per run)\n"
                    "note: no provisioning verdict (KPL901-KPL910) covers it, nor the workloads it may host")))
            continue
        seen |= new
        out.append(simulate_pool(np, catalog, facts_for(np)))
        out[-1].memo["overlay_resources"] = overlays
    return out


def overlay_resources(model: Model) -> frozenset:
    """The resources the run's NodeOverlays add to instance types (`spec.capacity`, kubernetes-sigs/karpenter
    pkg/apis/v1alpha1/nodeoverlay.go@v1.14.1#L84); "*" when one cannot be read. Requests for them cannot be judged."""
    out: set[str] = set()
    for res in model.of_kind("NodeOverlay"):
        capacity = res.get(("spec", "capacity"))
        if capacity is None:
            continue
        if isinstance(capacity, dict) and all(isinstance(k, str) and not has_placeholder(k) for k in capacity):
            out.update(capacity)
        else:
            out.add("*")
    return frozenset(out)


def placement_omitted(res: Resource, after: int, budget: PlacementBudget) -> Omitted:
    return Omitted(res, ("metadata", "name"), (
        f"{res.kind} `{res.name}` and the {after:,} workloads after it were not checked against the NodePools: "
        f"{budget.too_large()}"))


def workloads_omitted(model: Model) -> Omitted | None:
    """The workloads past `MAX_WORKLOADS`, if any."""
    workloads = list(model.workloads())
    if len(workloads) <= MAX_WORKLOADS:
        return None
    res = workloads[MAX_WORKLOADS]
    return Omitted(res, ("metadata", "name"), (
        f"{res.kind} `{res.name}` and the {len(workloads) - MAX_WORKLOADS - 1:,} workloads after it were not "
        f"checked against the NodePools: too large (the run has {len(workloads):,} workloads, over karplint's "
        f"budget of {MAX_WORKLOADS:,})"))


def _rank(v: Verdict) -> tuple:
    return (v.ok is not True, -v.stage, v.pool)


def simulate_workloads(model: Model, pools: list[PoolSimulation], only: Callable[[Pod], bool] | None = None,
                       omitted: list[Omitted] | None = None, cluster=None) -> list[WorkloadResult]:
    """Verdicts for every workload (DaemonSets excepted) on every NodePool of its scope (`provisioning.scope`, as
    KPL910 judges it): per workload, how many NodePools can host it, cannot, cannot tell, and the `SHOWN_VERDICTS`
    first (hosts, then the closest misses). A NodePool's nodes carry the DaemonSets of related directories.
    `cluster(resource)`: its cluster when the run holds several (`provisioning.scope.Scopes`)."""
    from karplint.provisioning.scope import Scopes, selected_pool_names

    classes = runtime_class_overheads(model.of_kind("RuntimeClass", group="node.k8s.io"))
    pods = [p for p in (read_pod(r, classes) for r in list(model.workloads())[:MAX_WORKLOADS]) if p is not None]
    if omitted is not None:
        past = workloads_omitted(model)
        if past is not None:
            omitted.append(past)
    ds = daemons(pods)
    scopes = Scopes(pools, cluster)
    budget = PlacementBudget()
    candidates = [pod for pod in pods if pod.res.kind != "DaemonSet"  # Karpenter does not provision for them
                  and (only is None or only(pod))]
    out = []
    seen: dict[tuple, WorkloadResult] = {}  # pods with the same constraints and scope get the same verdicts
    for n, pod in enumerate(candidates):
        scope = scopes.of(pod.res, selected_pool_names(pod))
        same = seen.get((pod.placement_key, scope.key))
        if same is not None:
            out.append(WorkloadResult(pod, same.verdicts, same.counts, scope))
            continue
        if not budget.take(len(scope.pools)):
            if omitted is not None:
                omitted.append(placement_omitted(pod.res, len(candidates) - n - 1, budget))
            break
        counts: dict = {}

        def verdicts(pod=pod, counts=counts, scope=scope):
            for sim in scope.pools:
                v = host(pod, sim, scopes.daemons_of(sim, ds))
                counts[v.ok] = counts.get(v.ok, 0) + 1
                yield v

        # Only the verdicts shown are kept: thousands of NodePools times thousands of workloads stay small.
        shown = heapq.nsmallest(SHOWN_VERDICTS, verdicts(), key=_rank)
        if scope.pools and not scope.whole_run and not counts.get(True) and not counts.get(None):
            # None near it can host it: a NodePool elsewhere in the run that can clears it, as in KPL910
            found = scopes.hosts_elsewhere(pod, scope, lambda sim: host(pod, sim, scopes.daemons_of(sim, ds)), budget)
            if found:
                for v in found:
                    counts[v.ok] = counts.get(v.ok, 0) + 1
                shown = heapq.nsmallest(SHOWN_VERDICTS, found + shown, key=_rank)
        out.append(WorkloadResult(pod, shown, counts, scope))
        seen[(pod.placement_key, scope.key)] = out[-1]
    return out


def simulate(model: Model, catalog: Catalog,
             facts_for: Callable[[Resource], NodeClassFacts] = lambda np: NodeClassFacts(),
             only: Callable[[Pod], bool] | None = None, cluster=None) -> RunSimulation:
    """Every NodePool, and the workloads `only` keeps (default: all) on the NodePools of their scope."""
    omitted: list[Omitted] = []
    pools = simulate_pools(model, catalog, facts_for, omitted)
    return RunSimulation(pools, simulate_workloads(model, pools, only=only, omitted=omitted, cluster=cluster),
                         omitted)


def pool_report(sim: PoolSimulation) -> dict[str, Any]:
    """One NodePool's simulation as plain data: what `karplint simulate --output-format json` prints for it (and
    what the editor's hover shows): launchable types, families, sizes, cpu/memory range, architectures, capacity
    types, what each requirement removes, and why nothing is left when nothing is."""
    entry: dict[str, Any] = {"name": sim.name, "file": str(sim.nodepool.doc.path),
                             "line": _name_line(sim.nodepool), "ami_family": sim.facts.ami_family}
    if sim.unknown:
        entry["unknown"] = sim.unknown
        return entry
    entry.update(sim.summary())
    entry["removed_by"] = {s.text: sim.removed_by(s.key) for s in sim.sources}
    if sim.min_values_short:
        entry["min_values_short"] = {k: {"min_values": a, "distinct": b} for k, (a, b) in sim.min_values_short.items()}
    why = explain_empty(sim)
    if why is not None:
        # (the node class's own exclusion is not a label: said in words, `class_incompatible`)
        said = {NODECLASS_KEY: class_incompatible(sim.type_reqs.catalog, sim.facts)[0]} \
            if NODECLASS_KEY in why.keys and hasattr(sim.type_reqs, "catalog") else {}
        entry["emptied_by"] = [said.get(k, k) for k in why.keys]
        entry["example"] = {"instance_type": why.example, "passes_without": [said.get(k, k) for k in why.without]}
    return entry


def _name_line(res: Resource) -> int:
    name = res.get(("metadata", "name"))
    return res.doc.key_span(("metadata", "name")).line if name is not None else res.doc.span(()).line
