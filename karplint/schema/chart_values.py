"""The Karpenter Helm chart's value keys per release (schemas/chart-values.json, written by
scripts/gen_chart_values.py from charts/karpenter at every tag), and the keys the chart renamed.

    chart_keys(version) -> ChartKeys | None    the keys of the chart at `version` (None: no table for it)
    any_release() -> ChartKeys                 the keys of every release together (when the release is unknown)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

# The values the v1beta1 chart (v0.32.0) renamed; the old names are read through v0.32.x and ignored from v0.33.0:
# website/content/en/v0.32/upgrading/v1beta1-migration.md ("Helm Values") in aws/karpenter-provider-aws at v0.32.10.
RENAMED = {
    "controller.outputPaths": "logConfig.outputPaths",
    "controller.errorOutputPaths": "logConfig.errorOutputPaths",
    "controller.logLevel": "logConfig.logLevel.controller",
    "webhook.logLevel": "logConfig.logLevel.webhook",
    "logEncoding": "logConfig.logEncoding",
    "settings.aws.assumeRoleARN": "settings.assumeRoleARN",
    "settings.aws.assumeRoleDuration": "settings.assumeRoleDuration",
    "settings.aws.clusterCABundle": "settings.clusterCABundle",
    "settings.aws.clusterName": "settings.clusterName",
    "settings.aws.clusterEndpoint": "settings.clusterEndpoint",
    "settings.aws.isolatedVPC": "settings.isolatedVPC",
    "settings.aws.vmMemoryOverheadPercent": "settings.vmMemoryOverheadPercent",
    "settings.aws.interruptionQueueName": "settings.interruptionQueue",
    "settings.aws.reservedENIs": "settings.reservedENIs",
    "settings.featureGates.driftEnabled": "settings.featureGates.drift",
}


@dataclass(frozen=True)
class ChartKeys:
    release: str  # the chart release of the table ("" for every release together)
    known: frozenset  # dotted paths of the keys
    open: frozenset  # dotted paths under which any key is passed on (podAnnotations, affinity, controller.env...)
    # keys of the chart's values.yaml that no template reads (controller.logEncoding through v0.31): no effect
    unread: frozenset = frozenset()

    def is_open(self, path: str) -> bool:
        """Whether `path` is under an open key (or is one): nothing below it to check. `global` is Helm's own."""
        parts = path.split(".")
        return parts[0] == "global" or any(".".join(parts[:i]) in self.open for i in range(1, len(parts)))

    def children(self, parent: str) -> list[str]:
        pre = parent + "." if parent else ""
        n = pre.count(".")
        return sorted(k[len(pre):] for k in self.known if k.startswith(pre) and k.count(".") == n)


@lru_cache(maxsize=1)
def _table() -> dict:
    from karplint.schema import schema_dir

    with (schema_dir() / "chart-values.json").open(encoding="utf-8") as fh:
        return json.load(fh)


def _covers(ranges, i: int) -> bool:
    return any(a <= i <= b for a, b in ranges)


def releases() -> list[str]:
    return list(_table()["versions"])


def _key(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


@lru_cache(maxsize=64)
def chart_keys(version: str) -> ChartKeys | None:
    """The chart of the release `version` (`1.0.6`): the table's last release at or below it, when it is of the
    same minor (a later minor may add keys the table does not have yet); None below the table's first."""
    versions = _table()["versions"]
    want = _key(version)
    below = [i for i, v in enumerate(versions) if _key(v) <= want]
    if not below or _key(versions[below[-1]])[:2] != want[:2]:
        return None
    i = below[-1]
    keys = _table()["keys"]
    return ChartKeys(versions[i], frozenset(k for k, e in keys.items() if _covers(e["in"], i)),
                     frozenset(k for k, e in keys.items() if _covers(e.get("open", ()), i)),
                     frozenset(k for k, e in keys.items() if _covers(e.get("unread", ()), i)))


@lru_cache(maxsize=1)
def any_release() -> ChartKeys:
    keys = _table()["keys"]
    return ChartKeys("", frozenset(keys), frozenset(k for k, e in keys.items() if e.get("open")),
                     frozenset(k for k, e in keys.items() if e.get("unread") == e["in"]))  # (unread wherever it is)


def known_in(path: str) -> tuple[str, str] | None:
    """(first, last) release of the table whose chart has `path` (first and last of all its ranges), or None."""
    entry = _table()["keys"].get(path)
    if entry is None:
        return None
    versions = _table()["versions"]
    return versions[entry["in"][0][0]], versions[entry["in"][-1][1]]
