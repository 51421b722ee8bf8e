"""What each NodePool can launch (KPL901-KPL905), simulated offline.

The simulation is `karplint.provisioning` (Karpenter's requirement algebra and scheduler checks, the bundled
instance-type catalog), run once per model (karplint/rules/_simulation.py); these rules only turn its answers into
findings. The catalog is loaded only when the run holds a NodePool with requirements. Anything templated or unknown
is "cannot tell", never a finding. Which workloads no NodePool can host: KPL910, karplint/rules/scheduling.py.
"""

from __future__ import annotations

import heapq
from typing import Iterator

from karplint.model import Model, karpenter_resources
from karplint.numbers import ascii_digits
from karplint.provisioning import NODECLASS_KEY  # (the package alone: the simulation loads when a NodePool asks)
from karplint.rules import rule
from karplint.rules._simulation import (CATALOG_MODE_OPTION, CATALOG_OPTION, catalog_date, catalog_name,
                                       legacy_simulation, simulation, too_large)

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
_NO_LAUNCH_NOTE = ("note: Karpenter skips the NodePool (\"nodepool requirements filtered out all instance types\"); "
                   "pods that need it stay Pending")


def _judged_pools(model: Model, ctx) -> Iterator[tuple]:
    """(catalog, simulation) of each NodePool that launches something and whose values the catalog all knows:
    the pools on which dead values and minValues can be judged."""
    catalog, pools = simulation(model, ctx)
    for sim in pools:
        if not (sim.unknown or not sim.compatible or _has_unknown_values(sim, catalog)):
            yield catalog, sim


def _catalog_values(catalog, key: str) -> set[str]:
    memo = catalog.memo.setdefault("values", {})
    if key not in memo:
        memo[key] = catalog.values(key)
    return memo[key]


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
        typo = _likely_typo(catalog, key, value)
        if typo:
            return "typo", typo
        return "unknown", f"`{value}` is unknown to the {catalog_name(catalog)}"
    return "wrong", (f"`{value}` matches no {_what(key)}\n"
                     f"note: values look like: {', '.join(heapq.nsmallest(4, known))}, ...")


def _slips(word: str) -> Iterator[tuple[str, str]]:
    """(word as meant, what went wrong) for the slips that do not make a plausible new EC2 name: two adjacent
    characters swapped (`c7ng` for `c7gn`), a character doubled (`m55`). A changed digit (`m9g`: a new generation)
    or an added or changed letter (`m7gx`: a new variant) may be a real name newer than the catalog."""
    for i in range(len(word) - 1):
        if word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2:], f"`{word[i]}{word[i + 1]}` swapped"
        else:
            yield word[:i] + word[i + 1:], f"`{word[i]}` doubled"


def _likely_typo(catalog, key: str, value: str) -> str | None:
    """The headline for a family or type name one slip (`_slips`) away from exactly one the catalog has."""
    if key == TYPE:
        family, _, size = value.partition(".")
        if size not in _catalog_values(catalog, SIZE):
            return None
        known = _catalog_values(catalog, TYPE)
        meant = {(f"{f}.{size}", how) for f, how in _slips(family) if f"{f}.{size}" in known}
    elif key == FAMILY:
        known = _catalog_values(catalog, FAMILY)
        meant = {(f, how) for f, how in _slips(value) if f in known}
    else:
        return None
    if len({m for m, _ in meant}) != 1:
        return None
    right, how = sorted(meant)[0]
    return (f"`{value}` matches no {_what(key)} of the bundled catalog: likely `{right}` with {how}\n"
            f"help: did you mean `{right}`?")


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
        memo = sim.memo["unknown_values"] = any(kind in ("unknown", "typo")
                                                for *_, kind, _m in _value_findings(sim, catalog))
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
      reads=(karpenter_resources,), options={CATALOG_OPTION: {}, CATALOG_MODE_OPTION: "add"})
def nodepool_launches_nothing(model: Model, ctx) -> Iterator:
    yield from too_large(model, ctx)
    catalog, pools = simulation(model, ctx)
    for sim in pools:
        if sim.unknown or sim.compatible or _has_unknown_values(sim, catalog):
            continue
        # (imported once a NodePool is simulated)
        from karplint.provisioning.nodepools import class_incompatible, explain_empty

        why = explain_empty(sim)
        if why is None or not why.keys:
            continue
        if len(why.keys) == 1 and _single_key_explained(sim, why.keys[0], catalog):
            continue
        if set(why.keys) <= {NODECLASS_KEY, OS, ARCH, WINDOWS_BUILD} and sim.facts.ami_family:
            continue  # the AMI family against os/arch: KPL607
        srcs = {k: [s for s in sim.sources if s.key == k] for k in why.keys}
        if not any(srcs.values()):
            continue
        why_class = class_incompatible(catalog, sim.facts)[0]
        shown = " and ".join(", ".join(f"{s.text} (line {s.line})" for s in srcs[k]) if k != NODECLASS_KEY else
                             f"the EC2NodeClass (`{why_class}`)" for k in why.keys)
        anchor = max((s for k in why.keys for s in srcs[k]), key=lambda s: s.line)
        help_ = ""
        if why.example:
            dropped = " and ".join(", ".join(s.text for s in srcs[k]) for k in why.without if k != NODECLASS_KEY)
            if NODECLASS_KEY in why.without:
                help_ = (f"\nhelp: `{why.example}` would pass under another AMI family" +
                         (f" and without {dropped}" if dropped else ""))
            else:
                help_ = f"\nhelp: `{why.example}` would pass without {dropped}"
        family = f" under {sim.facts.ami_family}" if sim.facts.ami_family and NODECLASS_KEY not in why.keys else ""
        yield ctx.violation(
            sim.nodepool, anchor.path,
            f"NodePool `{sim.name}` can launch no instance type{help_}\n"
            f"note: {shown} together leave none of the {len(catalog.types)} instance "
            f"type{'s' if len(catalog.types) != 1 else ''} of the "
            f"{catalog_name(catalog)} ({catalog_date(catalog)}){family}\n{_NO_LAUNCH_NOTE}",
            on="key" if anchor.label else "value")


# ------------------------------------------------------------------------------------------ KPL902 / KPL905

@rule("KPL902", "requirement-value-matches-nothing", category="provisioning", severity="warning",
      summary="A requirement value no instance type has: misspelt type or family, a category given as a family, "
              "a value of another label",
      reads=(karpenter_resources,))
def requirement_value_matches_nothing(model: Model, ctx) -> Iterator:
    yield from too_large(model, ctx)
    # The v1alpha5 Provisioners too (when the target release serves them): their values are compared the same way.
    for catalog, pools in (simulation(model, ctx), legacy_simulation(model, ctx)):
        yield from _values_matching_nothing(catalog, pools, ctx)


def _values_matching_nothing(catalog, pools, ctx) -> Iterator:
    for sim in pools:
        if sim.unknown:
            continue
        reported = 0
        for src, j, value, kind, message in _value_findings(sim, catalog):
            if kind in ("unknown", "typo"):
                continue
            reported += 1
            if reported > MAX_VALUE_FINDINGS:
                yield ctx.violation(sim.nodepool, src.path + ("values", j), _cut("KPL902"))
                break
            op = src.requirement.operator()
            emptied = op == "In" and not sim.compatible and all(
                classify(catalog, src.key, v) for v in src.requirement.values)
            effect = (f"no instance type matches the requirement: the {sim.nodepool.kind} launches nothing"
                      if emptied else "the value selects nothing" if op == "In" else "the value excludes nothing")
            yield ctx.violation(sim.nodepool, src.path + ("values", j),
                                f"{message}\nnote: {effect} ({catalog_name(catalog)}: {catalog_date(catalog)})",
                                severity="error" if emptied else None)


@rule("KPL905", "instance-type-unknown-to-catalog", category="provisioning", severity="info",
      summary="An instance type, family or size that is well-formed but unknown to the bundled catalog",
      reads=(karpenter_resources,))
def instance_type_unknown_to_catalog(model: Model, ctx) -> Iterator:
    yield from too_large(model, ctx)
    catalog, pools = simulation(model, ctx)
    for sim in pools:
        if sim.unknown:
            continue
        reported = 0
        for src, j, value, kind, message in _value_findings(sim, catalog):
            if kind not in ("unknown", "typo"):
                continue
            reported += 1
            if reported > MAX_VALUE_FINDINGS:
                yield ctx.violation(sim.nodepool, src.path + ("values", j), _cut("KPL905"))
                break
            if kind == "typo":  # one slip from a real name: a warning, still "cannot tell" for the other rules
                headline, _, rest = message.partition("\n")
                yield ctx.violation(
                    sim.nodepool, src.path + ("values", j),
                    f"{headline} ({catalog_date(catalog)})\n{rest}\nnote: if `{value}` is real and newer than the "
                    f"catalog, describe it under `[tool.karplint.options] {CATALOG_OPTION}`; until then karplint "
                    "cannot tell what this value selects", severity="warning")
                continue
            yield ctx.violation(
                sim.nodepool, src.path + ("values", j),
                f"{message} ({catalog_date(catalog)})\nhelp: if it is new, describe it under "
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
    yield from too_large(model, ctx)
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
                if others == [NODECLASS_KEY]:  # (the AMI family alone: no requirement to relax)
                    from karplint.provisioning.nodepools import class_incompatible

                    yield ctx.violation(
                        sim.nodepool, src.path + ("values", j),
                        f"`{v}` can never be launched: {class_incompatible(catalog, sim.facts)[0]}\n"
                        f"help: remove `{v}`, or use another AMI family in EC2NodeClass `{sim.facts.name}`\n"
                        f"note: Karpenter drops the instance types the AMI family cannot run (NodePool `{sim.name}`)")
                    continue
                by = ", ".join(s.text for s in sim.sources if s.key in others)
                also = " with its EC2NodeClass's AMI family" if NODECLASS_KEY in others else ""
                yield ctx.violation(
                    sim.nodepool, src.path + ("values", j),
                    f"`{v}` can never be launched: the NodePool's other requirements{also} exclude it\n"
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
        # (a requirement before the AMI family: relaxing it is the fix the help offers, when it suffices)
        best = max(sorted(counts), key=lambda k: (counts[k], k != NODECLASS_KEY))
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
    yield from too_large(model, ctx)
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


# ------------------------------------------------------------------------------------------ KPL907

def _smallest_capacity(catalog, sim, resource: str, limit: float) -> tuple[float, str] | None:
    """(capacity, type) of the NodePool's smallest type for `resource` when even it exceeds `limit`, else None.
    Capacities are worked out once per catalog; a limit at least the catalog's largest capacity (the usual case:
    limits bound the whole pool) is settled without looking at the NodePool's types."""
    from karplint.provisioning.limits import capacities

    caps = capacities(catalog, resource)
    memo = catalog.memo.setdefault("largest capacity", {})
    if resource not in memo:
        memo[resource] = max((c for c in caps.values() if c is not None), default=None)
    largest = memo[resource]
    if largest is None or limit >= largest:
        return None
    smallest = None
    for it in sim.types:
        c = caps.get(it.name)
        if c is None or c <= limit:
            return None  # (cannot tell, or it fits)
        if smallest is None or (c, it.name) < smallest:
            smallest = (c, it.name)
    return smallest


@rule("KPL907", "limits-below-smallest-instance-type", category="provisioning", severity="error",
      summary="A NodePool `spec.limits` value smaller than the capacity of every instance type the NodePool allows",
      reads=(karpenter_resources,))
def limits_below_smallest_instance_type(model: Model, ctx) -> Iterator:
    yield from too_large(model, ctx)
    from karplint.provisioning import quantity

    for _catalog, sim in _judged_pools(model, ctx):
        limits = sim.nodepool.get(("spec", "limits"))
        if not sim.types or not isinstance(limits, dict):
            continue
        parsed = {}
        for name, value in limits.items():
            q = quantity.parse(value) if isinstance(name, str) else None
            if q is not None and q > 0:  # (0 stops the pool on purpose; a bad quantity is the schema's)
                parsed[name] = float(q)
        for resource, limit in parsed.items():
            found = _smallest_capacity(_catalog, sim, resource, limit)
            if found is None:
                continue  # (some type fits under it, or cannot tell)
            smallest, name = found
            shown = (f"{smallest:g}" if resource == "cpu" else f"{smallest / 2**20:.0f}Mi" if resource == "memory"
                     else quantity.show(resource, smallest))  # (the exact capacity: the help asks for it)
            unit = " vCPUs" if resource == "cpu" else ""
            memory = resource == "memory"
            limit_shown = f"{limit:g}" if resource == "cpu" else quantity.show(resource, limit)
            yield ctx.violation(
                sim.nodepool, ("spec", "limits", resource),
                f"NodePool `{sim.name}` can launch no node under its `{resource}` limit ({limit_shown})\n"
                f"help: raise `limits.{resource}` to at least {shown}, or allow smaller instance types\n"
                f"note: the smallest instance type it allows, {name}, has {shown}{unit} of capacity; Karpenter drops "
                "the types whose capacity exceeds what the limit leaves (\"all available instance types exceed "
                "limits for nodepool\"), so pods that need the NodePool stay Pending"
                + ("\nnote: memory capacity with Karpenter's default VM memory overhead (7.5%, "
                   "VM_MEMORY_OVERHEAD_PERCENT)" if memory else ""),
                severity="warning" if memory else None)
