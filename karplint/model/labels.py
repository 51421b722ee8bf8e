"""Node label facts: the well-known label keys a node can carry, and what each AMI family implies for them.

Sources (the CRDs of aws/karpenter-provider-aws, generated into schemas/):
* `karpenter.k8s.aws/*`: the requirement-key allow-list of the NodePool CRD (aws-v1.14.1 and aws-main,
  `karpenter.sh_nodepools.yaml`, x-kubernetes-validations on `requirements[].key`).
* `karpenter.sh/*`: core `pkg/apis/v1/labels.go`.
* `kubernetes.io` / `k8s.io`: Kubernetes well-known labels (k8s.io/api `core/v1/well_known_labels.go`),
  `topology.k8s.aws/zone-id` (Karpenter AWS `pkg/apis/v1/labels.go`).
* Per-family OS/arch: `pkg/providers/amifamily/*.go` (AL2/AL2023/Bottlerocket query amd64 and arm64 AMIs and
  label nodes `kubernetes.io/os=linux`; Windows queries only `amd64`, `kubernetes.io/os=windows` and sets
  `node.kubernetes.io/windows-build`).
"""

from __future__ import annotations

# Well-known node label keys -> where they come from.
WELL_KNOWN_LABELS: dict[str, str] = {
    # Kubernetes (k8s.io/api core/v1 well_known_labels.go)
    "kubernetes.io/arch": "kubelet",
    "kubernetes.io/os": "kubelet",
    "kubernetes.io/hostname": "kubelet",
    "node.kubernetes.io/instance-type": "cloud provider / Karpenter",
    "topology.kubernetes.io/zone": "cloud provider / Karpenter",
    "topology.kubernetes.io/region": "cloud provider / Karpenter",
    "node.kubernetes.io/windows-build": "kubelet (Windows)",
    "node.kubernetes.io/exclude-from-external-load-balancers": "Kubernetes",
    # deprecated Kubernetes spellings that some nodes still carry
    "beta.kubernetes.io/arch": "kubelet (deprecated)",
    "beta.kubernetes.io/os": "kubelet (deprecated)",
    "beta.kubernetes.io/instance-type": "cloud provider (deprecated)",
    "failure-domain.beta.kubernetes.io/zone": "cloud provider (deprecated)",
    "failure-domain.beta.kubernetes.io/region": "cloud provider (deprecated)",
    # Karpenter core
    "karpenter.sh/capacity-type": "Karpenter",
    "karpenter.sh/nodepool": "Karpenter",
    "karpenter.sh/initialized": "Karpenter",
    "karpenter.sh/registered": "Karpenter",
    "karpenter.sh/do-not-sync-taints": "Karpenter >= 1.5",
    "karpenter.sh/provisioner-name": "Karpenter < 0.33 (removed)",
    # Karpenter AWS (NodePool CRD allow-list)
    "karpenter.k8s.aws/ec2nodeclass": "Karpenter AWS",
    "karpenter.k8s.aws/instance-tenancy": "Karpenter AWS",
    "karpenter.k8s.aws/capacity-reservation-type": "Karpenter AWS",
    "karpenter.k8s.aws/capacity-reservation-id": "Karpenter AWS",
    "karpenter.k8s.aws/capacity-reservation-interruptible": "Karpenter AWS",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported": "Karpenter AWS",
    "karpenter.k8s.aws/instance-category": "Karpenter AWS",
    "karpenter.k8s.aws/instance-hypervisor": "Karpenter AWS",
    "karpenter.k8s.aws/instance-family": "Karpenter AWS",
    "karpenter.k8s.aws/instance-generation": "Karpenter AWS",
    "karpenter.k8s.aws/instance-local-nvme": "Karpenter AWS",
    "karpenter.k8s.aws/instance-size": "Karpenter AWS",
    "karpenter.k8s.aws/instance-cpu": "Karpenter AWS",
    "karpenter.k8s.aws/instance-cpu-manufacturer": "Karpenter AWS",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz": "Karpenter AWS",
    "karpenter.k8s.aws/instance-memory": "Karpenter AWS",
    "karpenter.k8s.aws/instance-ebs-bandwidth": "Karpenter AWS",
    "karpenter.k8s.aws/instance-network-bandwidth": "Karpenter AWS",
    "karpenter.k8s.aws/instance-gpu-name": "Karpenter AWS",
    "karpenter.k8s.aws/instance-gpu-manufacturer": "Karpenter AWS",
    "karpenter.k8s.aws/instance-gpu-count": "Karpenter AWS",
    "karpenter.k8s.aws/instance-gpu-memory": "Karpenter AWS",
    "karpenter.k8s.aws/instance-accelerator-name": "Karpenter AWS",
    "karpenter.k8s.aws/instance-accelerator-manufacturer": "Karpenter AWS",
    "karpenter.k8s.aws/instance-accelerator-count": "Karpenter AWS",
    "karpenter.k8s.aws/instance-capability-flex": "Karpenter AWS",
    "karpenter.k8s.aws/placement-group-id": "Karpenter AWS",
    "karpenter.k8s.aws/placement-group-partition": "Karpenter AWS",
    "karpenter.k8s.aws/nitro-sandbox": "Karpenter AWS (main)",
    "topology.k8s.aws/zone-id": "Karpenter AWS",
}

# Label domains owned by Kubernetes, Karpenter or AWS: a key there that is not well known and is one or two
# typing errors away from a well-known key is a misspelling, not a custom label.
OWNED_DOMAINS = ("kubernetes.io", "k8s.io", "karpenter.sh", "karpenter.k8s.aws", "topology.k8s.aws")

# Prefixes whose names are free-form by design (node roles, NFD features, restricted self-labels).
FREE_FORM_PREFIXES = (
    "node-role.kubernetes.io/", "node-restriction.kubernetes.io/", "feature.node.kubernetes.io/",
    "kops.k8s.io/",
)

# AMI family -> what every node of that family carries (None: not known statically, e.g. Custom AMIs).
# `os`/`arch`/`windows-build`: the values of kubernetes.io/os, kubernetes.io/arch, node.kubernetes.io/windows-build.
AMI_FAMILY_LABELS: dict[str, dict[str, frozenset[str]] | None] = {
    "AL2": {"kubernetes.io/os": frozenset({"linux"}), "kubernetes.io/arch": frozenset({"amd64", "arm64"})},
    "AL2023": {"kubernetes.io/os": frozenset({"linux"}), "kubernetes.io/arch": frozenset({"amd64", "arm64"})},
    "Bottlerocket": {"kubernetes.io/os": frozenset({"linux"}), "kubernetes.io/arch": frozenset({"amd64", "arm64"})},
    "Ubuntu": {"kubernetes.io/os": frozenset({"linux"}), "kubernetes.io/arch": frozenset({"amd64", "arm64"})},
    "Windows2019": {"kubernetes.io/os": frozenset({"windows"}), "kubernetes.io/arch": frozenset({"amd64"}),
                    "node.kubernetes.io/windows-build": frozenset({"10.0.17763"})},
    "Windows2022": {"kubernetes.io/os": frozenset({"windows"}), "kubernetes.io/arch": frozenset({"amd64"}),
                    "node.kubernetes.io/windows-build": frozenset({"10.0.20348"})},
    "Windows2025": {"kubernetes.io/os": frozenset({"windows"}), "kubernetes.io/arch": frozenset({"amd64"}),
                    "node.kubernetes.io/windows-build": frozenset({"10.0.26100"})},
    "Custom": None,
}

# amiSelectorTerms alias family (lower case, before `@`) -> amiFamily (the EC2NodeClass CRD).
ALIAS_FAMILIES: dict[str, str] = {
    "al2": "AL2",
    "al2023": "AL2023",
    "bottlerocket": "Bottlerocket",
    "windows2019": "Windows2019",
    "windows2022": "Windows2022",
    "windows2025": "Windows2025",
}

# Alias families whose only accepted version is `latest` (the EC2NodeClass CRD: windows only @latest).
LATEST_ONLY_ALIAS_FAMILIES = frozenset({"windows2019", "windows2022", "windows2025"})


def _domain(key: str) -> str:
    return key.split("/", 1)[0] if "/" in key else ""


def _owned(domain: str) -> bool:
    return any(domain == d or domain.endswith("." + d) for d in OWNED_DOMAINS)


def _distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, giving up (returning limit + 1) once it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def _names() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key in WELL_KNOWN_LABELS:
        out.setdefault(key.rsplit("/", 1)[-1], []).append(key)
    return out


_BY_NAME = _names()


def suggest_label_key(key: str) -> str | None:
    """The well-known key `key` is most likely a misspelling of, or None when it looks intentional."""
    if not isinstance(key, str) or "/" not in key or key in WELL_KNOWN_LABELS:
        return None
    if any(key.startswith(p) for p in FREE_FORM_PREFIXES) or any(c in key for c in "${}<>"):
        return None
    normal = key.strip().lower().replace("_", "-")
    if normal in WELL_KNOWN_LABELS:
        return normal  # case, underscore or surrounding blanks
    domain, name = key.split("/", 1)
    near_owned = _owned(domain) or any(
        _distance(domain.lower(), _domain(k), 2) <= 2 for k in WELL_KNOWN_LABELS)
    if not near_owned:
        return None
    # the right name under the wrong (owned) domain, e.g. karpenter.sh/instance-family
    same_name = _BY_NAME.get(name.lower().replace("_", "-"), [])
    current = [k for k in same_name if "beta" not in k]
    if len(current) == 1 and _owned(domain):
        return current[0]
    scored = []
    for known in WELL_KNOWN_LABELS:
        limit = 1 if len(known.rsplit("/", 1)[-1]) <= 4 else 2
        d = _distance(normal, known, limit)
        if d <= limit:
            scored.append((d, known))
    if not scored:
        return None
    best = min(d for d, _ in scored)
    closest = [k for d, k in scored if d == best]
    return closest[0] if len(closest) == 1 else None  # ambiguous: say nothing
