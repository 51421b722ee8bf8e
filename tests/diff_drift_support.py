"""Test support for the drift stream: a private stand-in of the contract's `drift_table.field_rule` (the table
stream's module; the integrator may drop this once the tests run against the generated table), a `Pair` stand-in
with the contract's attributes, and builders of NodePools and EC2NodeClasses from plain dicts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from karplint.model import Model, Resource
from karplint.readers import loader

_NP = "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go@6e7eab7"
_NC = "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go@bde0065"
# (kind, row) -> (drifts, how, source): the v1 rows the tests touch, as the upstream types tag them.
ROWS = {
    ("NodePool", "spec.template.metadata.labels"): (True, "hash", _NP + "#L206"),
    ("NodePool", "spec.template.metadata.annotations"): (True, "hash", _NP + "#L206"),
    ("NodePool", "spec.template.spec.taints"): (True, "hash", _NP + "#L243"),
    ("NodePool", "spec.template.spec.startupTaints"): (True, "hash", _NP + "#L250"),
    ("NodePool", "spec.template.spec.expireAfter"): (True, "hash", _NP + "#L265"),
    ("NodePool", "spec.template.spec.terminationGracePeriod"): (True, "hash", _NP + "#L285"),
    ("NodePool", "spec.template.spec.nodeClassRef"): (True, "hash", _NP + "#L238"),
    ("NodePool", "spec.template.spec.requirements"): (True, "dynamic:requirements", _NP + "#L234"),
    ("NodePool", "spec.disruption"): (False, "ignored", _NP + "#L80"),
    ("NodePool", "spec.limits"): (False, "ignored", _NP + "#L70"),
    ("NodePool", "spec.weight"): (False, "ignored", _NP + "#L75"),
    ("NodePool", "spec.replicas"): (False, "ignored", _NP + "#L90"),
    ("EC2NodeClass", "spec.amiSelectorTerms"): (True, "dynamic:ami", _NC + "#L76"),
    ("EC2NodeClass", "spec.amiFamily"): (False, "ignored", _NC + "#L85"),
    ("EC2NodeClass", "spec.subnetSelectorTerms"): (True, "dynamic:subnets", _NC + "#L40"),
    ("EC2NodeClass", "spec.securityGroupSelectorTerms"): (True, "dynamic:securityGroups", _NC + "#L48"),
    ("EC2NodeClass", "spec.capacityReservationSelectorTerms"): (True, "dynamic:capacityReservations", _NC + "#L55"),
    ("EC2NodeClass", "spec.ipPrefixCount"): (False, "ignored", _NC + "#L67"),
}
for _f in ("userData", "tags", "context", "detailedMonitoring", "instanceStorePolicy", "associatePublicIPAddress",
           "metadataOptions", "blockDeviceMappings", "role", "instanceProfile", "kubelet", "cpuOptions",
           "connectionTracking", "placementGroupSelector", "networkInterfaces"):
    ROWS[("EC2NodeClass", f"spec.{_f}")] = (True, "hash", _NC + "#L30")


@dataclass(frozen=True)
class FieldRule:
    path: str
    drifts: bool | None
    how: str
    source: str


def field_rule(kind: str, api_version: str, path: tuple, release=None) -> FieldRule:
    """The contract's lookup: the deepest row that is a prefix of `path` (list indexes left out)."""
    keys = [p for p in path if not isinstance(p, int)]
    for n in range(len(keys), 0, -1):
        row = ".".join(keys[:n])
        found = ROWS.get((kind, row))
        if found is not None:
            return FieldRule(row, *found)
    return FieldRule("", None, "unknown", "")


@dataclass
class Pair:
    kind: str
    name: str
    cluster: str | None
    base: Resource | None
    head: Resource | None
    changes: list = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.base is None:
            return "added"
        if self.head is None:
            return "removed"
        return "changed"


def resource(doc: dict) -> Resource:
    src = loader.decode("r.yaml", json.dumps(doc).encode())
    docs, _ = loader.load(src)
    model = Model()
    model.add(docs)
    return model.resources[0]


def nodepool(requirements=None, *, labels=None, name="general", spec=None, **template_spec) -> Resource:
    """A v1 NodePool; `spec`: fields beside the template (weight, limits, disruption), `template_spec`: fields of
    the template's spec."""
    inner = {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
             "requirements": requirements if requirements is not None else []}
    inner.update(template_spec)
    template = {"spec": inner}
    if labels:
        template["metadata"] = {"labels": labels}
    return resource({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
                     "spec": dict(spec or {}, template=template)})


def nodeclass(api_version="karpenter.k8s.aws/v1", **spec) -> Resource:
    base = {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}]}
    base.update(spec)
    base = {k: v for k, v in base.items() if v is not None}
    return resource({"apiVersion": api_version, "kind": "EC2NodeClass", "metadata": {"name": "default"},
                     "spec": base})
