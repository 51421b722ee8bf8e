"""AL2 userData that never takes effect: written for another OS, or a cloud-config that becomes a script (KPL222);
an edit of the containerd configuration that bootstrap.sh replaces, or a read of it before it exists (KPL223).

Karpenter hands AL2 userData to cloud-init as MIME: a non-MIME text becomes one `text/x-shellscript` part placed
before its own bootstrap.sh part (aws/karpenter-provider-aws `pkg/providers/amifamily/bootstrap/eksbootstrap.go`
at v1.5.0, `mergeCustomUserData`/`mimeify`). AL2 has no nodeadm and no Bottlerocket API: a NodeConfig or TOML
settings there are run by bash line by line, or (a MIME part of type `application/node.eks.aws`) skipped by
cloud-init as an unknown content type. A non-MIME `#cloud-config` is run by bash too: only a MIME part of type
`text/cloud-config` reaches cloud-init's config modules. The node still joins through Karpenter's part, without
these settings.
"""

from __future__ import annotations

from karplint.rules.base import rule
from karplint.userdata import content as ct
from karplint.userdata.model import analyze

NODECLASS = ("EC2NodeClass", "AWSNodeTemplate")

# What the text is, and how to have it applied instead.
_OTHER_OS = {
    ct.NODECONFIG: ("a nodeadm NodeConfig as AL2 userData: AL2 never applies it",
                    "help: on AL2 set kubelet options in spec.kubelet, or edit "
                    "/etc/kubernetes/kubelet/kubelet-config.json with jq in a shell script; or use AL2023 "
                    "(`amiFamily: AL2023` or an `al2023@` alias), which reads it"),
    ct.TOML: ("Bottlerocket TOML settings as AL2 userData: AL2 never applies them",
              "help: on AL2 set kubelet options in spec.kubelet, or edit /etc/kubernetes/kubelet/kubelet-config.json "
              "with jq in a shell script; or use Bottlerocket (`amiFamily: Bottlerocket` or a `bottlerocket@` alias), "
              "which reads it"),
    ct.CLOUD_CONFIG: ("a non-MIME cloud-config on AL2 runs as a shell script: it is never applied",
                      "help: put it in a MIME part of type text/cloud-config (MIME multipart userData), which "
                      "Karpenter keeps as it is"),
}


def _al2_analysis(res):
    """The userData analysis of an AL2 EC2NodeClass, else None."""
    if res.group != "karpenter.k8s.aws" or res.kind != "EC2NodeClass":
        return None
    a = analyze(res)
    return a if a is not None and a.family == ct.AL2 else None


@rule("KPL222", "al2-userdata-never-applied", category="userdata", severity="error",
      summary="AL2 userData that is a nodeadm NodeConfig, Bottlerocket TOML or a non-MIME cloud-config: AL2 runs it "
              "as a shell script (or skips the part) and none of its settings are applied", kinds=NODECLASS)
def al2_userdata_never_applied(res, ctx):
    # Current objects only: before v0.26.0 Karpenter rejected non-MIME AL2 userData instead of wrapping it (PR #3427).
    a = _al2_analysis(res)
    if a is None:
        return
    for part in a.parts:
        if part.index is None:
            kind = ct.sniff(part.view.text).kind
            if kind not in _OTHER_OS:
                continue
            headline, help_ = _OTHER_OS[kind]
            yield ctx.at(res, res.doc, part.view.span(0, len(part.view.text.rstrip())),
                         f"{headline}\n{help_}\n"
                         "note: Karpenter wraps non-MIME AL2 userData as a shell-script part before its bootstrap.sh "
                         "part; bash fails on each line (`apiVersion:: command not found`) and the node joins "
                         "without these settings")
        elif part.kind == ct.NODECONFIG:
            _, help_ = _OTHER_OS[ct.NODECONFIG]
            yield ctx.at(res, res.doc, part.view.span(0, len(part.view.text.rstrip())),
                         f"a NodeConfig MIME part in AL2 userData: AL2 never applies it\n{help_}\n"
                         f"note: cloud-init on AL2 skips a part of type "
                         f"{part.content_type or 'application/node.eks.aws'} (\"Unhandled unknown content-type\"); "
                         "only nodeadm, on AL2023, reads NodeConfig")


# ------------------------------------------------------------------------------------------------ KPL223

CONTAINERD_CONFIG = "/etc/containerd/config.toml"
EKS_CONTAINERD_CONFIG = "/etc/eks/containerd/containerd-config.toml"
_NOT_A_READ = frozenset({"[", "[[", "test", "ls", "stat", "rm"})  # existence checks and removal read no content


@rule("KPL223", "al2-userdata-containerd-config-before-bootstrap", category="userdata", severity="error",
      summary="AL2 userData that edits /etc/containerd/config.toml (bootstrap.sh, run after it, replaces the file) "
              "or reads it (AMIs since v20240202 have none before bootstrap.sh writes it)", kinds=NODECLASS)
def al2_userdata_containerd_config_before_bootstrap(res, ctx):
    from karplint.userdata.shell import file_accesses

    a = _al2_analysis(res)
    if a is None:
        return
    for part in a.shell_parts:
        accesses = file_accesses(part.script, lambda path: path == CONTAINERD_CONFIG)
        writes = [x for x in accesses if x.write]
        for w in writes:
            yield ctx.at(res, res.doc, part.view.span(w.start, w.end),
                         f"bootstrap.sh replaces {CONTAINERD_CONFIG} after the userData: this edit is lost\n"
                         f"help: make the change in {EKS_CONTAINERD_CONFIG}, which bootstrap.sh installs as "
                         f"{CONTAINERD_CONFIG}\n"
                         f"note: this {w.how} runs before Karpenter's bootstrap.sh part, which copies "
                         f"{EKS_CONTAINERD_CONFIG} over {CONTAINERD_CONFIG} whenever they differ and restarts "
                         "containerd (amazon-eks-ami templates/al2/runtime/bootstrap.sh)")
        if writes:
            continue  # what it reads afterwards may be its own file
        for r in accesses:
            if r.how.split(" ")[0] in _NOT_A_READ:
                continue
            yield ctx.at(res, res.doc, part.view.span(r.start, r.end),
                         f"this reads {CONTAINERD_CONFIG} before bootstrap.sh has written it\n"
                         f"help: read {EKS_CONTAINERD_CONFIG}, the template bootstrap.sh installs\n"
                         "note: EKS AL2 AMIs since v20240202 no longer ship the file: bootstrap.sh writes it, after "
                         "the userData has run (awslabs/amazon-eks-ami#1615), so the read finds nothing",
                         severity="warning")
