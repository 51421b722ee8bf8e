"""Part analysers for `model.analyze`: nodeadm NodeConfig parts, Bottlerocket TOML and Windows PowerShell.

`PART_ANALYSERS` maps a content kind to its analysers; `model.analyze` runs them on every part of that kind. Each
analyser stores its parse in `part.data` for the rules:

* `part.data["nodeconfigs"]`: [nodeadm.NodeConfigDoc] (offsets relative to `part.view`)
* `part.data["bottlerocket"]`: bottlerocket.BottlerocketSettings (offsets relative to `part.view`)

and, for userData Karpenter passes verbatim (`amiFamily: Custom`, or no family), sets `part.registered_taints`
(+ `registered_taints_span`) to what the node's kubelet registers, so the Custom rules can check for
`karpenter.sh/unregistered:NoExecute`.
"""

from __future__ import annotations

from typing import Iterator

from karplint.userdata import bottlerocket as br
from karplint.userdata import content as ct
from karplint.userdata import nodeadm
from karplint.userdata.kubelet import Taint
from karplint.userdata.analysis import Part, UserDataAnalysis

# Families whose userData Karpenter merges with its own configuration (registration taints are then Karpenter's).
MERGED_FAMILIES = (ct.AL2, ct.AL2023, ct.BOTTLEROCKET, ct.UBUNTU) + ct.WINDOWS_FAMILIES


def nodeconfig_docs(part: Part) -> list[nodeadm.NodeConfigDoc]:
    docs = part.data.get("nodeconfigs")
    if docs is None:
        docs = nodeadm.decode_nodeconfigs(part.view.text)
        part.data["nodeconfigs"] = docs
    return docs


def bottlerocket_settings(part: Part) -> br.BottlerocketSettings:
    settings = part.data.get("bottlerocket")
    if settings is None:
        settings = br.parse_settings(part.view.text)
        part.data["bottlerocket"] = settings
    return settings


# The families whose userData nodeadm reads as NodeConfig (AL2023), or may (Custom, or no family known).
NODECONFIG_FAMILIES = (ct.AL2023, ct.CUSTOM, None)


def nodeconfig_parts(analysis: UserDataAnalysis) -> Iterator[tuple[Part, list[nodeadm.NodeConfigDoc]]]:
    """(part, its NodeConfig documents) of each NodeConfig part nodeadm may read."""
    if analysis.family not in NODECONFIG_FAMILIES:
        return
    for part in analysis.parts:
        if part.kind == ct.NODECONFIG:
            yield part, nodeconfig_docs(part)


def toml_parts(analysis: UserDataAnalysis) -> Iterator[tuple[Part, br.BottlerocketSettings, bool]]:
    """(part, settings, karpenter_merges) for Bottlerocket userData, and Custom userData that is TOML."""
    if analysis.family == ct.BOTTLEROCKET:
        for part in analysis.parts:
            yield part, bottlerocket_settings(part), True
    elif analysis.family in (ct.CUSTOM, None):
        for part in analysis.parts:
            if part.kind == ct.TOML:
                yield part, bottlerocket_settings(part), False


def _analyse_nodeconfig(part: Part, analysis: UserDataAnalysis) -> None:
    nodeconfig_docs(part)
    if analysis.family in MERGED_FAMILIES:
        return
    # nodeadm merges every NodeConfig part in order: the registration is decided across parts up to this one
    docs: list[nodeadm.NodeConfigDoc] = []
    owners: list[Part] = []
    for p in analysis.parts:
        if p.kind == ct.NODECONFIG and "nodeconfigs" in p.data:
            docs.extend(p.data["nodeconfigs"])
            owners.extend([p] * len(p.data["nodeconfigs"]))
        if p is part:
            break
    reg = nodeadm.registration(docs)
    if reg.taints is None:
        return
    part.registered_taints = list(reg.taints)
    if reg.source == "flags" and reg.flag_doc is not None:
        doc = docs[reg.flag_doc]
        owner = owners[reg.flag_doc]
        item = next((f for f in doc.flags if f.index == reg.flag_item), None)
        part.registered_taints_span = owner.view.span(item.start, item.end) if item else owner.view.span(0, 0)
    else:
        path = ("spec", "kubelet", "config", "registerWithTaints")
        for doc, owner in reversed(list(zip(docs, owners))):
            if doc.exists(path):
                part.registered_taints_span = owner.view.span(*doc.span(path))
                break
        else:
            part.registered_taints_span = part.view.span(0, 0)


def _analyse_toml(part: Part, analysis: UserDataAnalysis) -> None:
    settings = bottlerocket_settings(part)
    if analysis.family in MERGED_FAMILIES:
        return
    taints = br.registered_taints(settings)
    if taints is None:
        return
    part.registered_taints = [Taint(k, v, e) for k, v, e in taints]
    part.registered_taints_span = part.view.span(*settings.span(("settings", "kubernetes", "node-taints")))


PART_ANALYSERS = {ct.NODECONFIG: (_analyse_nodeconfig,), ct.TOML: (_analyse_toml,)}
