"""The Karpenter version a repository deploys, read from its files when `karpenter-version` is not set.

Evidence, each with its file and line:

* YAML (per file, in the per-file stage, cached with it): a Flux `HelmRelease` / `OCIRepository`, an Argo CD
  `Application` for the karpenter chart, a `Chart.yaml` dependency on it (or the chart's own `appVersion`), the
  controller image tag of a Deployment (`karplint.model.detect`);
* Terraform (`.tf`, read before the check): `resource "helm_release"` blocks whose chart is karpenter, with an exact
  `version = "1.2.3"` (or `var.NAME` whose `variable "NAME"` default in the same directory is exact), and
  `karpenter = { chart_version = "1.2.3" }` inputs of the EKS Blueprints add-ons modules.

Only exact versions count (`1.2.x`, `~> 1.2` are not a release). `assign` says which evidence applies to each file:
one version for all when the files agree; otherwise the one of the file's cluster (`clusters` setting), else the
one sharing the longest directory prefix with the file; a tie between versions is not clear: the file keeps the
default target.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from karplint.model.versions import Version
from karplint.numbers import MAX_DIGITS

MAX_TERRAFORM_BYTES = 1 << 20
MAX_BLOCK = 1 << 13  # a helm_release block is a few hundred bytes (values heredocs after chart/version)
MAX_RELEASES = 100  # helm_release blocks read per file
_EXACT = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
_HELM_RELEASE = re.compile(r'^[ \t]*resource[ \t]+"helm_release"[ \t]+"([^"\n]*)"[ \t]*\{', re.M)
_ATTR = re.compile(r'^[ \t]*(chart|version)[ \t]*=[ \t]*(?:"([^"\n]*)"|var\.([A-Za-z_][\w-]*))[ \t]*(?:#.*)?$', re.M)
_ADDON = re.compile(r'^[ \t]*karpenter[ \t]*=[ \t]*\{[^{}]*?^[ \t]*chart_version[ \t]*=[ \t]*"([^"\n]*)"', re.M | re.S)
_VARIABLE = re.compile(r'^[ \t]*variable[ \t]+"([^"\n]+)"[ \t]*\{', re.M)
_DEFAULT = re.compile(r'^[ \t]*default[ \t]*=[ \t]*"([^"\n]*)"', re.M)


class Evidence(NamedTuple):
    version: str  # exact, without a leading v
    file: str  # display path
    line: int
    what: str  # `helm_release "karpenter"`, `HelmRelease flux-system/karpenter`, ...

    @property
    def where(self) -> str:
        return f"{self.what} at {self.file}:{self.line}"


def exact(text) -> str | None:
    if not isinstance(text, str):
        return None
    m = _EXACT.match(text.strip())
    if not m or any(len(g) > MAX_DIGITS for g in m.groups()[:3]):
        return None
    return f"{int(m.group(1))}.{int(m.group(2))}.{int(m.group(3))}"


# ------------------------------------------------------------------------------------------------ YAML

def yaml_evidence(docs) -> list[Evidence]:
    """Karpenter releases the documents of one file install (`karplint.model.detect.karpenter_releases`)."""
    from karplint.model import Model
    from karplint.model.detect import karpenter_releases

    model = Model()
    model.add(docs)
    return [Evidence(str(r.version), r.doc.path, r.doc.span(r.path).line, r.what) for r in karpenter_releases(model)]


# ------------------------------------------------------------------------------------------------ Terraform

def _block(text: str, start: int) -> str:
    """The text of the `{ ... }` block opening at `start` (braces inside strings counted too: good enough for the
    attributes looked for, which sit at the block's top)."""
    depth, i, n = 0, start, min(len(text), start + MAX_BLOCK)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
        i += 1
    return text[start:n]


def terraform_evidence(files: list[tuple[str, str]]) -> list[Evidence]:
    """Karpenter chart versions of `helm_release` resources and add-on module inputs in Terraform files
    (display, text), in order."""
    defaults: dict[tuple[str, str], str] = {}  # (directory, variable) -> its default
    for display, text in files:
        if "variable" not in text:
            continue
        for m in _VARIABLE.finditer(text):
            d = _DEFAULT.search(_block(text, m.end() - 1))
            if d is not None:
                defaults[(os.path.dirname(display), m.group(1))] = d.group(1)
    out: list[Evidence] = []
    for display, text in files:
        if "karpenter" not in text:
            continue
        for count, m in enumerate(_HELM_RELEASE.finditer(text)):
            if count >= MAX_RELEASES:
                break
            body_start = m.end() - 1
            body = _block(text, body_start)
            attrs: dict[str, tuple[str | None, str | None, int]] = {}
            depth, seen = 0, 0
            for a in _ATTR.finditer(body):  # top-level attributes only (not `set { name = ... }`)
                depth += body.count("{", seen, a.start()) - body.count("}", seen, a.start())
                seen = a.start()
                if depth == 1 and a.group(1) not in attrs:
                    attrs[a.group(1)] = (a.group(2), a.group(3), body_start + a.start())
                    if len(attrs) == 2:
                        break
            chart = attrs.get("chart")
            if chart is None or chart[0] is None or chart[0].rstrip("/").rsplit("/", 1)[-1] != "karpenter":
                continue
            version = attrs.get("version")
            if version is None:
                continue
            literal, var, at = version
            value = literal if literal is not None else defaults.get((os.path.dirname(display), var))
            v = exact(value)
            if v is not None:
                line = text.count("\n", 0, at) + 1
                what = f'helm_release "{m.group(1)}"' + (f" (var.{var} default)" if var else "")
                out.append(Evidence(v, display, line, what))
        for m in _ADDON.finditer(text):
            v = exact(m.group(1))
            if v is not None:
                line = text.count("\n", 0, m.start(1)) + 1
                out.append(Evidence(v, display, line, "karpenter add-on chart_version"))
    return out


def read_terraform(paths: list[tuple[str, str]], read) -> list[Evidence]:
    """`terraform_evidence` of the files (display, abspath); a byte pre-check keeps files that never mention
    karpenter or a variable unread beyond their bytes."""
    texts = []
    for display, abspath in paths:
        try:
            raw = read(abspath, MAX_TERRAFORM_BYTES)
        except OSError:
            continue
        if len(raw) > MAX_TERRAFORM_BYTES or (b"karpenter" not in raw and b"variable" not in raw):
            continue
        texts.append((display, raw.decode("utf-8", "replace")))
    return terraform_evidence(texts)


def read_yaml(paths: list[tuple[str, str]], read, limit: int) -> list[Evidence]:
    """`yaml_evidence` of the YAML files (display, abspath) that mention karpenter (for `--show-settings`, which
    does not run a check)."""
    from karplint.readers.loader import decode, load

    out: list[Evidence] = []
    for display, abspath in paths:
        try:
            raw = read(abspath, limit)
        except OSError:
            continue
        if len(raw) > limit or b"karpenter" not in raw:
            continue
        src = decode(display, raw, abspath)
        if hasattr(src, "text"):
            out.extend(yaml_evidence(load(src)[0]))
    return out


# ------------------------------------------------------------------------------------------------ choosing

def _parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(os.path.dirname(os.path.abspath(path))).split(os.sep) if p]


def assign(files: list[str], evidence: list[Evidence], cluster_of=None) -> dict[str, Evidence]:
    """The evidence that applies to each file (display paths) when that is clear; a file left out keeps the default
    target. `cluster_of(display)`: the file's cluster directory (the `clusters` setting), or None."""
    if not evidence:
        return {}
    if len({e.version for e in evidence}) == 1:
        return {f: evidence[0] for f in files}
    ev_parts = [_parts(e.file) for e in evidence]
    ev_cluster = [cluster_of(e.file) if cluster_of else None for e in evidence]
    out: dict[str, Evidence] = {}
    for f in files:
        candidates = list(range(len(evidence)))
        if cluster_of is not None:
            c = cluster_of(f)
            same = [i for i in candidates if ev_cluster[i] is not None and ev_cluster[i] == c]
            shared = [i for i in candidates if ev_cluster[i] is None]
            candidates = same or shared or candidates
        fp = _parts(f)
        best, best_score = [], -1
        for i in candidates:
            score = 0
            for a, b in zip(fp, ev_parts[i]):
                if a != b:
                    break
                score += 1
            if score > best_score:
                best, best_score = [i], score
            elif score == best_score:
                best.append(i)
        if len({evidence[i].version for i in best}) == 1:
            out[f] = evidence[best[0]]
    return out


def to_version(e: Evidence) -> Version:
    return Version.parse(e.version)
