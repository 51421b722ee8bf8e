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

from typing import Iterator

from karplint.model import Model, Resource, karpenter_resources, of_kinds
from karplint.provisioning.placement import PLACEMENT_KEYS
from karplint.readers.document import Document
from karplint.rules import rule
from karplint.rules._simulation import (KARPENTER_ONLY_PREFIXES, catalog_date, catalog_name, legacy_simulation,
                                        simulation, too_large)


def pods_with_node_constraints(doc: Document, res: Resource | None) -> bool:
    """Workloads whose pods select nodes or tolerate taints, and DaemonSets (their overhead counts)."""
    if res is None or res.pod_template is None:
        return False
    if res.kind == "DaemonSet":
        return True
    spec = res.get(res.pod_template[1])
    return isinstance(spec, dict) and any(k in spec for k in PLACEMENT_KEYS)


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
      reads=(karpenter_resources, pods_with_node_constraints, of_kinds("DaemonSet", "RuntimeClass")))
def workload_unschedulable(model: Model, ctx) -> Iterator:
    yield from too_large(model, ctx)
    catalog, pools = simulation(model, ctx)
    legacy_catalog, legacy = legacy_simulation(model, ctx)  # (Provisioners, at a release that serves them)
    pools, catalog = pools + legacy, catalog or legacy_catalog
    if not pools:
        return
    from karplint.provisioning.placement import PlacementBudget
    from karplint.provisioning.scope import Scopes, selected_pool_names
    from karplint.provisioning.simulate import MAX_POOLS, MAX_WORKLOADS, placement_omitted, workloads_omitted
    from karplint.provisioning.pods import read_pod, runtime_class_overheads
    from karplint.provisioning.workloads import daemons, host

    if sum(1 for _ in model.nodepools()) > MAX_POOLS:
        return  # some NodePools were not simulated (reported): any of them might host the workload
    past = workloads_omitted(model)
    if past is not None:
        yield ctx.too_large(past.resource, past.path, past.message)
    budget = PlacementBudget()
    strict = ctx.cluster.get("karpenter-only") is True
    all_marks = _pool_marks(pools)
    # (every DaemonSet: they take room on the nodes of every workload judged; the workloads of the focus)
    classes = runtime_class_overheads(model.of_kind("RuntimeClass", group="node.k8s.io"))
    pods = [p for p in (read_pod(r, classes) for r in list(model.workloads())[:MAX_WORKLOADS]
                        if r.kind == "DaemonSet" or (ctx.in_focus(r) and (
                            pods_with_node_constraints(r.doc, r) if strict else _may_target(r, all_marks))))
            if p is not None]
    all_ds = daemons(pods)
    scopes = Scopes(pools)  # (the pools each workload is judged on: `karplint simulate`'s, plus served Provisioners)
    facts: dict[tuple, tuple] = {}  # a scope -> (any NodePool unknown, their names, their marks), once
    outcomes: dict[tuple, list | None] = {}
    for n, pod in enumerate(pods):
        if pod.res.kind == "DaemonSet" or pod.unknown or pod.terms is None:
            continue
        if not strict and _targeting(pod, pools, all_marks) is None:
            continue  # (targets nothing of any NodePool: none of the related ones either)
        wanted = selected_pool_names(pod)
        scope = scopes.of(pod.res, wanted)
        mine = scope.pools
        found = facts.get(scope.key)
        if found is None:
            found = facts[scope.key] = (any(sim.unknown for sim in mine), {sim.name for sim in mine},
                                        _pool_marks(mine))
        unknown, names, marks = found
        if not mine or unknown:
            continue  # no NodePool near it: nothing in the files says where it runs
        if wanted is not None and not wanted & names:
            yield _no_such_pool(ctx, pod, sorted(wanted), scope, strict)
            continue
        level = "error" if strict else _targeting(pod, mine, marks)
        if level is None:
            continue
        if scope.by_name and not strict:
            level = "warning"  # (NodePools of another directory: the name is the only link)
        # Pods with the same constraints and scope get the same verdicts: asked (and counted) once.
        seen_key = (pod.placement_key, scope.key)
        verdicts = outcomes.get(seen_key, False)
        if verdicts is False:
            if not budget.take(len(mine)):
                left = sum(1 for p in pods[n + 1:] if p.res.kind != "DaemonSet")
                omitted = placement_omitted(pod.res, left, budget)
                yield ctx.too_large(omitted.resource, omitted.path, omitted.message)
                return
            verdicts = _misses(pod, mine, scopes, all_ds, host)
            if verdicts is not None and not scope.whole_run:
                # (nearness picks what is judged; a NodePool elsewhere in the run that hosts it clears it)
                found = scopes.hosts_elsewhere(pod, scope, lambda sim: host(pod, sim, scopes.daemons_of(sim, all_ds)),
                                               budget, first=True)
                if found is None or found:
                    verdicts = None
            outcomes[seen_key] = verdicts
        if verdicts is not None:
            yield _unschedulable(ctx, pod, verdicts, level, catalog, scope)


def _misses(pod, mine, scopes, all_ds: list, host) -> list | None:
    """Every NodePool's verdict on `pod`, closest miss first, if none can host it (else None)."""
    verdicts = []
    for sim in mine:
        v = host(pod, sim, scopes.daemons_of(sim, all_ds))
        if v.ok is not False:
            return None
        verdicts.append(v)
    verdicts.sort(key=lambda v: (-v.stage, v.pool))
    return verdicts


def _scope_note(scope) -> str:
    names = [str(sim.name) for sim in scope.pools]
    shown = ", ".join(f"`{n}`" for n in names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    if scope.by_name:
        return (f"note: judged on the NodePools {scope.describe()}: {shown}; the name is the only link between "
                "them and this workload")
    if scope.whole_run:
        return f"note: judged on every NodePool of the checked files: {shown}"
    return (f"note: judged on the NodePools {scope.describe()}: {shown}; no NodePool of another directory can "
            "host it either")


def _unschedulable(ctx, pod, verdicts, level, catalog, scope):
    res = pod.res
    reasons = "; ".join(f"`{v.pool}`: {v.reason}" for v in verdicts[:4])
    more = f"; and {len(verdicts) - 4} more" if len(verdicts) > 4 else ""
    closest = verdicts[0]
    kinds = {sim.name: sim.nodepool.kind for sim in scope.pools}
    closest_kind = kinds.get(closest.pool, "NodePool")
    pools_word = "NodePool or Provisioner" if "Provisioner" in kinds.values() else "NodePool"
    # A resource no instance type offers: Karpenter launches nothing, but a node that already advertises it may
    # still take the pods. Said as a warning, with what happens.
    soft = any(v.soft for v in verdicts)
    outcome = ("Karpenter launches no node for the pods (\"incompatible with nodepool\"); they stay Pending unless a "
               "node already advertises the resource" if soft else
               "Karpenter leaves the pods Pending (\"incompatible with nodepool\")")
    return ctx.violation(
        res, ("metadata", "name"),
        f"{res.kind} `{res.name}`: no {pools_word} {scope.short()} can give its pods a node\n"
        f"help: closest is {closest_kind} `{closest.pool}`: {closest.reason}\n"
        f"note: per NodePool, closest first: {reasons}{more}\n"
        + _scope_note(scope) + "\n"
        f"note: {outcome}; instance types from the {catalog_name(catalog)} ({catalog_date(catalog)})",
        severity=None if level == "error" and not soft else "warning")


def _no_such_pool(ctx, pod, wanted: list[str], scope, strict: bool):
    """A pod restricted to NodePools by name (`karpenter.sh/nodepool`) none of which is in its scope: a warning
    (the NodePool may be defined in files not checked), an error when the checked NodePools are the cluster's."""
    import difflib

    res = pod.res
    names = sorted({str(sim.name) for sim in scope.pools})
    close = [c for w in wanted for c in difflib.get_close_matches(w, names, n=1, cutoff=0.6)]
    asked = " or ".join(f"`{w}`" for w in wanted)
    return ctx.violation(
        res, ("metadata", "name"),
        f"{res.kind} `{res.name}` selects NodePool {asked}, and no NodePool of the checked files has that name\n"
        + (f"help: did you mean `{close[0]}`?\n" if close else
           "help: name one of the NodePools in scope, or check the files that define it\n")
        + _scope_note(scope) + "\n"
        "note: only a node of the NodePool of that name carries `karpenter.sh/nodepool` with that value: if the "
        "cluster has none, Karpenter "
        "leaves the pods Pending" + ("" if strict else "; it may be defined in files not checked"),
        severity=None if strict else "warning")



# Where a NodePool (v1 / v1beta1) and a v1alpha5 Provisioner write what their nodes get: (requirements, labels,
# taints) paths (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go@v1.14.1, NodeClaimTemplate;
# pkg/apis/v1alpha5/provisioner.go@v0.32.10, ProvisionerSpec).
_POOL_PATHS = {
    "NodePool": (("spec", "template", "spec", "requirements"), ("spec", "template", "metadata", "labels"),
                 ("spec", "template", "spec", "taints")),
    "Provisioner": (("spec", "requirements"), ("spec", "labels"), ("spec", "taints")),
}


def _pool_label_facts(model: Model, ctx) -> tuple[set, set, list] | None:
    """(label keys the pools set or allow, their NoSchedule/NoExecute taint keys, the
    pools judged) over the run's NodePools and the Provisioners its target release serves; None when any of them is
    templated or malformed there (it might set any label)."""
    from karplint.readers.templating import has_placeholder
    from karplint.rules._legacy import judged

    keys: set = set()
    taints: set = set()
    judged_pools = []
    for res in [*model.of_kind("NodePool", group="karpenter.sh"), *model.of_kind("Provisioner", group="karpenter.sh")]:
        if not judged(res, ctx, legacy=True):
            continue
        reqs_path, labels_path, taints_path = _POOL_PATHS[res.kind]
        reqs, labels = res.get(reqs_path), res.get(labels_path)
        if reqs is not None and not isinstance(reqs, list) or labels is not None and not isinstance(labels, dict):
            return None
        for item in reqs or ():
            key = item.get("key") if isinstance(item, dict) else None
            if not isinstance(key, str) or has_placeholder(key):
                return None
            keys.add(key.strip())
        for key in labels or {}:
            if not isinstance(key, str) or has_placeholder(key):
                return None
            keys.add(key)
        for t in res.get(taints_path) or () if isinstance(res.get(taints_path), list) else ():
            if isinstance(t, dict) and isinstance(t.get("key"), str) and t.get("effect") in ("NoSchedule", "NoExecute"):
                taints.add(t["key"])
        judged_pools.append(res)
    return keys, taints, judged_pools


# Label prefixes and domains this rule leaves alone. EKS managed node groups', Fargate's, Auto Mode's and eksctl's
# own labels (karplint/rules/foreign_labels.py): a pod selecting one targets other capacity on purpose. Karpenter's
# own domain, karpenter.sh (restricted in NodePool labels, pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.14.1; its
# node labels are KPL910's and KPL306's business). The kubernetes.io and k8s.io domains, where what a NodePool may
# set has varied between releases (kubernetes-sigs/karpenter#1046): the help of this rule could be wrong there.
_ELSEWHERE_PREFIXES = ("eks.amazonaws.com/", "alpha.eksctl.io/")
_RESTRICTED_DOMAINS = ("kubernetes.io", "k8s.io", "karpenter.sh")


def _set_elsewhere(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    return key.startswith(_ELSEWHERE_PREFIXES) or any(domain == d or domain.endswith("." + d)
                                                        for d in _RESTRICTED_DOMAINS)


def _custom_keys(pod) -> list[list[str]] | None:
    """Per required alternative (nodeSelector plus one node-affinity term), the custom label keys it needs a node
    to carry (`In`, `Exists`, `Gt`, `Lt`); None when some alternative needs none (it may land anywhere)."""
    from karplint.provisioning.requirements import WELL_KNOWN_LABELS

    out = []
    for term in pod.terms or []:
        keys = [k for k, r in term.by_key.items() if r.operator() not in ("NotIn", "DoesNotExist")
                and k not in WELL_KNOWN_LABELS and not k.startswith(KARPENTER_ONLY_PREFIXES)]
        if not keys:
            return None
        out.append(keys)
    return out or None


@rule("KPL912", "selected-label-no-nodepool-sets", category="provisioning", severity="info",
      summary="A workload selects a custom node label that no NodePool of the run sets or allows",
      reads=(karpenter_resources, pods_with_node_constraints, of_kinds("DaemonSet", "RuntimeClass")))
def selected_label_no_nodepool_sets(model: Model, ctx) -> Iterator:
    """Karpenter denies custom labels it was not told about: a pod whose nodeSelector or every required
    node-affinity term needs a label no NodePool sets (template label) or allows (requirement) gets "label ... does
    not have known values" from every NodePool. Info: nodes Karpenter does not manage (managed node groups) may
    carry the label; a warning when a NodePool has the label in its own metadata.labels (meant for its nodes). Pods
    that tolerate a pool's taint are KPL910's (it simulates NodePools, and Provisioners where they are served)."""
    if ctx.cluster.get("karpenter-only") is True:
        return  # (KPL910 judges every constrained workload then, as an error)
    facts = _pool_label_facts(model, ctx)
    if facts is None or not facts[2]:
        return
    pool_keys, _, pools = facts
    from karplint.provisioning.pods import read_pod

    pools_word = "NodePool or Provisioner" if any(p.kind == "Provisioner" for p in pools) else "NodePool"
    # (what KPL910 judges: pods that select or tolerate what a simulated NodePool or Provisioner sets)
    nodepool_marks = _pool_marks(simulation(model, ctx)[1] + legacy_simulation(model, ctx)[1])
    for res in model.workloads():
        if res.kind == "DaemonSet" or not ctx.in_focus(res) or not pods_with_node_constraints(res.doc, res):
            continue
        pod = read_pod(res)
        if pod is None or pod.unknown or pod.terms is None or _targeting(pod, (), nodepool_marks) is not None:
            continue
        alternatives = _custom_keys(pod)
        if alternatives is None:
            continue
        missing = [[k for k in keys if k not in pool_keys] for keys in alternatives]
        if not all(missing):
            continue  # (some alternative needs only labels a NodePool sets or allows: KPL910's question)
        if any(_set_elsewhere(k) for keys in missing for k in keys):
            continue  # (it selects nodes of another provisioner on purpose, or a label no NodePool may set)
        key = missing[0][0]
        holders = [f"{p.kind} `{p.name}`" for p in pools if isinstance(p.get(("metadata", "labels")), dict)
                   and key in p.get(("metadata", "labels"))]
        where = (f"help: {holders[0]} has `{key}` in its own metadata.labels, which label the object, not "
                 "its nodes: move it to spec.template.metadata.labels (spec.labels in a Provisioner)\n"
                 if holders else
                 f"help: to have Karpenter launch nodes for it, set `{key}` in a NodePool's "
                 f"spec.template.metadata.labels, or add a requirement `{key}` `Exists` (or `In` its values)\n")
        yield ctx.violation(
            res, ("metadata", "name"),
            f"{res.kind} `{res.name}` selects node label `{key}`, which no {pools_word} sets\n"
            + where +
            f"note: no {pools_word} of the checked files sets or requires `{key}`\n"
            f"note: Karpenter launches no node for these pods (\"label \\\"{key}\\\" does not have known values\"); "
            "they run only on nodes from elsewhere (managed node groups) that carry it",
            severity="warning" if holders else None)
