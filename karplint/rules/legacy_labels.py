"""Provisioner labels in a restricted label domain (KPL931): what the v1alpha5 validating webhook refused.

v1beta1 and v1 NodePools carry the same restriction as CEL rules of their CRDs (KPL130 reports it); a v1alpha5
Provisioner was checked by Karpenter's webhook only (`ProvisionerSpec.validateLabels` -> `IsRestrictedLabel`):
aws/karpenter-provider-aws `pkg/apis/provisioning/v1alpha5/provisioner_validation.go@v0.10.0#L73` and
`labels.go@v0.10.0#L37`, kubernetes-sigs/karpenter `pkg/apis/v1alpha5/provisioner_validation.go@v0.32.0#L117` and
`labels.go@v0.32.0#L106`. A label whose domain ends with kubernetes.io, k8s.io or karpenter.sh is refused unless it
is a well-known label or its domain is exactly an excepted one.
"""

from __future__ import annotations

from karplint.model.versions import V
from karplint.readers.templating import is_templated
from karplint.rules import rule
from karplint.rules._legacy import judged

RESTRICTED_DOMAINS = ("kubernetes.io", "k8s.io", "karpenter.sh")
# Exact domains excepted, with the first release excepting each: kops.k8s.io from the start (labels.go@v0.7.0),
# node.kubernetes.io from v0.11.0 (labels.go@v0.11.0, aws/karpenter-provider-aws#1802). node-restriction.kubernetes.io
# (excepted by v0.32.0) and karpenter's testing domain are never judged: when they became allowed is not recorded.
EXCEPTED_SINCE = {"kops.k8s.io": "0.0.0", "node.kubernetes.io": "0.11.0"}
NEVER_JUDGED_DOMAINS = frozenset({"node-restriction.kubernetes.io", "testing.karpenter.sh",
                                  "topology.kubernetes.io", "beta.kubernetes.io",
                                  "failure-domain.beta.kubernetes.io"})
# Well-known labels of any v1alpha5 release are allowed (IsRestrictedLabel returns nil for them), or rejected by
# another check; none is judged here.
WELL_KNOWN = frozenset({"kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/instance-type",
                        "karpenter.sh/capacity-type", "karpenter.sh/provisioner-name"})
# The webhook's label checks as read above hold from v0.7.0 (labels.go before it lived elsewhere).
JUDGED_SINCE = V("0.7.0")


def restricted_domain(key: str, target) -> str | None:
    """The domain of `key` when Karpenter `target`'s webhook refuses it as a Provisioner label, else None."""
    if key in WELL_KNOWN or "/" not in key:
        return None
    domain = key.split("/", 1)[0]
    if domain in NEVER_JUDGED_DOMAINS:
        return None
    since = EXCEPTED_SINCE.get(domain)
    if since is not None and target >= V(since):
        return None
    return domain if any(domain == d or domain.endswith("." + d) for d in RESTRICTED_DOMAINS) else None


@rule("KPL931", "provisioner-label-restricted-domain", category="provisioning", severity="error",
      summary="A v1alpha5 Provisioner label in the kubernetes.io, k8s.io or karpenter.sh domain: the webhook "
              "refuses the Provisioner",
      kinds=("Provisioner",))
def provisioner_label_restricted_domain(res, ctx):
    if (res.group, res.version) != ("karpenter.sh", "v1alpha5") or not judged(res, ctx, legacy=True):
        return
    target = ctx.karpenter_version
    if target < JUDGED_SINCE:
        return
    labels = res.get(("spec", "labels"))
    if not isinstance(labels, dict):
        return
    for key in labels:
        if not isinstance(key, str) or is_templated(key):
            continue
        domain = restricted_domain(key, target)
        if domain is None:
            continue
        allowed = ("node.kubernetes.io and kops.k8s.io are" if target >= V("0.11.0") else
                   "kops.k8s.io is (node.kubernetes.io from v0.11.0)")
        yield ctx.violation(
            res, ("spec", "labels", key),
            f"label domain {domain} is restricted for Provisioner labels at Karpenter {target}\n"
            f"help: use a label outside the kubernetes.io, k8s.io and karpenter.sh domains; {allowed} allowed\n"
            "note: Karpenter's validating webhook refuses this Provisioner (\"label domain not allowed\")",
            on="key")
