"""Which NodePools a workload is judged on, and which DaemonSets run on a NodePool's nodes: worked out here once,
for KPL910 (karplint/rules/scheduling.py) and `karplint simulate` alike, so that both give one answer.

A run may hold several projects or clusters (a monorepo). A workload is judged on the NodePools of its own
directory, of the directories above it and of those below it (its scope, named in messages); the nodes
of a NodePool carry the DaemonSets of related directories alike. When none is near it but its pods select NodePools
by name (`karpenter.sh/nodepool`, a label only the nodes of the NodePool of that name carry) and NodePools of the
run have those names, it is judged on those (a platform directory beside the applications'); NodePools it names
that live elsewhere join the near ones. Otherwise a workload with no NodePool in scope is not judged: nothing in the
files says where it runs.

Nearness decides which workloads are judged, never that one is unschedulable: a workload none of the NodePools in
its scope can host is reported only if no other NodePool of the run can host it either (`Scopes.others`). A
repository often keeps the cluster's general NodePools in one directory (`cluster/`) and examples that rely on
them in others (aws-samples/karpenter-blueprints `blueprints/node-overlay/workload-generation.yaml`, hosted by
the `default` NodePool of `cluster/terraform/karpenter.tf`).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import lru_cache


@lru_cache(maxsize=4096)
def dirname(path: str) -> str:
    return posixpath.dirname(path)


@lru_cache(maxsize=65536)
def related(a: str, b: str) -> bool:
    """Files in the same directory, or one's directory inside the other's."""
    return a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/") or not a or not b


def directory_of(res) -> str:
    return dirname(str(res.doc.path))


@dataclass(frozen=True)
class Scope:
    """The NodePools (simulations, in the model's order) a workload of `directory` is judged on."""

    directory: str
    pools: tuple
    whole_run: bool  # every NodePool of the run is in it
    key: tuple = ()  # the NodePools' identities: workloads with the same constraints and key share verdicts
    by_name: bool = False  # none is near it: the NodePools its `karpenter.sh/nodepool` selector names

    def short(self) -> str:
        """The scope in a headline: "of the checked files", "near it", "it selects by name"."""
        return "it selects by name" if self.by_name else "of the checked files" if self.whole_run else "near it"

    def describe(self) -> str:
        """Where the NodePools judged come from, for a message: "of the checked files", "near `apps/web`"."""
        if self.by_name:
            return "named by its `karpenter.sh/nodepool` selector (none is in its directory, above or below it)"
        if self.whole_run:
            return "of the checked files"
        return f"in `{self.directory or '.'}` or a directory above or below it"


class Scopes:
    """Every workload's Scope over one run's NodePool simulations, worked out once per directory."""

    def __init__(self, pools: list, cluster=None):
        """`cluster(resource)`: the cluster a resource belongs to (None: shared by all), when the run holds several
        (`clusters`); `check` runs once per cluster instead and passes none."""
        self._pools = pools
        self._cluster = cluster
        self._order = {id(sim): i for i, sim in enumerate(pools)}
        self._by_dir: dict[str, list] = {}
        for sim in pools:
            self._by_dir.setdefault(directory_of(sim.nodepool), []).append(sim)
        self._scopes: dict[str, Scope] = {}
        self._daemons: dict[str, list] = {}

    def of(self, res, names: frozenset | None = None) -> Scope:
        """`res`'s Scope; `names`: the NodePools its pods select by name (`selected_pool_names`), if any."""
        where = directory_of(res)
        scope = self._scopes.get(where)
        if scope is None:
            mine = sorted((sim for d, sims in self._by_dir.items() if related(d, where) for sim in sims),
                          key=lambda sim: self._order[id(sim)])
            scope = self._scopes[where] = Scope(where, tuple(mine), len(mine) == len(self._pools),
                                                tuple(map(id, mine)))
        if not names:
            return scope
        near = set(scope.key)
        named = [sim for sim in self._pools if sim.name in names and id(sim) not in near]
        if not named:
            return scope
        pools = tuple(sorted(list(scope.pools) + named, key=lambda sim: self._order[id(sim)]))
        return Scope(where, pools, len(pools) == len(self._pools), tuple(map(id, pools)), by_name=not scope.pools)

    def hosts_elsewhere(self, pod, scope: Scope, judge, budget, first: bool = False) -> list | None:
        """The verdicts (`judge(sim)`) of the NodePools of `pod`'s cluster outside `scope` that can or may host it,
        asked only when none in scope can (KPL910 and `simulate` alike); the first only with `first`; None when the
        placement budget cannot cover them."""
        others = self.others(scope, pod.res)
        if not budget.take(len(others)):
            return None
        found = []
        for sim in others:
            v = judge(sim)
            if v.ok is not False:
                found.append(v)
                if first:
                    break
        return found

    def others(self, scope: Scope, res) -> tuple:
        """The NodePools of `res`'s cluster outside `scope`: asked only when none in it can host the workload."""
        inside = set(scope.key)
        outside = [sim for sim in self._pools if id(sim) not in inside]
        mine = self._cluster(res) if self._cluster is not None else None
        if mine is None:
            return tuple(outside)
        return tuple(sim for sim in outside if self._cluster(sim.nodepool) in (None, mine))

    def daemons_of(self, sim, daemons: list) -> list:
        """The DaemonSets (`workloads.Daemon`) of `daemons` whose directory is related to the NodePool's."""
        where = directory_of(sim.nodepool)
        found = self._daemons.get(where)
        if found is None:
            found = self._daemons[where] = [d for d in daemons if related(where, directory_of(d.pod.res))]
        return found


def selected_pool_names(pod) -> frozenset | None:
    """The NodePool names a pod's every alternative restricts itself to (None: not restricted by name)."""
    out: set[str] = set()
    for term in pod.terms or []:
        r = term.by_key.get("karpenter.sh/nodepool")
        if r is None or r.complement:
            return None
        out |= set(r.values)
    return frozenset(out) if pod.terms else None
