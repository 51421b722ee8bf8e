"""Workloads no NodePool can host (KPL910), from the run's provisioning simulation (karplint/rules/_simulation.py).

When is "no NodePool can host this workload" reported? Workloads also run on capacity Karpenter does not manage
(managed node groups, Fargate, other clusters' pools), so only when the pod says it wants Karpenter's nodes:
- error: its nodeSelector or every required node-affinity term selects a label only Karpenter nodes carry
  (`karpenter.sh/nodepool`, `karpenter.sh/capacity-type`, `karpenter.k8s.aws/*`);
- warning: it selects a custom label that a NodePool of the run sets, or tolerates a taint a NodePool of the run
  sets (it was written for those pools);
- nothing otherwise, and nothing when any NodePool of the run cannot be simulated;
- with `[tool.karplint.cluster] karpenter-only = true` (the checked NodePools are the cluster's only capacity),
  an error for every workload with node constraints or tolerations (the only ones read, for speed).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator

from karplint.model import Model, Resource, karpenter_resources, of_kinds
from karplint.provisioning.placement import PLACEMENT_KEYS
from karplint.readers.document import Document
from karplint.rules import rule
from karplint.rules._simulation import KARPENTER_ONLY_PREFIXES, catalog_date, catalog_name, simulation, too_large


def pods_with_node_constraints(doc: Document, res: Resource | None) -> bool:
    """Workloads whose pods select nodes or tolerate taints, and DaemonSets (their overhead counts)."""
    if res is None or res.pod_template is None:
        return False
    if res.kind == "DaemonSet":
        return True
    spec = res.get(res.pod_template[1])
    return isinstance(spec, dict) and any(k in spec for k in PLACEMENT_KEYS)


def _pool_dir(sim) -> str:
    return _dirname(str(sim.nodepool.doc.path))


@lru_cache(maxsize=4096)
def _dirname(path: str) -> str:
    import posixpath
    return posixpath.dirname(path)


@lru_cache(maxsize=65536)
def _dirs_related(a: str, b: str) -> bool:
    """Files in the same directory, or one's directory inside the other's."""
    return a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/") or not a or not b


def _selected_pool_names(pod) -> set[str] | None:
    """The NodePool names a pod's every alternative restricts itself to (None: not restricted by name)."""
    out: set[str] = set()
    for term in pod.terms or []:
        r = term.by_key.get("karpenter.sh/nodepool")
        if r is None or r.complement:
            return None
        out |= set(r.values)
    return out if pod.terms else None


def _pool_marks(pools) -> tuple[set, set]:
    """The custom label keys and the taint keys the NodePools set."""
    from karplint.provisioning.requirements import WELL_KNOWN_LABELS
    pool_keys: set = set()
    pool_taints: set = set()
    for sim in pools:
        pool_keys |= {s.key for s in sim.sources if s.key not in WELL_KNOWN_LABELS}
        pool_taints |= {t.get("key") for t in sim.taints if t.get("effect") in ("NoSchedule", "NoExecute")
                        and isinstance(t.get("key"), str)}  # (a map or list as the key: the schema's finding)
    return pool_keys, pool_taints


def _may_target(res: Resource, marks: tuple[set, set]) -> bool:
    """A cheap superset of `_targeting` on the raw pod spec: whether any node selector key, required affinity key
    or toleration names a Karpenter-only label, a NodePool's custom label or a NodePool's taint (pods for which it
    is False are never read)."""
    spec = res.get(res.pod_template[1]) if res.pod_template else None
    if not isinstance(spec, dict):
        return True  # (read_pod says what it makes of it)
    pool_keys, pool_taints = marks
    keys = set(spec["nodeSelector"]) if isinstance(spec.get("nodeSelector"), dict) else set()
    affinity = spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    for term in terms if isinstance(terms, list) else ():
        for expr in term.get("matchExpressions") or () if isinstance(term, dict) else ():
            if isinstance(expr, dict) and isinstance(expr.get("key"), str):  # (a map or list there: the schema's)
                keys.add(expr["key"])
    if any(isinstance(k, str) and (k.startswith(KARPENTER_ONLY_PREFIXES) or k in pool_keys) for k in keys):
        return True
    tolerations = spec.get("tolerations")
    return isinstance(tolerations, list) and any(isinstance(t, dict) and isinstance(t.get("key"), str)
                                                 and t["key"] in pool_taints for t in tolerations)


def _targeting(pod, pools, marks=None) -> str | None:
    """'error' when the pod selects Karpenter-only labels, 'warning' when it selects or tolerates what a
    NodePool of the run sets, else None (it may run on capacity Karpenter does not manage)."""
    positive = []
    for term in pod.terms or []:
        positive.append({k for k, r in term.by_key.items() if r.operator() not in ("NotIn", "DoesNotExist")})
    if positive and all(any(k.startswith(KARPENTER_ONLY_PREFIXES) for k in keys) for keys in positive):
        return "error"
    pool_keys, pool_taints = marks if marks is not None else _pool_marks(pools)
    if positive and all(any(k in pool_keys for k in keys) for keys in positive):
        return "warning"
    if any(isinstance(t.get("key"), str) and t["key"] in pool_taints for t in pod.tolerations):
        return "warning"
    return None


@rule("KPL910", "workload-unschedulable", category="provisioning", severity="error",
      summary="A workload that targets Karpenter but that no NodePool of the run can ever give a node",
      reads=(karpenter_resources, pods_with_node_constraints, of_kinds("DaemonSet")))
def workload_unschedulable(model: Model, ctx) -> Iterator:
    yield from too_large(model, ctx)
    catalog, pools = simulation(model, ctx)
    if not pools:
        return
    from karplint.provisioning.placement import PlacementBudget
    from karplint.provisioning.simulate import MAX_POOLS, MAX_WORKLOADS, placement_omitted, workloads_omitted
    from karplint.provisioning.workloads import daemons, host, read_pod

    if sum(1 for _ in model.nodepools()) > MAX_POOLS:
        return  # some NodePools were not simulated (reported): any of them might host the workload
    past = workloads_omitted(model)
    if past is not None:
        yield ctx.too_large(past.resource, past.path, past.message)
    budget = PlacementBudget()
    strict = ctx.cluster.get("karpenter-only") is True
    all_marks = _pool_marks(pools)
    # (every DaemonSet: they take room on the nodes of every workload judged; the workloads of the focus)
    pods = [p for p in (read_pod(r) for r in list(model.workloads())[:MAX_WORKLOADS]
                        if r.kind == "DaemonSet" or (ctx.in_focus(r) and (
                            pods_with_node_constraints(r.doc, r) if strict else _may_target(r, all_marks))))
            if p is not None]
    all_ds = [(d, _dirname(str(d.pod.res.doc.path))) for d in daemons(pods)]
    ds_dirs = {where for _d, where in all_ds}
    ds_for: dict[str, list] = {}  # a NodePool's directory -> the DaemonSets of related directories
    pools_by_dir: dict[str, list] = {}
    order = {id(sim): i for i, sim in enumerate(pools)}  # (the model's order)
    for sim in pools:
        pools_by_dir.setdefault(_pool_dir(sim), []).append(sim)
    mine_by_dir: dict[str, tuple] = {}
    outcomes: dict[tuple, list | None] = {}
    for n, pod in enumerate(pods):
        if pod.res.kind == "DaemonSet" or pod.unknown or pod.terms is None:
            continue
        if not strict and _targeting(pod, pools, all_marks) is None:
            continue  # (targets nothing of any NodePool: none of the related ones either)
        # Only the NodePools of related directories are this workload's (a run may hold unrelated projects).
        pod_dir = _dirname(str(pod.res.doc.path))
        found = mine_by_dir.get(pod_dir)
        if found is None:  # (pods share directories: the related NodePools are found once per directory)
            related = {where for where in pools_by_dir if _dirs_related(where, pod_dir)}
            mine = sorted((sim for where in related for sim in pools_by_dir[where]), key=lambda sim: order[id(sim)])
            found = mine_by_dir[pod_dir] = (mine, any(sim.unknown for sim in mine), {sim.name for sim in mine},
                                            _pool_marks(mine))
        mine, unknown, names, marks = found
        if not mine or unknown:
            continue
        wanted = _selected_pool_names(pod)
        if wanted is not None and not wanted & names:
            continue  # selects NodePools defined elsewhere
        level = "error" if strict else _targeting(pod, mine, marks)
        if level is None:
            continue
        # Pods of one directory with the same constraints get the same verdicts: asked (and counted) once.
        seen_key = (pod.placement_key, pod_dir)
        verdicts = outcomes.get(seen_key, False)
        if verdicts is False:
            if not budget.take(len(mine)):
                left = sum(1 for p in pods[n + 1:] if p.res.kind != "DaemonSet")
                omitted = placement_omitted(pod.res, left, budget)
                yield ctx.too_large(omitted.resource, omitted.path, omitted.message)
                return
            verdicts = outcomes[seen_key] = _misses(pod, mine, ds_for, ds_dirs, all_ds, host)
        if verdicts is not None:
            yield _unschedulable(ctx, pod, verdicts, level, catalog)


def _misses(pod, mine, ds_for: dict, ds_dirs: set, all_ds: list, host) -> list | None:
    """Every NodePool's verdict on `pod`, closest miss first, if none can host it (else None)."""
    verdicts = []
    for sim in mine:
        pool_dir = _pool_dir(sim)
        ds = ds_for.get(pool_dir)
        if ds is None:
            related = {where for where in ds_dirs if _dirs_related(pool_dir, where)}
            ds = ds_for[pool_dir] = [d for d, where in all_ds if where in related]
        v = host(pod, sim, ds)
        if v.ok is not False:
            return None
        verdicts.append(v)
    verdicts.sort(key=lambda v: (-v.stage, v.pool))
    return verdicts


def _unschedulable(ctx, pod, verdicts, level, catalog):
    res = pod.res
    reasons = "; ".join(f"`{v.pool}`: {v.reason}" for v in verdicts[:4])
    more = f"; and {len(verdicts) - 4} more" if len(verdicts) > 4 else ""
    closest = verdicts[0]
    return ctx.violation(
        res, ("metadata", "name"),
        f"{res.kind} `{res.name}`: no NodePool of the checked files can give its pods a node\n"
        f"help: closest is NodePool `{closest.pool}`: {closest.reason}\n"
        f"note: per NodePool, closest first: {reasons}{more}\n"
        "note: Karpenter leaves the pods Pending (\"incompatible with nodepool\"); instance types from the "
        f"{catalog_name(catalog)} ({catalog_date(catalog)})",
        severity=None if level == "error" else "warning")
