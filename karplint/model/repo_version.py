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

import bisect
import os
import re
from typing import NamedTuple

from karplint.model.versions import Version
from karplint.numbers import MAX_DIGITS

MAX_TERRAFORM_BYTES = 1 << 20
MAX_BLOCK = 1 << 13  # a helm_release block is a few hundred bytes (values heredocs after chart/version)
MAX_RELEASES = 100  # helm_release blocks (and add-on inputs) read per file
MAX_VERSIONS_LISTED = 10  # versions named in the text report and the warning (all of them: in the JSON report)
_EXACT = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
_HELM_RELEASE = re.compile(r'^[ \t]*resource[ \t]+"helm_release"[ \t]+"([^"\n]*)"[ \t]*\{', re.M)
_ATTR = re.compile(r'^[ \t]*(chart|version)[ \t]*=[ \t]*(?:"([^"\n]*)"|var\.([A-Za-z_][\w-]*))[ \t]*(?:#.*)?$', re.M)
_ADDON = re.compile(r'^[ \t]*karpenter[ \t]*=[ \t]*\{[^{}]*?^[ \t]*chart_version[ \t]*=[ \t]*"([^"\n]*)"', re.M | re.S)
_VARIABLE = re.compile(r'^[ \t]*variable[ \t]+"([^"\n]+)"[ \t]*\{', re.M)
_DEFAULT = re.compile(r'^[ \t]*default[ \t]*=[ \t]*"([^"\n]*)"', re.M)
_BRACE = re.compile(r"[{}]")


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

class _Braces:
    """Where each `{` of a text closes, from one pass over its braces (braces inside strings counted too: good
    enough for the attributes looked for, which sit at a block's top). One pass, not a scan per block: 60,000
    unclosed `variable "x" {` lines would otherwise each scan MAX_BLOCK bytes."""

    def __init__(self, text: str):
        self.closes: dict[int, int] = {}
        opened: list[int] = []
        for m in _BRACE.finditer(text):
            if m.group() == "{":
                opened.append(m.start())
            elif opened:
                self.closes[opened.pop()] = m.start()

    def end(self, start: int, size: int) -> int:
        """The end (exclusive) of the `{ ... }` block opening at `start`, at most MAX_BLOCK characters."""
        close = self.closes.get(start)
        return min(size, start + MAX_BLOCK) if close is None or close >= start + MAX_BLOCK else close + 1


class _Lines:
    """Line numbers of positions asked for mostly in increasing order: counted on from the last one asked."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _variable_defaults(display: str, text: str, into: dict[tuple[str, str], str]) -> None:
    """The exact-string `default` of each `variable` block of one file: the first `default = "..."` line inside
    the block, found by bisecting the file's default lines (each block scanned again would be quadratic)."""
    starts, values = [], []
    for d in _DEFAULT.finditer(text):
        starts.append(d.start())
        values.append((d.end(), d.group(1)))
    if not starts:
        return
    braces = _Braces(text)
    directory = os.path.dirname(display)
    for m in _VARIABLE.finditer(text):
        start = m.end() - 1
        end = braces.end(start, len(text))
        i = bisect.bisect_left(starts, start)
        if i < len(starts) and values[i][0] <= end:
            into[(directory, m.group(1))] = values[i][1]


def terraform_evidence(files: list[tuple[str, str]]) -> list[Evidence]:
    """Karpenter chart versions of `helm_release` resources and add-on module inputs in Terraform files
    (display, text), in order."""
    defaults: dict[tuple[str, str], str] = {}  # (directory, variable) -> its default
    for display, text in files:
        if "variable" in text:
            _variable_defaults(display, text, defaults)
    out: list[Evidence] = []
    for display, text in files:
        if "karpenter" not in text:
            continue
        braces, lines = None, _Lines(text)
        for count, m in enumerate(_HELM_RELEASE.finditer(text)):
            if count >= MAX_RELEASES:
                break
            body_start = m.end() - 1
            braces = braces or _Braces(text)
            body = text[body_start:braces.end(body_start, len(text))]
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
                line = lines.at(at)
                what = f'helm_release "{m.group(1)}"' + (f" (var.{var} default)" if var else "")
                out.append(Evidence(v, display, line, what))
        for count, m in enumerate(_ADDON.finditer(text)):
            if count >= MAX_RELEASES:
                break
            v = exact(m.group(1))
            if v is not None:
                line = lines.at(m.start(1))
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


def collect(paths: list[tuple[str, str]], read, limit: int) -> list[Evidence]:
    """Every release pin in the files (display, abspath), whatever their kind: the one entry point the project
    stage calls (before the check, over the whole project, named paths or not)."""
    from karplint.discover import EXTENSIONS

    return read_terraform([p for p in paths if p[0].endswith(".tf")], read) + read_yaml(
        [p for p in paths if p[0].lower().endswith(EXTENSIONS)], read, limit)


# ------------------------------------------------------------------------------------------------ choosing

def _directory(path: str) -> str:
    return os.path.normpath(os.path.dirname(os.path.abspath(path)))


def _above(directory: str):
    """`directory` and each directory above it, up to the root."""
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


class _Beneath:
    """Evidence indexed by every directory above it: for a directory, the first evidence beneath it (in evidence
    order) and whether all evidence beneath it agrees on the version. A file's nearest evidence is then a walk up
    its own directories (remembered per directory), not a comparison with every piece of evidence: each directory
    is visited a bounded number of times, whatever the numbers of files, releases and levels."""

    def __init__(self, evidence: list[Evidence], indexes: list[int], directories: list[str]):
        self.first: dict[str, int] = {}
        self.mixed: set[str] = set()
        self.memo: dict[str, int | None] = {}
        for i in indexes:
            version = evidence[i].version
            for d in _above(directories[i]):
                j = self.first.setdefault(d, i)
                if j == i:
                    continue
                if d in self.mixed:
                    break  # (and every directory above it)
                if evidence[j].version != version:
                    self.mixed.add(d)
                else:
                    break  # (what is beneath this directory and above it already holds this version)

    def nearest(self, directory: str) -> int | None:
        """The evidence sharing the longest directory prefix with `directory`, when all such evidence agrees."""
        walked = []
        found = None
        for d in _above(directory):
            if d in self.memo:
                found = self.memo[d]
                break
            walked.append(d)
            i = self.first.get(d)
            if i is not None:
                found = None if d in self.mixed else i
                break
        for d in walked:
            self.memo[d] = found
        return found


def assign(files: list[str], evidence: list[Evidence], cluster_of=None) -> dict[str, Evidence]:
    """The evidence that applies to each file (display paths) when that is clear; a file left out keeps the default
    target. `cluster_of(display)`: the file's cluster directory (the `clusters` setting), or None."""
    if not evidence:
        return {}
    if len({e.version for e in evidence}) == 1:
        return {f: evidence[0] for f in files}
    ev_dirs = [_directory(e.file) for e in evidence]
    everything = list(range(len(evidence)))
    by_cluster: dict[object, list[int]] = {}  # a cluster (None: shared) -> its evidence
    if cluster_of is not None:
        for i, e in enumerate(evidence):
            by_cluster.setdefault(cluster_of(e.file), []).append(i)
    indexes: dict[object, _Beneath] = {}

    def index(key, members: list[int]) -> _Beneath:
        if key not in indexes:
            indexes[key] = _Beneath(evidence, members, ev_dirs)
        return indexes[key]

    out: dict[str, Evidence] = {}
    for f in files:
        beneath = None
        if cluster_of is not None:  # the file's cluster's evidence, else the shared evidence, else all of it
            c = cluster_of(f)
            if c is not None and c in by_cluster:
                beneath = index(("cluster", c), by_cluster[c])
            elif None in by_cluster:
                beneath = index(("shared",), by_cluster[None])
        if beneath is None:
            beneath = index(("all",), everything)
        i = beneath.nearest(_directory(f))
        if i is not None:
            out[f] = evidence[i]
    return out


def to_version(e: Evidence) -> Version:
    return Version.parse(e.version)
