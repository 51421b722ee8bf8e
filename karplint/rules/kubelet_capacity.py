"""Kubelet settings Karpenter computes node capacity with (KPL28x): `maxPods` and what the node can really hold.

Karpenter gives every node of a NodePool the pod capacity its kubelet block states (`maxPods`, capped by
`podsPerCore` × vCPUs) and packs pods up to it; without `maxPods` it uses the ENI-limited pod count of the instance
type (aws/karpenter-provider-aws pkg/providers/instancetype/types.go@v1.14.1 `pods`, `ENILimitedPods`)."""

from __future__ import annotations

from typing import Iterator

from karplint.model import Model, Resource, karpenter_resources
from karplint.readers.templating import has_placeholder_within
from karplint.rules import rule
from karplint.rules._catalog import nodeclasses_by_name, resolve_nodeclass
from karplint.rules._simulation import catalog_of

# CNIs that do not hand pods the instance's ENI secondary IPs (overlays, their own IPAM): maxPods is theirs to judge.
_ENI_CNIS = ("aws-vpc-cni", "vpc-cni")
_SHOWN = 3  # instance types named in the message
# A v1alpha5 Provisioner that constrains none of these keys gets c/m/r types of generation > 2 from the AWS
# provider's defaulting (aws/karpenter-provider-aws pkg/apis/v1alpha5/provisioner.go@v0.27.3#L76-L86).
_TYPE_KEYS = {"node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-family",
              "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation"}
_PROVISIONER_DEFAULT_TYPES = (
    {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
    {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]},
)


def _kubelet_path(res: Resource) -> tuple | None:
    """Where the resource's kubelet block lives, by kind and apiVersion; None when it holds none that Karpenter
    reads (a v1 NodePool's kubelet moved to the EC2NodeClass)."""
    if res.kind == "Provisioner" and res.group == "karpenter.sh":
        return ("spec", "kubeletConfiguration")
    if res.kind == "NodePool" and res.group == "karpenter.sh" and res.version == "v1beta1":
        return ("spec", "template", "spec", "kubelet")
    if res.kind == "EC2NodeClass" and res.group == "karpenter.k8s.aws" and res.version == "v1":
        return ("spec", "kubelet")
    return None


def _pool_requirements(res: Resource) -> list | None:
    """A Provisioner's or NodePool's requirements as written (None: templated or malformed, so unjudgeable)."""
    path = ("spec", "requirements") if res.kind == "Provisioner" else ("spec", "template", "spec", "requirements")
    reqs = res.get(path)
    if reqs is None:
        return []
    if not isinstance(reqs, list) or has_placeholder_within(reqs):
        return None
    for r in reqs:
        if not (isinstance(r, dict) and isinstance(r.get("key"), str) and isinstance(r.get("operator"), str)
                and isinstance(r.get("values", []), list)):
            return None
    if res.kind == "Provisioner" and not {r["key"] for r in reqs} & _TYPE_KEYS:
        reqs = reqs + list(_PROVISIONER_DEFAULT_TYPES)
    return reqs


def _allowed_types(catalog, reqs: list):
    """The catalog's types whose labels the requirements allow, judged on the label keys the catalog knows (the
    others, zones and capacity types among them, leave the pod count of a type unchanged)."""
    from karplint.provisioning.requirements import from_node_selector_terms

    try:
        requirements = from_node_selector_terms(reqs)
    except (ValueError, TypeError, KeyError):
        return None
    known = set(catalog.label_keys())
    keys = [r["key"] for r in reqs if r["key"] in known]
    out = []
    for it in catalog.types.values():
        if all(it.labels.get(k) is not None and requirements.get(k).has(it.labels[k]) for k in keys):
            out.append(it)
    return out


def _eni_pods(it) -> int | None:
    text = it.allocatable.get("pods")
    return int(text) if isinstance(text, str) and text.isdigit() else None


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@rule("KPL920", "max-pods-above-eni-ips", category="provisioning", severity="info",
      summary="kubelet `maxPods` above the pod IP addresses the VPC CNI gives some instance type the pool allows",
      reads=(karpenter_resources,))
def max_pods_above_eni_ips(model: Model, ctx) -> Iterator:
    cni = ctx.cluster.get("cni")
    if isinstance(cni, str) and cni.strip().lower() not in _ENI_CNIS:
        return
    catalog = None
    by_name = None
    for res in model.resources:
        path = _kubelet_path(res)
        if path is None:
            continue
        kubelet = res.get(path)
        max_pods = _int(kubelet.get("maxPods")) if isinstance(kubelet, dict) else None
        if max_pods is None:
            continue
        per_core = _int(kubelet.get("podsPerCore"))
        if res.kind == "EC2NodeClass":
            by_name = nodeclasses_by_name(model) if by_name is None else by_name
            pools = [np for np in model.nodepools() if resolve_nodeclass(np, by_name) is res]
        else:
            pools = [res]
        if not pools:
            continue  # (no NodePool of the run launches it: nothing to compare with)
        catalog = catalog_of(ctx) if catalog is None else catalog
        short: dict[str, int] = {}
        names = []
        for np in pools:
            reqs = _pool_requirements(np)
            types = _allowed_types(catalog, reqs) if reqs is not None else None
            if types is None:
                continue
            for it in types:
                eni = _eni_pods(it)
                cpu = it.labels.get("karpenter.k8s.aws/instance-cpu")
                wanted = max_pods
                if per_core is not None and cpu and cpu.isdigit():
                    wanted = min(wanted, per_core * int(cpu))
                if eni is not None and eni < wanted:
                    short[it.name] = eni
                    if np.name and np.name not in names and res.kind == "EC2NodeClass":
                        names.append(np.name)
        if not short:
            continue
        smallest = sorted(short.items(), key=lambda kv: (kv[1], kv[0]))[:_SHOWN]
        shown = ", ".join(f"{n} ({p})" for n, p in smallest)
        pools_said = f" (NodePool {', '.join(f'`{n}`' for n in names)})" if names else ""
        yield ctx.violation(
            res, path + ("maxPods",),
            f"maxPods {max_pods} exceeds the pod IPs of {len(short)} instance type{'s' if len(short) > 1 else ''} "
            "the pool allows\n"
            "help: without prefix delegation, lower maxPods or keep these instance types out of the NodePool "
            "(with prefix delegation on, or a CNI with its own IPAM, this is intended)\n"
            f"note: fewest pod IPs with the VPC CNI's secondary IPs{pools_said}: {shown}\n"
            "note: Karpenter gives the node maxPods pod slots and packs pods up to it; the VPC CNI has only "
            "ENIs × (IPv4 addresses per ENI − 1) + 2 pod IPs (the ENI-limited pods of Karpenter's instance-type "
            "catalog, its count when maxPods is unset), so the pods past that stay in ContainerCreating "
            "(\"failed to assign an IP address to container\")")


# ------------------------------------------------------------------------------------------ KPL921

# The kubelet reservations Karpenter subtracts from an instance type's capacity when it sizes a node, read from the
# kubelet block only (aws/karpenter-provider-aws pkg/providers/instancetype/types.go@v1.14.1#L149-L153 `Overhead`;
# #L554 `evictionThreshold` uses evictionHard alone): spec.kubelet field -> (Bottlerocket settings.kubernetes key,
# what Karpenter assumes without it).
HIDDEN_RESERVATIONS = {
    "systemReserved": ("system-reserved", "none"),
    "kubeReserved": ("kube-reserved", "its own estimate from the vCPUs and ENI-limited pods"),
    "evictionHard": ("eviction-hard", "memory.available 100Mi and nodefs.available 10%"),
}  # (evictionSoft is left out: soft thresholds reduce neither the node's allocatable nor Karpenter's estimate)


def _reservation_kubelet(res: Resource) -> tuple[dict | None, bool]:
    """(the EC2NodeClass's own kubelet block, whether the class holds it): only a v1 EC2NodeClass does; before v1 it
    lives in the NodePools or Provisioners that use the class."""
    if res.kind == "EC2NodeClass" and res.version == "v1":
        kubelet = res.get(("spec", "kubelet"))
        return (kubelet if isinstance(kubelet, dict) else {}), True
    return None, False


def _hidden_message(field: str, where: str, own_block: bool) -> str:
    key, assumed = HIDDEN_RESERVATIONS[field]
    block = "spec.kubelet" if own_block else "the kubelet block (NodePool spec.template.spec.kubelet, Provisioner " \
                                               "kubeletConfiguration)"
    return (f"{where} reserves node capacity that Karpenter does not count\n"
            f"help: set {field} in {block} instead, so that Karpenter both applies it and sizes nodes with it\n"
            f"note: Karpenter predicts a node's allocatable from the kubelet block alone (for {field}: {assumed}); "
            "a larger reservation in userData leaves the node smaller than planned and the pods it was launched for "
            "Pending" + ("" if own_block else "; where a kubelet block does set it, Karpenter replaces this value"))


@rule("KPL921", "reservation-hidden-in-userdata", category="provisioning", severity="warning",
      summary="kubelet reservations (system/kube-reserved, evictionHard) set in userData, which Karpenter's "
              "node sizing does not see", kinds=("EC2NodeClass", "AWSNodeTemplate"))
def reservation_hidden_in_userdata(res, ctx):
    from karplint.rules._legacy import userdata_analysis
    from karplint.userdata.analysers import nodeconfig_parts, toml_parts
    from karplint.userdata import content as ct

    analysis = userdata_analysis(res, ctx)
    if analysis is None:
        return
    kubelet, own_block = _reservation_kubelet(res)
    if analysis.family == ct.BOTTLEROCKET:
        for part, settings, merges in toml_parts(analysis):
            k8s = settings.kubernetes()
            for field, (key, _) in HIDDEN_RESERVATIONS.items():
                if not merges or key not in k8s or not k8s[key]:
                    continue
                if own_block and kubelet.get(field) is not None:
                    continue  # (Karpenter replaces it: KPL241)
                yield ctx.at(res, res.doc, part.view.span(*settings.span(("settings", "kubernetes", key))),
                             _hidden_message(field, f"settings.kubernetes.{key}", own_block),
                             severity="info" if field == "kubeReserved" else None)
        return
    if analysis.family != ct.AL2023:
        return  # (Custom: Karpenter's model of the node is its own guess; AL2 flags: not judged here)
    for part, docs in nodeconfig_parts(analysis):
        for doc in docs:
            if doc.fatal or not isinstance(doc.data, dict):
                continue
            for field in HIDDEN_RESERVATIONS:
                path = ("spec", "kubelet", "config", field)
                if not doc.exists(path) or doc.get(path) in (None, "", {}):
                    continue
                if own_block and kubelet.get(field) is not None:
                    continue  # (Karpenter's NodeConfig replaces it: KPL231)
                yield ctx.at(res, res.doc, part.view.span(*doc.span(path, key=True)),
                             _hidden_message(field, f"kubelet.config.{field}", own_block),
                             severity="info" if field == "kubeReserved" else None)


# ------------------------------------------------------------------------------------------ KPL922

# amiFamily -> the device whose mapping Karpenter reads the node's ephemeral storage from when no mapping says
# `rootVolume: true` (aws/karpenter-provider-aws pkg/providers/amifamily/{al2,al2023}.go@v1.14.1
# `EphemeralBlockDevice`).
EPHEMERAL_DEVICE = {"AL2": "/dev/xvda", "AL2023": "/dev/xvda"}
# Root device names of AMIs that are not Amazon Linux (Ubuntu, RHEL, images built with other tools).
OTHER_ROOT_DEVICES = ("/dev/sda1",)
DEFAULT_EPHEMERAL = "20Gi"  # amifamily.DefaultEBS (resolver.go@v1.14.1#L43)


@rule("KPL922", "ephemeral-storage-volume-unmatched", category="provisioning", severity="warning",
      summary="A custom-AMI EC2NodeClass whose root volume mapping Karpenter does not recognise: it plans every node "
              "with 20Gi of ephemeral storage", kinds=("EC2NodeClass",))
def ephemeral_storage_volume_unmatched(res, ctx):
    if res.group != "karpenter.k8s.aws" or res.version not in ("v1", "v1beta1"):
        return
    family = res.get(("spec", "amiFamily"))
    device = EPHEMERAL_DEVICE.get(family) if isinstance(family, str) else None
    terms = res.get(("spec", "amiSelectorTerms"))
    if device is None or not isinstance(terms, list) or not terms:
        return  # (no selector: the EKS-optimized AMI, whose root device is the family's)
    if any(not isinstance(t, dict) or "alias" in t for t in terms):
        return
    mappings = res.get(("spec", "blockDeviceMappings"))
    if not isinstance(mappings, list) or has_placeholder_within(mappings):
        return
    entries = [m for m in mappings if isinstance(m, dict)]
    if any(m.get("rootVolume") is True or m.get("deviceName") == device for m in entries):
        return  # (Karpenter finds the volume it sizes nodes with)
    for i, m in enumerate(mappings):
        ebs = m.get("ebs") if isinstance(m, dict) else None
        size = ebs.get("volumeSize") if isinstance(ebs, dict) else None
        if isinstance(m, dict) and m.get("deviceName") in OTHER_ROOT_DEVICES and size is not None:
            yield ctx.violation(
                res, ("spec", "blockDeviceMappings", i, "deviceName"),
                f"Karpenter plans these nodes with {DEFAULT_EPHEMERAL} of ephemeral storage, not this {size} volume\n"
                f"help: if {m['deviceName']} is the AMI's root volume, add `rootVolume: true` to this mapping\n"
                f"note: without `rootVolume: true` Karpenter sizes ephemeral storage from the {device} mapping "
                f"(amiFamily {family}), else its default {DEFAULT_EPHEMERAL}; pods whose ephemeral-storage requests "
                "exceed that get no node, and NodeClaims show the wrong capacity")
            return
