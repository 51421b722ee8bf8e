"""KPL421: a PodDisruptionBudget that allows no eviction of the pods it selects, on nodes Karpenter would drain.
Matching PDBs with the run's workloads is bounded (MAX_PDB_WORK): past it, the PDBs left are KPL004 on their file.

Sources: https://karpenter.sh/docs/concepts/disruption/, kubernetes-sigs/karpenter#1789; the label selector
semantics of kubernetes/apimachinery `pkg/apis/meta/v1` (matchLabels AND matchExpressions).
"""

from __future__ import annotations

from karplint.model import Parts, Resource, karpenter_resources, of_kinds
from karplint.provisioning.placement import PLACEMENT_KEYS, can_land, scheduling_signature
from karplint.readers.templating import has_placeholder_within
from karplint.rules import rule
from karplint.rules._simulation import karpenter_only_keys
from karplint.rules.disruption_timeline import TEMPLATE_SPEC, TGP

# ------------------------------------------------------------------------------------------ KPL421

EVICTED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Pod")  # drains evict them
SCALERS = ("HorizontalPodAutoscaler", "ScaledObject")  # replicas decided elsewhere: not judged


_NAMED = [("metadata", "name"), ("metadata", "namespace")]


def _pdb_workload_parts(res: Resource) -> list[tuple]:
    """What KPL421 reads of a workload: its name and namespace, replicas, pod labels and where its pods may land."""
    meta, spec = res.pod_template
    return [*_NAMED, ("spec", "replicas"), meta + ("labels",)] + [spec + (k,) for k in PLACEMENT_KEYS]


# KPL421 reads PodDisruptionBudgets (it reports on them), only a little of every workload they may select and of
# the autoscalers that decide those workloads' replicas.
_PDB_READS = (of_kinds("PodDisruptionBudget"), Parts(of_kinds(*EVICTED_KINDS), _pdb_workload_parts),
              Parts(of_kinds(*SCALERS), lambda res: [*_NAMED, ("spec", "scaleTargetRef")]))


# Selector evaluations plus (pod scheduling signature, NodePool) checks KPL421 makes in one run: an ordinary
# cluster needs a few thousand; 1,000 PDBs each selecting 10,000 workloads would need 10 million (minutes).
MAX_PDB_WORK = 1_000_000


def _indexed_terms(selector: dict) -> list[tuple[str, list]]:
    """(label, values) a pod must carry to match `selector`: a matchLabels pair (one value), an `In` expression
    (any of its values), an `Exists` expression ([None]: any value). Invalid terms are left to the full check."""
    out: list[tuple[str, list]] = []
    ml = selector.get("matchLabels")
    if isinstance(ml, dict):
        out.extend((k, [str(v)]) for k, v in ml.items())
    exprs = selector.get("matchExpressions")
    for e in exprs if isinstance(exprs, list) else ():
        if not isinstance(e, dict) or not isinstance(e.get("key"), str):
            continue
        values = e.get("values") or []
        if e.get("operator") == "In" and isinstance(values, list) and values:
            out.append((e["key"], list(dict.fromkeys(str(v) for v in values))))
        elif e.get("operator") == "Exists":
            out.append((e["key"], [None]))
    return out


def _selector_matches(selector: dict, labels: dict) -> bool:
    """Kubernetes label selector semantics (matchLabels AND matchExpressions); an empty selector matches all."""
    ml = selector.get("matchLabels") or {}
    if not isinstance(ml, dict):
        return False
    for k, v in ml.items():
        if str(labels.get(k, "\0")) != str(v):
            return False
    exprs = selector.get("matchExpressions") or []
    if not isinstance(exprs, list):
        return False
    for e in exprs:
        if not isinstance(e, dict):
            return False
        key, op = e.get("key"), e.get("operator")
        values = [str(v) for v in e.get("values") or []] if isinstance(e.get("values") or [], list) else []
        present = key in labels
        if op == "In" and not (present and str(labels[key]) in values):
            return False
        if op == "NotIn" and present and str(labels[key]) in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def _replicas(res: Resource) -> int | None:
    if res.kind == "Pod":
        return 1
    r = res.get(("spec", "replicas"))
    if r is None:
        return 1  # the API default for Deployment, StatefulSet, ReplicaSet, ReplicationController
    return r if isinstance(r, int) and not isinstance(r, bool) else None


def _scaled(model) -> set[tuple[str | None, str, str]]:
    out = set()
    for s in model.of_kind(*SCALERS):
        ref = s.get(("spec", "scaleTargetRef"))
        if isinstance(ref, dict) and isinstance(ref.get("name"), str):
            out.add((s.namespace, str(ref.get("kind") or "Deployment"), ref["name"]))
    return out


def _same_namespace(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _selected_pods(matched: list[Resource], scaled: set, memo: dict) -> tuple[list[int], int] | None:
    """(replicas of each matched workload, their total), or None when KPL421 does not judge them: no pod, an
    autoscaler owns a replica count (or it is not a number), or no replica at all. `memo`: per workload."""
    if not matched:
        return None
    counts = []
    for w in matched:
        c = memo.get(id(w), False)
        if c is False:
            owned = (w.namespace, w.kind, w.name) in scaled or (None, w.kind, w.name) in scaled
            c = memo[id(w)] = None if owned else _replicas(w)
        if c is None:
            return None
        counts.append(c)
    total = sum(counts)
    return (counts, total) if total else None


def _pdb_verdict(pdb: Resource, total: int) -> tuple[tuple, str] | None:
    """(path, why) when the PDB allows no eviction with all `total` selected pods healthy."""
    from karplint.disruption.budgets import allowed_nodes

    spec = pdb.spec
    if "maxUnavailable" in spec:
        v = spec["maxUnavailable"]
        text = str(v)
        if isinstance(v, bool):
            return None
        allowed = allowed_nodes(text, total)  # intstr, rounded up: what the disruption controller computes
        if allowed == 0:
            return ("spec", "maxUnavailable"), f"maxUnavailable {text}"
        return None
    if "minAvailable" in spec:
        v = spec["minAvailable"]
        if isinstance(v, bool):
            return None
        text = str(v)
        desired = allowed_nodes(text, total)
        if desired is not None and desired >= total:
            return ("spec", "minAvailable"), f"minAvailable {text}"
    return None


@rule("KPL421", "pdb-blocks-every-drain", category="disruption", severity="warning",
      summary="A PodDisruptionBudget that never allows an eviction for the pods it selects, on Karpenter nodes",
      reads=_PDB_READS + (karpenter_resources,))
def pdb_blocks_every_drain(model, ctx):
    pools = [np for np in model.nodepools() if np.version in ("v1", "v1beta1")
             and isinstance(np.get(TEMPLATE_SPEC), dict)]
    if not pools and not any(karpenter_only_keys(w.get(w.pod_template[1])) for w in model.resources
                             if w.kind in EVICTED_KINDS and w.pod_template is not None):
        return  # no NodePool, and no pod that says it runs on Karpenter's nodes
    pdbs = [pdb for pdb in model.of_kind("PodDisruptionBudget")  # (policy/v1: a null selector selects no pod)
            if pdb.group == "policy" and isinstance(pdb.spec.get("selector"), dict)
            and not has_placeholder_within(pdb.spec) and ctx.in_focus(pdb)]
    if not pdbs:
        return
    scaled = _scaled(model)
    keys = {k for pdb in pdbs for k, _v in _indexed_terms(pdb.spec["selector"])}
    by_ns: dict[str | None, list[tuple]] = {}  # (workload, pod labels, namespace), read once (not once per PDB)
    everywhere: list[tuple] = []
    by_label: dict[tuple, list[tuple]] = {}  # (label, value or None) -> pods carrying it
    position: dict[int, int] = {}  # a workload's place in the run (candidates gathered from several lists)
    for w in model.resources:
        if w.kind not in EVICTED_KINDS or w.group not in ("", "apps") or w.pod_template is None:
            continue
        labels = w.get(w.pod_template[0] + ("labels",))
        if not isinstance(labels, dict):
            continue
        entry = (w, labels, w.namespace)
        by_ns.setdefault(entry[2], []).append(entry)
        position[id(w)] = len(everywhere)
        everywhere.append(entry)
        for k, v in labels.items():  # (a pod's own labels: never more than its document holds)
            if k in keys:
                by_label.setdefault((k, str(v)), []).append(entry)
                by_label.setdefault((k, None), []).append(entry)
    clean: dict[int, bool] = {}  # pods whose labels hold a placeholder are never matched (checked when met)

    def placeholder_free(w: Resource, labels: dict) -> bool:
        ok = clean.get(id(w))
        if ok is None:
            ok = clean[id(w)] = not has_placeholder_within(labels)
        return ok

    def candidates_of(pdb: Resource, selector: dict) -> list[tuple]:
        """The pods that may match: the fewest of those carrying one of its terms (in the order a scan of its
        namespace, then of the pods without one, meets them), else that scan."""
        best = None
        for key, values in _indexed_terms(selector):
            found = by_label.get((key, values[0]), [])
            if len(values) > 1:
                found = sorted((p for v in values for p in by_label.get((key, v), ())),
                               key=lambda p: position[id(p[0])])
            if best is None or len(found) < len(best):
                best = found
        if best is None:
            return everywhere if pdb.namespace is None else by_ns.get(pdb.namespace, []) + by_ns.get(None, [])
        if pdb.namespace is not None and not (isinstance(ml := selector.get("matchLabels"), dict) and ml):
            best = sorted(best, key=lambda p: p[2] is None)  # (stable: the scan's order)
        return best

    karpenter_keys: dict[int, list[str]] = {}  # a workload's Karpenter-only node labels, read once

    def evidence_of(w: Resource) -> list[str]:
        found = karpenter_keys.get(id(w))
        if found is None:
            found = karpenter_keys[id(w)] = karpenter_only_keys(w.get(w.pod_template[1]))
        return found

    signatures: dict[int, str] = {}  # a workload's scheduling signature, worked out once
    landing: dict[str, list[Resource]] = {}  # a signature -> the NodePools its pods may land on, in order
    # PDBs with the same namespace and selector select the same pods: matched once, counted once, placed once.
    matches: dict[tuple, list[Resource]] = {}
    replicas: dict[int, int | None] = {}  # a workload's replicas, None when an autoscaler decides them or unknown
    pods_of: dict[tuple, tuple | None] = {}  # -> (replicas of each, their total), None when not judged
    hosts_of: dict[tuple, list[Resource]] = {}  # -> the NodePools those pods may land on
    work = 0  # selector evaluations and (signature, NodePool) checks: bounded per run
    not_checked: dict[str, list[Resource]] = {}  # file -> the PDBs left unchecked past the bound
    for pdb in pdbs:
        if work > MAX_PDB_WORK:
            not_checked.setdefault(pdb.doc.source.path, []).append(pdb)
            continue
        selector = pdb.spec["selector"]
        same = (pdb.namespace, repr(selector))
        matched = matches.get(same)
        if matched is None:
            candidates = candidates_of(pdb, selector)
            work += len(candidates)
            if work > MAX_PDB_WORK:
                not_checked.setdefault(pdb.doc.source.path, []).append(pdb)
                continue
            matched = matches[same] = [w for w, labels, ns in candidates
                                       if _same_namespace(pdb.namespace, ns)
                                       and _selector_matches(selector, labels) and placeholder_free(w, labels)]
        pods = pods_of.get(same)
        if pods is None:
            pods = pods_of[same] = _selected_pods(matched, scaled, replicas)
        if not pods:
            continue
        counts, total = pods
        verdict = _pdb_verdict(pdb, total)
        if verdict is None:
            continue
        path, why = verdict
        hosts = hosts_of.get(same)
        if hosts is None:
            hosts, seen, met = [], set(), set()  # (by identity: Resource's equality compares whole documents)
            for w in matched:
                signature = signatures.get(id(w))
                if signature is None:
                    spec = w.get(w.pod_template[1])
                    spec = spec if isinstance(spec, dict) else {}
                    signature = signatures[id(w)] = scheduling_signature(spec)
                    if signature not in landing:
                        work += len(pools)
                        landing[signature] = [np for np in pools if can_land(spec, np, signature)]
                if signature in met:
                    continue
                met.add(signature)
                for np in landing[signature]:
                    if id(np) not in seen:
                        hosts.append(np)
                        seen.add(id(np))
            hosts_of[same] = hosts
        shown = ", ".join(f"{w} ({c} replica{'s' if c != 1 else ''})" for w, c in zip(matched[:3], counts))
        if len(matched) > 3:
            shown += f" and {len(matched) - 3} more"
        if not hosts:
            # No NodePool of the run takes them, but their selector says they run on Karpenter's nodes (of a
            # NodePool in files not checked): what does not depend on that NodePool is certain.
            selected = _karpenter_evidence(matched, evidence_of)
            if selected:
                yield ctx.violation(pdb, path, _headline(why, total, shown) + _help(path, total) + (
                    f"note: their pods select {selected}, which only Karpenter's nodes carry, and no NodePool of "
                    "the checked files can take them: the node of a NodePool defined elsewhere that runs them is "
                    "never consolidated (\"pdb prevents pod evictions\"), and drift and expiration wait for this "
                    "budget until that NodePool's terminationGracePeriod, if it sets one, runs out "
                    "(kubernetes-sigs/karpenter pkg/controllers/state/statenode.go@v1.14.1#L260; "
                    "https://karpenter.sh/docs/concepts/disruption/; kubernetes-sigs/karpenter#1789)"))
            continue
        with_tgp = [np for np in hosts if np.version == "v1" and np.get(TGP) is not None]
        without = [np for np in hosts if not (np.version == "v1" and np.get(TGP) is not None)]
        waits = []
        if with_tgp:
            waits.append("until terminationGracePeriod runs out on " + ", ".join(
                f"{np.name or '<unnamed>'} ({np.get(TGP)})" for np in with_tgp[:3]))
        if without:
            waits.append("forever on " + ", ".join(str(np.name or "<unnamed>") for np in without[:3])
                         + " (no terminationGracePeriod)")
        yield ctx.violation(
            pdb, path,
            _headline(why, total, shown) + _help(path, total) +
            f"note: a node of NodePool {', '.join(str(np.name or '<unnamed>') for np in hosts[:3])} running these pods is never "
            f"consolidated, and drift and expiration wait {' and '.join(waits)} "
            "(https://karpenter.sh/docs/concepts/disruption/; kubernetes-sigs/karpenter#1789)")
    for file_pdbs in not_checked.values():
        first = file_pdbs[0]
        others = f" and {len(file_pdbs) - 1:,} other PodDisruptionBudget(s) of this file" if len(file_pdbs) > 1 else ""
        yield ctx.too_large(first, ("spec", "selector"),
                            f"too large: matching PodDisruptionBudgets with workloads took over {MAX_PDB_WORK:,} steps "
                            f"in this run; KPL421 (pdb-blocks-every-drain) not checked for {first}{others}")


def _headline(why: str, total: int, shown: str) -> str:
    return f"{why} allows no eviction of the {total} pod{'s' if total != 1 else ''} it selects: {shown}\n"


def _help(path: tuple, total: int) -> str:
    if path[-1] == "maxUnavailable":
        return "help: set maxUnavailable to 1 or more: 0 forbids every voluntary eviction\n"
    return (f"help: keep minAvailable below the {total} pod{'s' if total != 1 else ''} (or use `maxUnavailable: 1`), "
            "or run more replicas\n")


def _karpenter_evidence(matched: list[Resource], evidence_of) -> str:
    """"`karpenter.sh/nodepool`" when every selected workload's pods require a Karpenter-only label; else ""."""
    keys: list[str] = []
    for w in matched:
        mine = evidence_of(w)
        if not mine:
            return ""
        keys += [k for k in mine if k not in keys]
    return ", ".join(f"`{k}`" for k in keys[:3])
