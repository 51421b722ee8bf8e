"""The kubelet settings Karpenter passes to its nodes (KPL623): `spec.kubelet` of a v1 EC2NodeClass, of a
v1beta1 NodePool's template, and `spec.kubeletConfiguration` of a v1alpha5 Provisioner.

A soft eviction threshold gives pods a grace period; a hard one evicts at once. The kubelet evicts when the
signal's available amount falls below a threshold (kubernetes/kubernetes pkg/kubelet/eviction/helpers.go
`thresholdsMet`; https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/), so a soft
threshold at or below the hard one for the same signal is crossed only after the hard one: the soft eviction never
happens first. A percentage is of the node's capacity, so a soft quantity against a hard percentage (or the
reverse) flips at one node size (kubernetes-sigs/karpenter#2852).
"""

from __future__ import annotations

import re
from typing import Iterator

from karplint.model import Resource
from karplint.readers.templating import has_placeholder
from karplint.rules._legacy import judged
from karplint.rules.base import rule

KINDS = ("EC2NodeClass", "NodePool", "Provisioner")

_SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50}
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(k|M|G|T|P|Ki|Mi|Gi|Ti|Pi)?$")
_PERCENT = re.compile(r"^([0-9]+(?:\.[0-9]+)?)%$")
GIB = 2**30


def _kubelet_path(res: Resource, ctx) -> tuple | None:
    if res.kind == "EC2NodeClass" and res.group == "karpenter.k8s.aws" and res.version == "v1":
        return ("spec", "kubelet")
    if res.kind == "NodePool" and res.group == "karpenter.sh" and res.version == "v1beta1":
        return ("spec", "template", "spec", "kubelet")
    if res.kind == "Provisioner" and res.group == "karpenter.sh" and res.version == "v1alpha5" \
            and judged(res, ctx, legacy=True):
        return ("spec", "kubeletConfiguration")
    return None


def _threshold(value) -> tuple[str, float] | None:
    """("%", percent) or ("q", amount) of an eviction threshold, None when unreadable."""
    if not isinstance(value, str) or has_placeholder(value):
        return None
    text = value.strip()
    m = _PERCENT.match(text)
    if m:
        return "%", float(m.group(1))
    m = _QUANTITY.match(text)
    if m:
        return "q", float(m.group(1)) * _SUFFIX[m.group(2) or ""]
    return None


# Signals measured in bytes, and the node sizes (memory or disk) common enough that a threshold order flipping
# beyond them is worth saying: below 8 GiB few nodes have less, above 256 GiB few have more.
BYTE_SIGNALS = ("memory.available", "nodefs.available", "imagefs.available")
COMMON_LOW, COMMON_HIGH = 8 * GIB, 256 * GIB


def _common(crossover: float, side: str) -> bool:
    return crossover <= COMMON_HIGH if side == "more" else crossover >= COMMON_LOW


def _size(amount: float, signal: str) -> str:
    if signal.startswith(("memory", "nodefs.available", "imagefs.available")):
        return f"{amount / GIB:.1f} GiB" if amount >= GIB else f"{amount / 2**20:.0f} MiB"
    return f"{amount:.0f}"


@rule("KPL623", "eviction-soft-not-above-hard", category="references", severity="warning",
      summary="An evictionSoft threshold at or below the evictionHard threshold of the same signal: the soft "
              "eviction never comes first", kinds=KINDS)
def eviction_soft_not_above_hard(res: Resource, ctx) -> Iterator:
    base = _kubelet_path(res, ctx)
    if base is None:
        return
    soft = res.get(base + ("evictionSoft",))
    hard = res.get(base + ("evictionHard",))
    if not isinstance(soft, dict) or not isinstance(hard, dict):
        return
    for signal, soft_value in soft.items():
        s, h = _threshold(soft_value), _threshold(hard.get(signal))
        if s is None or h is None:
            continue
        path = base + ("evictionSoft", signal)
        if s[0] == h[0]:
            if s[1] > h[1]:
                continue
            yield ctx.violation(
                res, path,
                f"evictionSoft {signal} {soft_value} is not above evictionHard {hard[signal]}\n"
                "help: make the soft threshold larger than the hard one (more available), e.g. hard 5% and "
                "soft 10%\n"
                "note: the kubelet evicts when the available amount falls below a threshold, so the hard one is "
                "crossed first: the soft eviction never happens first, and pods are evicted without their grace "
                "period")
            continue
        # One is a percentage of capacity: the order flips at the capacity where both are equal.
        percent, amount = (s[1], h[1]) if s[0] == "%" else (h[1], s[1])
        if percent <= 0:
            continue
        crossover = amount * 100 / percent
        bigger = "more" if s[0] == "q" else "less"
        over = "over" if bigger == "more" else "under"
        if signal not in BYTE_SIGNALS or not _common(crossover, bigger):
            continue
        yield ctx.violation(
            res, path,
            f"evictionSoft {signal} {soft_value} is below evictionHard {hard[signal]} on nodes {over} "
            f"{_size(crossover, signal)} of {'memory' if signal.startswith('memory') else 'disk'}\n"
            "help: write both thresholds as percentages (e.g. hard 5%, soft 10%) or both as quantities\n"
            "note: a percentage is of the node's capacity, a quantity is not; where the hard threshold is the "
            "larger one the soft eviction never happens first, and the kubelet evicts pods at once, without their "
            "grace period (kubernetes-sigs/karpenter#2852)")
