"""One pod of a workload, and whether a NodePool can ever give it a node.

Follows kubernetes-sigs/karpenter@2266468104f36373ed002241afaee2d3bbc26078:
- `pkg/controllers/provisioning/scheduling/nodeclaim.go` `NodeClaim.CanAdd`: the NodePool's taints must be
  tolerated (`pkg/scheduling/taints.go` `Taints.Tolerates`; `startupTaints` are not in `Spec.Taints` and never
  block; a `PreferNoSchedule` taint is tolerated after preference relaxation, `preferences.go`
  `toleratePreferNoScheduleTaints`), the pod's requirements must be `Compatible` with the template's
  (`AllowUndefinedWellKnownLabels`: a custom label the NodePool does not define is "label ... does not have known
  values"), then `filterInstanceTypesByRequirements` keeps the types compatible with both and whose allocatable
  holds the pod's requests plus the DaemonSet pods that land there (`daemonOverheadGroups`), without host-port
  conflicts with them (`pkg/scheduling/hostportusage.go`).
- How a pod is read (requirements, tolerations, requests): `karplint.provisioning.pods`.

Anything templated or unparsable is "cannot tell": the pod is assumed to fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from karplint.provisioning.placement import tolerates  # k8s Toleration.ToleratesTaint (templated: tolerated)
from karplint.model import Resource
from karplint.provisioning import quantity
from karplint.provisioning.limits import under_limits
from karplint.provisioning.nodepools import LINUX_FAMILIES, PoolSimulation, allocatable
from karplint.provisioning.pods import Pod, _add
from karplint.provisioning.requirements import Requirements
from karplint.readers.templating import has_placeholder

# Resources every instance type has: a configured type that does not state one (`instance-types`) is not known
# to lack it (the catalog cannot tell), unlike an extended resource it does not list (a GPU: none).
STATED_RESOURCES = frozenset({"cpu", "memory", "pods"})
# The resources the AWS provider gives instance types (aws/karpenter-provider-aws
# pkg/providers/instancetype/types.go@v1.14.1#L332 `computeCapacity`); a type without one has 0 of it. The
# bundled catalog lists all of them but habana.ai/gaudi, which is therefore "cannot tell".
PROVIDER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage", "pods", "vpc.amazonaws.com/pod-eni",
                                "nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore",
                                "habana.ai/gaudi", "vpc.amazonaws.com/efa"})
# Given only to types whose OS is windows (types.go@v1.14.1#L156): none under a Linux AMI family.
PRIVATE_IPV4 = "vpc.amazonaws.com/PrivateIPv4Address"


def _claiming_daemons_land(sim: PoolSimulation, ds: list[Daemon]) -> bool:
    """Whether a DaemonSet that claims devices may land on some type of `sim` (once per NodePool and list)."""
    if not any(d.pod.claims_devices for d in ds):
        return False
    memo = sim.memo.setdefault("claiming daemons", {})
    key = tuple(id(d) for d in ds)
    found = memo.get(key)
    if found is None:
        found = memo[key] = (list(ds), any(daemon_lands(d, sim, it.name) is not False
                                           for d in ds if d.pod.claims_devices for it in sim.types))
    return found[1]


def _host_with_claims(pod: Pod, sim: PoolSimulation, ds: list[Daemon], any_type: bool) -> Verdict:
    """`host` when the pod or a DaemonSet claims devices through DRA (`claims_devices`). Under
    `ignoreDRARequests` (the default) Karpenter gives the pod no node and leaves the DaemonSet pods out of the
    overhead (scheduler.go@v1.14.1#L977 `buildDaemonOverheadGroups`); otherwise it counts them and simulates the
    devices. A miss without those DaemonSets is a miss either way; a fit is "cannot tell" for a claiming pod, and
    for another pod unless it fits with those DaemonSets counted too (its types are then the default's)."""
    # (the same list where no claiming DaemonSet lands: its daemon overhead is already worked out)
    plain = [d for d in ds if not d.pod.claims_devices] if _claiming_daemons_land(sim, ds) else ds
    v = _host(pod, sim, plain, any_type=any_type)
    if v.ok is not True:
        return v
    if not pod.claims_devices:
        if _host(pod, sim, ds, any_type=True).ok is True:
            return v  # (with the types of the default, where the DaemonSet pods are left out)
        names = ", ".join(f"`{d.name}`" for d in ds if d.pod.claims_devices)
        reason = (f"it fits only if Karpenter leaves out the requests of DaemonSet {names}, which claims devices "
                  "through Dynamic Resource Allocation: it does while its setting `ignoreDRARequests` is on (the "
                  "default), which the files do not show")
    else:
        reason = CLAIMS_DEVICES
    v.ok, v.reason, v.types = None, reason, []
    return v


CLAIMS_DEVICES = ("it claims devices through Dynamic Resource Allocation (resource claims): Karpenter leaves it "
                  "Pending while its setting `ignoreDRARequests` is on (the default), which the files do not show")


def blocking_taints(sim: PoolSimulation, tolerations: list[dict]) -> list[dict]:
    out = []
    for taint in sim.taints:
        if any(has_placeholder(v) for v in taint.values()):
            continue
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            out.append(taint)
    return out


# ------------------------------------------------------------------------------------------ DaemonSet overhead

@dataclass
class Daemon:
    pod: Pod
    name: str


def daemons(pods: list[Pod]) -> list[Daemon]:
    return [Daemon(p, str(p.res.name)) for p in pods if p.res.kind == "DaemonSet"]


def daemon_lands(d: Daemon, sim: PoolSimulation, type_name: str) -> bool | None:
    """Whether a DaemonSet's pod runs on a node of `sim` with type `type_name` (None: cannot tell)."""
    if d.pod.unknown or d.pod.terms is None:
        return None
    if blocking_taints(sim, d.pod.tolerations):
        return False
    treqs = sim.type_reqs[type_name]
    for term in d.pod.terms:
        if sim.requirements.compatible(term, sim.well_known) is None and treqs.intersects(term) is None:
            return True
    return False


def daemon_overhead(sim: PoolSimulation, ds: list[Daemon]) -> dict[str, tuple[dict, frozenset] | None]:
    """Per launchable type: the requests and host ports of the DaemonSets whose pods land there (None: cannot
    tell). Computed once per NodePool and DaemonSet list (`buildDaemonOverheadGroups`)."""
    memo = sim.memo.setdefault("daemons", {})  # (a few lists per NodePool: with and without DRA DaemonSets)
    key = tuple(id(d) for d in ds)
    found = memo.get(key)
    if found is not None:  # (it holds the Daemons themselves: their ids cannot be reused meanwhile)
        return found[1]
    out: dict[str, tuple[dict, frozenset] | None] = {}
    # Whether a DaemonSet lands depends on a type only through the type's requirements on the keys its terms
    # name (shared objects: types with equal values share them), and the overhead only on which DaemonSets land:
    # both are worked out once per distinct case, not once per type (NodePools of a thousand types, dozens of
    # DaemonSets).
    keys = [sorted({k for t in d.pod.terms for k in t.keys()}) if d.pod.terms else [] for d in ds]
    lands_memo: dict[tuple, bool | None] = {}
    totals: dict[tuple, tuple[dict, frozenset] | None] = {}
    for it in sim.types:
        by = sim.type_reqs[it.name].by_key
        landing = []
        for i, d in enumerate(ds):
            sig = (i, *(id(by.get(k)) for k in keys[i]))
            lands = lands_memo.get(sig, lands_memo)
            if lands is lands_memo:
                lands = lands_memo[sig] = daemon_lands(d, sim, it.name)
            landing.append(lands)
        landing = tuple(landing)
        found = totals.get(landing, totals)
        if found is totals:
            total: dict | None = {}
            ports: set = set()
            for d, lands in zip(ds, landing):
                if lands is None or (lands and d.pod.requests is None):
                    total = None
                    break
                if lands:
                    total = _add(total, {k: float(v) for k, v in d.pod.requests.items()})
                    ports |= d.pod.host_ports
            found = totals[landing] = None if total is None else (total, frozenset(ports))
        out[it.name] = found
    if len(memo) >= 8:
        memo.clear()
    memo[key] = (list(ds), out)
    return out


# ------------------------------------------------------------------------------------------ hosting

STAGES = ("taint", "label", "requirements", "resources")  # how far a pod gets; later is a closer miss


@dataclass
class Verdict:
    pool: str
    ok: bool | None  # None: cannot tell
    stage: int = 4  # index into STAGES of the first failure (4 when ok)
    reason: str = ""
    types: list[str] = field(default_factory=list)  # types that can host it
    nodepool: Resource | None = None
    # The miss is a resource no instance type offers: Karpenter launches nothing for the pod, but a node that
    # already advertises the resource (a device plugin's) may still take it.
    soft: bool = False


def _missing(need: dict[str, Fraction], have: dict[str, Fraction], unknown=frozenset()) -> list[str]:
    """The resources `have` lacks for `need` (resources.Fits), ignoring those the catalog cannot tell."""
    return [k for k, v in need.items() if v > 0 and k not in unknown and have.get(k, 0) < v]


def host(pod: Pod, sim: PoolSimulation, ds: list[Daemon], *, any_type: bool = False) -> Verdict:
    """Can NodePool `sim` give `pod` a node? The verdict names the first obstacle, as Karpenter reports it.
    Memoised per NodePool by what the verdict depends on (most pods of a run share their constraints).
    `any_type`: the same verdict, but `types` may hold only the first type that fits (for callers that need the
    verdict alone: the search through every fitting type is most of the cost on a broad NodePool)."""
    if pod.claims_devices or _claiming_daemons_land(sim, ds):
        key = (pod.placement_key, tuple(id(d) for d in ds if d.pod.res is not pod.res), "claims", any_type)
        memo = sim.memo.setdefault("host", {})
        found = memo.get(key)
        if found is None:
            found = memo[key] = _host_with_claims(pod, sim, ds, any_type)
        return replace(found, types=list(found.types))
    key = (pod.placement_key, tuple(id(d) for d in ds if d.pod.res is not pod.res))
    memo = sim.memo.setdefault("host", {})
    found = memo.get(key)
    if found is None and any_type:
        key += ("any type",)
        found = memo.get(key)
        if found is None:
            found = memo[key] = _host(pod, sim, ds, any_type=True)
    elif found is None:
        found = memo[key] = _host(pod, sim, ds)
    return Verdict(found.pool, found.ok, found.stage, found.reason, found.types, found.nodepool, found.soft)


def _compatible_types(sim: PoolSimulation, merged: Requirements, term: Requirements) -> list:
    """The NodePool's types that also satisfy the pod's term (per-key verdicts memoised: types share values)."""
    keys = [k for k in term.keys()]
    verdicts: dict[tuple, bool] = {}
    out = []
    for it in sim.types:
        treqs = sim.type_reqs[it.name]
        ok = True
        for k in keys:
            tr = treqs.by_key.get(k)
            if tr is None:
                continue
            mk = (k, tr.complement, tr.values, tr.gte, tr.lte)
            got = verdicts.get(mk)
            if got is None:
                inc = merged.by_key[k]
                got = tr.has_intersection(inc) or (
                    inc.operator() in ("NotIn", "DoesNotExist") and tr.operator() in ("NotIn", "DoesNotExist"))
                verdicts[mk] = got
            if not got:
                ok = False
                break
        if ok and it.offerings and not it.offered(merged):
            ok = False  # no offering (capacity type and zone) it is sold in matches
        if ok:
            out.append(it)
    return out


def _host(pod: Pod, sim: PoolSimulation, ds: list[Daemon], any_type: bool = False) -> Verdict:
    v = Verdict(sim.name, None, nodepool=sim.nodepool)
    if sim.unknown or pod.unknown or pod.terms is None:
        v.reason = sim.unknown or pod.unknown or "cannot tell"
        return v
    if not sim.types:
        v.ok, v.stage, v.reason = False, -1, f"NodePool `{sim.name}` launches no instance type"
        return v
    blocked = blocking_taints(sim, pod.tolerations)
    if blocked:
        t = blocked[0]
        shown = f"{t.get('key')}" + (f"={t.get('value')}" if t.get("value") not in (None, "") else "") + \
            f":{t.get('effect')}"
        v.ok, v.stage, v.reason = False, 0, f"did not tolerate taint `{shown}`"
        return v
    best = None
    for term in pod.terms:
        why = sim.requirements.compatible(term, sim.well_known)
        if why is not None:
            cand = (1, f"incompatible requirements, {why}")
            best = cand if best is None or cand[0] > best[0] else best
            continue
        merged = sim.requirements.copy()
        merged.add(*term.by_key.values())
        compat = _compatible_types(sim, merged, term)
        if not compat:
            keys = sorted(k for k in term.keys() if k in sim.type_reqs[sim.types[0].name].by_key)
            cand = (2, "no instance type of the NodePool satisfies " +
                    ", ".join(f"`{term.by_key[k]}`" for k in keys) if keys else
                    "no instance type of the NodePool satisfies the pod's requirements")
            best = cand if best is None or cand[0] > best[0] else best
            continue
        limited = len(compat)
        compat, over = under_limits(sim, compat)
        if not compat:
            cand = (3, over)
            best = cand if best is None or cand[0] > best[0] else best
            continue
        limited = "" if limited == len(compat) else " within its limits"
        if pod.requests is None:
            v.ok, v.reason = None, "its requests cannot be read"
            return v
        unoffered = _unoffered(pod.requests, sim)
        if unoffered:
            cand = (3, _unoffered_reason(unoffered, sim), True)
            best = cand if best is None or cand[0] > best[0] else best
            continue
        overhead = daemon_overhead(sim, ds)
        need = {k: float(v) for k, v in pod.requests.items()}
        skip = sim.facts.unknown_resources | _unlisted(pod.requests, sim)
        fitting, short = [], {}
        min_keys = _min_values_keys(merged, sim)
        any_type = any_type and not min_keys  # (minValues counts the values of every type that fits)
        if any_type and None in overhead.values() and any(overhead.get(it.name) is None for it in compat):
            v.ok, v.reason = None, "a DaemonSet's placement or requests cannot be read"  # (as the full search says)
            return v
        for it in compat:
            extra = overhead.get(it.name)
            if extra is None:
                v.ok, v.reason = None, "a DaemonSet's placement or requests cannot be read"
                return v
            if pod.host_ports & extra[1]:
                short["host port"] = short.get("host port", 0) + 1
                continue
            have = allocatable(it)
            missing = _missing(_add(need, extra[0]), have,
                               skip if STATED_RESOURCES <= have.keys() else skip | (STATED_RESOURCES - have.keys()))
            if not missing:
                fitting.append(it.name)
                if any_type:
                    break
            for k in missing:
                short[k] = short.get(k, 0) + 1
        shortfall = _min_values_shortfall(merged, min_keys, fitting, sim) if fitting else None
        if fitting and shortfall is None:
            v.ok, v.stage, v.types = True, 4, fitting
            return v
        if shortfall is not None:
            best = shortfall if best is None or shortfall[0] > best[0] else best
            continue
        resource = max(sorted(short), key=short.get) if short else "resources"
        largest = _largest(compat, resource)
        need_s = quantity.show(resource, pod.requests.get(resource, 0)) if resource in pod.requests else "?"
        extra = max((o[0].get(resource, 0) for o in overhead.values() if o), default=0)
        plus = f" plus {quantity.show(resource, extra)} for DaemonSets" if extra else ""
        cand = (3, f"requests {resource} {need_s}{plus}, more than any of its {len(compat)} compatible instance "
                   f"types{limited} offers" + (f" (largest: {largest})" if largest else ""))
        if resource == "host port":
            cand = (3, "a DaemonSet on its nodes uses the same host port")
        best = cand if best is None or cand[0] > best[0] else best
    v.ok, v.stage, v.reason, v.soft = False, best[0], best[1], len(best) > 2
    return v


def _min_values_keys(merged: Requirements, sim: PoolSimulation) -> list[str]:
    """The keys with minValues whose values the catalog knows (zones and other offering keys: cannot tell)."""
    known = sim.type_reqs[sim.types[0].name].by_key
    return sorted(k for k, r in merged.by_key.items() if r.min_values is not None and k in known)


def _min_values_shortfall(merged: Requirements, keys: list[str], fitting: list[str],
                          sim: PoolSimulation) -> tuple[int, str] | None:
    """kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaim.go@v1.14.1#L602
    (`filterInstanceTypesByRequirements`): `SatisfiesMinValues` (pkg/cloudprovider/types.go#L399) over the types
    left after the pod's requirements and requests; under the default Strict policy a shortfall leaves none."""
    for key in keys:
        values: set[str] = set()
        for name in fitting:
            values |= sim.type_reqs[name].get(key).values
        wanted = merged.by_key[key].min_values
        if len(values) < wanted:
            n, shown = len(fitting), ", ".join(sorted(values)[:6]) + (", ..." if len(values) > 6 else "")
            types = f"the {n} instance type that fits" if n == 1 else f"the {n} instance types that fit"
            distinct = f"{len(values)} distinct value" + ("" if len(values) == 1 else "s")
            return 3, (f"minValues {wanted} on `{key}` cannot be met by {types} the pod ({distinct}"
                       + (f": {shown})" if values else ")"))
    return None


def _unlisted(requests: dict, sim: PoolSimulation) -> frozenset:
    """Resources the catalog lists for no instance type that karplint cannot judge: those the provider gives some
    types but the catalog omits (habana.ai/gaudi), PrivateIPv4Address unless the AMI family is known to be Linux,
    and whatever a NodeOverlay of the run may add (`spec.capacity`)."""
    listed = sim.memo.get("listed_resources", frozenset())
    overlays = sim.memo.get("overlay_resources", frozenset())
    linux = sim.facts.ami_family in LINUX_FAMILIES
    return frozenset(k for k in requests if k not in listed and (
        k in PROVIDER_RESOURCES or (k == PRIVATE_IPV4 and not linux) or k in overlays or "*" in overlays))


def _unoffered(requests: dict, sim: PoolSimulation) -> list[str]:
    """Requested resources that no instance type Karpenter knows has (extended resources of device plugins,
    hugepages-*, PrivateIPv4Address on Linux): `resources.Fits` (kubernetes-sigs/karpenter
    pkg/utils/resources/resources.go@v1.14.1#L188) compares with the type's allocatable, where they are 0, so no
    type fits ("should not launch instance type for vpc.amazonaws.com/PrivateIPv4Address if VPC resource
    controller doesn't advertise it", aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go@v1.14.1#L704;
    kubernetes-sigs/karpenter#751, aws/karpenter-provider-aws#3315)."""
    listed = sim.memo.get("listed_resources", frozenset())
    if "listed_resources" not in sim.memo:
        return []  # (a simulation built without its catalog's resource list: cannot tell)
    skip = _unlisted(requests, sim)
    return sorted(k for k, v in requests.items() if v > 0 and k not in listed and k not in skip)


def _unoffered_reason(names: list[str], sim: PoolSimulation) -> str:
    shown = ", ".join(f"`{n}`" for n in names)
    if names == [PRIVATE_IPV4]:
        return f"requests {shown}, which Karpenter gives to Windows nodes only"
    return f"requests {shown}, which no instance type offers to Karpenter"


def _largest(types, resource: str) -> str | None:
    best = None
    for it in types:
        q = allocatable(it).get(resource)
        if q is not None and (best is None or q > best[0]):
            best = (q, it.name)
    return f"{best[1]} with {quantity.show(resource, best[0])} allocatable" if best else None
