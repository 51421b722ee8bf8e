"""`karplint render`: per EC2NodeClass (and NodePool), the userData Karpenter produces, the kubelet argv it leads to,
and the taints and labels the node registers with.

`render_node(nodeclass, nodepool)` computes a `RenderedNode`; `karplint/cli/render.py` prints it.
Values only the cluster knows are placeholders (`${CLUSTER_NAME}`, `${MAX_PODS}`, ...; see `placeholders.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from karplint.userdata import bottlerocket as br
from karplint.userdata import content as ct
from karplint.userdata import nodeadm
from karplint.userdata.kubelet import Taint, parse_node_labels
from karplint.userdata.merge import Merged, NodeInputs, kubelet_extra_args, merge_userdata, node_inputs
from karplint.userdata.bootstrap import written_extra_args
from karplint.userdata.systemd import kubelet_extra_args_219, split_exec_252
from karplint.model.versions import Version

# What the AMI's own tooling puts before the userData-driven flags (shown abridged; not configurable here).
BASE_ARGV = {
    ct.AL2: ["/usr/bin/kubelet", "--config=/etc/kubernetes/kubelet/kubelet-config.json",
             "--kubeconfig=/var/lib/kubelet/kubeconfig", "$KUBELET_ARGS (node-ip, hostname-override, --v=2, "
             "--cloud-provider=external: written by bootstrap.sh)"],
    ct.AL2023: ["/usr/bin/kubelet", "--config=/etc/kubernetes/kubelet/config.json",
                "--config-dir=/etc/kubernetes/kubelet/config.json.d", "--kubeconfig=/var/lib/kubelet/kubeconfig",
                "(nodeadm's own flags: node-ip, hostname-override, cloud-provider)"],
    ct.BOTTLEROCKET: ["/usr/bin/kubelet", "--config=/etc/kubernetes/kubelet/config",
                      "--kubeconfig=/etc/kubernetes/kubelet/kubeconfig", "(Bottlerocket's own flags)"],
    "Windows": ["Start-EKSBootstrap.ps1 -> kubelet.exe", "(EKS Windows defaults)"],
}


@dataclass
class RenderedNode:
    nodeclass: object
    nodepool: object | None
    family: str | None
    inputs: NodeInputs
    merged: Merged
    kubelet_argv: list[str] | None = None  # None: unknown
    kubelet_config: dict | None = None  # AL2023: merged kubelet.config (the 40-nodeadm.conf drop-in)
    taints: list[Taint] | None = None  # None: unknown
    taints_source: str = ""
    labels: dict[str, str] | None = None
    notes: list[str] = field(default_factory=list)


def _labels_from_argv(argv: list[str]) -> dict[str, str]:
    from karplint.userdata.kubelet import parse_kubelet_args

    labels: dict[str, str] = {}
    for use in parse_kubelet_args(argv).all("node-labels"):
        if use.value:
            for lab in parse_node_labels(use.value):
                labels[lab.key] = lab.value
    return labels


def _note_flag_problems(out: RenderedNode, argv: list[str]) -> None:
    """NodeConfig kubelet.flags the kubelet refuses (unknown names, wrong value types): the node never joins."""
    from karplint.userdata.kubelet import parse_kubelet_args
    from karplint.userdata.kubelet_flags import problems

    found = problems(parse_kubelet_args(argv), argv)
    if found:
        why = "; ".join(p.message for p in found[:3])
        out.notes.append(f"the kubelet exits at start ({why}) (see KPL216/KPL217): the node never joins")


def render_node(nodeclass, nodepool=None, karpenter_version: Version | None = None) -> RenderedNode:
    """Everything `karplint render` shows for one EC2NodeClass (with one of its NodePools, if any)."""
    from karplint.userdata.model import analyze

    inputs = node_inputs(nodeclass, nodepool, karpenter_version)
    user_text = nodeclass.get(("spec", "userData"))
    user_text = user_text if isinstance(user_text, str) else None
    family = inputs.family
    merged = merge_userdata(family, user_text, inputs)
    out = RenderedNode(nodeclass, nodepool, family, inputs, merged)
    if merged.error:
        out.notes.append(f"Karpenter cannot render this userData: {merged.error}; no node launches")
    if merged.too_large:
        out.notes.append(f"not rendered: {merged.too_large}")
    if nodepool is None and family != ct.CUSTOM:
        out.notes.append("no NodePool references this EC2NodeClass: NodePool labels and taints are placeholders")
    analysis = analyze(nodeclass) if user_text is not None else None

    if family in (ct.AL2, ct.UBUNTU):
        extra = " ".join(kubelet_extra_args(inputs))
        words = [w.value for w in kubelet_extra_args_219(extra).argv]
        out.kubelet_argv = BASE_ARGV[ct.AL2] + words
        out.taints = [Taint(k, v, e) for k, v, e in inputs.taints]
        out.taints_source = "Karpenter's bootstrap.sh --kubelet-extra-args --register-with-taints"
        out.labels = _labels_from_argv(words)
        if analysis is not None and analysis.bootstraps:
            out.notes.append(f"the userData calls /etc/eks/bootstrap.sh itself ({len(analysis.bootstraps)} call(s)); "
                             "it runs before Karpenter's call with other arguments")
    elif family == ct.AL2023:
        user_docs: list[nodeadm.NodeConfigDoc] = []
        if analysis is not None:
            for part in analysis.parts:
                if part.kind == ct.NODECONFIG:
                    user_docs.extend(nodeadm.decode_nodeconfigs(part.view.text))
        karpenter_cfg = merged.karpenter_nodeconfig
        karpenter_doc = nodeadm.NodeConfigDoc(karpenter_cfg, 0, None)
        karpenter_doc.flags = [nodeadm.FlagItem(i, f, 0, 0, f, "") for i, f in enumerate(
            ((karpenter_cfg or {}).get("spec", {}).get("kubelet", {}).get("flags") or []))]
        argv_words = [w for w, _, _ in nodeadm.kubelet_argv(user_docs + [karpenter_doc])]
        out.kubelet_argv = BASE_ARGV[ct.AL2023] + argv_words
        merged_cfg = nodeadm.merge_nodeconfigs([d.data for d in user_docs] + [karpenter_cfg])
        out.kubelet_config = ((merged_cfg.get("spec") or {}).get("kubelet") or {}).get("config")
        reg = nodeadm.registration(user_docs, karpenter_cfg)
        out.taints, out.taints_source = reg.taints, {
            "flags": "a --register-with-taints flag in the user's NodeConfig (overrides Karpenter's)",
            "config": "Karpenter's NodeConfig kubelet.config.registerWithTaints",
            "none": "no registerWithTaints", "error": f"none: {reg.error}"}.get(reg.source, reg.source)
        out.labels = _labels_from_argv(argv_words)
        if any(d.fatal for d in user_docs):
            out.notes.append("nodeadm cannot decode a user NodeConfig: the node never joins (see KPL233)")
        _note_flag_problems(out, [w for w, _, _ in nodeadm.kubelet_argv(user_docs)])
    elif family == ct.BOTTLEROCKET:
        settings = merged.bottlerocket_settings
        if settings is not None:
            k8s = settings.get("kubernetes") or {}
            node_taints = k8s.get("node-taints") or {}
            taints_value = br.joined_node_taints(node_taints)
            labels = k8s.get("node-labels") or {}
            out.kubelet_argv = BASE_ARGV[ct.BOTTLEROCKET] + [
                "--node-labels", ",".join(f"{k}={v}" for k, v in labels.items()),
                "--register-with-taints", taints_value,
            ]
            out.kubelet_config = {"maxPods": k8s.get("max-pods"), "clusterDNS": [k8s.get("cluster-dns-ip")]}
            out.taints = [Taint(k, v, e) for k, v, e in inputs.taints]
            out.taints_source = "Karpenter's settings.kubernetes.node-taints (NODE_TAINTS)"
            out.labels = dict(labels)
    elif ct.is_windows(family):
        words = [w.value for w in split_exec_252(" ".join(kubelet_extra_args(inputs))).words]
        out.kubelet_argv = BASE_ARGV["Windows"] + words
        out.taints = [Taint(k, v, e) for k, v, e in inputs.taints]
        out.taints_source = "Karpenter's -KubeletExtraArgs --register-with-taints"
        out.labels = _labels_from_argv(words)
        out.notes.append("how Start-EKSBootstrap.ps1 splits -KubeletExtraArgs is not modelled; words shown as "
                         "systemd would split them")
    elif family == ct.CUSTOM:
        out.notes.append("amiFamily Custom: Karpenter passes the userData verbatim; the node must register "
                         "karpenter.sh/unregistered:NoExecute itself, and spec.kubelet, NodePool taints and labels are "
                         "not rendered")
        if analysis is not None:
            taints, part = analysis.registered_taints
            out.taints = taints
            if part is not None:
                out.taints_source = f"the userData ({part.kind} part)"
            for ba in analysis.bootstraps:
                if ba.never_runs is not None:
                    out.notes.append(f"{ba.never_runs[0].split(':')[0]}: bash never runs this bootstrap.sh call "
                                     "(see KPL212/KPL215): the node never joins")
                elif ba.bootstrap_exits:
                    out.notes.append("bootstrap.sh exits 1 before configuring the kubelet (see KPL202): the node "
                                     "never joins")
                elif ba.kubelet_fails:
                    why = "; ".join(p.message for p in ba.flag_problems[:3])
                    out.notes.append("the kubelet exits at start" + (f" ({why})" if why else "") +
                                     " (see KPL203/KPL204/KPL205/KPL216/KPL217): the node never joins")
                if ba.kubelet_argv:
                    prefix = written_extra_args(ba.call, "").split()  # bootstrap.sh's own additions (Outposts)
                    out.kubelet_argv = BASE_ARGV[ct.AL2] + prefix + [w.value for w in ba.kubelet_argv]
                    out.labels = _labels_from_argv([w.value for w in ba.kubelet_argv])
            docs = [d for p in analysis.parts if p.kind == ct.NODECONFIG
                    for d in nodeadm.decode_nodeconfigs(p.view.text)]
            if docs:
                words = [w for w, _, _ in nodeadm.kubelet_argv(docs)]
                out.kubelet_argv = BASE_ARGV[ct.AL2023] + words
                _note_flag_problems(out, words)
                out.labels = _labels_from_argv(words)
                merged_cfg = nodeadm.merge_nodeconfigs([d.data for d in docs])
                out.kubelet_config = ((merged_cfg.get("spec") or {}).get("kubelet") or {}).get("config")
            for p in analysis.parts:
                if p.kind == ct.TOML:
                    s = br.parse_settings(p.view.text)
                    lab = s.kubernetes().get("node-labels")
                    if isinstance(lab, dict):
                        out.labels = {str(k): str(v) for k, v in lab.items()}
        if out.taints is None:
            out.notes.append("the registered taints could not be determined from this userData")
    else:
        out.notes.append(f"amiFamily {family!r} is unknown: nothing rendered")
    return out


def pairs(model, nodeclass: str | None = None, nodepool: str | None = None) -> list[tuple[object, object | None]]:
    """(EC2NodeClass, NodePool or None) to render: every NodePool that references each EC2NodeClass by name."""
    out = []
    pools = list(model.nodepools())
    for nc in model.nodeclasses():
        if nodeclass is not None and nc.name != nodeclass:
            continue
        refs = [np for np in pools if (np.get(("spec", "template", "spec", "nodeClassRef", "name")) == nc.name)
                and (nodepool is None or np.name == nodepool)]
        if nodepool is not None and not refs:
            refs = [np for np in pools if np.name == nodepool]
            if not refs:
                continue
        if refs:
            out.extend((nc, np) for np in refs)
        else:
            out.append((nc, None))
    return out
