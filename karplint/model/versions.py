"""Karpenter release versions: parsing, comparison, and the facts that depend on them.

Facts come from the release tags and notes of aws/karpenter-provider-aws and kubernetes-sigs/karpenter.
"""

from __future__ import annotations

import re
from functools import lru_cache, total_ordering

from karplint.numbers import MAX_DIGITS, integer

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$")


@total_ordering
class Version:
    __slots__ = ("major", "minor", "patch")

    def __init__(self, major: int, minor: int = 0, patch: int = 0):
        self.major, self.minor, self.patch = major, minor, patch

    @classmethod
    def parse(cls, text: str | "Version") -> "Version":
        if isinstance(text, Version):
            return text
        m = _VERSION.match(str(text).strip())
        if not m:
            raise ValueError(f"not a Karpenter version: {text!r} (expected e.g. 1.14.1 or v0.37.8)")
        try:
            return cls(integer(m.group(1)), integer(m.group(2) or "0"), integer(m.group(3) or "0"))
        except ValueError:
            raise ValueError(f"not a Karpenter version: a component of more than {MAX_DIGITS:,} digits") from None

    @classmethod
    def try_parse(cls, text) -> "Version | None":
        try:
            return cls.parse(text)
        except (ValueError, TypeError):
            return None

    def _key(self):
        return (self.major, self.minor, self.patch)

    def __eq__(self, other):
        return isinstance(other, Version) and self._key() == other._key()

    def __lt__(self, other):
        return self._key() < Version.parse(other)._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return f"{self.major}.{self.minor}.{self.patch}"

    def __repr__(self):
        return f"Version('{self}')"


@lru_cache(maxsize=512)
def V(text: str) -> Version:
    """The release `text` names; rules compare against literals (`>= V("1.0.0")`) per resource, so memoised
    (Version is never mutated)."""
    return Version.parse(text)


# Releases whose CRDs are bundled in schemas/ (generated from ../shared/karpenter/crds/aws-v*).
BUNDLED_RELEASES = ("0.32.10", "0.37.0", "0.37.8", "1.0.0", "1.1.0", "1.14.1")
LATEST = V("1.14.1")


def nearest_bundled(version: Version) -> str:
    """The newest bundled release at or below `version` (the oldest bundled one if below them all)."""
    candidates = [r for r in BUNDLED_RELEASES if V(r) <= version]
    return candidates[-1] if candidates else BUNDLED_RELEASES[0]


# v1 was back-ported for the upgrade path: served from these patch releases of each 0.3x minor line, and by every
# release after the last one (the release notes).
V1_UPGRADE_PATH = ("0.33.6", "0.34.7", "0.35.6", "0.36.3", "0.37.1")


def _first_served(first: str | tuple[str, ...], release: Version) -> str | None:
    """None when `release` serves it, else the release that first does (on `release`'s minor line if any)."""
    lines = (first,) if isinstance(first, str) else first
    for entry in lines:
        v = V(entry)
        if (release.major, release.minor) == (v.major, v.minor):
            return None if release >= v else entry
    if release > V(lines[-1]):
        return None
    return lines[0] if release < V(lines[0]) else None


# (group, version, kind) -> (first release serving it, first release NOT serving it or None, migration hint)
API_SERVED = {
    # The Provisioner's karpenter.sh versions before v1beta1 (aws/karpenter-provider-aws pkg/apis/provisioning/<version>
    # and charts/karpenter/templates/karpenter.sh_provisioners.yaml at each tag): v1alpha3 from v0.2.9 (earlier ones
    # were provisioning.karpenter.sh), v1alpha4 from v0.3.4, v1alpha5 from v0.4.1.
    ("karpenter.sh", "v1alpha5", "Provisioner"): (
        "0.4.1", "0.33.0", "migrate to karpenter.sh/v1 NodePool (v1alpha5 -> v1beta1 -> v1, see the Karpenter v1beta1 and v1 migration guides)"),
    ("karpenter.sh", "v1alpha3", "Provisioner"): (
        "0.2.9", "0.3.4", "migrate to karpenter.sh/v1 NodePool (v1alpha3 was replaced by v1alpha4 in 0.3.4 and v1alpha5 in 0.4.1)"),
    ("karpenter.sh", "v1alpha4", "Provisioner"): (
        "0.3.4", "0.4.1", "migrate to karpenter.sh/v1 NodePool (v1alpha4 was replaced by v1alpha5 in 0.4.1)"),
    ("karpenter.sh", "v1alpha5", "Machine"): (
        None, "0.33.0", "Machines were replaced by karpenter.sh NodeClaims, managed by Karpenter"),
    ("karpenter.k8s.aws", "v1alpha1", "AWSNodeTemplate"): (
        None, "0.33.0", "migrate to karpenter.k8s.aws/v1 EC2NodeClass"),
    ("karpenter.sh", "v1beta1", "NodePool"): (
        "0.32.0", "1.1.0", "move to apiVersion karpenter.sh/v1 (v1beta1 -> v1: WhenUnderutilized becomes WhenEmptyOrUnderutilized, expireAfter moves to spec.template.spec, nodeClassRef needs group and kind)"),
    ("karpenter.sh", "v1beta1", "NodeClaim"): (
        "0.32.0", "1.1.0", "move to apiVersion karpenter.sh/v1"),
    ("karpenter.k8s.aws", "v1beta1", "EC2NodeClass"): (
        "0.32.0", "1.1.0", "move to apiVersion karpenter.k8s.aws/v1 (kubelet moves from the NodePool to spec.kubelet, amiSelectorTerms becomes required)"),
    ("karpenter.sh", "v1", "NodePool"): (V1_UPGRADE_PATH, None, ""),
    ("karpenter.sh", "v1", "NodeClaim"): (V1_UPGRADE_PATH, None, ""),
    ("karpenter.k8s.aws", "v1", "EC2NodeClass"): (V1_UPGRADE_PATH, None, ""),
    ("karpenter.sh", "v1alpha1", "NodeOverlay"): ("1.7.0", None, ""),
}

# Kinds by their only correct API group.
KARPENTER_KINDS = {
    "NodePool": "karpenter.sh",
    "NodeClaim": "karpenter.sh",
    "NodeOverlay": "karpenter.sh",
    "Provisioner": "karpenter.sh",
    "Machine": "karpenter.sh",
    "EC2NodeClass": "karpenter.k8s.aws",
    "AWSNodeTemplate": "karpenter.k8s.aws",
}
KARPENTER_GROUPS = ("karpenter.sh", "karpenter.k8s.aws")


def served(group: str, version: str, kind: str, release: Version) -> tuple[bool, str | None, str]:
    """Whether `release` serves group/version kind: (served, removed_in, hint). Unknown triples: True."""
    fact = API_SERVED.get((group, version, kind))
    if fact is None:
        return True, None, ""
    first, removed, hint = fact
    if removed is not None and release >= V(removed):
        return False, removed, hint
    if first is not None:
        needed = _first_served(first, release)
        if needed is not None:
            return False, None, f"first served in {needed}"
    return True, None, hint


def served_range(group: str, version: str, kind: str) -> str:
    """The releases that serve group/version kind, in words: "0.32–1.0", "up to 0.32", "1.7 and later"."""
    fact = API_SERVED.get((group, version, kind))
    if fact is None:
        return "every release"
    first, removed, _hint = fact
    if isinstance(first, tuple):  # (the v1 upgrade path: from a patch release of each minor line)
        low: str | None = first[0]
    else:
        low = f"{V(first).major}.{V(first).minor}" if first else None
    high = None
    if removed is not None:
        r = V(removed)
        high = f"{r.major}.{r.minor - 1}" if r.minor > 0 else f"releases before {removed}"
    if low and high:
        return f"{low}–{high}"
    if high:
        return f"up to {high}"
    return f"{low} and later" if low else "every release"


def implausible(version: Version) -> str | None:
    """Why no Karpenter release can be `version` (a typo such as 1.41.1 for 1.14.1), or None. Karpenter's minor
    releases come about monthly: more than a year past the newest release karplint knows is not a release."""
    if version.major > LATEST.major or (version.major == LATEST.major and version.minor > LATEST.minor + 12):
        import difflib

        digits = sorted(str(version).replace(".", ""))
        swapped = [r for r in BUNDLED_RELEASES if sorted(r.replace(".", "")) == digits]  # 1.41.1 for 1.14.1
        near = swapped or difflib.get_close_matches(str(version), BUNDLED_RELEASES, n=2, cutoff=0.5) or [str(LATEST)]
        return (f"no Karpenter release {version} exists (the newest karplint knows is {LATEST}); "
                f"did you mean {' or '.join(near)}?")
    return None
