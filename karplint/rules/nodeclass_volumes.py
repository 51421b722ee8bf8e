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
        "blockDeviceMappings leave out /dev/xvda: the Bottlerocket OS volume is the AMI's own\n"
        "help: map /dev/xvda too, e.g. `{deviceName: /dev/xvda, ebs: {volumeSize: 4Gi, volumeType: gp3, "
        "encrypted: true}}`\n"
        "note: a written list replaces Karpenter's defaults (4Gi gp3 encrypted OS volume); the AMI's own mapping "
        "is smaller, gp2, and encrypted only if the account encrypts EBS by default (aws/karpenter-provider-aws#8747)",
        on="key")


# From 1.1.0, `instanceStorePolicy: RAID0` on Bottlerocket makes Karpenter add its own bootstrap command,
# `settings.bootstrap-commands."000-mount-instance-storage"`, running `apiclient ephemeral-storage init` and `bind`
# (aws/karpenter-provider-aws `pkg/providers/amifamily/bootstrap/bottlerocket.go@v1.4.0#L82`, first in v1.1.0).
RAID0_BOOTSTRAP_SINCE = "1.1.0"


def _ephemeral_init_commands(user_data: str) -> list[str]:
    """Names of the userData's bootstrap commands that run `apiclient ephemeral-storage init`."""
    from karplint.userdata.bottlerocket import parse_settings

    settings = parse_settings(user_data)
    commands = ((settings.data or {}).get("settings") or {})
    commands = commands.get("bootstrap-commands") if isinstance(commands, dict) else None
    if not isinstance(commands, dict):
        return []
    found = []
    for name, command in commands.items():
        argv_list = command.get("commands") if isinstance(command, dict) else None
        if not isinstance(argv_list, list):
            continue
        for argv in argv_list:
            if isinstance(argv, list) and [str(a) for a in argv[:3]] == ["apiclient", "ephemeral-storage", "init"]:
                found.append(str(name))
                break
    return found


@rule("KPL628", "bottlerocket-instance-store-initialised-twice", category="references", severity="error",
      summary="Bottlerocket userData initialising the instance store while instanceStorePolicy RAID0 makes "
              "Karpenter do it too (1.1.0 and later)", kinds=("EC2NodeClass",))
def bottlerocket_instance_store_initialised_twice(res: Resource, ctx) -> Iterator:
    from karplint.model.versions import V
    from karplint.userdata.model import MAX_ANALYSED_BYTES

    if res.group != "karpenter.k8s.aws" or not _bottlerocket(res) or ctx.karpenter_version < V(RAID0_BOOTSTRAP_SINCE):
        return
    if res.get(("spec", "instanceStorePolicy")) != "RAID0":
        return
    user_data = res.get(("spec", "userData"))
    if not isinstance(user_data, str) or len(user_data.encode("utf-8", "replace")) > MAX_ANALYSED_BYTES:
        return
    for name in _ephemeral_init_commands(user_data):
        yield ctx.violation(
            res, ("spec", "userData"),
            f"userData bootstrap command {name!r} repeats Karpenter's instance store setup\n"
            "help: remove the command; Karpenter's `000-mount-instance-storage` initialises and binds the "
            "instance store\n"
            f"note: it runs `apiclient ephemeral-storage init`; from {RAID0_BOOTSTRAP_SINCE} Karpenter adds that "
            "command itself for instanceStorePolicy RAID0; the second initialisation "
            "fails and, an essential command, stops the node's boot (kubernetes-sigs/karpenter#2282)")
