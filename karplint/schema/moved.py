"""Fields and enum values that one apiVersion has and another does not (`MOVED`: the unknown-field or enum error
becomes a "moved" one, KPL105), and the first release of fields and values (`SINCE`: verdicts that differ between
the bundled releases around a target that is not bundled itself). Data tables of `karplint.schema.validate`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from karplint.readers.document import Path

@dataclass(frozen=True)
class Moved:
    """A field (or enum value) that one apiVersion has and another does not.

    kinds/versions: where the document is (kind and its apiVersion's version) for the entry to apply.
    path: the unknown field's path; "*" matches any list index. value: for renamed enum values, the old value.
    replaces: required fields the old field stands in for (their "required" errors are not reported separately).
    fix: name of a fix builder in `karplint.schema.fixes.FIXES`.
    """

    kinds: tuple[str, ...]
    versions: tuple[str, ...]
    path: tuple
    message: str
    value: str | None = None
    replaces: tuple[str, ...] = ()
    fix: str | None = None


_V1_NP = (("NodePool",), ("v1",))
_V1B1_NP = (("NodePool",), ("v1beta1",))
_NP_ANY = (("NodePool",), ("v1beta1", "v1"))

MOVED: tuple[Moved, ...] = (
    # karpenter.sh v1beta1 -> v1 (https://karpenter.sh/docs/upgrading/v1-migration/)
    # (what is lost: the v1 CRD has no disruption.expireAfter and a structural schema prunes unknown fields unless
    # the client asks for strict field validation, as kubectl does; template.spec.expireAfter defaults to 720h in
    # aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.0.0#L216. A v1beta1 NodePool keeps it on
    # v1.0.x: kubernetes-sigs/karpenter pkg/apis/v1/nodepool_conversion.go@v1.0.0#L143 moves it.)
    Moved(*_V1_NP, ("spec", "disruption", "expireAfter"),
          "{path} moved to spec.template.spec.expireAfter in karpenter.sh/v1\n"
          "note: kubectl refuses the NodePool (unknown field); a client that does not ask for strict field "
          "validation gets the field pruned without an error, and the nodes expire after "
          "spec.template.spec.expireAfter (720h when unset) instead", fix="move_expire_after"),
    Moved(*_V1_NP, ("spec", "template", "spec", "kubelet"),
          "{path} moved to the EC2NodeClass in karpenter.sh/v1\nhelp: set it as spec.kubelet of the EC2NodeClass this "
          "NodePool references (karpenter.k8s.aws/v1)"),
    Moved(*_V1_NP, ("spec", "kubelet"),
          "{path} is not a NodePool field in karpenter.sh/v1\nhelp: set kubelet settings as spec.kubelet of the "
          "EC2NodeClass"),
    Moved(*_V1B1_NP, ("spec", "kubelet"),
          "{path} is not where karpenter.sh/v1beta1 reads kubelet settings\nhelp: move it to spec.template.spec.kubelet"),
    Moved(*_V1_NP, ("spec", "template", "spec", "nodeClassRef", "apiVersion"),
          "{path} was replaced by group and kind in karpenter.sh/v1\n"
          "help: write group: karpenter.k8s.aws and kind: EC2NodeClass", replaces=("group", "kind"), fix="node_class_ref"),
    Moved(*_V1_NP, ("spec", "template", "spec", "resources"),
          "{path} was removed in karpenter.sh/v1\nhelp: delete it"),
    Moved(*_V1_NP, ("spec", "disruption", "consolidationPolicy"),
          "consolidationPolicy WhenUnderutilized was renamed in karpenter.sh/v1\nhelp: write WhenEmptyOrUnderutilized",
          value="WhenUnderutilized", fix="when_underutilized"),
    Moved(("NodeClaim",), ("v1",), ("spec", "kubelet"),
          "{path} moved to the EC2NodeClass in karpenter.sh/v1\nhelp: set it as spec.kubelet of the "
          "karpenter.k8s.aws/v1 EC2NodeClass"),
    Moved(("NodeClaim",), ("v1",), ("spec", "nodeClassRef", "apiVersion"),
          "{path} was replaced by group and kind in karpenter.sh/v1\n"
          "help: write group: karpenter.k8s.aws and kind: EC2NodeClass",
          replaces=("group", "kind"), fix="node_class_ref"),
    Moved(("EC2NodeClass",), ("v1",), ("spec", "amiFamily"),
          "amiFamily Ubuntu was removed in karpenter.k8s.aws/v1\nhelp: pin the AMI with amiSelectorTerms and use amiFamily "
          "AL2 (or Custom with your own userData)", value="Ubuntu"),
    # v1 fields written into a v1beta1 document (usually: the apiVersion is the mistake)
    Moved(*_V1B1_NP, ("spec", "template", "spec", "expireAfter"),
          "{path} is the karpenter.sh/v1 location\nhelp: in karpenter.sh/v1beta1 it is spec.disruption.expireAfter "
          "(or change apiVersion to karpenter.sh/v1)"),
    Moved(*_V1B1_NP, ("spec", "template", "spec", "terminationGracePeriod"),
          "{path} exists only in karpenter.sh/v1\nhelp: change apiVersion to karpenter.sh/v1"),
    Moved(*_V1B1_NP, ("spec", "template", "spec", "nodeClassRef", "group"),
          "nodeClassRef.group is the karpenter.sh/v1 form\nhelp: karpenter.sh/v1beta1 uses apiVersion "
          "(or change apiVersion to karpenter.sh/v1)"),
    Moved(*_V1B1_NP, ("spec", "disruption", "consolidationPolicy"),
          "WhenEmptyOrUnderutilized is the karpenter.sh/v1 name\nhelp: karpenter.sh/v1beta1 calls it WhenUnderutilized "
          "(or change apiVersion to karpenter.sh/v1)", value="WhenEmptyOrUnderutilized"),
    # v1alpha5 Provisioner fields in a NodePool
    Moved(*_NP_ANY, ("spec", "ttlSecondsAfterEmpty"),
          "{path} is a v1alpha5 Provisioner field\nhelp: NodePools use spec.disruption.consolidationPolicy: WhenEmpty "
          "with spec.disruption.consolidateAfter"),
    Moved(*_V1_NP, ("spec", "ttlSecondsUntilExpired"),
          "{path} is a v1alpha5 Provisioner field\nhelp: in karpenter.sh/v1 use spec.template.spec.expireAfter (e.g. 720h)"),
    Moved(*_V1B1_NP, ("spec", "ttlSecondsUntilExpired"),
          "{path} is a v1alpha5 Provisioner field\nhelp: in karpenter.sh/v1beta1 use spec.disruption.expireAfter (e.g. 720h)"),
    Moved(*_NP_ANY, ("spec", "consolidation"),
          "{path} is a v1alpha5 Provisioner field\nhelp: NodePools use spec.disruption.consolidationPolicy"),
    Moved(*_NP_ANY, ("spec", "providerRef"),
          "{path} is a v1alpha5 Provisioner field\nhelp: NodePools use spec.template.spec.nodeClassRef"),
    Moved(*_NP_ANY, ("spec", "provider"),
          "{path} is a v1alpha5 Provisioner field\nhelp: inline provider settings are gone; use an EC2NodeClass"),
    Moved(*_NP_ANY, ("spec", "requirements"),
          "{path} is the v1alpha5 Provisioner layout\nhelp: in a NodePool it is spec.template.spec.requirements"),
    Moved(*_NP_ANY, ("spec", "taints"),
          "{path} is the v1alpha5 Provisioner layout\nhelp: in a NodePool it is spec.template.spec.taints"),
    Moved(*_NP_ANY, ("spec", "startupTaints"),
          "{path} is the v1alpha5 Provisioner layout\nhelp: in a NodePool it is spec.template.spec.startupTaints"),
    Moved(*_NP_ANY, ("spec", "labels"),
          "{path} is the v1alpha5 Provisioner layout\nhelp: in a NodePool it is spec.template.metadata.labels"),
    Moved(*_NP_ANY, ("spec", "annotations"),
          "{path} is the v1alpha5 Provisioner layout\nhelp: in a NodePool it is spec.template.metadata.annotations"),
    Moved(*_V1_NP, ("spec", "kubeletConfiguration"),
          "{path} is a v1alpha5 Provisioner field\nhelp: in karpenter.sh/v1 kubelet settings are spec.kubelet of the "
          "EC2NodeClass"),
    Moved(*_V1B1_NP, ("spec", "kubeletConfiguration"),
          "{path} is a v1alpha5 Provisioner field\nhelp: in karpenter.sh/v1beta1 it is spec.template.spec.kubelet"),
    # AWSNodeTemplate (v1alpha1) fields in an EC2NodeClass
    Moved(("EC2NodeClass",), ("v1beta1", "v1"), ("spec", "subnetSelector"),
          "{path} is the v1alpha1 AWSNodeTemplate form\nhelp: EC2NodeClass uses spec.subnetSelectorTerms (a list of terms)"),
    Moved(("EC2NodeClass",), ("v1beta1", "v1"), ("spec", "securityGroupSelector"),
          "{path} is the v1alpha1 AWSNodeTemplate form\nhelp: EC2NodeClass uses spec.securityGroupSelectorTerms "
          "(a list of terms)"),
    Moved(("EC2NodeClass",), ("v1beta1", "v1"), ("spec", "amiSelector"),
          "{path} is the v1alpha1 AWSNodeTemplate form\nhelp: EC2NodeClass uses spec.amiSelectorTerms (a list of terms)"),
    Moved(("EC2NodeClass",), ("v1beta1", "v1"), ("spec", "launchTemplate"),
          "{path} (an AWSNodeTemplate launch template) is not supported by EC2NodeClass\n"
          "help: configure the fields directly"),
)


# First release of fields and enum values (the CRDs of each release), to decide verdicts that differ between the bundled releases
# around a target that is not bundled itself. (kind, path with "*" for list items[, enum value]) -> version.
_NP_REQ, _NC_REQ = ("spec", "template", "spec", "requirements", "*"), ("spec", "requirements", "*")
SINCE: dict[tuple, str] = {
    ("NodePool", ("spec", "disruption", "budgets")): "0.34.0",
    ("NodePool", _NP_REQ + ("minValues",)): "0.35.0",
    ("NodeClaim", _NC_REQ + ("minValues",)): "0.35.0",
    ("EC2NodeClass", ("spec", "amiFamily"), "AL2023"): "0.35.0",
    ("EC2NodeClass", ("spec", "capacityReservationSelectorTerms")): "1.3.0",
    ("EC2NodeClass", ("spec", "amiSelectorTerms", "*", "ssmParameter")): "1.4.0",
    ("NodePool", ("spec", "replicas")): "1.8.0",
    ("EC2NodeClass", ("spec", "ipPrefixCount")): "1.8.0",
    ("NodePool", _NP_REQ + ("operator",), "Gte"): "1.9.0",
    ("NodePool", _NP_REQ + ("operator",), "Lte"): "1.9.0",
    ("NodeClaim", _NC_REQ + ("operator",), "Gte"): "1.9.0",
    ("NodeClaim", _NC_REQ + ("operator",), "Lte"): "1.9.0",
    ("EC2NodeClass", ("spec", "amiFamily"), "Windows2025"): "1.9.0",
    ("EC2NodeClass", ("spec", "networkInterfaces")): "1.11.0",
    ("EC2NodeClass", ("spec", "placementGroupSelector")): "1.11.0",
    ("EC2NodeClass", ("spec", "connectionTracking")): "1.13.0",
    ("EC2NodeClass", ("spec", "cpuOptions", "nestedVirtualization")): "1.13.0",
    ("NodePool", ("spec", "disruption", "consolidationPolicy"), "Balanced"): "1.14.0",
}


def since(kind: str, path: Path, value: Any = None, *, enum: bool = False) -> str | None:
    """The first release with the field at `path` (or, with enum=True, the enum `value` there), if known."""
    norm = tuple("*" if isinstance(p, int) else p for p in path)
    return SINCE.get((kind, norm, value) if enum else (kind, norm))


def _match(pattern: tuple, path: Path) -> bool:
    return len(pattern) == len(path) and all(p == "*" or p == q for p, q in zip(pattern, path))


def find_moved(kind: str, version: str, path: Path, value: Any = None, *, by_value: bool = False) -> Moved | None:
    for m in MOVED:
        if kind in m.kinds and version in m.versions and _match(m.path, path):
            if by_value and m.value is not None and m.value == value:
                return m
            if not by_value and m.value is None:
                return m
    return None
