"""Helpers shared by the repair, references and security rules (not a rule module: the leading `_` keeps the
rule loader from importing it as one)."""

from __future__ import annotations

from typing import Iterator

from karplint.readers.document import Path
from karplint.model.labels import ALIAS_FAMILIES
from karplint.model import POD_TEMPLATES, Model, Resource
from karplint.readers.templating import is_placeholder

NODECLASS_GROUP = "karpenter.k8s.aws"
NODECLASS_KIND = "EC2NodeClass"
WORKLOAD_GROUPS = ("", "apps", "batch")
WORKLOAD_KINDS = tuple(POD_TEMPLATES)


def pod_spec(res: Resource) -> tuple[Path, dict] | None:
    """(path, pod spec) of a core/apps/batch workload, else None."""
    if res.group not in WORKLOAD_GROUPS or res.pod_template is None:
        return None
    path = res.pod_template[1]
    spec = res.get(path)
    return (path, spec) if isinstance(spec, dict) else None


def tolerations(res: Resource) -> Iterator[tuple[Path, dict]]:
    """(path, toleration) of every toleration in a workload's pod template."""
    found = pod_spec(res)
    if found is None:
        return
    path, spec = found
    items = spec.get("tolerations")
    if not isinstance(items, list):
        return
    for i, t in enumerate(items):
        if isinstance(t, dict):
            yield path + ("tolerations", i), t


def nodeclass_ref_path(res: Resource) -> Path:
    return ("spec", "nodeClassRef") if res.kind == "NodeClaim" else ("spec", "template", "spec", "nodeClassRef")


def nodeclass_ref(res: Resource) -> dict | None:
    ref = res.get(nodeclass_ref_path(res))
    return ref if isinstance(ref, dict) else None


def refers_to_ec2nodeclass(ref: dict) -> bool:
    """True unless the reference names another group or kind (missing group/kind: v1beta1 defaults)."""
    group = ref.get("group")
    if group is None and isinstance(ref.get("apiVersion"), str):
        group = ref["apiVersion"].rpartition("/")[0] if "/" in ref["apiVersion"] else ref["apiVersion"]
    kind = ref.get("kind")
    return group in (None, NODECLASS_GROUP) and kind in (None, NODECLASS_KIND)


def nodeclasses_by_name(model: Model) -> dict[str, list[Resource]]:
    out: dict[str, list[Resource]] = {}
    for nc in model.nodeclasses():
        if nc.name is not None:
            out.setdefault(nc.name, []).append(nc)
    return out


def resolve_nodeclass(res: Resource, by_name: dict[str, list[Resource]]) -> Resource | None:
    """The EC2NodeClass a NodePool/NodeClaim references: one in the same file first, else the only one in the
    run with that name; None when absent or ambiguous."""
    ref = nodeclass_ref(res)
    if ref is None or not refers_to_ec2nodeclass(ref):
        return None
    candidates = by_name.get(str(ref.get("name")), [])
    same_file = [c for c in candidates if c.doc.source is res.doc.source]
    if len(same_file) == 1:
        return same_file[0]
    return candidates[0] if len(candidates) == 1 else None


def ami_family(nc: Resource) -> tuple[str | None, Path | None]:
    """(amiFamily, where it is decided) of an EC2NodeClass: an alias term wins (an explicit `Custom` family
    with an alias keeps the alias's OS), else `spec.amiFamily`; (None, None) when unknown."""
    terms = nc.get(("spec", "amiSelectorTerms"))
    if isinstance(terms, list):
        for i, term in enumerate(terms):
            alias = term.get("alias") if isinstance(term, dict) else None
            if isinstance(alias, str) and not is_placeholder(alias):
                family = ALIAS_FAMILIES.get(alias.split("@", 1)[0].strip().lower())
                if family:
                    return family, ("spec", "amiSelectorTerms", i, "alias")
    family = nc.get(("spec", "amiFamily"))
    if isinstance(family, str) and not is_placeholder(family):
        return family, ("spec", "amiFamily")
    return None, None
