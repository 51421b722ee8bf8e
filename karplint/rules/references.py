"""References between resources and requirements no node can meet (KPL6xx).

Cross-resource rules look at the whole run. Because a run can hold files of unrelated projects (a monorepo, a
docs tree), they are conservative: a nodeClassRef is "missing" only when the run has EC2NodeClasses and none
has that name; duplicate names count only inside one file (one `kubectl apply` unit; per-environment copies in
different directories are normal); unreferenced classes only in files whose NodePools or other classes are in
use; overlapping NodePools only inside one file (example directories hold alternative versions of one pool).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from karplint.readers.document import Path
from karplint.model.labels import AMI_FAMILY_LABELS, suggest_label_key
from karplint.model import Model, Resource, karpenter_resources
from karplint.rules.base import rule
from karplint.rules._catalog import (
    WORKLOAD_KINDS, ami_family, nodeclass_ref,
    nodeclass_ref_path, nodeclasses_by_name, pod_spec, refers_to_ec2nodeclass, resolve_nodeclass,
)
from karplint.readers.templating import is_placeholder

# Kinds that are cluster-scoped (a namespace in their metadata is ignored by the API server).
CLUSTER_SCOPED_KINDS = frozenset({
    "NodePool", "NodeClaim", "EC2NodeClass", "NodeOverlay", "Provisioner", "Machine", "AWSNodeTemplate",
    "Namespace", "Node", "PersistentVolume", "StorageClass", "PriorityClass", "ClusterRole",
    "ClusterRoleBinding", "CustomResourceDefinition", "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration", "RuntimeClass", "CSIDriver", "IngressClass",
})

REQUIREMENT_OWNERS = ("NodePool", "NodeClaim")

# Node class kinds of Karpenter providers: group -> kind (a nodeClassRef must name a pair of this table, or a
# group and kind it does not know at all, which is some other provider's business).
NODECLASS_KINDS_BY_GROUP: dict[str, str] = {
    "karpenter.k8s.aws": "EC2NodeClass",  # aws/karpenter-provider-aws
    "eks.amazonaws.com": "NodeClass",  # EKS Auto Mode
    "karpenter.azure.com": "AKSNodeClass",  # Azure/karpenter-provider-azure
    "karpenter.kwok.sh": "KWOKNodeClass",  # kubernetes-sigs/karpenter kwok test provider
}
GROUPS_BY_NODECLASS_KIND = {kind: group for group, kind in NODECLASS_KINDS_BY_GROUP.items()}


def _requirements_path(res: Resource) -> Path:
    return ("spec", "requirements") if res.kind == "NodeClaim" else ("spec", "template", "spec", "requirements")


# ---------------------------------------------------------------------------------------------- nodeClassRef

@rule("KPL601", "unknown-nodeclass", category="references", severity="error",
      summary="A nodeClassRef names an EC2NodeClass that no file of the run defines",
      reads=(karpenter_resources,))
def unknown_nodeclass(model: Model, ctx) -> Iterator:
    by_name = nodeclasses_by_name(model)
    declared = {n for n in ctx.cluster.get("nodeclasses", ()) if isinstance(n, str)}  # created outside YAML
    # classes that documentation shows as a live cluster returned them (`kubectl get -o yaml`): they exist there
    declared |= {r.name for r in model.recorded if r.kind == "EC2NodeClass" and r.group == "karpenter.k8s.aws"}
    if not by_name:
        return  # the run holds no EC2NodeClass: they live elsewhere, nothing to resolve against
    for res in model.of_kind(*REQUIREMENT_OWNERS, group="karpenter.sh"):
        ref = nodeclass_ref(res)
        if ref is None or not refers_to_ec2nodeclass(ref):
            continue
        name = ref.get("name")
        if not isinstance(name, str) or not name or is_placeholder(name) or name in by_name or name in declared:
            continue
        known = ", ".join(sorted(by_name)[:5]) + (", ..." if len(by_name) > 5 else "")
        yield ctx.violation(
            res, nodeclass_ref_path(res) + ("name",),
            f"{res} references unknown EC2NodeClass `{name}`\n"
            f"help: fix the name (the files define: {known}), or declare a class created elsewhere in "
            "`[tool.karplint.cluster] nodeclasses`\n"
            f"note: no checked file defines it; Karpenter launches no nodes for this {res.kind} (NodeClassReady=False)")


@rule("KPL602", "nodeclassref-group-kind", category="references", severity="error",
      summary="A nodeClassRef whose group and kind do not belong together (e.g. EC2NodeClass outside "
              "karpenter.k8s.aws)",
      kinds=REQUIREMENT_OWNERS)
def nodeclassref_group_kind(res: Resource, ctx) -> Iterator:
    if res.group != "karpenter.sh":
        return
    ref = nodeclass_ref(res)
    if ref is None:
        return
    base = nodeclass_ref_path(res)
    kind = ref.get("kind")
    if "group" in ref:
        group, group_path = ref.get("group"), base + ("group",)
        said = f"nodeClassRef.group is `{group}`"
    else:  # v1beta1: apiVersion: karpenter.k8s.aws/v1beta1
        api_version = ref.get("apiVersion")
        group = api_version.rpartition("/")[0] if isinstance(api_version, str) else None
        group_path = base + ("apiVersion",)
        said = f"nodeClassRef.apiVersion `{api_version}` names group `{group}`"
    # Missing or empty values and a `/` in the group are the CRD's to reject (KPL1xx).
    group_ok = isinstance(group, str) and group and "/" not in group and not is_placeholder(group)
    kind_ok = isinstance(kind, str) and kind and not is_placeholder(kind)
    if not kind_ok:
        return
    right_kind = NODECLASS_KINDS_BY_GROUP.get(group) if group_ok else None
    right_group = GROUPS_BY_NODECLASS_KIND.get(kind)
    case_fix = next((k for k in GROUPS_BY_NODECLASS_KIND if k.lower() == kind.lower() and k != kind), None)
    if case_fix is not None and (right_kind is None or right_kind == case_fix):
        yield ctx.violation(res, base + ("kind",),
                            f"nodeClassRef.kind is `{kind}`, not `{case_fix}`\n"
                            f"help: write `{case_fix}` (kinds are case-sensitive)\n"
                            "note: no node class of this kind exists, so the pool never becomes ready")
        return
    if right_kind is not None and right_kind != kind:
        elsewhere = f" (`{kind}` belongs to `{right_group}`)" if right_group else ""
        yield ctx.violation(res, base + ("kind",),
                            f"nodeClassRef.kind `{kind}` does not belong to `{group}`\n"
                            f"help: the node class kind of `{group}` is `{right_kind}`{elsewhere}\n"
                            "note: no node class is found, so the pool never becomes ready")
    elif group_ok and right_group is not None and right_group != group:
        yield ctx.violation(res, group_path,
                            f"{said}, but {kind} belongs to `{right_group}`\n"
                            f"help: use `{right_group}`\n"
                            "note: no node class is found, so the pool never becomes ready")


@rule("KPL603", "unreferenced-nodeclass", category="references", severity="info",
      summary="An EC2NodeClass that no NodePool or NodeClaim of the run references, in a file the run uses",
      reads=(karpenter_resources,))
def unreferenced_nodeclass(model: Model, ctx) -> Iterator:
    owners = list(model.of_kind(*REQUIREMENT_OWNERS, group="karpenter.sh"))
    if not owners:
        return  # NodePools live elsewhere
    referenced: set[str] = set()
    files_with_owners = {res.doc.path for res in owners}
    for res in owners:
        if not isinstance(res.doc.data.get("spec"), dict) and res.doc.data.get("spec") is not None:
            return  # a spec only Terraform knows (`spec = local.x`): its reference could be any class
        ref = nodeclass_ref(res)
        if ref is None:
            continue
        name = ref.get("name")
        if name is None:
            continue
        if not isinstance(name, str) or is_placeholder(name):
            return  # a templated reference could point anywhere
        referenced.add(name)
    classes = [nc for nc in model.nodeclasses() if nc.name is not None and not is_placeholder(nc.name)]
    # A file is "in use" by this run when it holds NodePools or a class they reference; classes of other files
    # (a standalone example, a class for pools managed elsewhere) are left alone.
    files_in_use = files_with_owners | {nc.doc.path for nc in classes if nc.name in referenced}
    for nc in classes:
        if nc.name in referenced or nc.doc.path not in files_in_use:
            continue
        yield ctx.violation(nc, ("metadata", "name"),
                            f"EC2NodeClass `{nc.name}` is referenced by no NodePool of the checked files\n"
                            "help: remove it, or declare the NodePools that use it elsewhere\n"
                            "note: its file is in use; unless a NodePool elsewhere uses it, it is dead configuration")


@rule("KPL604", "duplicate-resource-name", category="references", severity="error",
      summary="Two documents of one file define the same object (kind, namespace, name)",
      scope="file")
def duplicate_resource_name(model: Model, ctx) -> Iterator:
    seen: dict[tuple, Resource] = {}
    for res in model.resources:
        name = res.name
        if not name or is_placeholder(name):
            continue
        if res.kind in CLUSTER_SCOPED_KINDS:
            ns = None
        else:
            ns = res.namespace if res.namespace is not None else ""
            if is_placeholder(ns):
                continue
        key = (res.doc.path, res.group, res.kind, ns, name)
        first = seen.get(key)
        if first is None:
            seen[key] = res
            continue
        where = f" in namespace `{ns}`" if ns else ""
        line = first.doc.key_span(("metadata", "name")).line
        yield ctx.violation(res, ("metadata", "name"),
                            f"{res.kind} `{name}`{where} is already defined at line {line}\n"
                            "help: rename or remove one of them\n"
                            "note: applying the file keeps only the last one")


# ---------------------------------------------------------------------------------------------- requirements

@dataclass
class _Requirement:
    key: str
    operator: str
    values: list
    path: Path  # where to point (the requirement, or the label key)
    what: str  # how to name it in a message
    min_values: int | None = None


@dataclass
class _KeyState:
    """What the requirements on one key allow, combined (AND)."""

    values: set | None = None  # None: any value
    excluded: set = field(default_factory=set)
    lo: int | None = None  # inclusive integer bounds
    hi: int | None = None
    must_exist: bool = False
    must_not_exist: bool = False
    min_values: int | None = None
    seen: list = field(default_factory=list)

    def add(self, req: _Requirement) -> None:
        self.seen.append(req)
        op, vals = req.operator, [str(v) for v in req.values]
        if op == "In":
            self.values = set(vals) if self.values is None else self.values & set(vals)
            self.must_exist = True
            if req.min_values is not None:
                self.min_values = max(self.min_values or 0, req.min_values)
        elif op == "NotIn":
            self.excluded |= set(vals)
        elif op == "Exists":
            self.must_exist = True
        elif op == "DoesNotExist":
            self.must_not_exist = True
        elif op in ("Gt", "Gte", "Lt", "Lte"):
            self.must_exist = True
            n = _int(vals[0]) if len(vals) == 1 else None
            if n is None:
                return
            if op == "Gt":
                self.lo = n + 1 if self.lo is None else max(self.lo, n + 1)
            elif op == "Gte":
                self.lo = n if self.lo is None else max(self.lo, n)
            elif op == "Lt":
                self.hi = n - 1 if self.hi is None else min(self.hi, n - 1)
            else:
                self.hi = n if self.hi is None else min(self.hi, n)

    def _in_bounds(self, value: str) -> bool:
        if self.lo is None and self.hi is None:
            return True
        n = _int(value)
        return n is not None and (self.lo is None or n >= self.lo) and (self.hi is None or n <= self.hi)

    def problem(self, universe: frozenset | None = None) -> str | None:
        """Why no node can carry a value for this key (None when some can)."""
        if self.must_exist and self.must_not_exist:
            return "requires the label to exist and to be absent"
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            return f"leaves an empty integer range (at least {self.lo} and at most {self.hi})"
        allowed = self.values if self.values is not None else (set(universe) if universe is not None else None)
        if allowed is None and self.lo is not None and self.hi is not None and self.hi - self.lo < _MAX_RANGE:
            allowed = {str(i) for i in range(self.lo, self.hi + 1)}  # node labels carry canonical integers
        if allowed is None:
            return None
        if universe is not None and self.must_not_exist:
            return "requires the label to be absent, but every node carries it"
        remaining = {v for v in allowed - self.excluded if self._in_bounds(v)}
        if universe is not None:
            remaining &= universe
        if not remaining:
            return "leaves no value"
        if self.min_values is not None and len(remaining) < self.min_values:
            return f"leaves {len(remaining)} value(s) ({', '.join(sorted(remaining))}) but minValues is {self.min_values}"
        return None


_MAX_RANGE = 10_000  # integer ranges up to this size are enumerated against NotIn values


def _int(text: str) -> int | None:
    try:
        return int(str(text).strip())
    except ValueError:
        return None


def _read_requirements(items, base: Path, what: str) -> list[_Requirement] | None:
    """Requirements of a list; None when any is templated (opaque)."""
    out: list[_Requirement] = []
    if not isinstance(items, list):
        return out
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        key, op, values = item.get("key"), item.get("operator"), item.get("values") or []
        if not isinstance(key, str) or not isinstance(op, str) or not isinstance(values, list):
            continue
        if is_placeholder(key) or is_placeholder(op) or any(is_placeholder(v) or isinstance(v, (dict, list))
                                                              for v in values):
            return None
        mv = item.get("minValues")
        out.append(_Requirement(key.strip(), op.strip(), values, base + (i,), what,
                                mv if isinstance(mv, int) and not isinstance(mv, bool) else None))
    return out


def _describe(req: _Requirement, doc) -> str:
    line = doc.span(req.path).line
    if req.what == "label":
        return f"label `{req.key}: {req.values[0]}` (line {line})"
    if req.operator in ("Exists", "DoesNotExist"):
        body = req.operator
    else:
        body = f"{req.operator} [{', '.join(str(v) for v in req.values)}]"
    return f"{req.what} {body} (line {line})"


def _combine(reqs: list[_Requirement]) -> dict[str, _KeyState]:
    states: dict[str, _KeyState] = {}
    for req in reqs:
        states.setdefault(req.key, _KeyState()).add(req)
    return states


def _nodepool_requirements(res: Resource) -> list[_Requirement] | None:
    reqs = _read_requirements(res.get(_requirements_path(res)), _requirements_path(res), "requirement")
    if reqs is None:
        return None
    if res.kind == "NodePool":
        labels = res.get(("spec", "template", "metadata", "labels"))
        if isinstance(labels, dict):
            for k, v in labels.items():
                if isinstance(k, str) and isinstance(v, (str, int, float, bool)) and not is_placeholder(v) \
                        and not is_placeholder(k):
                    value = str(v).lower() if isinstance(v, bool) else str(v)
                    reqs.append(_Requirement(k, "In", [value], ("spec", "template", "metadata", "labels", k),
                                             "label"))
    return reqs


def _unsat_message(key: str, state: _KeyState, problem: str, doc) -> str:
    return (f"no node can satisfy `{key}`\nhelp: make these agree: {_describe_all(state, doc)}\n"
            f"note: their combination {problem}")


def _describe_all(state: _KeyState, doc) -> str:
    ordered = sorted(state.seen, key=lambda r: doc.span(r.path).line)
    return "; ".join(_describe(r, doc) for r in ordered)


def _anchor(ctx, res: Resource, state: _KeyState, message: str):
    """Point at the last requirement involved (a label key when only labels are)."""
    reqs = [r for r in state.seen if r.what != "label"]
    if reqs:
        last = max(reqs, key=lambda r: res.doc.span(r.path).offset)
        return ctx.violation(res, last.path, message)
    return ctx.violation(res, state.seen[-1].path, message, on="key")


@rule("KPL605", "unsatisfiable-requirements", category="references", severity="error",
      summary="Requirements (or node affinity) that contradict each other, so no node can ever match",
      kinds=REQUIREMENT_OWNERS + WORKLOAD_KINDS)
def unsatisfiable_requirements(res: Resource, ctx) -> Iterator:
    if res.kind in REQUIREMENT_OWNERS:
        if res.group != "karpenter.sh":
            return
        reqs = _nodepool_requirements(res)
        if reqs is None:
            return
        for key, state in _combine(reqs).items():
            problem = state.problem()
            if problem and (len(state.seen) > 1 or state.min_values):
                yield _anchor(ctx, res, state, _unsat_message(key, state, problem, res.doc))
        return
    found = pod_spec(res)
    if found is None:
        return
    path, spec = found
    selector = spec.get("nodeSelector")
    base_reqs: list[_Requirement] = []
    if isinstance(selector, dict):
        for k, v in selector.items():
            if isinstance(k, str) and isinstance(v, (str, int, float)) and not is_placeholder(v):
                base_reqs.append(_Requirement(k, "In", [str(v)], path + ("nodeSelector", k), "nodeSelector"))
    terms_path = path + ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                         "nodeSelectorTerms")
    terms = res.get(terms_path)
    if not isinstance(terms, list):
        return
    for t, term in enumerate(terms):
        if not isinstance(term, dict):
            continue
        exprs = _read_requirements(term.get("matchExpressions"), terms_path + (t, "matchExpressions"),
                                   "matchExpression")
        if exprs is None:
            continue
        for req in exprs:
            if req.operator in ("Gt", "Lt") and (len(req.values) != 1 or _int(req.values[0]) is None):
                yield ctx.violation(res, req.path + ("values",),
                                    f"`{req.key}` {req.operator} needs one integer value, not "
                                    f"{req.values!r}\nnote: the term never matches a node")
        for key, state in _combine(base_reqs + exprs).items():
            problem = state.problem()
            if problem and len(state.seen) > 1:
                last = state.seen[-1]
                yield ctx.violation(res, last.path, _unsat_message(key, state, problem, res.doc))


# ---------------------------------------------------------------------------------------------- label keys

def _label_key_sites(res: Resource) -> Iterator[tuple[str, Path, str]]:
    """(key, path, on) of every node-label key a resource refers to: requirements, selectors, topology keys."""
    if res.kind in REQUIREMENT_OWNERS and res.group == "karpenter.sh":
        items = res.get(_requirements_path(res))
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict) and isinstance(item.get("key"), str):
                    yield item["key"], _requirements_path(res) + (i, "key"), "value"
        return  # template labels define custom labels; only references to labels are checked
    found = pod_spec(res)
    if found is None:
        return
    path, spec = found
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        for k in selector:
            yield k, path + ("nodeSelector", k), "key"
    node_aff = res.get(path + ("affinity", "nodeAffinity"))
    if isinstance(node_aff, dict):
        req = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
        terms = req.get("nodeSelectorTerms") if isinstance(req, dict) else None
        term_paths = []
        if isinstance(terms, list):
            term_paths += [(path + ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                                    "nodeSelectorTerms", i), t) for i, t in enumerate(terms)]
        pref = node_aff.get("preferredDuringSchedulingIgnoredDuringExecution")
        if isinstance(pref, list):
            term_paths += [(path + ("affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution",
                                    i, "preference"), p.get("preference")) for i, p in enumerate(pref)
                           if isinstance(p, dict)]
        for tpath, term in term_paths:
            exprs = term.get("matchExpressions") if isinstance(term, dict) else None
            if isinstance(exprs, list):
                for j, e in enumerate(exprs):
                    if isinstance(e, dict) and isinstance(e.get("key"), str):
                        yield e["key"], tpath + ("matchExpressions", j, "key"), "value"
    spread = spec.get("topologySpreadConstraints")
    if isinstance(spread, list):
        for i, c in enumerate(spread):
            if isinstance(c, dict) and isinstance(c.get("topologyKey"), str):
                yield c["topologyKey"], path + ("topologySpreadConstraints", i, "topologyKey"), "value"
    for aff in ("podAffinity", "podAntiAffinity"):
        block = res.get(path + ("affinity", aff))
        if not isinstance(block, dict):
            continue
        for i, term in enumerate(block.get("requiredDuringSchedulingIgnoredDuringExecution") or []):
            if isinstance(term, dict) and isinstance(term.get("topologyKey"), str):
                yield term["topologyKey"], path + ("affinity", aff, "requiredDuringSchedulingIgnoredDuringExecution",
                                                   i, "topologyKey"), "value"
        for i, w in enumerate(block.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
            term = w.get("podAffinityTerm") if isinstance(w, dict) else None
            if isinstance(term, dict) and isinstance(term.get("topologyKey"), str):
                yield term["topologyKey"], path + ("affinity", aff, "preferredDuringSchedulingIgnoredDuringExecution",
                                                   i, "podAffinityTerm", "topologyKey"), "value"


@rule("KPL606", "misspelt-label-key", category="references", severity="error",
      summary="A requirement, nodeSelector, affinity or topology key that misspells a well-known node label",
      kinds=REQUIREMENT_OWNERS + WORKLOAD_KINDS)
def misspelt_label_key(res: Resource, ctx) -> Iterator:
    for key, path, on in _label_key_sites(res):
        right = suggest_label_key(key)
        if right is None or right == key:
            continue
        yield ctx.violation(res, path, f"`{key}` is not a label any node carries\n"
                                       f"help: did you mean `{right}`?\n"
                                       "note: nothing matches the misspelt key", on=on)


# ---------------------------------------------------------------------------------------------- AMI family

@rule("KPL607", "requirement-contradicts-ami-family", category="references", severity="error",
      summary="A kubernetes.io/os, kubernetes.io/arch or windows-build requirement the referenced "
              "EC2NodeClass's AMI family can never provide",
      reads=(karpenter_resources,))
def requirement_contradicts_ami_family(model: Model, ctx) -> Iterator:
    by_name = nodeclasses_by_name(model)
    if not by_name:
        return
    for res in model.of_kind(*REQUIREMENT_OWNERS, group="karpenter.sh"):
        nc = resolve_nodeclass(res, by_name)
        if nc is None:
            continue
        family, family_path = ami_family(nc)
        facts = AMI_FAMILY_LABELS.get(family) if family else None
        if not facts:
            continue
        reqs = _nodepool_requirements(res)
        if reqs is None:
            continue
        states = _combine(reqs)
        for key, universe in facts.items():
            state = states.get(key)
            if state is None:
                continue
            if state.problem() is not None:
                continue  # contradictory on its own: KPL605
            problem = state.problem(universe)
            if problem is None:
                continue
            where = f"{nc.doc.path}:{nc.doc.span(family_path).line}"
            yield _anchor(
                ctx, res, state,
                f"`{key}` requirement contradicts EC2NodeClass `{nc.name}` ({family})\n"
                f"help: make {_describe_all(state, res.doc)} allow {', '.join(sorted(universe))}, or reference "
                "another EC2NodeClass\n"
                f"note: {family} nodes ({where}) have {key} in {{{', '.join(sorted(universe))}}}: no instance can "
                "launch")


# ---------------------------------------------------------------------------------------------- overlap

def _pool_signature(res: Resource) -> tuple | None:
    spec = res.get(("spec", "template", "spec"))
    if not isinstance(spec, dict) or res.get(("spec", "replicas")) is not None:
        return None
    if not isinstance(spec.get("requirements"), list):
        return None  # a fragment (requirements are required): nothing to compare
    reqs = _read_requirements(spec.get("requirements"), (), "")
    if reqs is None:
        return None
    req_sig = frozenset((r.key, r.operator, frozenset(str(v) for v in r.values)) for r in reqs)
    taints = spec.get("taints") or []
    if not isinstance(taints, list):
        return None
    taint_sig = frozenset((str(t.get("key")), str(t.get("value", "")), str(t.get("effect")))
                          for t in taints if isinstance(t, dict))
    labels = res.get(("spec", "template", "metadata", "labels")) or {}
    label_sig = frozenset((str(k), str(v)) for k, v in labels.items()) if isinstance(labels, dict) else None
    if label_sig is None:
        return None
    weight = res.get(("spec", "weight"))
    kubelet = repr(spec.get("kubelet"))  # v1beta1: node configuration (maxPods...) changes what fits
    return (req_sig, taint_sig, label_sig, weight if isinstance(weight, int) else 0, kubelet)


@rule("KPL608", "overlapping-nodepools", category="references", severity="info",
      summary="Two NodePools of one file with identical requirements, labels and taints and the same weight",
      scope="file")
def overlapping_nodepools(model: Model, ctx) -> Iterator:
    groups: dict[tuple, list[Resource]] = {}
    for res in model.nodepools():
        if res.name is None or is_placeholder(res.name):
            continue
        sig = _pool_signature(res)
        if sig is not None:
            groups.setdefault((res.doc.path,) + sig, []).append(res)
    for pools in groups.values():
        first = pools[0]
        for other in pools[1:]:
            if other.name == first.name:
                continue  # the same pool written twice (KPL604 when in one file)
            yield ctx.violation(
                other, ("metadata", "name"),
                f"NodePool `{other.name}` overlaps `{first.name}` (line "
                f"{first.doc.key_span(('metadata', 'name')).line})\n"
                "help: give one a higher `weight`, or make them differ\n"
                "note: they have the same requirements, labels, taints and weight; pods fit both, and Karpenter picks by weight then name, so one of them is never used "
                "deliberately")
