"""A DaemonSet that selects Karpenter's node lifecycle labels (KPL914).

`karpenter.sh/registered` and `karpenter.sh/initialized` are put on a node by Karpenter after it joins
(kubernetes-sigs/karpenter pkg/apis/v1/labels.go@v1.14.1, NodeRegisteredLabelKey, NodeInitializedLabelKey). Before
v1.14.0 the NodeClaim Karpenter plans carries neither, so a DaemonSet requiring one seemed never to land on the new
node: its requests were left out of the DaemonSet overhead, Karpenter chose a node too small for the DaemonSet and
the pending pods together, and launched another (aws/karpenter-provider-aws#5406, #6015;
kubernetes-sigs/karpenter#2116, fixed by #2161, first released in v1.14.0).
"""

from __future__ import annotations

from typing import Iterator

from karplint.model.versions import Version
from karplint.rules import rule

LIFECYCLE_LABELS = ("karpenter.sh/registered", "karpenter.sh/initialized")
FIXED_IN = Version(1, 14, 0)  # (kubernetes-sigs/karpenter#2161)


def _lifecycle_selectors(spec: dict) -> list[tuple]:
    """Paths (under the pod spec) of the nodeSelector keys and required node-affinity expressions that need a
    lifecycle label (`In`, `Exists`: the DaemonSet's pods then run only where it is)."""
    out = []
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        out += [("nodeSelector", k) for k in selector if k in LIFECYCLE_LABELS]
    affinity = spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    for t, term in enumerate(terms if isinstance(terms, list) else ()):
        exprs = term.get("matchExpressions") if isinstance(term, dict) else None
        for e, expr in enumerate(exprs if isinstance(exprs, list) else ()):
            if isinstance(expr, dict) and expr.get("key") in LIFECYCLE_LABELS and expr.get("operator") in ("In", "Exists"):
                out.append(("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                            "nodeSelectorTerms", t, "matchExpressions", e, "key"))
    return out


@rule("KPL914", "daemonset-selects-lifecycle-label", category="provisioning", severity="warning",
      summary="A DaemonSet selecting karpenter.sh/registered or /initialized, left out of the overhead before v1.14.0",
      kinds=("DaemonSet",))
def daemonset_selects_lifecycle_label(res, ctx) -> Iterator:
    if res.group != "apps" or res.pod_template is None or not ctx.karpenter_version < FIXED_IN:
        return
    spec = res.get(res.pod_template[1])
    if not isinstance(spec, dict):
        return
    for sub in _lifecycle_selectors(spec):
        path = res.pod_template[1] + sub
        key = sub[1] if sub[0] == "nodeSelector" else spec["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][sub[4]]["matchExpressions"][sub[6]]["key"]
        yield ctx.violation(
            res, path,
            f"DaemonSet `{res.name}` selects `{key}`, which Karpenter {ctx.karpenter_version} does not count when it "
            "plans a node\n"
            "help: select Karpenter's nodes with `karpenter.sh/nodepool` (operator `Exists`) instead\n"
            "note: the label is set only after the node joins: before v1.14.0 Karpenter leaves this DaemonSet out of "
            "the overhead, launches nodes too small for it and the pending pods together, and launches again "
            "(kubernetes-sigs/karpenter#2161)",
            on="key" if sub[0] == "nodeSelector" else "value")

