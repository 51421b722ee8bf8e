"""Provisioning simulated offline (KPL9xx): what each NodePool can launch, and which workloads no NodePool can host.

The simulation is `karplint.provisioning` (Karpenter's requirement algebra and scheduler checks, the bundled
instance-type catalog); these rules only turn its answers into findings. The catalog is loaded only when the run
holds a NodePool with requirements. Anything templated or unknown is "cannot tell", never a finding.

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

import heapq
from functools import lru_cache
from typing import Iterator

from karplint.model import Model, Resource, karpenter_resources, of_kinds
from karplint.numbers import ascii_digits
from karplint.provisioning.placement import PLACEMENT_KEYS
from karplint.readers.document import Document
from karplint.rules import rule
from karplint.rules._catalog import ami_family, nodeclasses_by_name, resolve_nodeclass

CATALOG_OPTION = "instance-types"
ARCH, OS, TYPE = "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/instance-type"
FAMILY, SIZE, CATEGORY = ("karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-size",
                          "karpenter.k8s.aws/instance-category")
WINDOWS_BUILD = "node.kubernetes.io/windows-build"
NODECLASS_KEYS = frozenset({OS, WINDOWS_BUILD, "karpenter.sh/capacity-type"})
# Keys whose values are names the catalog lists (checked value by value), and integer-valued keys (MiB, Mbps...).
NAMED_KEYS = (TYPE, FAMILY, SIZE, CATEGORY, ARCH, "karpenter.k8s.aws/instance-cpu-manufacturer",
              "karpenter.k8s.aws/instance-hypervisor", "karpenter.k8s.aws/instance-gpu-name",
              "karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-accelerator-name",
              "karpenter.k8s.aws/instance-accelerator-manufacturer")
INTEGER_KEYS = frozenset({
    "karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-network-bandwidth", "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
})
# Keys whose names may gain new values with new EC2 types: an unknown well-formed value is only "unknown".
GROWING_KEYS = frozenset({TYPE, FAMILY, SIZE, CATEGORY, "karpenter.k8s.aws/instance-gpu-name",
                          "karpenter.k8s.aws/instance-accelerator-name"})
KARPENTER_ONLY_PREFIXES = ("karpenter.sh/nodepool", "karpenter.sh/capacity-type", "karpenter.k8s.aws/")
_NO_LAUNCH_NOTE = ("note: Karpenter skips the NodePool (\"nodepool requirements filtered out all instance types\"); "
                   "pods that need it stay Pending")


def _pools_with_requirements(model: Model) -> bool:
    return any(isinstance(np.get(("spec", "template", "spec", "requirements")), list) and
               np.get(("spec", "template", "spec", "requirements")) for np in model.nodepools())


def _catalog(ctx):
    from karplint.provisioning.catalog import ExtraTypesError, extend, load

    try:
        return extend(load(), ctx.option(CATALOG_OPTION))
    except ExtraTypesError:
        return load()  # the configuration is reported by the config loader's checks; simulate with the bundled one


def nodeclass_facts_resolver(model: Model):
    """NodePool -> the NodeClassFacts of the EC2NodeClass it references in `model` (empty facts when none)."""
    from karplint.provisioning.nodepools import NodeClassFacts, nodeclass_facts

    by_name = nodeclasses_by_name(model)

    def facts_for(np: Resource):
        nc = resolve_nodeclass(np, by_name) if by_name else None
        if nc is None:
            return NodeClassFacts()
        family, path = ami_family(nc)
        return nodeclass_facts(nc, family, path)

    return facts_for


def _simulation(model: Model, ctx):
    """(catalog, the run's NodePool simulations), computed once per model (several rules ask); (None, []) when no
    NodePool has requirements, so that the catalog is never loaded for such runs."""
    if not _pools_with_requirements(model):
        return None, []
    memo = model.memo.get("provisioning pools")
    if memo is not None:
        return memo
    from karplint.provisioning.simulate import simulate_pools

    catalog = _catalog(ctx)
    omitted = model.memo["provisioning omitted"] = []
    memo = model.memo["provisioning pools"] = (catalog, simulate_pools(model, catalog,
                                                                      nodeclass_facts_resolver(model), omitted))
    return memo


def _too_large(model: Model, ctx) -> Iterator:
    """KPL004 where a budget of the simulation left NodePools or workloads out (`provisioning.simulate`). Every
    KPL9xx rule reports it (the engine keeps one): whichever of them runs, the verdict is never shown as complete."""
    _simulation(model, ctx)
    for o in model.memo.get("provisioning omitted", ()):
        yield ctx.too_large(o.resource, o.path, o.message)


def _judged_pools(model: Model, ctx) -> Iterator[tuple]:
    """(catalog, simulation) of each NodePool that launches something and whose values the catalog all knows:
    the pools on which dead values and minValues can be judged."""
    catalog, pools = _simulation(model, ctx)
    for sim in pools:
        if not (sim.unknown or not sim.compatible or _has_unknown_values(sim, catalog)):
            yield catalog, sim


def _catalog_values(catalog, key: str) -> set[str]:
    memo = catalog.memo.setdefault("values", {})
    if key not in memo:
        memo[key] = catalog.values(key)
    return memo[key]


def _catalog_date(catalog) -> str:
    return f"{catalog.source.get('version', '?')}, {catalog.source.get('repo', '?')}@{catalog.source.get('commit', '?')[:8]}"


# ------------------------------------------------------------------------------------------ value classification

def _distance(a: str, b: str, limit: int) -> int:
    from karplint.model.labels import _distance as d
    return d(a, b, limit)


def _well_formed(key: str, value: str) -> bool:
    import re
    if key == TYPE:
        return re.fullmatch(r"[a-z][a-z0-9-]*[0-9][a-z0-9-]*\.[a-z0-9-]+", value) is not None
    if key == FAMILY:
        return re.fullmatch(r"[a-z][a-z0-9-]*[0-9][a-z0-9-]*", value) is not None
    if key == SIZE:
        return re.fullmatch(r"(nano|micro|small|medium|large|[0-9]*xlarge|metal(-[0-9]+xl)?|[0-9]+xl)", value) is not None
    if key == CATEGORY:
        return re.fullmatch(r"[a-z]{1,4}", value) is not None
    return re.fullmatch(r"[a-z0-9][a-z0-9-]*", value) is not None


def classify(catalog, key: str, value: str) -> tuple[str, str] | None:
    """Why `value` matches nothing for `key`: ("wrong", message), ("misspelt", message), ("unknown", message);
    None when the catalog knows it. Memoised per catalog (NodePools repeat their values)."""
    if value in _catalog_values(catalog, key):
        return None
    memo = catalog.memo.setdefault("classify", {})
    found = memo.get((key, value), False)
    if found is False:
        if len(memo) >= 100_000:  # (the catalog lives as long as the process)
            memo.clear()
        found = memo[(key, value)] = _classify(catalog, key, value)
    return found


def _lowered(catalog, key: str) -> dict[str, str]:
    memo = catalog.memo.setdefault("lowered values", {})
    if key not in memo:
        memo[key] = {v.lower(): v for v in _catalog_values(catalog, key)}
    return memo[key]


def _classify(catalog, key: str, value: str) -> tuple[str, str] | None:
    known = _catalog_values(catalog, key)
    if key in INTEGER_KEYS:
        try:
            int(value)
        except ValueError:  # (also past Python's 4,300 digits: an integer still, just not one any type has)
            if not ascii_digits(value.strip().lstrip("+-").replace("_", "")):
                return "wrong", f"`{key}` takes integers, not `{value}`"
        return None  # a number no type has today: cannot tell
    if key not in NAMED_KEYS:
        return None
    lowered = _lowered(catalog, key)
    if value.strip().lower() in lowered:
        right = lowered[value.strip().lower()]
        return "misspelt", f"`{value}` matches no {_what(key)}\nhelp: label values are case-sensitive: `{right}`"
    for other in (TYPE, FAMILY, CATEGORY, SIZE, ARCH):
        if other != key and value in _catalog_values(catalog, other):
            fix = f"\nhelp: use `key: {other}`" if other != ARCH else ""
            return "wrong", f"`{value}` is an {_what(other)}, not an {_what(key)}{fix}"
    near = None
    if key == TYPE and "." in value:
        family, _, size = value.partition(".")
        families, sizes = _catalog_values(catalog, FAMILY), _catalog_values(catalog, SIZE)
        if family in families and size not in sizes:
            near_size = _nearest(size, sizes)
            if near_size:
                return "misspelt", f"`{value}` matches no instance type\nhelp: did you mean `{family}.{near_size}`?"
        elif family not in families and size in sizes:
            near_family = _nearest(family, families)
            if near_family and f"{near_family}.{size}" in known and not _well_formed(FAMILY, family):
                near = f"{near_family}.{size}"
    elif key != TYPE:
        near = _nearest(value, known)
    if near and not (key in GROWING_KEYS and _well_formed(key, value) and key != SIZE):
        return "misspelt", f"`{value}` matches no {_what(key)}\nhelp: did you mean `{near}`?"
    if key in GROWING_KEYS and _well_formed(key, value):
        return "unknown", f"`{value}` is unknown to the bundled catalog"
    return "wrong", (f"`{value}` matches no {_what(key)}\n"
                     f"note: values look like: {', '.join(heapq.nsmallest(4, known))}, ...")


def _nearest(value: str, known: set[str]) -> str | None:
    limit = 1 if len(value) <= 4 else 2
    scored = sorted((d, k) for k in known if (d := _distance(value, k, limit)) <= limit)
    if not scored:
        return None
    best = [k for d, k in scored if d == scored[0][0]]
    return best[0] if len(best) == 1 else None


def _what(key: str) -> str:
    return {TYPE: "instance type", FAMILY: "instance family", SIZE: "instance size", CATEGORY: "instance category",
            ARCH: "architecture"}.get(key, f"`{key}` value")


def _value_findings(sim, catalog) -> list[tuple]:
    """(source, index, value, kind, message) for every requirement value the catalog knows nothing of (worked out
    once per NodePool: several rules ask)."""
    found = sim.memo.get("value findings")
    if found is None:
        found = sim.memo["value findings"] = list(_classified_values(sim, catalog))
    return found


def _classified_values(sim, catalog) -> Iterator[tuple]:
    for src in sim.sources:
        if src.label:
            continue
        item = sim.nodepool.get(src.path)
        values = item.get("values") if isinstance(item, dict) else None
        if item.get("operator") not in ("In", "NotIn") or not isinstance(values, list):
            continue
        for j, v in enumerate(values):
            found = classify(catalog, src.key, str(v))
            if found:
                yield src, j, str(v), found[0], found[1]


# Findings of one value rule per NodePool (as the engine bounds per-resource rules: engine.MAX_FINDINGS_PER_RESOURCE).
MAX_VALUE_FINDINGS = 100


def _cut(code: str) -> str:
    return f"more than {MAX_VALUE_FINDINGS} findings of {code} on this NodePool; the rest are not reported"


def _has_unknown_values(sim, catalog) -> bool:
    """A value the catalog does not know but that may be a real new type: whatever it adds cannot be told."""
    memo = sim.memo.get("unknown_values")
    if memo is None:
        memo = sim.memo["unknown_values"] = any(kind == "unknown" for *_, kind, _m in _value_findings(sim, catalog))
    return memo


# ------------------------------------------------------------------------------------------ KPL901

def _single_key_explained(sim, key: str, catalog) -> bool:
    """The emptiness is one key's own problem, which another rule reports (KPL605, KPL607, KPL902)."""
    req = sim.requirements.get(key)
    own = [s for s in sim.sources if s.key == key]
    if req.operator() == "DoesNotExist" and len(own) > 1:
        return True  # contradicts itself: KPL605
    if key in (OS, ARCH, WINDOWS_BUILD) and sim.facts.ami_family:
        return True  # the AMI family: KPL607
    if req.operator() == "In" and all(classify(catalog, key, v) for v in req.values):
        return True  # every value unknown or wrong: KPL902/KPL905
    return False


@rule("KPL901", "nodepool-launches-nothing", category="provisioning", severity="error",
      summary="A NodePool whose requirements together leave no instance type of the catalog to launch",
      reads=(karpenter_resources,), options={CATALOG_OPTION: {}})
def nodepool_launches_nothing(model: Model, ctx) -> Iterator:
    yield from _too_large(model, ctx)
    catalog, pools = _simulation(model, ctx)
    for sim in pools:
        if sim.unknown or sim.compatible or _has_unknown_values(sim, catalog):
            continue
        from karplint.provisioning.nodepools import explain_empty  # (imported once a NodePool is simulated)

        why = explain_empty(sim)
        if why is None or not why.keys:
            continue
        if len(why.keys) == 1 and _single_key_explained(sim, why.keys[0], catalog):
            continue
        srcs = {k: [s for s in sim.sources if s.key == k] for k in why.keys}
        shown = " and ".join(", ".join(f"{s.text} (line {s.line})" for s in srcs[k]) for k in why.keys)
        anchor = max((s for k in why.keys for s in srcs[k]), key=lambda s: s.line)
        help_ = ""
        if why.example:
            dropped = " and ".join(", ".join(s.text for s in srcs[k]) for k in why.without)
            help_ = f"\nhelp: `{why.example}` would pass without {dropped}"
        family = f" under {sim.facts.ami_family}" if sim.facts.ami_family else ""
        yield ctx.violation(
            sim.nodepool, anchor.path,
            f"NodePool `{sim.name}` can launch no instance type{help_}\n"
            f"note: {shown} together leave none of the {len(catalog.types)} instance types of the bundled catalog "
            f"({_catalog_date(catalog)}){family}\n{_NO_LAUNCH_NOTE}",
            on="key" if anchor.label else "value")


# ------------------------------------------------------------------------------------------ KPL902 / KPL905

@rule("KPL902", "requirement-value-matches-nothing", category="provisioning", severity="warning",
      summary="A requirement value no instance type has: misspelt type or family, a category given as a family, "
              "a value of another label",
      reads=(karpenter_resources,))
def requirement_value_matches_nothing(model: Model, ctx) -> Iterator:
    yield from _too_large(model, ctx)
    catalog, pools = _simulation(model, ctx)
    for sim in pools:
        if sim.unknown:
            continue
        reported = 0
        for src, j, value, kind, message in _value_findings(sim, catalog):
            if kind == "unknown":
                continue
            reported += 1
            if reported > MAX_VALUE_FINDINGS:
                yield ctx.violation(sim.nodepool, src.path + ("values", j), _cut("KPL902"))
                break
            op = src.requirement.operator()
            emptied = op == "In" and not sim.compatible and all(
                classify(catalog, src.key, v) for v in src.requirement.values)
            effect = ("no instance type matches the requirement: the NodePool launches nothing" if emptied else
                      "the value selects nothing" if op == "In" else "the value excludes nothing")
            yield ctx.violation(sim.nodepool, src.path + ("values", j),
                                f"{message}\nnote: {effect} (bundled catalog: {_catalog_date(catalog)})",
                                severity="error" if emptied else None)


@rule("KPL905", "instance-type-unknown-to-catalog", category="provisioning", severity="info",
      summary="An instance type, family or size that is well-formed but unknown to the bundled catalog",
      reads=(karpenter_resources,))
def instance_type_unknown_to_catalog(model: Model, ctx) -> Iterator:
    yield from _too_large(model, ctx)
    catalog, pools = _simulation(model, ctx)
    for sim in pools:
        if sim.unknown:
            continue
        reported = 0
        for src, j, value, kind, message in _value_findings(sim, catalog):
            if kind != "unknown":
                continue
            reported += 1
            if reported > MAX_VALUE_FINDINGS:
                yield ctx.violation(sim.nodepool, src.path + ("values", j), _cut("KPL905"))
                break
            yield ctx.violation(
                sim.nodepool, src.path + ("values", j),
                f"{message} ({_catalog_date(catalog)})\nhelp: if it is new, describe it under "
                f"`[tool.karplint.options] {CATALOG_OPTION}` so the simulation knows it\n"
                "note: karplint cannot tell what this value selects")


# ------------------------------------------------------------------------------------------ KPL903

def _alive_values(sim, key: str) -> set[str]:
    """The values of `key` carried by the types that every other requirement of the NodePool lets through.
    NodePools with the same requirements share their filtering result (`simulate_pool`), and this with it."""
    from karplint.provisioning.nodepools import type_index

    memo = sim.type_reqs.memo.setdefault("alive", {})
    found = memo.get((id(sim.rejected_by), key))
    if found is not None:
        return found[1]
    index = type_index(sim.type_reqs.catalog, sim.type_reqs.facts)
    # Types no key rejects (the compatible ones) or only `key` does.
    alive_types = {it.name for it in sim.compatible}
    alive_types.update(name for name, keys in sim.rejected_by.items() if set(keys) == {key})
    alive: set[str] = set()
    for requirement, names in index.get(key, ()):  # each value once, with the types carrying it
        if not alive_types.isdisjoint(names):
            alive |= requirement.values
    memo[(id(sim.rejected_by), key)] = (sim.rejected_by, alive)  # (keeps the keyed object alive)
    return alive


@rule("KPL903", "dead-requirement-value", category="provisioning", severity="warning",
      summary="A requirement value that the NodePool's other requirements exclude (it selects nothing)",
      reads=(karpenter_resources,))
def dead_requirement_value(model: Model, ctx) -> Iterator:
    yield from _too_large(model, ctx)
    for catalog, sim in _judged_pools(model, ctx):
        some_type = sim.type_reqs[sim.compatible[0].name]
        reported = 0
        for src in sim.sources:
            if reported > MAX_VALUE_FINDINGS:
                break
            if src.label or not some_type.has(src.key) or src.requirement.operator() != "In" or \
                    src.key in NODECLASS_KEYS:
                continue  # (values the EC2NodeClass decides, not the other requirements: KPL607)
            alive = _alive_values(sim, src.key)
            item = sim.nodepool.get(src.path)
            values = item.get("values") if isinstance(item, dict) else []
            for j, v in enumerate(values):
                v = str(v)
                if v in alive or classify(catalog, src.key, v) or not src.requirement.has(v):
                    continue
                reported += 1
                if reported > MAX_VALUE_FINDINGS:
                    yield ctx.violation(sim.nodepool, src.path + ("values", j), _cut("KPL903"))
                    break
                others = _cover(sim, src.key, v)
                by = ", ".join(s.text for s in sim.sources if s.key in others)
                yield ctx.violation(
                    sim.nodepool, src.path + ("values", j),
                    f"`{v}` can never be launched: the NodePool's other requirements exclude it\n"
                    f"help: remove `{v}`, or relax {by or 'the other requirements'}\n"
                    f"note: no instance type with {src.key} `{v}` passes them (NodePool `{sim.name}`)")


def _cover(sim, key: str, value: str) -> list[str]:
    """The fewest other keys (greedily) that reject every type carrying `key: value`."""
    left = {name: set(keys) - {key} for name in _carrying(sim, key).get(value, ())
            if (keys := sim.rejected_by.get(name)) is not None}
    chosen: list[str] = []
    while left and len(chosen) < 3:
        counts: dict[str, int] = {}
        for keys in left.values():
            for k in keys:
                counts[k] = counts.get(k, 0) + 1
        if not counts:
            break
        best = max(sorted(counts), key=counts.get)
        chosen.append(best)
        left = {n: ks for n, ks in left.items() if best not in ks}
    return chosen


def _carrying(sim, key: str) -> dict[str, list[str]]:
    """value -> the instance types whose requirement on `key` has it, under the NodePool's node-class variant
    (from the type index: once per variant and key, not a scan of the catalog per value)."""
    from karplint.provisioning.nodepools import type_index

    memo = sim.type_reqs.memo.setdefault("carrying", {})
    found = memo.get(key)
    if found is None:
        found = memo[key] = {}
        for requirement, names in type_index(sim.type_reqs.catalog, sim.type_reqs.facts).get(key, ()):
            for v in requirement.values:
                found.setdefault(v, []).extend(names)
    return found


# ------------------------------------------------------------------------------------------ KPL904

@rule("KPL904", "min-values-unsatisfiable", category="provisioning", severity="error",
      summary="A minValues larger than the distinct values the NodePool's instance types offer",
      reads=(karpenter_resources,))
def min_values_unsatisfiable(model: Model, ctx) -> Iterator:
    yield from _too_large(model, ctx)
    for _cat, sim in _judged_pools(model, ctx):
        for key, (wanted, have) in sorted(sim.min_values_short.items()):
            req = sim.requirements.get(key)
            if not req.complement and len(req.values) < wanted:
                continue  # fewer values written than minValues: KPL605 / the API server
            src = next((s for s in sim.sources if s.key == key and s.requirement.min_values is not None), None)
            if src is None:
                continue
            from karplint.provisioning.nodepools import values_of  # (imported once a NodePool is simulated)

            values = values_of(sim.compatible, sim.type_reqs, key)
            shown = ", ".join(sorted(values)[:6]) + (", ..." if len(values) > 6 else "")
            yield ctx.violation(
                sim.nodepool, src.path + ("minValues",),
                f"minValues {wanted} cannot be met: {have} distinct value(s) of `{key}` remain\n"
                f"help: lower minValues or widen the requirements of NodePool `{sim.name}`\n"
                f"note: what remains: {shown}\n"
                "note: with the default minValuesPolicy Strict, Karpenter launches nothing from this NodePool "
                "(\"minValues requirement is not met\"); BestEffort relaxes it", on="key")


# ------------------------------------------------------------------------------------------ KPL910

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
    yield from _too_large(model, ctx)
    catalog, pools = _simulation(model, ctx)
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
    pods = [p for p in (read_pod(r) for r in list(model.workloads())[:MAX_WORKLOADS]
                        if r.kind == "DaemonSet" or (pods_with_node_constraints(r.doc, r) if strict
                                                     else _may_target(r, all_marks))) if p is not None]
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
        f"bundled catalog ({_catalog_date(catalog)})",
        severity=None if level == "error" else "warning")
