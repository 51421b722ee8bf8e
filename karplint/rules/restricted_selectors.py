"""Pods Karpenter will never provision for because they select a label it restricts (KPL914).

Before it simulates a pending pod, Karpenter validates the pod's node selection (`Provisioner.Validate`:
`validateNodeSelector`, `validateAffinity`, each requirement through `ValidateRequirement` and `IsRestrictedLabel`,
kubernetes-sigs/karpenter `pkg/controllers/provisioning/provisioner.go` and `pkg/apis/v1/labels.go`). A key in a
restricted label domain that is not well known fails it, and the pod is dropped ("ignoring pod, label ... is
restricted"): no node is launched for it, and kube-scheduler can only place it on a node that already carries the
label. The check is the same from v0.33.0 (v1beta1's `ValidateRequirement` alone; v0.32 also accepted v1alpha5's
labels, `karpenter.sh/provisioner-name` among them) to today, with two changes recorded below: the kubernetes.io and
k8s.io domains stopped being restricted in v1.9.0, and preferred terms stopped being validated in v1.5.0
(kubernetes-sigs/karpenter#2182).
"""

from __future__ import annotations

from karplint.model import Resource
from karplint.model.detect import reads_karpenter_release, target_karpenter
from karplint.model.versions import V, Version
from karplint.readers.templating import is_templated
from karplint.rules import rule
from karplint.rules.disruption import release_origin

CHECKED_SINCE = V("0.33.0")  # before it, v1alpha5's well-known labels were accepted too (not modelled: silent)
PREFERRED_VALIDATED_UNTIL = V("1.5.0")  # kubernetes-sigs/karpenter#2182 (commit 93c0ef3a4, first in v1.5.0)

# Restricted label domains (core `RestrictedLabelDomains`, a domain restricts its subdomains too) and the release that
# lifted each (None: still restricted). The AWS provider's own karpenter.k8s.aws domain is left out: which of its
# labels are well known changes with every release, and misspelt keys there are KPL606's.
RESTRICTED_DOMAINS = {"karpenter.sh": None, "kubernetes.io": V("1.9.0"), "k8s.io": V("1.9.0")}
DOMAIN_EXCEPTIONS = ("kops.k8s.io", "node.kubernetes.io", "node-restriction.kubernetes.io")  # `LabelDomainExceptions`
# Core `WellKnownLabels` (v1beta1 and v1) and the beta labels `NormalizedLabels` maps onto them before validating.
WELL_KNOWN = frozenset({
    "karpenter.sh/nodepool", "karpenter.sh/capacity-type", "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region", "node.kubernetes.io/instance-type", "kubernetes.io/arch", "kubernetes.io/os",
    "node.kubernetes.io/windows-build", "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/arch", "beta.kubernetes.io/os",
    "beta.kubernetes.io/instance-type",
})
# Restricted too, but selecting it pins a pod to one existing node, where no new node could help: not reported.
HOSTNAME = "kubernetes.io/hostname"
PROVISIONER_NAME = "karpenter.sh/provisioner-name"  # v1alpha5's; gone with Provisioners in v0.33.0

AFFINITY = ("affinity", "nodeAffinity")
REQUIRED_TERMS = AFFINITY + ("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
PREFERRED_TERMS = AFFINITY + ("preferredDuringSchedulingIgnoredDuringExecution",)


def restricted_domain(key: str, version: Version) -> str | None:
    """The restricted domain `key` falls in at `version` (`IsRestrictedLabel`), or None when Karpenter accepts it."""
    if key in WELL_KNOWN or key == HOSTNAME or "/" not in key:
        return None
    domain = key.split("/", 1)[0]
    if any(domain.endswith(e) for e in DOMAIN_EXCEPTIONS):
        return None
    for restricted, lifted in RESTRICTED_DOMAINS.items():
        if domain.endswith(restricted) and (lifted is None or version < lifted):
            return restricted
    return None


def _expressions(res: Resource, terms_path: tuple, preferred: bool):
    """(path of the key, key, where the finding sits, `preferred`) of every matchExpressions item under the
    node-affinity terms at `terms_path`."""
    terms = res.get(terms_path)
    if not isinstance(terms, list):
        return
    for i, term in enumerate(terms):
        base = terms_path + (i,) + (("preference",) if preferred else ())
        exprs = res.get(base + ("matchExpressions",))
        if not isinstance(exprs, list):
            continue
        for j, expr in enumerate(exprs):
            if isinstance(expr, dict) and isinstance(expr.get("key"), str):
                yield base + ("matchExpressions", j, "key"), expr["key"], "value", preferred


def selected_keys(res: Resource, spec_path: tuple, version: Version):
    """(path, key, where the finding sits, whether a preference) of every node-selection key Karpenter validates at
    `version`."""
    selector = res.get(spec_path + ("nodeSelector",))
    if isinstance(selector, dict):
        for key in selector:
            if isinstance(key, str):
                yield spec_path + ("nodeSelector", key), key, "key", False
    yield from _expressions(res, spec_path + REQUIRED_TERMS, preferred=False)
    if version < PREFERRED_VALIDATED_UNTIL:
        yield from _expressions(res, spec_path + PREFERRED_TERMS, preferred=True)


def _advice(key: str, preferred: bool, domain: str) -> str:
    return _help(key, preferred) + (f"\nnote: the {domain} domain is restricted: Karpenter drops the pod before "
                                    "scheduling and never launches a node for it")


def _help(key: str, preferred: bool) -> str:
    if preferred:
        return ("help: drop the preference, or upgrade: from Karpenter 1.5.0 preferences are not validated\n"
                "note: a preferred term is checked like a required one before 1.5.0 (kubernetes-sigs/karpenter#2182)")
    if key == PROVISIONER_NAME:
        return ("help: select `karpenter.sh/nodepool` (the NodePool that replaced the Provisioner)\n"
                "note: Provisioners and their label went away in v0.33.0; nodes from NodePools never carry it")
    if key.startswith("karpenter.sh/"):
        return ("help: select `karpenter.sh/nodepool` (Exists, or the NodePool's name) to reach Karpenter's nodes\n"
                "note: Karpenter sets the other karpenter.sh labels itself, on nodes that already run")
    return ("help: use a custom label the NodePool sets (spec.template.metadata.labels) or a well-known one\n"
            "note: the kubernetes.io and k8s.io domains are restricted until Karpenter 1.9.0")


@rule("KPL914", "pod-selects-restricted-label", category="provisioning", severity="warning",
      summary="A pod that requires a label Karpenter restricts (karpenter.sh/provisioner-name, "
              "karpenter.sh/registered, node-role.kubernetes.io/... before 1.9): Karpenter never launches a node for it",
      kinds=("Pod", "Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Job", "CronJob"),
      reads=(reads_karpenter_release,))
def pod_selects_restricted_label(res, ctx):
    paths = res.pod_template
    if paths is None or res.group not in ("", "apps", "batch"):
        return
    if isinstance(res.get(paths[1] + ("nodeName",)), str):
        return  # bound to a node by its author: Karpenter never provisions for it anyway
    version, where, known = target_karpenter(ctx)
    if version < CHECKED_SINCE:
        return
    seen = set()
    for path, key, on, preferred in selected_keys(res, paths[1], version):
        domain = restricted_domain(key, version)
        if domain is None or is_templated(key) or key in seen:
            continue
        seen.add(key)
        first = (f"Karpenter {version} ignores this pod: it {'prefers' if preferred else 'requires'} `{key}`, a "
                 "restricted label\n")
        message = first + _advice(key, preferred, domain) + (release_origin(where, version) if known else "")
        if not known or preferred:
            # No release set or found: the default target is not a fact about the cluster. A preference is legitimate
            # and only a limitation of releases before 1.5.0. Both are said as information.
            yield ctx.violation(res, path, message, on=on, severity="info")
            continue
        yield ctx.violation(res, path, message, on=on, severity="error" if key == PROVISIONER_NAME else None)
