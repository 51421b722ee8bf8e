"""Requirements on node labels that another node provisioner owns (KPL611): EKS managed node groups and eksctl
label their nodes; Karpenter knows none of these keys, so it does not select capacity by them: it copies the
requirement's value onto its own nodes as a custom label, and the label then says something untrue of the node."""

from __future__ import annotations

from typing import Iterator

from karplint.model import Resource
from karplint.provisioning.placement import FOREIGN_LABELS
from karplint.readers.templating import has_placeholder
from karplint.rules._legacy import judged
from karplint.rules.base import rule

# Managed node groups' capacity types -> Karpenter's (karpenter.sh/capacity-type values).
CAPACITY_TYPES = {"SPOT": "spot", "ON_DEMAND": "on-demand", "CAPACITY_BLOCK": "reserved"}
AUTO_MODE_GROUP = "eks.amazonaws.com"

# (where the requirements are, where the node labels are written)
_LAYOUTS = {
    ("karpenter.sh", "v1", "NodePool"): (("spec", "template", "spec"), "spec.template.metadata.labels"),
    ("karpenter.sh", "v1beta1", "NodePool"): (("spec", "template", "spec"), "spec.template.metadata.labels"),
    ("karpenter.sh", "v1alpha5", "Provisioner"): (("spec",), "spec.labels"),
}


@rule("KPL611", "foreign-node-label", category="references", severity="warning",
      summary="A NodePool requirement on a label of EKS managed node groups or eksctl: Karpenter does not select "
              "capacity by it, it only copies the value onto its nodes",
      kinds=("NodePool", "Provisioner"))
def foreign_node_label(res: Resource, ctx) -> Iterator:
    layout = _LAYOUTS.get((res.group, res.version, res.kind))
    if layout is None or not judged(res, ctx, legacy=True):
        return
    spec_path, labels_path = layout
    # (EKS Auto Mode labels its nodes with eks.amazonaws.com/ keys of its own: said less there)
    auto_mode = res.get(spec_path + ("nodeClassRef", "group")) == AUTO_MODE_GROUP
    reqs = res.get(spec_path + ("requirements",))
    if not isinstance(reqs, list):
        return
    for i, req in enumerate(reqs):
        if not isinstance(req, dict) or req.get("operator") != "In":
            continue
        key, values = req.get("key"), req.get("values")
        if not isinstance(key, str) or key not in FOREIGN_LABELS or not isinstance(values, list) or not values \
                or any(not isinstance(v, str) or has_placeholder(v) for v in values):
            continue
        if auto_mode and key.startswith(AUTO_MODE_GROUP + "/"):
            continue
        (owners, owner), instead = FOREIGN_LABELS[key]
        # (Karpenter writes one value of the requirement: `requirement.Any()`)
        shown = " or ".join(f"`{key}={v}`" for v in values)
        if key == "eks.amazonaws.com/capacityType":
            mapped = [CAPACITY_TYPES.get(v.upper(), v.lower()) for v in values]
            help_ = f"help: write `key: {instead}` with `values: [{', '.join(mapped)}]`"
            note = (f"note: Karpenter does not choose capacity by this key; it labels every node {shown}, whatever "
                    "capacity type it launches")
        else:
            help_ = (f"help: select Karpenter's nodes with `{instead}`, or a label of your own in {labels_path}"
                     if instead else f"help: remove it, or use a label of your own in {labels_path}")
            note = (f"note: Karpenter does not select capacity by this key; it labels its nodes {shown}, which "
                    f"wrongly says they belong to {owner}")
        yield ctx.violation(res, spec_path + ("requirements", i, "key"),
                            f"`{key}` is a label of {owners}, not of Karpenter\n{help_}\n{note}")
