"""Names of Karpenter's objects (KPL149): the API server validates every custom resource's `metadata.name` as a
DNS-1123 subdomain (kubernetes apiextensions-apiserver `pkg/registry/customresource/validator.go`:
`ValidateObjectMetaAccessor(..., validation.NameIsDNSSubdomain, ...)`), so an upper-case or underscored name is
rejected before Karpenter sees it.
"""

from __future__ import annotations

import re

from karplint.readers.templating import is_placeholder, is_templated
from karplint.rules import rule

NAME = ("metadata", "name")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
MAX_SUBDOMAIN = 253
# (group, kind) of the custom resources Karpenter and EKS Auto Mode serve.
KARPENTER_KINDS = {
    ("karpenter.sh", "NodePool"), ("karpenter.sh", "NodeClaim"), ("karpenter.sh", "NodeOverlay"),
    ("karpenter.sh", "Provisioner"), ("karpenter.sh", "Machine"), ("karpenter.k8s.aws", "EC2NodeClass"),
    ("karpenter.k8s.aws", "AWSNodeTemplate"), ("eks.amazonaws.com", "NodeClass"),
}


def _suggestion(name: str) -> str | None:
    """The name lower-cased with every other character turned into `-`, when that is a valid name."""
    s = re.sub(r"[^a-z0-9.-]+", "-", name.lower()).strip("-.")
    return s if s and len(s) <= MAX_SUBDOMAIN and DNS1123_SUBDOMAIN.match(s) else None


@rule("KPL149", "object-name-not-dns-subdomain", category="schema", severity="error",
      summary="A Karpenter object's `metadata.name` is not a lowercase RFC 1123 subdomain: the API server rejects it",
      kinds=tuple(sorted({k for _, k in KARPENTER_KINDS})))
def object_name_not_dns_subdomain(res, ctx):
    if (res.group, res.kind) not in KARPENTER_KINDS:
        return
    name = res.get(NAME)
    # Holes and documentation stand-ins (`<NODEPOOL_NAME>`) are filled in before anything is applied.
    if not isinstance(name, str) or not name or is_placeholder(name) or is_templated(name) or "<" in name:
        return
    if len(name) <= MAX_SUBDOMAIN and DNS1123_SUBDOMAIN.match(name):
        return
    what = "is longer than 253 characters" if len(name) > MAX_SUBDOMAIN else "is not a lowercase RFC 1123 subdomain"
    better = _suggestion(name) if len(name) <= MAX_SUBDOMAIN else None
    example = f" (e.g. `{better}`)" if better else ""
    yield ctx.violation(
        res, NAME,
        f"metadata.name `{name[:48]}` {what}\n"
        f"help: use lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit{example}\n"
        f"note: the API server rejects this {res.kind}: custom resource names are validated as DNS subdomains (`metadata.name: Invalid value: ... a lowercase "
        "RFC 1123 subdomain must consist of ...`; awsdocs/amazon-eks-user-guide#1000)")
