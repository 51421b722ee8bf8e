"""A NodePool's `spec.limits` as a filter on its instance types, as Karpenter applies them before it launches a
node: the types whose capacity exceeds what the limits leave are dropped (kubernetes-sigs/karpenter
pkg/controllers/provisioning/scheduling/scheduler.go@v1.14.1#L1069 `filterByRemainingResources`, called at #L716:
"all available instance types exceed limits for nodepool"). Statically no node exists yet, so what the limits leave
is the limits themselves. Capacity, not allocatable, is compared; a type whose capacity equals the limit fits.

Used by the pool simulation (`workloads.host`) and by KPL907; capacities are worked out once per catalog.
"""

from __future__ import annotations

from karplint.model import Resource
from karplint.provisioning import quantity
from karplint.provisioning.catalog import Catalog, InstanceType

ARCH = "kubernetes.io/arch"
# aws/karpenter-provider-aws pkg/operator/options (VM_MEMORY_OVERHEAD_PERCENT): the default share of memory
# Karpenter takes off an instance type's memory capacity (types.go@v1.14.1#L356 `memory`).
VM_MEMORY_OVERHEAD = 0.075
# `nodes` counts nodes, not a type's capacity (scheduler.go@v1.14.1#L711: only its exhaustion matters).
NOT_TYPE_FILTERS = frozenset({"nodes"})


def capacity(it: InstanceType, resource: str) -> float | None:
    """An instance type's capacity of `resource`: the catalog entry's own `capacity` when it gives one (a private
    catalog, Karpenter's fake provider); else as the AWS provider computes it (types.go@v1.14.1#L332
    `computeCapacity`): vCPUs; memory less 64 MiB on Graviton and the VM overhead; the device resources as the
    catalog lists them (0 when absent). None: not judged (pods and storage depend on the node class)."""
    if resource in it.capacity:
        q = quantity.parse(it.capacity[resource])
        return float(q) if q is not None else None
    if resource == "cpu":
        n = it.labels.get("karpenter.k8s.aws/instance-cpu")
        return float(n) if n and n.isdigit() else None
    if resource == "memory":
        n = it.labels.get("karpenter.k8s.aws/instance-memory")
        if not (n and n.isdigit()):
            return None
        mib = int(n) - (64 if it.labels.get(ARCH) == "arm64" else 0)
        return float((mib - -(-mib * VM_MEMORY_OVERHEAD // 1)) * 2**20)
    if "/" in resource:
        q = quantity.parse(it.allocatable.get(resource, "0"))
        return float(q) if q is not None else None
    return None


def capacities(catalog: Catalog, resource: str) -> dict[str, float | None]:
    """name -> `capacity` of every type of the catalog, worked out once per catalog."""
    memo = catalog.memo.setdefault("capacity", {})
    caps = memo.get(resource)
    if caps is None:
        caps = memo[resource] = {it.name: capacity(it, resource) for it in catalog.types.values()}
    return caps


def pool_limits(np: Resource) -> dict[str, float]:
    """The NodePool's `spec.limits` that filter instance types: resource -> quantity. A value karplint cannot read
    (templated, not a quantity: the schema's) or negative is left out; `nodes` is not a type filter."""
    limits = np.get(("spec", "limits", "resources") if np.kind == "Provisioner" else ("spec", "limits"))
    out: dict[str, float] = {}
    if not isinstance(limits, dict):
        return out
    for name, value in limits.items():
        if not isinstance(name, str) or name in NOT_TYPE_FILTERS:
            continue
        q = quantity.parse(value)
        if q is not None and q >= 0:
            out[name] = float(q)
    return out


def over_limits(caps: dict[str, dict], limits: dict[str, float], name: str) -> str | None:
    """The first resource (in `limits` order) whose capacity on type `name` exceeds its limit; None when the type
    fits under every limit or its capacity cannot be told. `caps`: resource -> `capacities`."""
    for resource, limit in limits.items():
        c = caps[resource].get(name)
        if c is not None and c > limit:
            return resource
    return None


def under_limits(sim, compat: list) -> tuple[list, str]:
    """The types of `compat` (a `PoolSimulation`'s, for one pod) whose capacity fits under the NodePool's
    `spec.limits` (Karpenter drops the others before it tries the pod, scheduler.go@v1.14.1#L716), and, when none
    does, why, as a verdict's reason.
    A NodePool whose every type exceeds a limit is KPL907's: the reason says so."""
    limits = sim.memo.get("limits")
    if not limits:
        return compat, ""
    caps = sim.memo["capacities"]
    under = [it for it in compat if over_limits(caps, limits, it.name) is None]
    if under:
        return under, ""
    emptied = sim.memo.get("emptied by limits", False)
    if emptied is False:  # (the resource whose limit every type of the NodePool exceeds, as KPL907 judges it)
        emptied = sim.memo["emptied by limits"] = next(
            (r for r, limit in limits.items() if limit > 0 and sim.types and all(
                (c := caps[r].get(it.name)) is not None and c > limit for it in sim.types)), None)
    resource = emptied or over_limits(caps, limits, compat[0].name)
    limit = limits[resource]
    shown = f"{limit:g}" if resource == "cpu" else quantity.show(resource, limit)
    if limit == 0:
        return [], f"its `{resource}` limit is 0: it launches no node"
    if emptied:
        return [], (f"its `{resource}` limit ({shown}) is below the capacity of every instance type it allows "
                    "(KPL907): Karpenter launches none (\"all available instance types exceed limits for nodepool\")")
    return [], (f"every instance type that meets the pod's requirements has more `{resource}` capacity than the "
                f"NodePool's limit ({shown}): Karpenter launches none for it (\"all available instance types exceed "
                "limits for nodepool\")")
