"""What kind of content a userData (or a MIME part) is, decided the way Karpenter decides it (aws/karpenter-provider-aws `pkg/providers/amifamily/bootstrap/` and `pkg/providers/launchtemplate/` at v1.14.1).

| family | Karpenter's reading |
|---|---|
| AL2 (and v1beta1 Ubuntu) | MIME if the trimmed text starts with `MIME-Version:`/`Content-Type:`, else one shell part |
| AL2023 | MIME; else a YAML map becomes an `application/node.eks.aws` part; else a shell part |
| Bottlerocket | TOML |
| Windows* | PowerShell statements |
| Custom | verbatim: the AMI decides (cloud-init MIME/shell, nodeadm NodeConfig, Bottlerocket TOML) |

Never decide by whether a shell parser accepts the text: bashlex happily "parses" MIME, YAML and TOML.
"""

from __future__ import annotations

from dataclasses import dataclass

from karplint.userdata.mime import looks_like_mime

# Content kinds.
MIME = "mime"
SHELL = "shell"
NODECONFIG = "nodeconfig"
TOML = "toml"
POWERSHELL = "powershell"
CLOUD_CONFIG = "cloud-config"
EMPTY = "empty"
UNKNOWN = "unknown"

# Families as Karpenter spells them in spec.amiFamily.
AL2, AL2023, BOTTLEROCKET, CUSTOM, UBUNTU = "AL2", "AL2023", "Bottlerocket", "Custom", "Ubuntu"
WINDOWS_FAMILIES = ("Windows2019", "Windows2022", "Windows2025")
FAMILIES = (AL2, AL2023, BOTTLEROCKET, CUSTOM, UBUNTU) + WINDOWS_FAMILIES

# amiSelectorTerms[].alias prefix -> family (`al2023@latest` -> AL2023).
ALIAS_FAMILIES = {
    "al2": AL2,
    "al2023": AL2023,
    "bottlerocket": BOTTLEROCKET,
    "windows2019": "Windows2019",
    "windows2022": "Windows2022",
    "windows2025": "Windows2025",
}

# MIME part media types -> content kind.
PART_TYPES = {
    "text/x-shellscript": SHELL,
    "application/node.eks.aws": NODECONFIG,
    "text/cloud-config": CLOUD_CONFIG,
    "text/cloud-boothook": SHELL,
}


def is_windows(family: str | None) -> bool:
    return family in WINDOWS_FAMILIES


def family_of(res) -> tuple[str | None, str]:
    """(family, where it came from: "amiFamily", "alias" or "none") for an EC2NodeClass resource."""
    fam = res.get(("spec", "amiFamily"))
    if isinstance(fam, str) and fam.strip():
        for known in FAMILIES:
            if fam.strip().lower() == known.lower():
                return known, "amiFamily"
        return fam.strip(), "amiFamily"
    fam = alias_family(res)
    if fam:
        return fam, "alias"
    if getattr(res, "version", None) in ("v1beta1", "v1alpha1"):
        # v1beta1 EC2NodeClass and v1alpha1 AWSNodeTemplate: amiFamily defaults to AL2 (v1 requires it or an
        # alias); aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go@v0.31.4#L177 GetAMIFamily
        return AL2, "default"
    return None, "none"


def alias_family(res) -> str | None:
    """The OS family of the AMI named by an `amiSelectorTerms[].alias` (`bottlerocket@latest` -> Bottlerocket).

    With `amiFamily: Custom` this is what actually reads the userData."""
    terms = res.get(("spec", "amiSelectorTerms"))
    if isinstance(terms, list):
        for term in terms:
            alias = term.get("alias") if isinstance(term, dict) else None
            if isinstance(alias, str) and "@" in alias:
                fam = ALIAS_FAMILIES.get(alias.split("@", 1)[0].strip().lower())
                if fam:
                    return fam
    return None


@dataclass
class Content:
    kind: str
    reason: str  # why: shown in "could not analyse" notes


def _is_yaml_map(text: str) -> bool:
    """Karpenter (nodeadm.go) tries to read non-MIME AL2023 userData as YAML; a map becomes a NodeConfig part."""
    from ruamel.yaml.nodes import MappingNode

    from karplint.readers.loader import _yaml, _yaml_text, syntax_depth_over

    if syntax_depth_over(text) is not None:  # too deep to compose safely: a map for all we know, and nodeadm's
        return text.lstrip()[:1] not in ("#", "-", "[", "")  # path then reports it as not analysed (KPL004)
    try:
        # Compose only (libyaml, no recursion limit): a deeply nested map is still a map, and nodeadm's decoder
        # then reports what is wrong with it instead of the text being mistaken for a shell script.
        node = _yaml().compose(_yaml_text(text))
    except Exception:  # any YAML error (ruamel raises several unrelated types): not a map
        return False
    return isinstance(node, MappingNode)


def detect(text: str, family: str | None) -> Content:
    """The content kind of a whole userData for `family` (None: unknown family, sniff like Custom)."""
    if text.strip() == "":
        return Content(EMPTY, "empty userData")
    if family in (AL2, UBUNTU):
        if looks_like_mime(text):
            return Content(MIME, "starts with a MIME header")
        return Content(SHELL, f"{family}: non-MIME userData is wrapped as one shell script part")
    if family == AL2023:
        if looks_like_mime(text):
            return Content(MIME, "starts with a MIME header")
        if _is_yaml_map(text):
            return Content(NODECONFIG, "AL2023: a YAML map is wrapped as an application/node.eks.aws part")
        return Content(SHELL, "AL2023: non-MIME, non-YAML userData is wrapped as one shell script part")
    if family == BOTTLEROCKET:
        return Content(TOML, "Bottlerocket userData is TOML")
    if is_windows(family):
        return Content(POWERSHELL, "Windows userData is PowerShell")
    return sniff(text)


def sniff(text: str) -> Content:
    """Custom (verbatim) userData: what the node's own agent will take it for."""
    stripped = text.lstrip()
    first = stripped.split("\n", 1)[0].strip()
    if looks_like_mime(text):
        return Content(MIME, "starts with a MIME header")
    if first.startswith("#!"):
        return Content(SHELL, "starts with #!")
    if first.startswith("#cloud-config"):
        return Content(CLOUD_CONFIG, "starts with #cloud-config")
    if first.lower().startswith("<powershell>"):
        return Content(POWERSHELL, "starts with <powershell>")
    if first.startswith("[settings") or first.startswith("[settings."):
        return Content(TOML, "starts with a [settings] table")
    if "node.eks.aws/" in stripped[:2000] and _is_yaml_map(text):
        return Content(NODECONFIG, "a YAML NodeConfig")
    if "/etc/eks/bootstrap.sh" in text or "nodeadm" in text:
        return Content(SHELL, "mentions bootstrap.sh/nodeadm (no #! line)")
    return Content(UNKNOWN, "no MIME header, #! line, NodeConfig or TOML settings")


def part_kind(content_type: str, body: str) -> str:
    """Content kind of a MIME part from its media type (cloud-init runs only the types it knows)."""
    kind = PART_TYPES.get(content_type.lower())
    if kind is not None:
        return kind
    if content_type == "" or content_type == "text/plain":
        # cloud-init sniffs untyped parts by their first line
        return sniff(body).kind
    return UNKNOWN
