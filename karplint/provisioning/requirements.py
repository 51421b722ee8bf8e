"""Node selector requirements exactly as Karpenter's scheduler represents and combines them.

A line-by-line reading of kubernetes-sigs/karpenter@2266468104f36373ed002241afaee2d3bbc26078:

- `pkg/scheduling/requirement.go`: `Requirement` (a value set or its complement, inclusive integer bounds, minValues),
  `NewRequirementWithFlexibility` (Gt N becomes Gte N+1, Lt N becomes Lte N-1, Gt MaxInt matches nothing, keys
  normalised by `v1.NormalizedLabels`), `Intersection`, `HasIntersection`, `Has`, `Operator`, `withinBounds`.
- `pkg/scheduling/requirements.go`: `Requirements.Add` (requirements on one key are intersected), `Get` (an
  undefined key allows anything: `Exists`), `Compatible` (custom labels must be defined unless the incoming
  operator is NotIn/DoesNotExist; well-known labels may be undefined), `Intersects` (only shared keys; two
  negative requirements never conflict), `NewPodRequirements`/`NewStrictPodRequirements` (nodeSelector, then the
  *first* required node-affinity term: terms are ORed by relaxing them one after another).
- `pkg/apis/v1/labels.go`: `WellKnownLabels`, `NormalizedLabels`.

Pure data in, data out: no findings, no files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from karplint.numbers import integer

MAX_INT = 2**63 - 1

# kubernetes-sigs/karpenter pkg/apis/v1/labels.go@v1.14.1#L121 `NormalizedLabels` (aliased keys are translated
# before anything else, `NewRequirementWithFlexibility` requirement.go#L49), plus the alias the AWS provider adds
# at start-up: aws/karpenter-provider-aws pkg/operator/operator.go@v1.14.1#L81 (`init`: the EBS CSI driver's zone
# label is the zone; exercised by "should support individual instance type labels",
# pkg/providers/instancetype/suite_test.go@v1.14.1#L223).
NORMALIZED_LABELS = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
    "topology.ebs.csi.aws.com/zone": "topology.kubernetes.io/zone",
}

# pkg/apis/v1/labels.go: WellKnownLabels of core, plus the AWS provider's (aws/karpenter-provider-aws
# pkg/apis/v1/labels.go registers its labels into the same set at init). May be undefined on a NodePool.
CORE_WELL_KNOWN = frozenset({
    "karpenter.sh/nodepool", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type", "kubernetes.io/arch", "kubernetes.io/os", "karpenter.sh/capacity-type",
    "node.kubernetes.io/windows-build",
})
AWS_WELL_KNOWN = frozenset({
    "karpenter.k8s.aws/instance-hypervisor", "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-size", "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer", "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth", "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer", "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-capability-flex", "karpenter.k8s.aws/instance-tenancy",
    "karpenter.k8s.aws/instance-nitro-enclaves-supported", "topology.k8s.aws/zone-id",
    "karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
})
WELL_KNOWN_LABELS = CORE_WELL_KNOWN | AWS_WELL_KNOWN

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
_INT = re.compile(r"^[+-]?[0-9]+$")


def _atoi(text: str) -> int | None:
    """Go's strconv.Atoi: optional sign, decimal digits, int64 range."""
    if not _INT.match(text) or len(text.strip().lstrip("+-").lstrip("0")) > 19:  # (past int64: no int() of them)
        return None
    n = integer(text)
    return n if -MAX_INT - 1 <= n <= MAX_INT else None


def within_bounds(value: str, gte: int | None, lte: int | None) -> bool:
    """requirement.go `withinBounds`: with bounds set, a value must be an integer inside them."""
    if gte is None and lte is None:
        return True
    n = _atoi(value)
    if n is None:
        return False
    return (gte is None or n >= gte) and (lte is None or n <= lte)


@dataclass
class Requirement:
    key: str
    complement: bool
    values: frozenset[str] = frozenset()
    gte: int | None = None
    lte: int | None = None
    min_values: int | None = None

    @classmethod
    def new(cls, key: str, operator: str, values=(), min_values: int | None = None) -> "Requirement":
        """requirement.go `NewRequirementWithFlexibility` (Gt/Lt/Gte/Lte values are prevalidated there by the
        API server: callers pass one integer; anything else raises ValueError)."""
        key = NORMALIZED_LABELS.get(key, key)
        values = [str(v) for v in values]
        if operator == "In":
            return cls(key, False, frozenset(values), min_values=min_values)
        r = cls(key, True, frozenset(), min_values=min_values)
        if operator == "DoesNotExist":
            r.complement = False
        if operator == "NotIn":
            r.values = frozenset(values)
        if operator in ("Gt", "Lt", "Gte", "Lte"):
            n = _atoi(values[0]) if len(values) == 1 else None
            if n is None:
                raise ValueError(f"{operator} needs one integer value")
            if operator == "Gt":
                if n == MAX_INT:
                    return cls.new(key, "DoesNotExist")
                r.gte = n + 1
            elif operator == "Lt":
                r.lte = n - 1
            elif operator == "Gte":
                r.gte = n
            else:
                r.lte = n
        elif operator not in ("NotIn", "Exists", "DoesNotExist"):
            raise ValueError(f"unknown operator {operator!r}")
        return r

    def operator(self) -> str:
        """requirement.go `Operator` (bounds read as Exists with bounds)."""
        if self.complement:
            return "NotIn" if self.values else "Exists"
        return "In" if self.values else "DoesNotExist"

    def has(self, value: str) -> bool:
        """requirement.go `Has`."""
        if self.complement:
            return value not in self.values and within_bounds(value, self.gte, self.lte)
        return value in self.values and within_bounds(value, self.gte, self.lte)

    def intersection(self, other: "Requirement") -> "Requirement":
        """requirement.go `Intersection`."""
        complement = self.complement and other.complement
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        min_values = _max(self.min_values, other.min_values)
        if gte is not None and lte is not None and gte > lte:
            return Requirement(self.key, False, frozenset(), min_values=min_values)  # DoesNotExist
        if self.complement and other.complement:
            values = self.values | other.values
        elif self.complement:
            values = other.values - self.values
        elif other.complement:
            values = self.values - other.values
        else:
            values = self.values & other.values
        values = frozenset(v for v in values if within_bounds(v, gte, lte))
        if not complement:
            gte = lte = None
        return Requirement(self.key, complement, values, gte, lte, min_values)

    def has_intersection(self, other: "Requirement") -> bool:
        """requirement.go `HasIntersection`."""
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        if gte is not None and lte is not None and gte > lte:
            return False
        if self.complement and other.complement:
            return True
        if self.complement:
            return any(v not in self.values and within_bounds(v, gte, lte) for v in other.values)
        if other.complement:
            return any(v not in other.values and within_bounds(v, gte, lte) for v in self.values)
        return any(v in other.values and within_bounds(v, gte, lte) for v in self.values)

    def __str__(self) -> str:
        """requirement.go `String` (shortened value lists)."""
        op = self.operator()
        if op in ("Exists", "DoesNotExist"):
            s = f"{self.key} {op}"
        else:
            vals = sorted(self.values)
            shown = vals[:5] + ([f"and {len(vals) - 5} others"] if len(vals) > 5 else [])
            s = f"{self.key} {op} [{', '.join(shown)}]"
        if self.gte is not None:
            s += f" >={self.gte}"
        if self.lte is not None:
            s += f" <={self.lte}"
        if self.min_values is not None:
            s += f" minValues {self.min_values}"
        return s


def _max(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _min(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


@dataclass
class Requirements:
    """requirements.go `Requirements`: one combined requirement per key."""

    by_key: dict[str, Requirement] = field(default_factory=dict)

    def add(self, *reqs: Requirement) -> None:
        for r in reqs:
            existing = self.by_key.get(r.key)
            self.by_key[r.key] = r.intersection(existing) if existing is not None else r

    def get(self, key: str) -> Requirement:
        r = self.by_key.get(key)
        return r if r is not None else Requirement.new(key, "Exists")

    def has(self, key: str) -> bool:
        return key in self.by_key

    def keys(self):
        return self.by_key.keys()

    def copy(self) -> "Requirements":
        return Requirements(dict(self.by_key))

    def compatible(self, incoming: "Requirements", allow_undefined=WELL_KNOWN_LABELS) -> str | None:
        """requirements.go `Compatible` with `AllowUndefinedWellKnownLabels`: None, or Karpenter's reason."""
        for key in incoming.by_key:
            if key in allow_undefined:
                continue
            if self.has(key) or incoming.get(key).operator() in ("NotIn", "DoesNotExist"):
                continue
            return f'label "{key}" does not have known values'
        return self.intersects(incoming)

    def intersects(self, incoming: "Requirements") -> str | None:
        """requirements.go `Intersects`: None, or the first conflicting key as Karpenter words it."""
        for key in sorted(self.by_key.keys() & incoming.by_key.keys()):
            existing, inc = self.by_key[key], incoming.by_key[key]
            if not existing.has_intersection(inc):
                if inc.operator() in ("NotIn", "DoesNotExist") and existing.operator() in ("NotIn", "DoesNotExist"):
                    continue
                return f"key {key}, {inc} not in {existing}"
        return None


def from_node_selector_terms(exprs: list) -> Requirements:
    """`NewNodeSelectorRequirements` of well-formed expressions (dicts with key, operator, values)."""
    out = Requirements()
    for e in exprs:
        out.add(Requirement.new(e["key"], e["operator"], e.get("values") or (), e.get("minValues")))
    return out


def from_labels(labels: dict[str, str]) -> Requirements:
    """`NewLabelRequirements`."""
    out = Requirements()
    for k, v in labels.items():
        out.add(Requirement.new(k, "In", [v]))
    return out
