"""AL2 userData that the AL2 node never applies: written for another OS, or a cloud-config that becomes a script
(KPL222).

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
    ct.NODECONFIG: ("an AL2023 nodeadm NodeConfig", "AL2 does not read",
                    "help: on AL2 set kubelet options in spec.kubelet, or edit "
                    "/etc/kubernetes/kubelet/kubelet-config.json with jq in a shell script; or use AL2023 "
                    "(`amiFamily: AL2023` or an `al2023@` alias), which reads it"),
    ct.TOML: ("Bottlerocket TOML settings", "AL2 does not read",
              "help: on AL2 set kubelet options in spec.kubelet, or edit /etc/kubernetes/kubelet/kubelet-config.json "
              "with jq in a shell script; or use Bottlerocket (`amiFamily: Bottlerocket` or a `bottlerocket@` alias), "
              "which reads it"),
    ct.CLOUD_CONFIG: ("a cloud-init cloud-config", "Karpenter hands to cloud-init as a shell script",
                      "help: put it in a MIME part of type text/cloud-config (MIME multipart userData), which "
                      "Karpenter keeps as it is"),
}


@rule("KPL222", "al2-userdata-never-applied", category="userdata", severity="error",
      summary="AL2 userData that is a nodeadm NodeConfig, Bottlerocket TOML or a non-MIME cloud-config: AL2 runs it "
              "as a shell script (or skips the part) and none of its settings are applied", kinds=NODECLASS)
def al2_userdata_never_applied(res, ctx):
    # Current objects only: before v0.27 Karpenter rejected non-MIME AL2 userData instead of wrapping it (PR #3427).
    if res.group != "karpenter.k8s.aws" or res.kind != "EC2NodeClass":
        return
    a = analyze(res)
    if a is None or a.family != ct.AL2:
        return
    for part in a.parts:
        if part.index is None:
            kind = ct.sniff(part.view.text).kind
            if kind not in _OTHER_OS:
                continue
            what, reader, help_ = _OTHER_OS[kind]
            yield ctx.at(res, res.doc, part.view.span(0, len(part.view.text.rstrip())),
                         f"this userData is {what}, which {reader}: its settings are never applied\n{help_}\n"
                         "note: Karpenter wraps non-MIME AL2 userData as a shell-script part before its bootstrap.sh "
                         "part; bash fails on each line (`apiVersion:: command not found`) and the node joins "
                         "without these settings")
        elif part.kind == ct.NODECONFIG:
            what, reader, help_ = _OTHER_OS[ct.NODECONFIG]
            yield ctx.at(res, res.doc, part.view.span(0, len(part.view.text.rstrip())),
                         f"this MIME part is {what}, which {reader}: its settings are never applied\n{help_}\n"
                         f"note: cloud-init on AL2 skips a part of type {part.content_type or 'application/node.eks.aws'}"
                         " (\"Unhandled unknown content-type\"); only nodeadm, on AL2023, reads NodeConfig")
