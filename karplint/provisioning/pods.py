"""A pod of a workload as the provisioning simulation reads it: its requirements (nodeSelector and required
node-affinity terms), tolerations, host ports and resource requests.

Follows kubernetes-sigs/karpenter@2266468104f36373ed002241afaee2d3bbc26078:
- `pkg/scheduling/requirements.go` `NewStrictPodRequirements`: nodeSelector plus the first required
  node-affinity term; `preferences.go` `removeRequiredNodeAffinityTerm` tries the next term when it fails, so
  terms are ORed (expressions inside a term ANDed). Preferred terms are only preferences.
- Requests: `pkg/utils/resources/resources.go` `Ceiling`/`RequestsForPods` (containers summed, init containers'
  maximum, restartable init containers (sidecars) added, pod-level `resources` replacing cpu and memory when set,
  `overhead` added; limits stand in for missing requests, as the API server defaults them).

Anything templated or unparsable is "cannot tell": the pod is assumed to fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction

from karplint.model import Resource
from karplint.provisioning import quantity
from karplint.provisioning.requirements import Requirement, Requirements
from karplint.readers.templating import has_placeholder

MAX_CONTAINERS = 200
# k8s.io/component-helpers resource/helpers.go `PodRequests` (what `Ceiling` asks, `SkipPodLevelResources` unset):
# `spec.resources` of the pod, when set, gives these for the whole pod (`IsSupportedPodLevelResource`).
POD_LEVEL_RESOURCES = ("cpu", "memory")


@dataclass
class Pod:
    res: Resource
    spec: dict
    terms: list[Requirements] | None  # None: cannot tell; each an alternative (nodeSelector + one term)
    tolerations: list[dict]
    host_ports: frozenset[tuple[str, int]]
    unknown: str | None = None
    # What the pod's RuntimeClass adds (`overhead.podFixed`), when the run holds it and the pod sets no `overhead`;
    # None when it cannot be read.
    class_overhead: dict | None = field(default_factory=dict)
    claims_devices: bool = False  # Dynamic Resource Allocation: a fit becomes "cannot tell" (`claims_devices`)

    @cached_property
    def placement_key(self) -> tuple:
        """What a `host` verdict depends on in the pod (DaemonSets aside): worked out once per pod, not once per
        NodePool. Requirements by their value sets (their text shortens long lists)."""
        return (tuple(frozenset((k, r.complement, r.values, r.gte, r.lte) for k, r in t.by_key.items())
                      for t in self.terms) if self.terms else None,
                repr(self.tolerations), repr(sorted(self.requests.items())) if self.requests is not None else None,
                self.host_ports, self.unknown, self.claims_devices)

    @cached_property
    def requests(self) -> dict[str, Fraction] | None:
        """What one pod requests (None: cannot tell); read when a NodePool's capacity is compared with it."""
        found = pod_requests(self.spec)
        if found is None or not self.class_overhead:
            return found if self.class_overhead is not None else None
        return _add(found, self.class_overhead)


def _container_requests(c: dict) -> dict[str, Fraction] | None:
    res = c.get("resources")
    if res is None:
        return {}
    if not isinstance(res, dict):
        return None
    out: dict[str, Fraction] = {}
    limits = res.get("limits") if isinstance(res.get("limits"), dict) else {}
    requests = res.get("requests") if isinstance(res.get("requests"), dict) else {}
    for name, value in {**limits, **requests}.items():
        q = quantity.parse(value)
        if q is None:
            return None
        out[str(name)] = q
    return out


def _add(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def _max(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = max(out.get(k, 0), v)
    return out


def pod_requests(spec: dict) -> dict[str, Fraction] | None:
    containers = spec.get("containers")
    inits = spec.get("initContainers") or []
    if not isinstance(containers, list) or not isinstance(inits, list) or \
            len(containers) + len(inits) > MAX_CONTAINERS:
        return None
    total: dict = {}
    for c in containers:
        r = _container_requests(c) if isinstance(c, dict) else None
        if r is None:
            return None
        total = _add(total, r)
    init_max: dict = {}
    sidecars: dict = {}
    for c in inits:
        r = _container_requests(c) if isinstance(c, dict) else None
        if r is None:
            return None
        if c.get("restartPolicy") == "Always":
            sidecars = _add(sidecars, r)
            init_max = _max(init_max, sidecars)
        else:
            init_max = _max(init_max, _add(r, sidecars))
    out = _max(_add(total, sidecars), init_max)
    level = spec.get("resources")
    if isinstance(level, dict):  # pod-level resources: their cpu and memory replace the containers' sum
        r = _container_requests(spec)
        if r is None:
            return None
        out.update({k: v for k, v in r.items() if k in POD_LEVEL_RESOURCES})
    out["pods"] = out.get("pods", 0) + 1  # each pod takes one of the node's pods (RequestsForPods)
    overhead = spec.get("overhead")
    if isinstance(overhead, dict):
        for k, v in overhead.items():
            q = quantity.parse(v)
            if q is None:
                return None
            out[str(k)] = out.get(str(k), 0) + q
    return out


def _expr_requirement(e) -> Requirement | None:
    if not isinstance(e, dict):
        return None
    key, op, values = e.get("key"), e.get("operator"), e.get("values") or []
    if not isinstance(key, str) or not isinstance(op, str) or not isinstance(values, list):
        return None
    if has_placeholder(key) or any(has_placeholder(v) or isinstance(v, (dict, list)) for v in values):
        return None
    try:
        return Requirement.new(key, op, [str(v) for v in values])
    except (ValueError, IndexError):
        return None


def pod_terms(spec: dict) -> list[Requirements] | None:
    base = Requirements()
    selector = spec.get("nodeSelector")
    if selector is not None:
        if not isinstance(selector, dict):
            return None
        for k, v in selector.items():
            if not isinstance(k, str) or isinstance(v, (dict, list)) or has_placeholder(k) or has_placeholder(v):
                return None
            base.add(Requirement.new(k, "In", [str(v).lower() if isinstance(v, bool) else str(v)]))
    affinity = spec.get("affinity")
    node_aff = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node_aff, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    if not isinstance(terms, list) or not terms:
        return [base]
    out = []
    for term in terms:
        if not isinstance(term, dict):
            return None
        exprs = term.get("matchExpressions") or []
        if not isinstance(exprs, list):
            return None
        reqs = base.copy()
        for e in exprs:
            r = _expr_requirement(e)
            if r is None:
                return None
            reqs.add(r)
        out.append(reqs)
    return out


def _host_ports(spec: dict) -> frozenset[tuple[str, int]]:
    out = set()
    containers = [c for key in ("containers", "initContainers") if isinstance(spec.get(key), list)
                  for c in spec[key]]
    for c in containers:
        ports = c.get("ports") if isinstance(c, dict) else None
        for p in ports if isinstance(ports, list) else []:
            if isinstance(p, dict) and isinstance(p.get("hostPort"), int) and p["hostPort"] > 0:
                ip = p.get("hostIP") or "0.0.0.0"
                out.add((f"{ip}/{p.get('protocol') or 'TCP'}", p["hostPort"]) if isinstance(ip, str) else ("?", p["hostPort"]))
    return frozenset(out)


def runtime_class_overheads(classes) -> dict[str, dict | None]:
    """RuntimeClass name -> its `overhead.podFixed` as quantities (None: unreadable, e.g. templated)."""
    out: dict[str, dict | None] = {}
    for rc in classes:
        if not isinstance(rc.name, str):
            continue
        fixed = rc.get(("overhead", "podFixed"))
        if fixed is None:
            out[rc.name] = {}
            continue
        parsed = {str(k): quantity.parse(v) for k, v in fixed.items()} if isinstance(fixed, dict) else None
        out[rc.name] = None if parsed is None or None in parsed.values() else parsed
    return out


def read_pod(res: Resource, runtime_classes: dict[str, dict | None] | None = None) -> Pod | None:
    """`runtime_classes`: the run's RuntimeClass overheads (`runtime_class_overheads`). The API server's
    RuntimeClass admission sets a pod's `overhead` from its RuntimeClass's `overhead.podFixed` (kubernetes
    plugin/pkg/admission/runtimeclass), and Karpenter counts it in the requests ("should take pod runtime class
    into consideration", kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/suite_test.go@v1.14.1#L1546).
    A RuntimeClass the run does not hold adds nothing karplint knows of."""
    if res.pod_template is None or res.group not in ("", "apps", "batch"):
        return None
    spec = res.get(res.pod_template[1])
    if not isinstance(spec, dict):
        return None
    tolerations = spec.get("tolerations")
    tolerations = [t for t in tolerations if isinstance(t, dict)] if isinstance(tolerations, list) else []
    pod = Pod(res, spec, pod_terms(spec), tolerations, _host_ports(spec))
    name = spec.get("runtimeClassName")
    if runtime_classes and isinstance(name, str) and spec.get("overhead") is None and name in runtime_classes:
        pod.class_overhead = runtime_classes[name]
    if spec.get("nodeName"):
        pod.unknown = "it names its node (nodeName)"
    elif any(has_placeholder(v) for t in tolerations for v in t.values()):
        pod.unknown = "a toleration is templated"
    elif pod.terms is None:
        pod.unknown = "its node selection is templated or malformed"
    pod.claims_devices = claims_devices(spec)
    return pod


def claims_devices(spec: dict) -> bool:
    """Whether a pod spec has Dynamic Resource Allocation requirements: kubernetes-sigs/karpenter
    pkg/utils/pod/scheduling.go@v1.14.1#L275 `HasDRARequirements` (pod-level `resourceClaims`, or `claims` in any
    container's or init container's resources). Karpenter (since v1.7, kubernetes-sigs/karpenter#2384) gives such
    a pod no node while `IGNORE_DRA_REQUESTS` is true, its default (pkg/operator/options/options.go@v1.14.1#L133;
    pkg/controllers/provisioning/scheduling/scheduler.go@v1.14.1#L584 `Scheduler.add`; suite_test.go#L5329), and
    simulates the devices otherwise: either way the claims only take nodes away, so a pod that fits nowhere without
    them fits nowhere, and one that fits is "cannot tell" (`_host_with_claims`, also for DaemonSets' claims)."""
    if spec.get("resourceClaims"):
        return True
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        for c in containers if isinstance(containers, list) else ():
            res = c.get("resources") if isinstance(c, dict) else None
            if isinstance(res, dict) and res.get("claims"):
                return True
    return False
