"""What Karpenter renders as a node's userData, per AMI family, and what the kubelet then starts with.

`node_inputs(nodeclass, nodepool)` collects what Karpenter knows from the manifests (labels, taints, spec.kubelet);
values only the cluster knows stay placeholders (`PLACEHOLDERS`). `merge_userdata(family, user_text, inputs)`
then produces Karpenter's output (`pkg/providers/amifamily/bootstrap/*.go@v1.14.1`, checked against
`shared/karpenter/userdata-golden/v1.14.1/`):

| family | output |
|---|---|
| AL2 | MIME (boundary `//`): the user's parts first, then Karpenter's `bootstrap.sh` shell part |
| AL2023 | MIME: the user's parts first, then `# Karpenter Generated NodeConfig` |
| Bottlerocket | the user's TOML re-serialized with Karpenter's kubernetes settings |
| Windows* | `<powershell>` + the user's text + Karpenter's `Start-EKSBootstrap.ps1` call + `</powershell>` |
| Custom | the user's text verbatim |
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from karplint.userdata import bottlerocket as br
from karplint.userdata import nodeadm, windows
from karplint.userdata.content import AL2, AL2023, BOTTLEROCKET, CUSTOM, UBUNTU, is_windows
from karplint.userdata.mime import MAX_MIME_PARTS, looks_like_mime, parse_mime
from karplint.userdata.placeholders import PLACEHOLDERS, Placeholder
from karplint.model.versions import Version


UNREGISTERED_TAINT = ("karpenter.sh/unregistered", "", "NoExecute")

# Label domains Karpenter leaves out of the kubelet's --node-labels (it syncs them itself): `RejectForbiddenLabels`.
FORBIDDEN_LABEL_DOMAINS = ("kubernetes.io", "k8s.io", "node-restriction.kubernetes.io")

# Labels Karpenter adds to every node it launches (aws/karpenter-provider-aws `pkg/providers/amifamily/resolver.go`; the launchtemplate testdata goldens at v1.14.1), by first version.
DO_NOT_SYNC_TAINTS_LABEL = ("karpenter.sh/do-not-sync-taints", "true", Version(1, 5, 0))

# spec.kubelet -> kubelet flag for the AL2 / Windows --kubelet-extra-args, in Karpenter's order (bootstrap.go);
# a map value is "k<sep>v,..." with the separator given.
KUBELET_EXTRA_ARG_FLAGS: tuple[tuple[str, str, str | None], ...] = (
    ("podsPerCore", "--pods-per-core", None),
    ("systemReserved", "--system-reserved", "="),
    ("kubeReserved", "--kube-reserved", "="),
    ("evictionHard", "--eviction-hard", "<"),
    ("evictionSoft", "--eviction-soft", "<"),
    ("evictionSoftGracePeriod", "--eviction-soft-grace-period", "="),
    ("evictionMaxPodGracePeriod", "--eviction-max-pod-grace-period", None),
    ("imageGCHighThresholdPercent", "--image-gc-high-threshold", None),
    ("imageGCLowThresholdPercent", "--image-gc-low-threshold", None),
    ("cpuCFSQuota", "--cpu-cfs-quota", None),
)


@dataclass
class NodeInputs:
    """What Karpenter feeds its bootstrap code for one (EC2NodeClass, NodePool) pair."""

    family: str | None
    nodeclass: str | None = None
    nodepool: str | None = None
    labels: dict[str, str] = field(default_factory=dict)  # NodeClaim labels, before RejectForbiddenLabels
    taints: list[tuple[str, str, str]] = field(default_factory=list)  # NodePool taints + startupTaints + unregistered
    kubelet: dict = field(default_factory=dict)  # EC2NodeClass spec.kubelet
    cluster_name: str = PLACEHOLDERS["cluster_name"]
    endpoint: str = PLACEHOLDERS["endpoint"]
    ca_bundle: str = PLACEHOLDERS["ca_bundle"]
    service_cidr: str = PLACEHOLDERS["service_cidr"]
    instance_store_policy: str | None = None

    @property
    def max_pods(self) -> Any:
        v = self.kubelet.get("maxPods")
        return v if isinstance(v, int) and not isinstance(v, bool) else PLACEHOLDERS["max_pods"]

    @property
    def cluster_dns(self) -> list:
        v = self.kubelet.get("clusterDNS")
        return list(v) if isinstance(v, list) and v else [PLACEHOLDERS["dns_ip"]]

    @property
    def kubelet_labels(self) -> dict[str, str]:
        """The labels the kubelet is given (`--node-labels` / node-labels setting)."""
        return {k: v for k, v in self.labels.items() if not _forbidden_label(k)}


def _forbidden_label(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    return any(domain == d or domain.endswith("." + d) for d in FORBIDDEN_LABEL_DOMAINS)


def _taint_tuple(t: Any) -> tuple[str, str, str] | None:
    if not isinstance(t, dict) or not isinstance(t.get("key"), str):
        return None
    value = t.get("value")
    return (t["key"], "" if value is None else str(value), str(t.get("effect") or ""))


def node_inputs(nodeclass, nodepool=None, karpenter_version: Version | None = None) -> NodeInputs:
    """Labels, registration taints and kubelet settings Karpenter derives from the manifests."""
    from karplint.userdata.content import family_of

    version = karpenter_version or Version(1, 14, 1)
    family, _ = family_of(nodeclass)
    kubelet = nodeclass.get(("spec", "kubelet"))
    inputs = NodeInputs(family, nodeclass.name, nodepool.name if nodepool is not None else None,
                        kubelet=dict(kubelet) if isinstance(kubelet, dict) else {})
    policy = nodeclass.get(("spec", "instanceStorePolicy"))
    inputs.instance_store_policy = policy if isinstance(policy, str) else None
    labels: dict[str, str] = {}
    capacity = PLACEHOLDERS["capacity_type"]
    if nodepool is not None:
        tmpl = nodepool.get(("spec", "template"))
        tmpl = tmpl if isinstance(tmpl, dict) else {}
        meta_labels = ((tmpl.get("metadata") or {}) if isinstance(tmpl.get("metadata"), dict) else {}).get("labels")
        if isinstance(meta_labels, dict):
            labels.update({str(k): str(v) for k, v in meta_labels.items()})
        spec = tmpl.get("spec") if isinstance(tmpl.get("spec"), dict) else {}
        for req in spec.get("requirements") or []:
            if not isinstance(req, dict):
                continue
            values = req.get("values")
            if req.get("operator") == "In" and isinstance(values, list) and len(values) == 1 \
                    and isinstance(req.get("key"), str):
                if req["key"] == "karpenter.sh/capacity-type":
                    capacity = str(values[0])
                else:
                    labels[req["key"]] = str(values[0])
        labels["karpenter.sh/nodepool"] = nodepool.name or ""
        for t in list(spec.get("taints") or []) + list(spec.get("startupTaints") or []):
            tup = _taint_tuple(t)
            if tup:
                inputs.taints.append(tup)
    else:
        labels["karpenter.sh/nodepool"] = PLACEHOLDERS["nodepool"]
    labels["karpenter.sh/capacity-type"] = capacity
    labels["karpenter.k8s.aws/ec2nodeclass"] = nodeclass.name or ""
    if family != CUSTOM and version >= DO_NOT_SYNC_TAINTS_LABEL[2]:
        labels[DO_NOT_SYNC_TAINTS_LABEL[0]] = DO_NOT_SYNC_TAINTS_LABEL[1]
    inputs.labels = labels
    inputs.taints.append(UNREGISTERED_TAINT)
    return inputs


# --------------------------------------------------------------------------------------------- flags


def _go_quote(s: str) -> str:
    return nodeadm.go_quote(s)


def _taint_spec(t: tuple[str, str, str]) -> str:
    key, value, effect = t
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def kubelet_extra_args(inputs: NodeInputs, *, with_max_pods: bool = True) -> list[str]:
    """Karpenter's `--kubelet-extra-args` / `-KubeletExtraArgs` words for AL2 and Windows."""
    args = []
    labels = inputs.kubelet_labels
    if labels:
        args.append("--node-labels=" + _go_quote(",".join(f"{k}={labels[k]}" for k in sorted(labels))))
    if inputs.taints:
        args.append("--register-with-taints=" + _go_quote(",".join(_taint_spec(t) for t in inputs.taints)))
    if with_max_pods:
        args.append(f"--max-pods={inputs.max_pods}")
    for field_name, flag, sep in KUBELET_EXTRA_ARG_FLAGS:
        v = inputs.kubelet.get(field_name)
        if v is None:
            continue
        if isinstance(v, dict):
            if v:
                args.append(f"{flag}=" + _go_quote(",".join(f"{k}{sep}{v[k]}" for k in sorted(v))))
        elif isinstance(v, bool):
            args.append(f"{flag}={'true' if v else 'false'}")
        else:
            args.append(f"{flag}={v}")
    return args


# --------------------------------------------------------------------------------------------- MIME


@dataclass
class Part:
    content_type: str
    body: str
    headers: list[tuple[str, str]] = field(default_factory=list)  # all headers (AL2 copies them)


class TooLarge(Exception):
    """The user's userData is more than karplint renders (a budget, not Karpenter's verdict)."""


def user_parts(user_text: str, family: str) -> tuple[list[Part], str | None]:
    """The user's userData as MIME parts the way Karpenter reads it; (parts, error Karpenter fails with).
    Raises TooLarge past `MAX_MIME_PARTS`."""
    if not user_text:
        return [], None
    if looks_like_mime(user_text):
        doc = parse_mime(user_text)
        if len(doc.parts) > MAX_MIME_PARTS:
            raise TooLarge(f"{len(doc.parts):,} MIME parts: too many to render (karplint renders up to "
                           f"{MAX_MIME_PARTS:,})")
        fatal = [p for p in doc.problems if p.kind != "no-closing-boundary"]
        if fatal:
            return [], fatal[0].message
        parts = []
        for p in doc.parts:
            headers = [(h.name, h.value) for h in p.headers]
            ctype = next((v for n, v in headers if n.lower() == "content-type"), "")
            parts.append(Part(ctype, p.body, headers))
        return parts, None
    if family == AL2023:
        ctype = "text/x-shellscript; charset=\"us-ascii\""
        if _is_yaml_map(user_text):
            ctype = nodeadm.MEDIA_TYPE
        return [Part(ctype, user_text, [("Content-Type", ctype)])], None
    ctype = "text/x-shellscript; charset=\"us-ascii\""
    return [Part(ctype, user_text, [("Content-Type", ctype)])], None


def _is_yaml_map(text: str) -> bool:
    from karplint.userdata.content import _is_yaml_map as is_map

    return is_map(text)


def serialize_mime(parts: list[Part], *, copy_headers: bool) -> str:
    """Go `mime/multipart` Writer output with boundary `//`, carriage returns removed."""
    out = ['MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n']
    for i, p in enumerate(parts):
        out.append("--//\n" if i == 0 else "\n--//\n")
        headers = p.headers if copy_headers and p.headers else [("Content-Type", p.content_type)]
        # textproto.MIMEHeader is a map: CreatePart writes the canonicalised keys sorted
        for name, value in sorted(((_canonical(n), v) for n, v in headers), key=lambda h: h[0]):
            out.append(f"{name}: {value}\n")
        out.append("\n")
        out.append(p.body)
    out.append("\n--//--\n")
    return "".join(out)


def _canonical(name: str) -> str:
    return "-".join(w[:1].upper() + w[1:].lower() for w in name.split("-"))


# --------------------------------------------------------------------------------------------- per family


@dataclass
class Merged:
    family: str | None
    text: str | None  # None when Karpenter fails
    error: str | None = None
    karpenter_nodeconfig: dict | None = None  # AL2023
    bottlerocket_settings: dict | None = None  # Bottlerocket
    too_large: str | None = None  # why karplint did not render it (a budget: Karpenter may well render it)


def al2_bootstrap_script(inputs: NodeInputs) -> str:
    """Karpenter's AL2 shell part (eksbootstrap.go)."""
    dns = inputs.cluster_dns[0]
    lines = ["#!/bin/bash -xe",
             "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1"]
    cmd = (f"/etc/eks/bootstrap.sh '{inputs.cluster_name}' --apiserver-endpoint '{inputs.endpoint}' "
           f"--b64-cluster-ca '{inputs.ca_bundle}'")
    if isinstance(dns, str) and ":" in dns and not isinstance(dns, Placeholder):
        cmd += " \\\n--ip-family ipv6"
    cmd += f" \\\n--dns-cluster-ip '{dns}'"
    cmd += " \\\n--use-max-pods false"
    args = kubelet_extra_args(inputs)
    if args:
        cmd += f" \\\n--kubelet-extra-args '{' '.join(args)}'"
    if inputs.instance_store_policy == "RAID0":
        cmd += " \\\n--local-disks raid0"
    return "\n".join(lines) + "\n" + cmd


def al2023_nodeconfig(inputs: NodeInputs) -> dict:
    config: dict = {}
    for k in nodeadm.NODECLASS_KUBELET_TO_CONFIG:
        if k in inputs.kubelet and inputs.kubelet[k] is not None:
            config[k] = inputs.kubelet[k]
    config["clusterDNS"] = inputs.cluster_dns
    config["maxPods"] = inputs.max_pods
    opts = nodeadm.KarpenterNodeConfigOptions(
        inputs.cluster_name, inputs.endpoint, inputs.ca_bundle, inputs.service_cidr, config,
        [nodeadm.Taint(k, v, e) for k, v, e in inputs.taints], inputs.kubelet_labels)
    return nodeadm.karpenter_nodeconfig(opts)


# The userData karplint renders: as much as it analyses (`model.MAX_ANALYSED_BYTES`, four times what EC2 takes), so
# that the work and the output stay bounded (80,000 MIME parts printed took 21 s).
MAX_RENDERED_BYTES = 64 * 1024


def merge_userdata(family: str | None, user_text: str | None, inputs: NodeInputs) -> Merged:
    text = user_text or ""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_RENDERED_BYTES:
        return Merged(family, None, too_large=f"userData is {size:,} bytes: too large to render (karplint renders up "
                                              f"to {MAX_RENDERED_BYTES:,} bytes)")
    try:
        return _merge(family, text, inputs)
    except TooLarge as exc:
        return Merged(family, None, too_large=f"userData has {exc}")


def _merge(family: str | None, text: str, inputs: NodeInputs) -> Merged:
    if family in (AL2, UBUNTU):
        parts, err = user_parts(text, AL2)
        if err:
            return Merged(family, None, f"parsing custom user data input {err}")
        script = al2_bootstrap_script(inputs)
        ctype = 'text/x-shellscript; charset="us-ascii"'
        return Merged(family, serialize_mime(parts + [Part(ctype, script, [("Content-Type", ctype)])],
                                             copy_headers=True))
    if family == AL2023:
        parts, err = user_parts(text, AL2023)
        if err:
            return Merged(family, None, f"parsing custom UserData, {err}")
        cfg = al2023_nodeconfig(inputs)
        karpenter_part = Part(nodeadm.MEDIA_TYPE, nodeadm.karpenter_nodeconfig_yaml(cfg))
        return Merged(family, serialize_mime(parts + [karpenter_part], copy_headers=False), karpenter_nodeconfig=cfg)
    if family == BOTTLEROCKET:
        parsed = br.parse_settings(text) if text else br.BottlerocketSettings(text, 0, {})
        if parsed.error is not None and parsed.error.kind == "toml-budget":
            raise TooLarge(parsed.error.message.split("\n", 1)[0].removeprefix("settings not analysed: "))
        if parsed.data is None:
            return Merged(family, None, f"invalid UserData {parsed.error.message if parsed.error else ''}".strip())
        opts = br.KarpenterBottlerocketOptions(
            inputs.cluster_name, inputs.endpoint, inputs.ca_bundle, inputs.cluster_dns[0], inputs.max_pods,
            inputs.kubelet_labels, list(inputs.taints), inputs.kubelet)
        settings = br.karpenter_settings(parsed.data, opts)
        return Merged(family, br.dump_settings_toml(settings), bottlerocket_settings=settings)
    if is_windows(family):
        return Merged(family, windows.render(
            text, cluster_name=inputs.cluster_name, endpoint=inputs.endpoint, ca_bundle=inputs.ca_bundle,
            kubelet_extra_args=kubelet_extra_args(inputs), cluster_dns_ip=inputs.cluster_dns[0]))
    if family == CUSTOM:
        return Merged(family, text)
    return Merged(family, None, f"unknown amiFamily {family!r}: nothing rendered")
