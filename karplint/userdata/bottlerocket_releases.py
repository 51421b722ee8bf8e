"""What each Karpenter release keeps of Bottlerocket userData: the `[settings.kubernetes]` keys its merge knows, and
(up to v0.13) the `[settings.*]` tables it knows at all.

Karpenter decodes the user's TOML into a typed struct and renders the struct back, so a key the struct lacks is
dropped from the node's userData. The struct grew release by release; a key karplint's newest table knows may be
dropped by the release the user runs. Source: aws/karpenter-provider-aws `bootstrap/bottlerocketsettings.go` at
every release tag (the `toml:"..."` tags of `kubernetes` up to v0.13, `BottlerocketKubernetes` from v0.14.0).
"""

from __future__ import annotations

from karplint.model.versions import Version

# (release, keys added, keys removed) to the [settings.kubernetes] keys Karpenter keeps, in release order. v0.11.0
# is the first release that merged Bottlerocket userData (`pkg/cloudprovider/aws/amifamily/bootstrap/`).
KUBERNETES_KEY_CHANGES: tuple[tuple[Version, frozenset[str], frozenset[str]], ...] = (
    (Version(0, 11, 0), frozenset({
        "allowed-unsafe-sysctls", "api-server", "cluster-certificate", "cluster-dns-ip", "cluster-name",
        "container-log-max-files", "container-log-max-size", "cpu-manager-policy", "cpu-manager-reconcile-period",
        "event-burst", "event-qps", "eviction-hard", "kube-api-burst", "kube-api-qps", "kube-reserved", "max-pods",
        "node-labels", "node-taints", "registry-burst", "registry-qps", "server-tls-bootstrap", "static-pods",
        "system-reserved", "topology-manager-policy", "topology-manager-scope"}), frozenset()),
    (Version(0, 24, 0), frozenset({"image-gc-high-threshold-percent", "image-gc-low-threshold-percent"}),
     frozenset({"topology-manager-policy"})),
    (Version(0, 29, 0), frozenset({"cloud-provider"}), frozenset()),
    (Version(0, 29, 1), frozenset({"cpu-cfs-quota-enforced"}), frozenset()),
    (Version(0, 31, 0), frozenset({"shutdown-grace-period", "shutdown-grace-period-for-critical-pods"}), frozenset()),
    (Version(0, 34, 0), frozenset({"credential-providers"}), frozenset()),
    (Version(0, 37, 0), frozenset({"cluster-domain", "seccomp-default", "topology-manager-policy"}), frozenset()),
    (Version(1, 0, 0), frozenset({"pod-pids-limit"}), frozenset()),
    (Version(1, 2, 2), frozenset({"device-ownership-from-security-context"}), frozenset()),
    (Version(1, 5, 0), frozenset({"eviction-soft", "eviction-soft-grace-period", "eviction-max-pod-grace-period",
                                  "single-process-oom-kill"}), frozenset()),
    (Version(1, 6, 0), frozenset({"container-log-max-workers", "container-log-monitor-interval"}), frozenset()),
    (Version(1, 9, 0), frozenset({"cpu-manager-policy-options", "hostname-override-source", "ids-per-pod",
                                  "log-level"}), frozenset()),
    (Version(1, 10, 0), frozenset({"memory-manager-policy"}), frozenset()),
    (Version(1, 13, 0), frozenset({"topology-manager-policy-options"}), frozenset()),
)

# Up to v0.13.x the whole `settings` table was typed: only these tables survived the merge. v0.14.0 (#2081,
# "support all bottlerocket configuration") kept every other `[settings.*]` table untyped.
UNTYPED_SETTINGS_SINCE = Version(0, 14, 0)
TYPED_SETTINGS_TABLES = frozenset({"kubernetes", "host-containers", "aws", "metrics", "kernel", "container-registry"})


def kubernetes_keys(release: Version) -> frozenset[str]:
    """The [settings.kubernetes] keys Karpenter `release` keeps (before v0.11.0: those of v0.11.0)."""
    keys: set[str] = set()
    for since, added, removed in KUBERNETES_KEY_CHANGES:
        if since > release and keys:
            break
        keys = (keys - removed) | added
    return frozenset(keys)


def kept_since(key: str, release: Version) -> Version | None:
    """The first release after `release` whose merge keeps [settings.kubernetes] `key`, or None."""
    for since, added, _ in KUBERNETES_KEY_CHANGES:
        if since > release and key in added:
            return since
    return None


def kept_settings_tables(release: Version) -> frozenset[str] | None:
    """None when `release` keeps every [settings.*] table; else the tables it keeps (all others are dropped)."""
    return TYPED_SETTINGS_TABLES if release < UNTYPED_SETTINGS_SINCE else None
