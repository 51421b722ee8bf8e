"""The whole run simulated: every NodePool's launchable instance types, every workload's possible NodePools.

Used by the KPL9xx rules and by `karplint simulate`. The caller tells what each NodePool's EC2NodeClass says
(`facts_for`), so this package needs no rule helpers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from karplint.model import Model, Resource
from karplint.provisioning.catalog import Catalog
from karplint.provisioning.nodepools import NodeClassFacts, PoolSimulation, simulate_pool
from karplint.provisioning.workloads import Pod, Verdict, daemons, host, read_pod

MAX_POOLS = 500
MAX_WORKLOADS = 5000


@dataclass
class WorkloadResult:
    pod: Pod
    verdicts: list[Verdict] = field(default_factory=list)  # closest miss first

    @property
    def hostable(self) -> bool | None:
        """True if some NodePool can host it, None if some cannot tell, False if none can."""
        if any(v.ok for v in self.verdicts):
            return True
        if any(v.ok is None for v in self.verdicts) or not self.verdicts:
            return None
        return False


@dataclass
class RunSimulation:
    pools: list[PoolSimulation]
    workloads: list[WorkloadResult]


def simulate_pools(model: Model, catalog: Catalog,
                   facts_for: Callable[[Resource], NodeClassFacts] = lambda np: NodeClassFacts()) -> list[PoolSimulation]:
    out = []
    for np in list(model.nodepools())[:MAX_POOLS]:
        if np.get(("spec", "replicas")) is not None:
            continue  # static NodePool: the cloud provider picks the type
        out.append(simulate_pool(np, catalog, facts_for(np)))
    return out


def simulate_workloads(model: Model, pools: list[PoolSimulation], only: Callable[[Pod], bool] | None = None,
                       related: Callable[[Resource, Resource], bool] | None = None) -> list[WorkloadResult]:
    """Verdicts for every workload (DaemonSets excepted) on every NodePool. `related(nodepool, daemonset)`
    says which DaemonSets belong to a NodePool's cluster (default: all of the run)."""
    pods = [p for p in (read_pod(r) for r in list(model.workloads())[:MAX_WORKLOADS]) if p is not None]
    ds = daemons(pods)
    per_pool = [[d for d in ds if related is None or related(sim.nodepool, d.pod.res)] for sim in pools]
    out = []
    for pod in pods:
        if pod.res.kind == "DaemonSet":
            continue  # Karpenter does not provision for DaemonSet pods
        if only is not None and not only(pod):
            continue
        verdicts = [host(pod, sim, per_pool[i]) for i, sim in enumerate(pools)]
        verdicts.sort(key=lambda v: (v.ok is not True, -v.stage, v.pool))
        out.append(WorkloadResult(pod, verdicts))
    return out


def simulate(model: Model, catalog: Catalog,
             facts_for: Callable[[Resource], NodeClassFacts] = lambda np: NodeClassFacts()) -> RunSimulation:
    pools = simulate_pools(model, catalog, facts_for)
    return RunSimulation(pools, simulate_workloads(model, pools))
