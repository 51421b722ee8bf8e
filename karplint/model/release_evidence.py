"""A Karpenter release pinned by a file of the repository (`Evidence`), and what counts as a pin (`exact`).

Shared by the readers of each kind of file (`repo_version` for YAML and Terraform, `release_scripts` for scripts,
docs and variable files, `release_values` for add-on values) so that none of them imports another."""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from karplint.numbers import MAX_DIGITS

_EXACT = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
# The charts whose version is the Karpenter release: the controller's chart and its CRD chart, released together.
KARPENTER_CHARTS = ("karpenter", "karpenter-crd")


class Evidence(NamedTuple):
    version: str  # exact, without a leading v
    file: str  # display path
    line: int
    what: str  # `helm_release "karpenter"`, `HelmRelease flux-system/karpenter`, `KARPENTER_VERSION`, ...

    @property
    def where(self) -> str:
        return f"{self.what} at {self.file}:{self.line}"


def exact(text) -> str | None:
    """`1.2.3` for `1.2.3` or `v1.2.3`; None for anything else (`1.2.x`, `~> 1.2`, `${VAR}`, `1.2.3-rc.1`)."""
    if not isinstance(text, str):
        return None
    m = _EXACT.match(text.strip())
    if not m or any(len(g) > MAX_DIGITS for g in m.groups()[:3]):
        return None
    return f"{int(m.group(1))}.{int(m.group(2))}.{int(m.group(3))}"


def is_karpenter_chart(chart: str) -> bool:
    """A chart reference (`karpenter`, `karpenter/karpenter`, `oci://public.ecr.aws/karpenter/karpenter-crd`) that
    names one of KARPENTER_CHARTS; a local path (`./charts/karpenter`) does not (a version flag does not apply)."""
    chart = chart.strip()
    if chart.startswith((".", "/", "~")):
        return False
    return chart.rstrip("/").rsplit("/", 1)[-1] in KARPENTER_CHARTS


class LineNumbers:
    """Line numbers of positions in any order: the newlines are found once, a position is a bisection."""

    def __init__(self, text: str):
        self.text, self.newlines = text, None

    def at(self, pos: int) -> int:
        if self.newlines is None:
            self.newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect.bisect_left(self.newlines, pos) + 1
