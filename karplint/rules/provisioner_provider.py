"""A v1alpha5 Provisioner with neither `spec.provider` nor `spec.providerRef` (KPL147).

On AWS a Provisioner takes its node settings (subnets, security groups, AMI family) from an inline `provider` or from
the AWSNodeTemplate `providerRef` names. With neither, releases before 0.24.0 accepted it and failed when launching
("describing subnets [], InvalidParameterValue: The filter 'null' is invalid", aws/karpenter-provider-aws#3343);
from 0.24.0 the validating webhook rejects it ("expected exactly one, got neither: spec.provider, spec.providerRef",
kubernetes-sigs/karpenter#201, `validateProvider` in `pkg/apis/v1alpha5/provisioner_validation.go`).
"""

from __future__ import annotations

from karplint.model.versions import V
from karplint.rules import rule
from karplint.rules._legacy import judged

WEBHOOK_SINCE = V("0.24.0")
# providerRef (and AWSNodeTemplate) arrived in 0.11.0 (aws/karpenter-provider-aws pkg/apis/provisioning/v1alpha5 at
# v0.10.0 and v0.11.0); what releases before it did without any provider is not checked here: nothing is said.
PROVIDER_REF_SINCE = V("0.11.0")


@rule("KPL147", "provisioner-without-provider", category="schema", severity="error",
      summary="A v1alpha5 Provisioner with neither spec.provider nor spec.providerRef: no AWS settings to launch with",
      kinds=("Provisioner",))
def provisioner_without_provider(res, ctx):
    if (res.group, res.version) != ("karpenter.sh", "v1alpha5"):
        return
    spec = res.get(("spec",))
    if not isinstance(spec, dict) or "provider" in spec or "providerRef" in spec:
        return
    version = ctx.karpenter_version
    if version < PROVIDER_REF_SINCE:
        return
    if not judged(res, ctx, legacy=True):
        return  # a release that serves no Provisioner: KPL801/KPL803 say what matters first
    consequence = ("note: the validating webhook rejects it (\"expected exactly one, got neither: spec.provider, "
                   "spec.providerRef\")" if version >= WEBHOOK_SINCE else
                   f"note: Karpenter {version} accepts it, then fails to launch: with no subnet selector it asks EC2 "
                   "for subnets with a null filter")
    yield ctx.violation(
        res, ("spec",),
        "Provisioner has neither spec.provider nor spec.providerRef\n"
        "help: reference an AWSNodeTemplate with spec.providerRef.name (or give the settings inline in spec.provider)\n"
        + consequence,
        on="key")


# The AWS provider's validation (pkg/cloudprovider/aws/apis/v1alpha1/provider_validation.go `validateSubnets`,
# from v0.5.0; pkg/apis/v1alpha1/provider_validation.go to v0.32.x), which the Provisioner's validating webhook
# runs on an inline `spec.provider`, requires a subnetSelector: the Provisioner is refused without one.
SUBNET_SELECTOR_REQUIRED_SINCE = V("0.5.0")


@rule("KPL108", "provider-without-subnet-selector", category="schema", severity="error",
      summary="A v1alpha5 Provisioner's inline spec.provider without subnetSelector: the validating webhook refuses "
              "the Provisioner", kinds=("Provisioner",))
def provider_without_subnet_selector(res, ctx):
    if (res.group, res.version) != ("karpenter.sh", "v1alpha5"):
        return
    provider = res.get(("spec", "provider"))
    if not isinstance(provider, dict) or "subnetSelector" in provider or res.get(("spec", "providerRef")) is not None:
        return  # (with a providerRef as well, the webhook's "exactly one of provider, providerRef" comes first)
    version = ctx.karpenter_version
    if version < SUBNET_SELECTOR_REQUIRED_SINCE or not judged(res, ctx, legacy=True):
        return
    yield ctx.violation(
        res, ("spec", "provider"),
        "spec.provider has no subnetSelector\n"
        "help: add `subnetSelector` (e.g. `karpenter.sh/discovery: <cluster>`), also beside a launchTemplate\n"
        f"note: Karpenter {version}'s webhook refuses the Provisioner (\"missing field(s): subnetSelector\")",
        on="key")
