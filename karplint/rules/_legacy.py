"""Which objects the content rules (userData, requirement values) judge: every current Karpenter object, and a
legacy one (a `karpenter.sh/v1alpha5` Provisioner, a `karpenter.k8s.aws/v1alpha1` AWSNodeTemplate) only when the
target release serves its apiVersion (up to 0.32). What Karpenter did with a legacy object's userData or
requirements depends on the release that reads it; at a target that does not serve it, KPL801/KPL803 say so and
its schema is checked, but no content rule guesses which release will read it."""

from __future__ import annotations

from karplint.model.versions import served

# (group, version, kind) of the legacy objects (kubernetes-sigs/karpenter and aws/karpenter-provider-aws
# v0.32.10 were the last releases to serve them: pkg/apis/crds/karpenter.sh_provisioners.yaml,
# karpenter.k8s.aws_awsnodetemplates.yaml).
LEGACY = {("karpenter.sh", "v1alpha5", "Provisioner"), ("karpenter.k8s.aws", "v1alpha1", "AWSNodeTemplate")}


def judged(res, ctx, legacy: bool) -> bool:
    """True for a current object; for a legacy one, when the rule asking judges legacy objects (`legacy`: its
    finding and help are true of the old API too) and `ctx`'s target release serves it."""
    key = (res.group, res.version, res.kind)
    if key not in LEGACY:
        return True
    return legacy and ctx is not None and served(*key, ctx.karpenter_version)[0]


def userdata_analysis(res, ctx, legacy: bool = False):
    """The userData analysis (`karplint.userdata.model.analyze`) of a node class the rule asking judges (`judged`),
    or None: for the userdata rules, one way to ask."""
    if res.group != "karpenter.k8s.aws" or not judged(res, ctx, legacy):
        return None
    from karplint.userdata.model import analyze

    return analyze(res)
