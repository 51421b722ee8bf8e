"""Block device mappings of an EC2NodeClass (KPL626).

Karpenter gives a Bottlerocket node two volumes by default, `/dev/xvda` (the OS, 4Gi gp3, encrypted) and
`/dev/xvdb` (the data volume, 20Gi gp3, encrypted) (aws/karpenter-provider-aws
`pkg/providers/amifamily/bottlerocket.go` `DefaultBlockDeviceMappings`, v0.22.1 to v1.14.0). Written
`blockDeviceMappings` replace those defaults wholesale (`pkg/providers/amifamily/resolver.go`: the family's defaults
are used only when the list is empty): a device the list leaves out is launched as the AMI's own mapping says.
"""

from __future__ import annotations

from typing import Iterator

from karplint.model import Resource
from karplint.rules.base import rule


def _bottlerocket(res: Resource) -> bool:
    if res.get(("spec", "amiFamily")) == "Bottlerocket":
        return True
    terms = res.get(("spec", "amiSelectorTerms"))
    return isinstance(terms, list) and any(
        isinstance(t, dict) and isinstance(t.get("alias"), str) and t["alias"].startswith("bottlerocket@")
        for t in terms)


@rule("KPL626", "bottlerocket-os-volume-unmapped", category="references", severity="info",
      summary="Bottlerocket blockDeviceMappings without /dev/xvda: the OS volume is the AMI's, not Karpenter's "
              "default", kinds=("EC2NodeClass",))
def bottlerocket_os_volume_unmapped(res: Resource, ctx) -> Iterator:
    if res.group != "karpenter.k8s.aws" or not _bottlerocket(res):
        return
    mappings = res.get(("spec", "blockDeviceMappings"))
    if not isinstance(mappings, list) or not mappings:
        return
    names = [m.get("deviceName") for m in mappings if isinstance(m, dict)]
    if any(not isinstance(n, str) for n in names) or "/dev/xvda" in names:
        return
    yield ctx.violation(
        res, ("spec", "blockDeviceMappings"),
        "blockDeviceMappings leave out /dev/xvda: the Bottlerocket OS volume is launched as the AMI defines it\n"
        "help: map /dev/xvda too, e.g. `{deviceName: /dev/xvda, ebs: {volumeSize: 4Gi, volumeType: gp3, "
        "encrypted: true}}`\n"
        "note: a written list replaces Karpenter's defaults (4Gi gp3 encrypted OS volume); the AMI's own mapping "
        "is smaller, gp2, and encrypted only if the account encrypts EBS by default (aws/karpenter-provider-aws#8747)",
        on="key")
