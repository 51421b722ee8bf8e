"""Security of the nodes Karpenter launches (KPL7xx): instance metadata, EBS encryption, secrets in userData,
unbounded NodePools and floating AMIs."""

from __future__ import annotations

import re
from typing import Iterator

from karplint.model.labels import LATEST_ONLY_ALIAS_FAMILIES
from karplint.model import Resource
from karplint.rules.base import rule
from karplint.rules._catalog import NODECLASS_GROUP
from karplint.readers.templating import is_placeholder
from karplint.userdata.text import UserDataText

NODECLASS_KINDS = ("EC2NodeClass", "AWSNodeTemplate")


def _nodeclass(res: Resource) -> bool:
    return res.group == NODECLASS_GROUP


# ---------------------------------------------------------------------------------------------- IMDS

@rule("KPL701", "imdsv1-enabled", category="security", severity="warning",
      summary="metadataOptions.httpTokens: optional lets pods use IMDSv1", kinds=NODECLASS_KINDS)
def imdsv1_enabled(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res):
        return
    path = ("spec", "metadataOptions", "httpTokens")
    if res.get(path) == "optional" and res.get(("spec", "metadataOptions", "httpEndpoint")) != "disabled":
        yield ctx.violation(res, path, "httpTokens: optional enables IMDSv1\n"
                                       "help: use `required` (the default)\n"
                                       "note: any SSRF in a pod can then read the node role's credentials without "
                                       "a session token")


# A pod on the node's pod network is one hop further from IMDS than the host: a hop limit of 2 reaches it, and is what
# AWS recommends "in a container environment" for containers that must use IMDSv2
# (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-IMDS-existing-instances.html).
POD_HOPS = 2


@rule("KPL702", "imds-hop-limit", category="security", severity="warning",
      summary="metadataOptions.httpPutResponseHopLimit above the allowed maximum lets pods reach IMDS",
      kinds=NODECLASS_KINDS, options={"max-hop-limit": 1})
def imds_hop_limit(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res):
        return
    path = ("spec", "metadataOptions", "httpPutResponseHopLimit")
    value = res.get(path)
    limit = ctx.option("max-hop-limit")
    if isinstance(value, bool) or not isinstance(value, int) or value <= limit:
        return
    if res.get(("spec", "metadataOptions", "httpEndpoint")) == "disabled":
        return
    if limit >= POD_HOPS:  # (the user allowed pods: only a value beyond what they allowed is said)
        yield ctx.violation(res, path,
                            f"httpPutResponseHopLimit {value} is more than pods need\n"
                            + (f"help: use {POD_HOPS}: it reaches pods on the node's pod network\n" if limit == POD_HOPS
                               else f"help: use at most {limit} (`max-hop-limit`)\n")
                            + "note: AWS recommends 2 for containers that use IMDSv2; the larger the number, the "
                            "further instance metadata requests can travel")
        return
    yield ctx.violation(res, path,
                        f"httpPutResponseHopLimit {value} lets pods get IMDSv2 tokens\n"
                        f"help: use {limit} (Karpenter v1's default is 1); if an agent in a pod needs the instance "
                        f"metadata, use {POD_HOPS} and set `max-hop-limit = {POD_HOPS}`\n"
                        "note: containers that are not on the host network can then take the node role's "
                        "credentials")


# ---------------------------------------------------------------------------------------------- EBS

@rule("KPL703", "unencrypted-ebs", category="security", severity="warning",
      summary="blockDeviceMappings[].ebs.encrypted: false", kinds=NODECLASS_KINDS)
def unencrypted_ebs(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res):
        return
    mappings = res.get(("spec", "blockDeviceMappings"))
    if not isinstance(mappings, list):
        return
    for i, m in enumerate(mappings):
        ebs = m.get("ebs") if isinstance(m, dict) else None
        if isinstance(ebs, dict) and ebs.get("encrypted") is False:
            device = m.get("deviceName", f"mapping {i + 1}")
            yield ctx.violation(res, ("spec", "blockDeviceMappings", i, "ebs", "encrypted"),
                                f"EBS volume {device} is not encrypted\n"
                                "help: set `encrypted: true` (with `kmsKeyID` if needed)\n"
                                "note: node disks hold images, logs, emptyDir data and secrets mounted by pods")


# ---------------------------------------------------------------------------------------------- secrets

# (what, pattern, group holding the secret). Patterns are matched line by line against the userData text.
SECRET_PATTERNS: tuple[tuple[str, re.Pattern, int], ...] = (
    ("an AWS access key id", re.compile(r"(?<![A-Z0-9])((?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])"), 1),
    ("an AWS secret access key",
     re.compile(r"(?i)(?:aws_?secret_?access_?key|secret_?access_?key|secretaccesskey)[\"']?\s*[:=]\s*[\"']?"
                r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"), 1),
    ("a private key", re.compile(r"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----)"), 1),
    ("a bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"), 1),
    ("a password in a URL", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@'\"]+:([^\s/@'\"]+)@"), 1),
)

# Values that are documentation stand-ins, not credentials.
_STAND_INS = re.compile(r"(?i)example|^x+$|^\*+$|^(password|passwd|pass|pwd|secret|token|changeme|redacted|"
                        r"your[-_]?\w*|<[^>]*>)$")


def _mask(secret: str) -> str:
    keep = 4 if len(secret) >= 12 else 1
    return f"{secret[:keep]}…({len(secret)} characters)"


def _is_stand_in(secret: str) -> bool:
    return is_placeholder(secret) or "$" in secret or bool(_STAND_INS.search(secret))


@rule("KPL704", "secret-in-userdata", category="security", severity="error",
      summary="userData contains a credential (AWS keys, private key, bearer token, password in a URL)",
      kinds=NODECLASS_KINDS)
def secret_in_userdata(res: Resource, ctx) -> Iterator:
    if not _nodeclass(res):
        return
    text = UserDataText.from_resource(res)
    if text is None:
        return
    for what, pattern, group in SECRET_PATTERNS:
        for m in pattern.finditer(text.text):
            secret = m.group(group)
            if _is_stand_in(secret):
                continue
            shown = "" if what == "a private key" else f" ({_mask(secret)})"
            span = text.span(m.start(group), m.end(group))
            yield ctx.at(res, res.doc, span,
                         f"userData line {text.line_of(m.start(group))} contains {what}{shown}\n"
                         "help: rotate it, and fetch it at boot from Secrets Manager or SSM\n"
                         "note: userData is readable by anyone who can describe the instance or its launch template "
                         "and by every process that can reach IMDS")


# ---------------------------------------------------------------------------------------------- NodePool

@rule("KPL705", "nodepool-without-limits", category="security", severity="info",
      summary="A NodePool without spec.limits can launch capacity without bound", kinds=("NodePool",))
def nodepool_without_limits(res: Resource, ctx) -> Iterator:
    if res.group != "karpenter.sh" or not isinstance(res.data.get("spec"), dict):
        return
    if res.get(("spec", "replicas")) is not None:
        return  # static pool: its size is `replicas`
    if not res.name or not isinstance(res.get(("spec", "template", "spec", "nodeClassRef")), dict):
        return  # a fragment (docs snippet, patch): the schema rules report what is missing
    limits = res.get(("spec", "limits"))
    if isinstance(limits, dict) and limits or isinstance(limits, str):
        return
    where = ("spec", "limits") if "limits" in res.spec else ("spec",)
    yield ctx.violation(res, where,
                        "no spec.limits: this NodePool can launch capacity without bound\n"
                        "help: set limits.cpu / limits.memory\n"
                        "note: a scheduling bug, a runaway Deployment or a pod that never fits keeps it launching",
                        on="key")


# Version formats of pinned aliases (AMI release tags), for the message.
ALIAS_VERSION_EXAMPLES = {"al2": "v20240807", "al2023": "v20240807", "bottlerocket": "v1.39.1"}


@rule("KPL706", "ami-alias-latest", category="security", severity="info",
      summary="amiSelectorTerms alias pinned to @latest: every new AMI release drifts and replaces all nodes",
      kinds=("EC2NodeClass",))
def ami_alias_latest(res: Resource, ctx) -> Iterator:
    if res.group != NODECLASS_GROUP:
        return
    terms = res.get(("spec", "amiSelectorTerms"))
    if not isinstance(terms, list):
        return
    for i, term in enumerate(terms):
        alias = term.get("alias") if isinstance(term, dict) else None
        if not isinstance(alias, str) or "@" not in alias:
            continue
        family, _, version = alias.partition("@")
        if version.strip().lower() != "latest" or family.strip().lower() in LATEST_ONLY_ALIAS_FAMILIES:
            continue
        yield ctx.violation(res, ("spec", "amiSelectorTerms", i, "alias"),
                            f"alias `{alias}` follows the newest AMI\n"
                            "help: pin a version (e.g. "
                            f"`{family}@{ALIAS_VERSION_EXAMPLES.get(family.strip().lower(), 'vX.Y.Z')}`) and roll "
                            "it forward deliberately\n"
                            "note: each AMI release drifts every node of this class at once, untested")
