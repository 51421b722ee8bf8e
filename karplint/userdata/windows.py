"""Windows userData: what Karpenter wraps around it and what must therefore not be in it.

Karpenter (`pkg/providers/amifamily/bootstrap/windows.go`, `windows_userdata_merged.golden`) emits
`<powershell>` + the user's text + its own `Start-EKSBootstrap.ps1` call + `</powershell>`. The user's text must be
bare PowerShell statements (aws/karpenter-provider-aws `pkg/providers/amifamily/bootstrap/windows.go` at v1.14.1): own `<powershell>` tags nest (the first
`</powershell>` ends the block before Karpenter's bootstrap call) and an own bootstrap call joins the node without
Karpenter's labels and taints before Karpenter's call runs.

Pure text in, results out; offsets index the analysed string (plus `base`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# EC2Launch script tags Karpenter already writes (only <powershell> is Karpenter's; the others conflict likewise).
WRAPPER_TAGS = ("powershell",)
_TAG = re.compile(r"</?\s*(powershell)\s*>", re.I)
_BOOTSTRAP = re.compile(r"Start-EKSBootstrap(?:\.ps1)?", re.I)


@dataclass(frozen=True)
class Issue:
    kind: str  # "tag" | "bootstrap-call"
    severity: str
    message: str
    start: int
    end: int


def check(text: str, base: int = 0) -> list[Issue]:
    issues: list[Issue] = []
    for m in _TAG.finditer(text):
        closing = m.group(0).startswith("</")
        if closing:
            msg = (f"{m.group(0)} in Windows userData closes Karpenter's <powershell> block\n"
                   "help: write bare PowerShell statements\n"
                   "note: Karpenter already wraps the userData in <powershell>…</powershell>, so this tag ends the "
                   "block before Karpenter's Start-EKSBootstrap.ps1 call, which then never runs")
        else:
            msg = (f"{m.group(0)} in Windows userData is a PowerShell syntax error\n"
                   "help: write bare PowerShell statements\n"
                   "note: Karpenter already wraps the userData in <powershell>…</powershell>")
        issues.append(Issue("tag", "warning", msg, base + m.start(), base + m.end()))
    for m in _BOOTSTRAP.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:m.start()].lstrip().startswith("#"):
            continue  # a comment
        issues.append(Issue(
            "bootstrap-call", "warning",
            "Start-EKSBootstrap.ps1 in Windows userData: the node bootstraps twice\n"
            "help: remove the call; Karpenter appends its own\n"
            "note: Karpenter's call passes the cluster details, --node-labels, --register-with-taints "
            "(karpenter.sh/unregistered, NodePool taints) and --max-pods; this one bootstraps the node a first time "
            "without them", base + m.start(), base + m.end()))
    return issues


def render(user_text: str, *, cluster_name: str, endpoint: str, ca_bundle: str | None, kubelet_extra_args: list[str],
           cluster_dns_ip: str | None) -> str:
    """Karpenter's Windows userData (windows.go)."""
    out = ["<powershell>\n"]
    if user_text:
        out.append(user_text + "\n")
    out.append('[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"\n')
    out.append(f"& $EKSBootstrapScriptFile -EKSClusterName '{cluster_name}' -APIServerEndpoint '{endpoint}'")
    if ca_bundle is not None:
        out.append(f" -Base64ClusterCA '{ca_bundle}'")
    if kubelet_extra_args:
        out.append(f" -KubeletExtraArgs '{' '.join(kubelet_extra_args)}'")
    if cluster_dns_ip:
        out.append(f" -DNSClusterIP '{cluster_dns_ip}'")
    out.append("\n</powershell>")
    return "".join(out)
