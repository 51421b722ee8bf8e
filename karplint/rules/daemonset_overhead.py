"""DaemonSets Karpenter leaves out of a new node's size (KPL306).

Before it launches a node, Karpenter adds the requests of every DaemonSet that will run there to the pending pods'
(`getDaemonOverhead` / `isDaemonPodCompatible`, kubernetes-sigs/karpenter
`pkg/controllers/provisioning/scheduling/scheduler.go`). A DaemonSet counts only when its required node selection is
compatible with the NodePool's requirements, and a label the NodeClaim template does not define and that is not
well known is incompatible. `karpenter.sh/registered` and `karpenter.sh/initialized` are only put on the node after
it joins (`pkg/controllers/nodeclaim/lifecycle/registration.go`, `initialization.go`), so until v1.14.0 a DaemonSet
selecting them was never counted: kubernetes-sigs/karpenter#919 (first reported as aws/karpenter-provider-aws#5406),
aws/karpenter-provider-aws#6015, kubernetes-sigs/karpenter#2116, fixed by kubernetes-sigs/karpenter#2161 (commit
1b4b3e8, first in v1.14.0: the template gets both labels for the DaemonSet simulation).
"""

from __future__ import annotations

from karplint.model import Resource
from karplint.model.detect import reads_karpenter_release, versions_in_play
from karplint.model.versions import V
from karplint.rules import rule
from karplint.rules.disruption import release_origin

LIFECYCLE_LABELS = ("karpenter.sh/registered", "karpenter.sh/initialized")
FIXED_IN = "1.14.0"
# Operators a label the template does not know cannot satisfy (`Requirements.Compatible`): NotIn and DoesNotExist can.
NEEDS_VALUE = ("In", "Exists", "Gt", "Lt")
AFFINITY_TERMS = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")


def _lifecycle_expression(term) -> int | None:
    """Index of the first matchExpressions item of `term` that needs a lifecycle label, else None."""
    if not isinstance(term, dict) or not isinstance(term.get("matchExpressions"), list):
        return None
    for i, expr in enumerate(term["matchExpressions"]):
        if isinstance(expr, dict) and expr.get("key") in LIFECYCLE_LABELS and expr.get("operator") in NEEDS_VALUE:
            return i
    return None


def _needs_lifecycle_label(res: Resource, spec_path) -> tuple | None:
    """The path of the nodeSelector key or matchExpressions key that ties every node choice of the DaemonSet to a
    lifecycle label, else None. Karpenter tries each nodeSelectorTerm (they are ORed): one term free of the labels
    is enough for the DaemonSet to count."""
    spec = res.get(spec_path)
    if not isinstance(spec, dict):
        return None
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        for key in selector:
            if key in LIFECYCLE_LABELS:
                return spec_path + ("nodeSelector", key)
    terms = res.get(spec_path + AFFINITY_TERMS)
    if not isinstance(terms, list) or not terms:
        return None
    hits = [_lifecycle_expression(t) for t in terms]
    if any(h is None for h in hits):
        return None
    return spec_path + AFFINITY_TERMS + (0, "matchExpressions", hits[0], "key")


@rule("KPL306", "daemonset-selects-lifecycle-label", category="taints", severity="warning",
      summary="A DaemonSet that selects karpenter.sh/registered or /initialized: Karpenter before v1.14.0 leaves it "
              "out of new nodes' size (info when no release is set or found)",
      kinds=("DaemonSet",), reads=(reads_karpenter_release,))
def daemonset_selects_lifecycle_label(res, ctx):
    paths = res.pod_template
    if res.group != "apps" or paths is None:
        return
    path = _needs_lifecycle_label(res, paths[1])
    if path is None:
        return
    label = res.get(path) if path[-1] == "key" else path[-1]
    on = "key" if path[-2] == "nodeSelector" else "value"
    help_ = "help: select Karpenter's nodes with `karpenter.sh/nodepool` (Exists) instead, or upgrade to 1.14.0 or later\n"
    why = ("note: Karpenter adds a DaemonSet's requests to a new node only if the DaemonSet's node selection is "
           "compatible with the NodePool; before v1.14.0 the registered and initialized labels were not part of it, "
           "so nodes come up too small for the DaemonSet and the pods that triggered them, and Karpenter keeps "
           "launching more (kubernetes-sigs/karpenter#919, aws/karpenter-provider-aws#6015, fixed by "
           "kubernetes-sigs/karpenter#2161)")
    versions = versions_in_play(ctx)
    if not versions:
        # No release set or found: the default target is not a fact about the cluster, so say it as information.
        yield ctx.violation(
            res, path,
            f"Karpenter before 1.14.0 sizes new nodes without this DaemonSet (it selects `{label}`)\n" + help_
            + "note: nodes only get that label after they join\n" + why, on=on, severity="info")
        return
    for version, where in versions:
        if version >= V(FIXED_IN):
            continue
        yield ctx.violation(
            res, path,
            f"Karpenter {version} sizes new nodes without this DaemonSet (it selects `{label}`)\n" + help_
            + "note: nodes only get that label after they join\n" + why + release_origin(where, version), on=on)
