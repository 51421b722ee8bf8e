"""Which catalog instance types a NodePool can launch, and what each of its requirements removed.

Follows kubernetes-sigs/karpenter@2266468104f36373ed002241afaee2d3bbc26078:
- `pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go` `NewNodeClaimTemplate`: the template's
  requirements (with minValues), then its labels plus `karpenter.sh/nodepool` and the node class label, as `In`
  requirements, all added into one `Requirements`.
- `pkg/controllers/provisioning/scheduling/scheduler.go` `NewScheduler`: each NodePool's instance types are
  filtered once with `filterInstanceTypesByRequirements` for an empty pod; a NodePool left with none is skipped
  ("nodepool requirements filtered out all instance types").
- `pkg/controllers/provisioning/scheduling/nodeclaim.go` `filterInstanceTypesByRequirements`, `compatible`
  (`instanceType.Requirements.Intersects(requirements)`: only keys both sides define are compared, so custom labels
  never remove a type), `fits`; `pkg/cloudprovider/types.go` `SatisfiesMinValues` (distinct values of each key
  with minValues over the remaining types; under the default `minValuesPolicy: Strict` a shortfall leaves none).
- `pkg/apis/v1/nodepool_defaults.go`: v1 `SetDefaults` is empty: an unconstrained `karpenter.sh/capacity-type`,
  `kubernetes.io/arch` or `kubernetes.io/os` allows every value instance types offer (spot and on-demand,
  amd64 and arm64). (v1alpha5's webhook defaulted capacity-type to on-demand and arch to amd64.)

Instance type requirements follow aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe
`pkg/providers/instancetype/types.go` `computeRequirements`: every label of the catalog is `In [value]`, or
`DoesNotExist` when the type has none (a GPU label on a CPU type); `kubernetes.io/os` is `linux`, or `windows` for
amd64 types under a Windows AMI family (`getOS`: an arm64 type has no OS there); `node.kubernetes.io/windows-build`
exists only under Windows families; capacity types are on-demand and spot, plus reserved when the EC2NodeClass
selects capacity reservations; tenancy is default or dedicated. Zones, region and zone ids depend on the account:
they are left out, so any requirement on them passes ("cannot tell", never a finding).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from karplint.model import Resource
from karplint.provisioning import NODECLASS_KEY, quantity
from karplint.provisioning.catalog import Catalog, InstanceType
from karplint.provisioning.limits import capacities, pool_limits
from karplint.provisioning.requirements import WELL_KNOWN_LABELS, Requirement, Requirements
from karplint.readers.document import Document, Path
from karplint.readers.templating import has_placeholder, has_placeholder_within

ARCH, OS, TYPE = "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/instance-type"
FAMILY, SIZE, CATEGORY = ("karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-size",
                          "karpenter.k8s.aws/instance-category")
CAPACITY_TYPE, WINDOWS_BUILD = "karpenter.sh/capacity-type", "node.kubernetes.io/windows-build"
RESERVATION_KEYS = ("karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/capacity-reservation-type",
                    "karpenter.k8s.aws/capacity-reservation-interruptible")

# AMI family -> Windows build (types.go: `Windows` families give amd64 types os=windows and this build).
WINDOWS_BUILDS = {"Windows2019": "10.0.17763", "Windows2022": "10.0.20348", "Windows2025": "10.0.26100"}
LINUX_FAMILIES = frozenset({"AL2", "AL2023", "Bottlerocket", "Ubuntu"})


@dataclass(frozen=True)
class NodeClassFacts:
    """What the EC2NodeClass tells about its instances; None fields are unknown (no class, Custom, templated)."""

    ami_family: str | None = None
    ami_family_path: tuple | None = None
    reservations: bool | None = None  # capacityReservationSelectorTerms present
    # Resources whose allocatable the catalog (AL2023 defaults) does not give for this class: kubelet
    # reservations, maxPods, block devices, other AMI families.
    unknown_resources: frozenset = frozenset({"ephemeral-storage"})
    name: str | None = None


def nodeclass_facts(nc: Resource | None, ami_family: str | None, family_path) -> NodeClassFacts:
    if nc is None:
        return NodeClassFacts()
    terms = nc.get(("spec", "capacityReservationSelectorTerms"))
    unknown = set()
    kubelet = nc.get(("spec", "kubelet"))
    if isinstance(kubelet, dict):
        if any(k in kubelet for k in ("kubeReserved", "systemReserved", "evictionHard", "evictionSoft")):
            unknown |= {"cpu", "memory", "ephemeral-storage", "pods"}
        if "maxPods" in kubelet or "podsPerCore" in kubelet:
            unknown.add("pods")
    if ami_family != "AL2023" or nc.get(("spec", "blockDeviceMappings")) is not None or \
            nc.get(("spec", "instanceStorePolicy")) is not None:
        unknown.add("ephemeral-storage")
    if ami_family is None or ami_family == "Custom" or ami_family in WINDOWS_BUILDS:
        unknown |= {"cpu", "memory", "ephemeral-storage", "pods"}
    reservations = None if has_placeholder_within(terms) else bool(terms)
    return NodeClassFacts(ami_family, family_path, reservations, frozenset(unknown), nc.name)


def class_incompatible(catalog: Catalog, facts: NodeClassFacts) -> tuple[str, frozenset]:
    """(why, the names of the catalog types) the node class's AMI family cannot run; Karpenter drops them:
    - AL2023 runs no a1 type: aws/karpenter-provider-aws pkg/providers/instancetype/compatibility/compatibility.go
      @v1.14.1#L65 (`amiFamilyCheck`, applied by `FilterForNodeClass`, instancetype.go#L382; upstream test "should
      mark availability of a1 instance type offerings based on AMI", instancetype/suite_test.go@v1.14.1#L3145);
    - Windows AMIs are amd64 only: an arm64 type has no OS under a Windows family (types.go@v1.14.1#L313 `getOS`),
      so the Windows AMI (`KnownRequirements` os=windows, amifamily/windows.go#L63) maps to no arm64 type
      (amifamily/ami.go#L228 `MapToInstanceTypes`, resolver.go#L152) and none is launched."""
    family = facts.ami_family
    if family != "AL2023" and family not in WINDOWS_BUILDS:
        return "", frozenset()
    memo = catalog.memo.setdefault("class incompatible", {})
    found = memo.get(family)
    if found is None:
        if family == "AL2023":
            found = ("amiFamily AL2023 cannot run a1 instance types",
                     frozenset(n for n, it in catalog.types.items() if it.labels.get(FAMILY) == "a1"))
        else:
            found = (f"amiFamily {family} runs on amd64 instance types only",
                     frozenset(n for n, it in catalog.types.items() if it.labels.get(ARCH) != "amd64"))
        memo[family] = found
    return found


def type_requirements(it: InstanceType, labels: tuple[str, ...], facts: NodeClassFacts) -> Requirements:
    """An instance type's requirements (types.go `computeRequirements`) for the keys the catalog knows."""
    reqs = Requirements()
    by = reqs.by_key
    for key in labels:
        value = it.labels.get(key)
        by[key] = Requirement(key, False, frozenset() if value is None else frozenset({value}))
    family = facts.ami_family
    if family in WINDOWS_BUILDS:
        by[OS] = Requirement(OS, False, frozenset({"windows"}) if it.labels.get(ARCH) == "amd64" else frozenset())
        by[WINDOWS_BUILD] = Requirement(WINDOWS_BUILD, False, frozenset({WINDOWS_BUILDS[family]}))
    elif family in LINUX_FAMILIES:
        by[OS] = Requirement(OS, False, frozenset({"linux"}))
        by[WINDOWS_BUILD] = Requirement(WINDOWS_BUILD, False, frozenset())
    else:  # unknown or Custom: the OS is whatever the image is
        by.pop(OS, None)
    capacity = {"on-demand", "spot"}
    if facts.reservations is not False:
        capacity.add("reserved")
    by[CAPACITY_TYPE] = Requirement(CAPACITY_TYPE, False, frozenset(capacity))
    if facts.reservations is False:
        for key in RESERVATION_KEYS:
            by[key] = Requirement(key, False, frozenset())
    by["karpenter.k8s.aws/instance-tenancy"] = Requirement("karpenter.k8s.aws/instance-tenancy", False,
                                                           frozenset({"default", "dedicated"}))
    return reqs


def all_type_requirements(catalog: Catalog, facts: NodeClassFacts) -> dict[str, Requirements]:
    """`type_requirements` of every catalog type, shared by the NodePools whose node classes agree on what
    matters (AMI family, reservations): kept on the catalog object, which lives as long as the process."""
    memo = catalog.memo.setdefault("type_requirements", {})
    key = (facts.ami_family if facts.ami_family in WINDOWS_BUILDS or facts.ami_family in LINUX_FAMILIES else None,
           facts.reservations)
    found = memo.get(key)
    if found is None:
        base = memo.get("base")
        if base is None:  # the catalog's own labels, one Requirement object per (key, value)
            shared: dict[tuple, Requirement] = {}
            base = memo["base"] = {
                it.name: {k: shared.setdefault((k, v), Requirement(k, False, v))
                          for k in catalog.label_keys() for v in (_own_values(it, k),)}
                for it in catalog.types.values()}
        found = _LazyTypeRequirements(catalog, facts, base)
        memo[key] = found
    return found


def _own_values(it: InstanceType, key: str) -> frozenset:
    """The values the catalog entry gives `key` (none: the type does not have the label)."""
    values = it.requirements.get(key)
    if values is not None:
        return values
    v = it.labels.get(key)
    return frozenset() if v is None else frozenset({v})


def variant_key(it: InstanceType, facts: NodeClassFacts) -> tuple:
    """What the node-class keys of a type depend on: its architecture (Windows runs on amd64 alone) and which of
    those keys the catalog entry states itself (a private or test catalog's own OS, capacity types...)."""
    return (it.labels.get(ARCH) if facts.ami_family in WINDOWS_BUILDS else None,
            frozenset(it.requirements) if it.requirements else frozenset())


class _LazyTypeRequirements(dict):
    """name -> the instance type's `Requirements` under one node-class variant, built on first use (most
    NodePools never look at most types: filtering goes through `type_index`)."""

    def __init__(self, catalog: Catalog, facts: NodeClassFacts, base: dict):
        super().__init__()
        self.catalog, self.facts, self.base = catalog, facts, base
        self.shared: dict[tuple, Requirement] = {}
        self.by_arch: dict[str | None, dict[str, Requirement]] = {}
        self.memo: dict = {}  # what rules work out from one variant's types (e.g. values left per filtering)

    def variant(self, it: InstanceType) -> dict[str, Requirement]:
        """The keys the node class decides (OS when known, windows build, capacity type, tenancy...). They depend
        on the type only through its architecture (Windows runs on amd64 alone), so they are built once per
        architecture."""
        vkey = variant_key(it, self.facts)
        got = self.by_arch.get(vkey)
        if got is None:
            reqs = type_requirements(it, (), self.facts)
            got = self.by_arch[vkey] = {k: self.shared.setdefault((k, r.complement, r.values), r)
                                        for k, r in reqs.by_key.items() if k not in vkey[1]}
        return got

    def __missing__(self, name: str) -> Requirements:
        it = self.catalog.types[name]
        by = dict(self.base[name])
        own = self.variant(it)
        if OS not in own and OS not in it.requirements:  # unknown or Custom AMI family: whatever the image is
            by.pop(OS, None)
        by.update(own)
        found = self[name] = Requirements(by)
        return found


def type_index(catalog: Catalog, facts: NodeClassFacts) -> dict[str, list[tuple[Requirement, list[str]]]]:
    """key -> [(an instance-type requirement on it, the types that have exactly it)]: a NodePool requirement is
    compared once per distinct value instead of once per type."""
    found = all_type_requirements(catalog, facts)
    memo = catalog.memo.setdefault("type_index", {})
    index = memo.get(id(found))
    if index is None:
        base = memo.get("base")
        if base is None:  # the catalog's labels are the same in every variant: grouped once
            groups: dict[str, dict[int, tuple[Requirement, list[str]]]] = {}
            for name, by in catalog.memo["type_requirements"]["base"].items():
                for k, r in by.items():
                    if k != OS or OS in catalog.types[name].requirements:  # (else the AMI family's: a variant key)
                        groups.setdefault(k, {}).setdefault(id(r), (r, []))[1].append(name)
            base = memo["base"] = {k: list(g.values()) for k, g in groups.items()}
        by_arch = memo.get("by_arch")
        if by_arch is None:  # variants differ by architecture only (see `_LazyTypeRequirements.variant`)
            by_arch = memo["by_arch"] = {}
            for it in catalog.types.values():
                by_arch.setdefault((it.labels.get(ARCH), frozenset(it.requirements)), []).append(it)
        extra: dict[str, dict[int, tuple[Requirement, list[str]]]] = {}
        for types in by_arch.values():
            names = [it.name for it in types]
            for k, r in found.variant(types[0]).items():
                extra.setdefault(k, {}).setdefault(id(r), (r, []))[1].extend(names)
        order = memo.get("order") or memo.setdefault("order", {name: i for i, name in enumerate(catalog.types)})
        for groups in extra.values():
            for _r, names in groups.values():
                names.sort(key=order.__getitem__)  # catalog order, as the base groups
        index = memo[id(found)] = dict(base, **{k: list(g.values()) for k, g in extra.items()})
    return index


@dataclass
class Source:
    """One requirement as written: where it is and what it says."""

    key: str
    requirement: Requirement
    path: Path
    text: str  # as the NodePool writes it, e.g. `kubernetes.io/arch In [arm64]`
    doc: Document = field(repr=False, compare=False)
    label: bool = False  # from template.metadata.labels

    @property
    def line(self) -> int:
        """Asked only for a finding's message: positions are worked out on demand (`readers.fastload`)."""
        return (self.doc.key_span(self.path) if self.label else self.doc.span(self.path)).line


@dataclass
class PoolSimulation:
    nodepool: Resource
    name: str
    unknown: str | None = None  # why nothing can be said (templated requirements...)
    requirements: Requirements = field(default_factory=Requirements)
    sources: list[Source] = field(default_factory=list)
    facts: NodeClassFacts = field(default_factory=NodeClassFacts)
    taints: list[dict] = field(default_factory=list)
    types: list[InstanceType] = field(default_factory=list)  # launchable, catalog order
    compatible: list[InstanceType] = field(default_factory=list)  # before minValues
    rejected_by: dict[str, tuple[str, ...]] = field(default_factory=dict)  # type -> keys that reject it
    min_values_short: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> (minValues, distinct)
    type_reqs: dict[str, Requirements] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)  # per-run caches of callers (DaemonSet overhead)
    # Labels a pod may require without the NodePool defining them: Karpenter's and the catalog's provider's
    well_known: frozenset = WELL_KNOWN_LABELS

    @property
    def empty(self) -> bool:
        return self.unknown is None and not self.types

    def removed_by(self, key: str) -> int:
        """How many catalog types the requirement on `key` rejects (on its own)."""
        counts = self.memo.get("removed_by")
        if counts is None:  # (one pass for all keys: a NodePool may have thousands of labels)
            counts = self.memo["removed_by"] = {}
            for keys in self.rejected_by.values():
                for k in keys:
                    counts[k] = counts.get(k, 0) + 1
        return counts.get(key, 0)

    def summary(self) -> dict:
        """Families, sizes, cpu/memory range, archs and capacity types of the launchable types."""
        ts = self.types
        cpus = [quantity.parse(t.allocatable.get("cpu")) for t in ts]
        mems = [quantity.parse(t.allocatable.get("memory")) for t in ts]
        cpus = [c for c in cpus if c is not None]
        mems = [m for m in mems if m is not None]
        caps = {c for c in values_of(ts, self.type_reqs, CAPACITY_TYPE) if self.requirements.get(CAPACITY_TYPE).has(c)}
        return {
            "instance_types": len(ts),
            "families": sorted({t.labels.get(FAMILY, "") for t in ts} - {""}),
            "sizes": sorted({t.labels.get(SIZE, "") for t in ts} - {""}),
            "cpu": quantity.show_range("cpu", min(cpus), max(cpus)) if cpus else None,
            "memory": quantity.show_range("memory", min(mems), max(mems)) if mems else None,
            "arch": sorted({t.labels.get(ARCH, "") for t in ts} - {""}),
            "capacity_types": sorted(caps),
        }


# Karpenter's CRD (karpenter.sh_nodepools.yaml, `requirements`: maxItems 100): past it the API server rejects the
# NodePool and the schema check says so; it is not simulated.
MAX_REQUIREMENTS = 100
SHOWN_VALUES = 200  # a requirement quoted in a message shows at most this many of its values (all 177 families fit)


def _requirement_text(key: str, op: str, values: list, min_values) -> str:
    shown = ", ".join(str(v) for v in values[:SHOWN_VALUES])
    if len(values) > SHOWN_VALUES:
        shown += f", and {len(values) - SHOWN_VALUES:,} more"
    body = op if op in ("Exists", "DoesNotExist") else f"{op} [{shown}]"
    return f"`{key} {body}`" + (f" (minValues {min_values})" if min_values is not None else "")


@dataclass(frozen=True)
class PoolShape:
    """Where a kind of pool writes what its nodes get. A v1alpha5 Provisioner (served up to v0.32.x,
    kubernetes-sigs/karpenter pkg/apis/v1alpha5/provisioner.go@v0.32.10, ProvisionerSpec) writes at `spec` what a
    NodePool writes in its template, and its nodes carry `karpenter.sh/provisioner-name` (v1alpha5/labels.go)."""

    spec: Path  # requirements, taints
    labels: Path
    kubelet: Path
    name_label: str


NODEPOOL_SHAPE = PoolShape(("spec", "template", "spec"), ("spec", "template", "metadata", "labels"),
                           ("spec", "template", "spec", "kubelet"), "karpenter.sh/nodepool")
POOL_SHAPES = {
    "NodePool": NODEPOOL_SHAPE,
    "Provisioner": PoolShape(("spec",), ("spec", "labels"), ("spec", "kubeletConfiguration"),
                             "karpenter.sh/provisioner-name"),
}


def shape_of(np: Resource) -> PoolShape:
    return POOL_SHAPES.get(np.kind, NODEPOOL_SHAPE)


def pool_sources(np: Resource) -> tuple[list[Source], str | None]:
    """The NodePool's requirements and template labels as `Source`s (`NewNodeClaimTemplate` order), or the reason
    they cannot be read (templated, malformed: the API server's business)."""
    shape = shape_of(np)
    spec_path = shape.spec
    out: list[Source] = []
    items = np.get(spec_path + ("requirements",))
    if not isinstance(items, list):
        return out, "no requirements list"
    if len(items) > MAX_REQUIREMENTS:
        return out, f"more than {MAX_REQUIREMENTS} requirements, which Karpenter's CRD rejects"
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return out, "a requirement is not a mapping"
        key, op, values, mv = item.get("key"), item.get("operator"), item.get("values"), item.get("minValues")
        values = [] if values is None else values
        if not isinstance(key, str) or not isinstance(op, str) or not isinstance(values, list):
            return out, "a requirement is malformed"
        if op.strip() == "In" and item.get("values") is None:
            return out, "a requirement with operator In has no values, which Karpenter's CRD rejects"
        if has_placeholder(key) or has_placeholder(op) or any(
                isinstance(v, (dict, list)) or has_placeholder(v) for v in values):
            return out, "a requirement is templated"
        if mv is not None and (not isinstance(mv, int) or isinstance(mv, bool)):
            return out, "minValues is not an integer"
        try:
            req = Requirement.new(key.strip(), op.strip(), [str(v) for v in values], mv)
        except (ValueError, IndexError):
            return out, "a requirement is malformed"
        path = spec_path + ("requirements", i)
        out.append(Source(req.key, req, path, _requirement_text(key, op, values, mv), np.doc))
    labels = np.get(shape.labels)
    if isinstance(labels, dict):
        for k, v in labels.items():
            if not isinstance(k, str) or isinstance(v, (dict, list)) or v is None or has_placeholder(k) \
                    or has_placeholder(v):
                continue
            value = str(v).lower() if isinstance(v, bool) else str(v)
            path = shape.labels + (k,)
            out.append(Source(k, Requirement.new(k, "In", [value]), path, f"label `{k}: {value}`", np.doc, label=True))
    return out, None


def simulate_pool(np: Resource, catalog: Catalog, facts: NodeClassFacts = NodeClassFacts(),
                  strict_min_values: bool = True) -> PoolSimulation:
    sim = PoolSimulation(np, np.name or "?", facts=facts)
    name = np.name
    if not isinstance(name, str) or has_placeholder(name):
        sim.unknown = "its name is templated"
        return sim
    sources, problem = pool_sources(np)
    if problem:
        sim.unknown = problem
        return sim
    sim.sources = sources
    reqs = Requirements()
    for s in sources:
        reqs.add(s.requirement)
    shape = shape_of(np)
    reqs.add(Requirement.new(shape.name_label, "In", [name]))
    sim.requirements = reqs
    kubelet = np.get(shape.kubelet)  # v1beta1 (and v1alpha5): kubelet settings on the pool
    if isinstance(kubelet, dict) and kubelet:
        from dataclasses import replace
        sim.facts = facts = replace(facts, unknown_resources=facts.unknown_resources | {
            "cpu", "memory", "ephemeral-storage", "pods"})
    taints = np.get(shape.spec + ("taints",))
    sim.taints = [t for t in taints if isinstance(t, dict)] if isinstance(taints, list) else []

    sim.type_reqs = all_type_requirements(catalog, facts)
    if catalog.well_known:
        sim.well_known = WELL_KNOWN_LABELS | catalog.well_known
    listed = catalog.memo.get("resources")
    if listed is None:
        listed = catalog.memo["resources"] = frozenset(k for it in catalog.types.values() for k in it.allocatable)
    sim.memo["listed_resources"] = listed | {"cpu", "memory", "pods", "ephemeral-storage"}
    limits = pool_limits(np)
    if limits:  # (`host` drops the types over them: limits.py)
        sim.memo["limits"] = limits
        sim.memo["capacities"] = {r: capacities(catalog, r) for r in limits}
    # NodePools with the same requirements on the keys instance types have (custom labels and names never remove
    # a type) under the same node-class variant filter alike: computed once per catalog (results are shared
    # read-only). A requirement's values are a set: the signature holds it, not its (sorted) text.
    index = type_index(catalog, facts)
    signature = (id(sim.type_reqs), frozenset((k, r.complement, r.values, r.gte, r.lte, r.min_values)
                                              for k, r in reqs.by_key.items()
                                              if k in index or r.min_values is not None))
    shared = catalog.memo.setdefault("pool_results", {})
    cached = shared.get(signature)
    if cached is None:
        cached = shared[signature] = _filter(catalog, facts, reqs, sim.type_reqs)
    sim.rejected_by, sim.compatible, min_short = cached
    sim.min_values_short = dict(min_short)
    sim.types = list(sim.compatible)
    if sim.min_values_short and strict_min_values:
        sim.types = []
    return sim


def _filter(catalog: Catalog, facts: NodeClassFacts, reqs: Requirements, type_reqs: dict) -> tuple:
    """(rejected_by, compatible, minValues shortfalls) of requirements `reqs` over the catalog."""
    rejected: dict[str, list[str]] = {}
    index = type_index(catalog, facts)
    for k in sorted(reqs.by_key):
        incoming = reqs.by_key[k]
        # An `In` list (the usual requirement, and one of 1,000 instance types is no rarity) against a type's plain
        # value set: `_key_ok` is whether they share a value.
        allowed = incoming.values if not incoming.complement and incoming.values and \
            incoming.gte is None and incoming.lte is None else None
        for type_req, names in index.get(k, ()):
            if allowed is not None and not type_req.complement and type_req.gte is None and type_req.lte is None:
                ok = not allowed.isdisjoint(type_req.values)
            else:
                ok = _key_ok(type_req, incoming)
            if not ok:
                for n in names:
                    rejected.setdefault(n, []).append(k)
    for it in catalog.types.values():
        if it.offerings and it.name not in rejected and not it.offered(reqs):
            rejected[it.name] = [k for k in sorted({k for o in it.offerings for k in o}) if reqs.has(k)]
    for n in class_incompatible(catalog, facts)[1]:
        rejected.setdefault(n, []).insert(0, NODECLASS_KEY)
    rejected_by = {n: tuple(keys) for n, keys in rejected.items()}
    compatible = [it for it in catalog.types.values() if it.name not in rejected]
    short = {}
    for key, req in reqs.by_key.items():
        if req.min_values is None:
            continue
        if key not in catalog.label_keys() and key != CAPACITY_TYPE:
            continue  # values the catalog does not know (zones...): cannot tell
        distinct = values_of(compatible, type_reqs, key)
        if len(distinct) < req.min_values:
            short[key] = (req.min_values, len(distinct))
    return rejected_by, compatible, short


def values_of(types: list[InstanceType], type_reqs: dict[str, Requirements], key: str) -> set[str]:
    """The values of `key` that `types` carry (as their requirements under the node class say)."""
    out: set[str] = set()
    for it in types:
        out |= type_reqs[it.name].get(key).values
    return out


def _key_ok(existing: Requirement, incoming: Requirement) -> bool:
    """One key of `Requirements.Intersects` (existing: the instance type's, incoming: the NodePool's)."""
    if existing.has_intersection(incoming):
        return True
    return incoming.operator() in ("NotIn", "DoesNotExist") and existing.operator() in ("NotIn", "DoesNotExist")


@dataclass
class Emptiness:
    """Why a NodePool launches nothing: the requirements (keys) that together remove every type, and a type that
    passes once one of them (`without`) is dropped."""

    keys: tuple[str, ...]
    example: str | None
    without: tuple[str, ...]


def explain_empty(sim: PoolSimulation) -> Emptiness | None:
    """The requirement combination that emptied the set: keys in the order written; the first key after which
    nothing is left, plus the earlier keys needed (greedily) to remove what that key alone allows."""
    if sim.compatible or not sim.rejected_by:
        return None
    order: list[str] = [NODECLASS_KEY] if NODECLASS_KEY in _rejecting_keys(sim) else []  # (applied first)
    for s in sorted(sim.sources, key=lambda s: s.line):
        if s.key not in order and s.key in _rejecting_keys(sim):
            order.append(s.key)
    alive = set(sim.rejected_by)
    culprit = None
    for i, key in enumerate(order):
        alive = {t for t in alive if key not in sim.rejected_by[t]}
        if not alive:
            culprit = i
            break
    if culprit is None:
        return Emptiness(tuple(order), None, ())
    last = order[culprit]
    allowed_by_last = {t for t, keys in sim.rejected_by.items() if last not in keys}
    chosen: list[str] = []
    remaining = set(allowed_by_last)
    candidates = order[:culprit]
    while remaining and candidates:
        best = max(candidates, key=lambda k: sum(1 for t in remaining if k in sim.rejected_by[t]))
        removed = {t for t in remaining if best in sim.rejected_by[t]}
        if not removed:
            break
        chosen.append(best)
        remaining -= removed
        candidates = [k for k in candidates if k != best]
    combo = tuple(k for k in order if k in chosen or k == last)
    # An example: a type rejected by as few of the combination's keys as possible (ideally one).
    example, without, best = None, (), None
    for t, keys in sim.rejected_by.items():
        inside = tuple(k for k in keys if k in combo)
        if len(inside) != len(keys):
            continue  # also rejected by something else
        cpu = sim.type_reqs[t].get("karpenter.k8s.aws/instance-cpu").values
        rank = (len(inside), inside != (last,), int(next(iter(cpu), "0") or 0) if cpu else 0, t)
        if best is None or rank < best:
            example, without, best = t, inside, rank
    return Emptiness(combo, example, without)


def _rejecting_keys(sim: PoolSimulation) -> set[str]:
    keys: set[str] = set()
    for ks in sim.rejected_by.values():
        keys.update(ks)
    return keys


_ALLOCATABLE: dict[tuple, dict[str, float]] = {}  # a pure cache: (name, allocatable) -> parsed


def allocatable(it: InstanceType) -> dict[str, float]:
    key = (it.name, tuple(sorted(it.allocatable.items())))
    cached = _ALLOCATABLE.get(key)
    if cached is not None:
        return cached
    out = _ALLOCATABLE[key] = {}
    for k, v in it.allocatable.items():
        q = quantity.parse(v)
        if q is not None:
            out[k] = float(q)
    return out
