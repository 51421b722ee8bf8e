"""Can a pod land on a NodePool's nodes? A static, conservative answer for cross-resource rules.

Compares a pod spec's `nodeSelector`, required node affinity and tolerations with a NodePool's template labels,
`requirements` and `taints`. Whenever the answer depends on something not in the files (placeholders,
well-known labels Karpenter fills from instance types, `Gt`/`Lt`), the pod is assumed to be able to land.
"""

from __future__ import annotations

from karplint.model import Resource
from karplint.provisioning.requirements import NORMALIZED_LABELS
from karplint.readers.templating import has_placeholder

# Labels EKS managed node groups put on their nodes (https://docs.aws.amazon.com/eks/latest/userguide/
# managed-node-groups.html, "Managed node group capacity types": eks.amazonaws.com/capacityType; and the node
# group's own labels eks.amazonaws.com/nodegroup, nodegroup-image, sourceLaunchTemplateId/Version), and those eksctl
# adds to the node groups it creates. Each with what a Karpenter NodePool writes instead.
_MNG, _EKSCTL = ("EKS managed node groups", "a managed node group"), ("eksctl node groups", "an eksctl node group")
FOREIGN_LABELS = {
    "eks.amazonaws.com/capacityType": (_MNG, "karpenter.sh/capacity-type"),
    "eks.amazonaws.com/nodegroup": (_MNG, "karpenter.sh/nodepool"),
    "eks.amazonaws.com/nodegroup-image": (_MNG, None),
    "eks.amazonaws.com/sourceLaunchTemplateId": (_MNG, None),
    "eks.amazonaws.com/sourceLaunchTemplateVersion": (_MNG, None),
    "alpha.eksctl.io/nodegroup-name": (_EKSCTL, "karpenter.sh/nodepool"),
    "alpha.eksctl.io/cluster-name": (_EKSCTL, None),
}

# Labels Karpenter sets on every node from the instance type, the zone or itself: any pod selector on them may
# match some node of any NodePool unless a requirement narrows it.
WELL_KNOWN_PREFIXES = (
    "kubernetes.io/", "topology.kubernetes.io/", "node.kubernetes.io/", "beta.kubernetes.io/",
    "failure-domain.beta.kubernetes.io/", "karpenter.k8s.aws/", "karpenter.sh/", "topology.k8s.aws/",
    "k8s.io/", "eks.amazonaws.com/", "node-restriction.kubernetes.io/",
)


def nodepool_template(np: Resource) -> tuple[dict, list, list]:
    """(labels, requirements, taints) of a NodePool's node template (read-only; memoised on the resource:
    placement checks ask once per pod and NodePool pair)."""
    cached = np.memo.get("placement template")
    if cached is None:
        cached = np.memo["placement template"] = _nodepool_template(np)
    return cached


def _nodepool_template(np: Resource) -> tuple[dict, list, list]:
    labels = np.get(("spec", "template", "metadata", "labels"))
    reqs = np.get(("spec", "template", "spec", "requirements"))
    taints = np.get(("spec", "template", "spec", "taints"))
    return (labels if isinstance(labels, dict) else {},
            [r for r in reqs if isinstance(r, dict)] if isinstance(reqs, list) else [],
            [t for t in taints if isinstance(t, dict)] if isinstance(taints, list) else [])


def _label_possible(np: Resource, key: str, op: str, values: list) -> bool:
    """Could a node of `np` satisfy `key op values`? True when unsure."""
    if has_placeholder(key) or any(has_placeholder(v) for v in values):
        return True
    labels, reqs, _ = nodepool_template(np)
    key = NORMALIZED_LABELS.get(key, key)  # (aliases: `topology.ebs.csi.aws.com/zone` is the zone, requirements.py)
    values = [str(v) for v in values]
    fixed: str | None = None
    if key == "karpenter.sh/nodepool" and np.name:
        fixed = np.name
    elif key in labels:
        if has_placeholder(labels[key]):
            return True
        fixed = str(labels[key])
    if fixed is not None:
        if op == "In":
            return fixed in values
        if op == "NotIn":
            return fixed not in values
        if op == "DoesNotExist":
            return False
        return True
    allowed: set[str] | None = None
    forbidden: set[str] = set()
    exists: bool | None = None
    for r in reqs:
        if NORMALIZED_LABELS.get(r.get("key"), r.get("key")) != key:
            continue
        rop, rvals = r.get("operator"), r.get("values") if isinstance(r.get("values"), list) else []
        if any(has_placeholder(v) for v in rvals):
            return True
        if rop == "In":
            vals = {str(v) for v in rvals}
            allowed = vals if allowed is None else allowed & vals
            exists = True
        elif rop == "NotIn":
            forbidden |= {str(v) for v in rvals}
        elif rop == "Exists":
            exists = True
        elif rop == "DoesNotExist":
            exists = False
        else:
            return True  # Gt/Lt/Gte/Lte: numeric, not worth simulating
    defined = allowed is not None or exists is not None or bool(forbidden)
    if not defined and (key in FOREIGN_LABELS or not key.startswith(WELL_KNOWN_PREFIXES)):
        # A custom label (or another provisioner's, KPL611) the NodePool neither sets nor requires: Karpenter
        # cannot give it to a node.
        return op in ("NotIn", "DoesNotExist")
    if op == "DoesNotExist":
        return exists is not True
    if exists is False:
        return op == "NotIn"
    if op == "In":
        pool = allowed if allowed is not None else None
        return any((pool is None or v in pool) and v not in forbidden for v in values)
    if op == "NotIn":
        return allowed is None or bool(allowed - set(values))
    return True  # Exists, Gt, Lt ...


def _term_possible(np: Resource, term: dict) -> bool:
    exprs = term.get("matchExpressions")
    if not isinstance(exprs, list):
        return True
    for e in exprs:
        if not isinstance(e, dict) or not isinstance(e.get("key"), str):
            continue
        vals = e.get("values") if isinstance(e.get("values"), list) else []
        if not _label_possible(np, e["key"], str(e.get("operator", "")), vals):
            return False
    return True


def tolerates(tolerations: list, taint: dict) -> bool:
    """Kubernetes toleration matching (key, operator Equal/Exists, value, effect)."""
    for t in tolerations:
        if not isinstance(t, dict):
            continue
        if any(has_placeholder(v) for v in t.values()):
            return True
        effect = t.get("effect")
        if effect and effect != taint.get("effect"):
            continue
        key = t.get("key")
        op = t.get("operator") or "Equal"
        if not key:
            if op == "Exists":
                return True
            continue
        if key != taint.get("key"):
            continue
        if op == "Exists" or str(t.get("value") or "") == str(taint.get("value") or ""):
            return True
    return False


PLACEMENT_KEYS = ("nodeSelector", "affinity", "tolerations")  # all `can_land` reads of a pod spec

# Pod-NodePool verdicts one rule may ask for in a run (`can_land`, `workloads.host`): 100 NodePools by 1,000
# distinct pod constraints. Each costs about 10 µs (a second for the budget); thousands of NodePools by thousands
# of pods would be minutes.
MAX_PLACEMENT_CHECKS = 100_000


class PlacementBudget:
    """Counts one rule's pod-NodePool verdicts against `MAX_PLACEMENT_CHECKS` (memo hits included: a rule's
    verdicts must not depend on what other rules asked before it)."""

    def __init__(self, limit: int | None = None):
        self.limit = MAX_PLACEMENT_CHECKS if limit is None else limit
        self.left = self.limit

    def take(self, n: int) -> bool:
        """Whether `n` more verdicts fit (and if so, counts them)."""
        if n > self.left:
            self.left = -1  # (spent: nothing more fits, however small)
            return False
        self.left -= n
        return True

    def too_large(self) -> str:
        return f"too large (over karplint's budget of {self.limit:,} pod-NodePool verdicts per rule and run)"


def scheduling_signature(pod_spec: dict) -> str:
    """What `can_land` looks at in a pod spec, as a string: pods with equal signatures land on the same pools."""
    affinity = pod_spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    return repr((pod_spec.get("nodeSelector"), node_affinity, pod_spec.get("tolerations")))


def can_land(pod_spec: dict, np: Resource, signature: str | None = None) -> bool:
    """Whether a pod with `pod_spec` may run on nodes of NodePool `np` (True when unsure).

    Rules ask this for every (pod, NodePool) pair; most pods share their scheduling constraints, so the verdict
    is memoised per NodePool object (it lives exactly as long as the run's model) by those constraints.
    `signature`: `scheduling_signature(pod_spec)`, when the caller keeps it."""
    if not isinstance(pod_spec, dict):
        return True
    if signature is None:
        signature = scheduling_signature(pod_spec)
    memo = np.memo.setdefault("can land", {})
    verdict = memo.get(signature)
    if verdict is None:
        verdict = memo[signature] = _can_land(pod_spec, np)
    return verdict


def _can_land(pod_spec: dict, np: Resource) -> bool:
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, dict):
        for k, v in selector.items():
            if not _label_possible(np, str(k), "In", [v]):
                return False
    affinity = pod_spec.get("affinity")
    required = None
    if isinstance(affinity, dict) and isinstance(affinity.get("nodeAffinity"), dict):
        required = affinity["nodeAffinity"].get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict) and isinstance(required.get("nodeSelectorTerms"), list):
        terms = [t for t in required["nodeSelectorTerms"] if isinstance(t, dict)]
        if terms and not any(_term_possible(np, t) for t in terms):
            return False
    _, _, taints = nodepool_template(np)
    tolerations = pod_spec.get("tolerations") if isinstance(pod_spec.get("tolerations"), list) else []
    for taint in taints:
        if any(has_placeholder(v) for v in taint.values()):
            continue
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return False
    return True


def runs_windows(np: Resource) -> bool:
    """True when the NodePool only launches Windows nodes (kubernetes.io/os In [windows])."""
    _, reqs, _ = nodepool_template(np)
    for r in reqs:
        if r.get("key") == "kubernetes.io/os" and r.get("operator") == "In" and isinstance(r.get("values"), list):
            vals = {str(v) for v in r["values"]}
            if vals and vals <= {"windows"}:
                return True
    return False
