"""What a validating webhook enforced where the CRD schema says nothing: v1alpha5 Provisioners had no CEL and a
loose schema, and Karpenter's webhook rejected the rest (kubernetes-sigs/karpenter v0.32.x,
pkg/apis/v1alpha5/provisioner_validation.go: `SupportedNodeSelectorOps` in ValidateRequirement,
`validation.IsValidLabelValue` in validateLabels). Written as schema constraints, so the structural validator
reports them like the CRD's own (KPL101, KPL102) on a copy of the bundled schema.
"""

from __future__ import annotations

import copy

# (group, version, kind) -> [(schema path: property names, "*" for list items and map values), constraints)]
WEBHOOK_CONSTRAINTS: dict[tuple[str, str, str], list[tuple[tuple[str, ...], dict]]] = {
    ("karpenter.sh", "v1alpha5", "Provisioner"): [
        (("spec", "requirements", "*", "operator"),
         {"enum": ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]}),
        (("spec", "labels", "*"),
         {"maxLength": 63, "pattern": r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"}),
    ],
}


def with_webhook_constraints(raw: dict, group: str, version: str, kind: str) -> dict:
    """`raw` (a shared, read-only schema) or, when the kind's webhook checked more, a copy with those checks."""
    extra = WEBHOOK_CONSTRAINTS.get((group, version, kind))
    if not extra:
        return raw
    out = copy.deepcopy(raw)
    for path, constraints in extra:
        node = out
        for part in path:
            if part == "*":
                node = node.get("items") or node.get("additionalProperties")
            else:
                node = (node.get("properties") or {}).get(part)
            if not isinstance(node, dict):
                break
        else:
            node.update(constraints)
    return out
