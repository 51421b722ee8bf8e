"""The Karpenter version a repository deploys, read from its files when `karpenter-version` is not set.

Evidence, each with its file and line (`collect` reads every kind of file; the per-file stage reads YAML evidence of
the files it checks with `yaml_evidence`):

* YAML: a Flux `HelmRelease` / `OCIRepository`, an Argo CD `Application` for the karpenter chart, a `Chart.yaml`
  dependency on it (or the chart's own `appVersion`), the controller image tag of a Deployment
  (`karplint.model.detect`); add-on values, helmfile releases, Kustomize `helmCharts` (`release_values`);
* Terraform (`.tf`): `resource "helm_release"` blocks whose chart is karpenter or karpenter-crd (or a variable or a
  local, when the `repository`, `name` or the block's label says karpenter), with an exact `version = "1.2.3"`, or
  `var.NAME` / `local.NAME` whose value in the same directory is exact (`terraform.tfvars` and `*.auto.tfvars` before
  the `variable` default); `karpenter = { chart_version = "1.2.3" }` inputs of the EKS Blueprints add-ons modules and
  `karpenter_helm_config = { version = "1.2.3" }` of the older kubernetes-addons module;
* any text (scripts, Makefiles, `.env`, CI variables, Markdown and AsciiDoc, `.tfvars`, Terragrunt `.hcl`, YAML):
  `KARPENTER_VERSION=1.2.3` and the like, `helm upgrade --install ... karpenter/karpenter --version 1.2.3`
  (`release_scripts`).

Only exact versions count (`1.2.x`, `~> 1.2` are not a release). `assign` says which evidence applies to each file:
one version for all when the files agree; otherwise the one of the file's cluster (`clusters` setting), else the
one sharing the longest directory prefix with the file; a tie between versions is not clear: the file keeps the
default target.
"""

from __future__ import annotations

import bisect
import os
import re

from karplint.model.release_evidence import Evidence, LineNumbers as _Lines, exact, is_karpenter_chart
from karplint.model.release_scripts import PIN_NAME
from karplint.model.versions import Version

__all__ = ["Evidence", "exact", "collect", "assign", "yaml_evidence", "terraform_evidence", "to_version"]

MAX_TERRAFORM_BYTES = 1 << 20
MAX_BLOCK = 1 << 13  # a helm_release block is a few hundred bytes (values heredocs after chart/version)
MAX_RELEASES = 100  # helm_release blocks (and add-on inputs) read per file
MAX_VERSIONS_LISTED = 10  # versions named in the text report and the warning (all of them: in the JSON report)
_HELM_RELEASE = re.compile(r'^[ \t]*resource[ \t]+"helm_release"[ \t]+"([^"\n]*)"[ \t]*\{', re.M)
_ATTR = re.compile(r'^[ \t]*(chart|version|repository|name)[ \t]*=[ \t]*'
                   r'(?:"([^"\n]*)"|(var|local)\.([A-Za-z_][\w-]*))[ \t\r]*(?:#.*)?$', re.M)  # (\r: CRLF files)
_ADDON = re.compile(r'^[ \t]*karpenter[ \t]*=[ \t]*\{[^{}]*?^[ \t]*chart_version[ \t]*=[ \t]*"([^"\n]*)"', re.M | re.S)
_ADDON_V4 = re.compile(r'^[ \t]*karpenter_helm_config[ \t]*=[ \t]*\{[^{}]*?^[ \t]*version[ \t]*=[ \t]*"([^"\n]*)"',
                       re.M | re.S)
_VARIABLE = re.compile(r'^[ \t]*variable[ \t]+"([^"\n]+)"[ \t]*\{', re.M)
_DEFAULT = re.compile(r'^[ \t]*default[ \t]*=[ \t]*"([^"\n]*)"', re.M)
_LOCALS = re.compile(r'^[ \t]*locals[ \t]*\{', re.M)
_STRING_ATTR = re.compile(r'^[ \t]*([A-Za-z_][\w-]*)[ \t]*=[ \t]*"([^"\n]*)"', re.M)
_BRACE = re.compile(r"[{}]")
_KARPENTER_LABELS = ("karpenter", "karpenter-crd", "karpenter_crd")


# ------------------------------------------------------------------------------------------------ YAML

# What a YAML file holds for `yaml_evidence` to find: the kinds `karplint.model.detect` reads, the controller image,
# or values (`release_values`); a file of none of them is not parsed by `collect`.
_YAML_PIN_BYTES = re.compile(rb"HelmRelease|Application|OCIRepository|karpenter/controller:|[Cc]hart|repo|"
                             rb"karpenter(?:-crd|_crd|Crd)?[\"']?[ \t]*:")


def yaml_evidence(docs) -> list[Evidence]:
    """Karpenter releases the documents of one file install (`karplint.model.detect.karpenter_releases`) or pin as
    values (`karplint.model.release_values`). A documentation example (a Markdown or AsciiDoc block) installs
    nothing: it is no evidence of the release the repository deploys."""
    from karplint.model import Model
    from karplint.model.detect import karpenter_releases
    from karplint.model.release_values import values_evidence

    docs = [d for d in docs if not d.documentation_example]
    if not docs:
        return []
    model = Model()
    model.add(docs)
    return [Evidence(str(r.version), r.doc.path, r.doc.span(r.path).line, r.what)
            for r in karpenter_releases(model)] + values_evidence(docs)


def _yaml_might_pin(display: str, raw: bytes) -> bool:
    return os.path.basename(display) == "Chart.yaml" or _YAML_PIN_BYTES.search(raw) is not None


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


def _variable_defaults(display: str, text: str, into: dict[tuple[str, str], str],
                       pins: list[tuple[str, str, int]] | None = None) -> None:
    """The exact-string `default` of each `variable` block of one file: the first `default = "..."` line inside
    the block, found by bisecting the file's default lines (each block scanned again would be quadratic).
    `pins` gets (variable, value, line) of the variables whose name says they are Karpenter's version."""
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
            if pins is not None and PIN_NAME.fullmatch(m.group(1)):
                pins.append((m.group(1), values[i][1], text.count("\n", 0, starts[i]) + 1))


def _locals(display: str, text: str, into: dict[tuple[str, str], str]) -> None:
    """The string attributes at the top of each `locals` block of one file."""
    braces = None
    directory = os.path.dirname(display)
    for count, m in enumerate(_LOCALS.finditer(text)):
        if count >= MAX_RELEASES:
            break
        braces = braces or _Braces(text)
        start = m.end() - 1
        body = text[start:braces.end(start, len(text))]
        depth, seen = 0, 0
        for a in _STRING_ATTR.finditer(body):
            depth += body.count("{", seen, a.start()) - body.count("}", seen, a.start())
            seen = a.start()
            if depth == 1:
                into.setdefault((directory, a.group(1)), a.group(2))


def _top_attributes(body: str, body_start: int) -> dict[str, tuple[str | None, str | None, str | None, int]]:
    """chart, version, repository, name of a helm_release body: (literal, "var"/"local", referenced name, position);
    top-level attributes only (not `set { name = ... }`)."""
    attrs: dict[str, tuple[str | None, str | None, str | None, int]] = {}
    depth, seen = 0, 0
    for a in _ATTR.finditer(body):
        depth += body.count("{", seen, a.start()) - body.count("}", seen, a.start())
        seen = a.start()
        if depth == 1 and a.group(1) not in attrs:
            attrs[a.group(1)] = (a.group(2), a.group(3), a.group(4), body_start + a.start())
            if len(attrs) == 4:
                break
    return attrs


def _installs_karpenter(label: str, attrs: dict) -> bool:
    """The chart is karpenter(-crd); or it is a variable or a local and the repository, name or label says so."""
    chart = attrs.get("chart")
    if chart is None:
        return False
    if chart[0] is not None:
        return is_karpenter_chart(chart[0])
    repository, name = attrs.get("repository"), attrs.get("name")
    return ((repository is not None and "karpenter" in (repository[0] or ""))
            or (name is not None and (name[0] or "") in _KARPENTER_LABELS) or label in _KARPENTER_LABELS)


def terraform_evidence(files: list[tuple[str, str]],
                       tfvars: dict[tuple[str, str], tuple[str, str]] | None = None) -> list[Evidence]:
    """Karpenter chart versions of `helm_release` resources and add-on module inputs in Terraform files
    (display, text), in order. `tfvars`: (directory, variable) -> (value, file name) set by `terraform.tfvars` and
    `*.auto.tfvars` (`tfvars_values`), which win over a variable's default."""
    defaults: dict[tuple[str, str], str] = {}  # (directory, variable) -> its default
    local_values: dict[tuple[str, str], str] = {}  # (directory, local) -> its value
    out: list[Evidence] = []
    for display, text in files:
        pins: list[tuple[str, str, int]] = []  # `variable "karpenter_version" { default = "1.2.3" }`
        if "variable" in text:
            _variable_defaults(display, text, defaults, pins)
        if "locals" in text:
            _locals(display, text, local_values)
        for name, value, line in pins:
            v = exact(value)
            if v is not None and (os.path.dirname(display), name) not in (tfvars or {}):  # (else: the tfvars pin)
                out.append(Evidence(v, display, line, f'variable "{name}" default'))
    for display, text in files:
        if "karpenter" not in text:
            continue
        braces, lines = None, _Lines(text)
        directory = os.path.dirname(display)
        for count, m in enumerate(_HELM_RELEASE.finditer(text)):
            if count >= MAX_RELEASES:
                break
            body_start = m.end() - 1
            braces = braces or _Braces(text)
            attrs = _top_attributes(text[body_start:braces.end(body_start, len(text))], body_start)
            version = attrs.get("version")
            if version is None or not _installs_karpenter(m.group(1), attrs):
                continue
            literal, kind, ref, at = version
            how = ""
            if kind == "var":
                if tfvars and (directory, ref) in tfvars:
                    literal, source = tfvars[(directory, ref)]
                    how = f" (var.{ref} in {source})"
                else:
                    literal, how = defaults.get((directory, ref)), f" (var.{ref} default)"
            elif kind == "local":
                literal, how = local_values.get((directory, ref)), f" (local.{ref})"
            v = exact(literal)
            if v is not None:
                out.append(Evidence(v, display, lines.at(at), f'helm_release "{m.group(1)}"{how}'))
        for pattern, what in ((_ADDON, "karpenter add-on chart_version"),
                              (_ADDON_V4, "karpenter_helm_config version")):
            for count, m in enumerate(pattern.finditer(text)):
                if count >= MAX_RELEASES:
                    break
                v = exact(m.group(1))
                if v is not None:
                    out.append(Evidence(v, display, lines.at(m.start(1)), what))
    return out


_TFVARS_LINE = re.compile(r'^[ \t]*([A-Za-z_][\w-]*)[ \t]*=[ \t]*"([^"\n]*)"', re.M)


def is_auto_tfvars(display: str) -> bool:
    """`terraform.tfvars` and `*.auto.tfvars`: the variable files Terraform loads without being told."""
    base = os.path.basename(display)
    return base == "terraform.tfvars" or base.endswith(".auto.tfvars")


def tfvars_values(files: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """(directory, variable) -> (value, file name) of the string assignments of auto-loaded variable files
    (display, text)."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for display, text in sorted(files):  # (Terraform loads *.auto.tfvars in lexical order, the later winning)
        for m in _TFVARS_LINE.finditer(text):
            out[(os.path.dirname(display), m.group(1))] = (m.group(2), os.path.basename(display))
    return out


def _parsed_yaml_evidence(display: str, abspath: str, raw: bytes) -> list[Evidence]:
    from karplint.readers.loader import decode, load

    src = decode(display, raw, abspath)
    return yaml_evidence(load(src)[0]) if hasattr(src, "text") else []


# Documentation: it describes an install more often than it performs one, so it pins only when nothing else does
# (a stale upgrade note must not make the Terraform pin of the same repository unclear).
DOC_EXTENSIONS = (".md", ".markdown", ".mdx", ".adoc", ".asciidoc", ".rst", ".txt")


def collect(paths: list[tuple[str, str]], read, limit: int) -> list[Evidence]:
    """Every release pin in the files (display, abspath), whatever their kind: the one entry point the project
    stage calls (before the check, over the whole project, named paths or not). Each file is read once; a file
    whose bytes name no pin (`karpenter` for most forms, a variable or local for Terraform) is not decoded."""
    from karplint.discover import EXTENSIONS
    from karplint.model.release_scripts import might_pin, text_evidence

    terraform: list[tuple[str, str]] = []
    tfvars: list[tuple[str, str]] = []
    found: list[Evidence] = []
    docs: list[Evidence] = []
    for display, abspath in paths:
        try:
            raw = read(abspath, limit)
        except OSError:
            continue
        if len(raw) > limit:
            continue  # (the check reports it as too large)
        name = display.lower()
        small = len(raw) <= MAX_TERRAFORM_BYTES
        if name.endswith(".tf"):
            if small and (b"karpenter" in raw or b"variable" in raw or b"locals" in raw):
                terraform.append((display, raw.decode("utf-8", "replace")))
        elif small and is_auto_tfvars(display):
            tfvars.append((display, raw.decode("utf-8", "replace")))
        if (b"karpenter" not in raw and b"KARPENTER" not in raw) or b"\0" in raw[:8192]:
            continue  # (nothing of Karpenter's, or not text)
        if name.endswith(EXTENSIONS) and b"karpenter" in raw and _yaml_might_pin(display, raw):
            found.extend(_parsed_yaml_evidence(display, abspath, raw))
        if might_pin(raw):
            (docs if name.endswith(DOC_EXTENSIONS) else found).extend(
                text_evidence(display, raw.decode("utf-8", "replace")))
    found = terraform_evidence(terraform, tfvars_values(tfvars)) + found
    return found or docs


def without_stale_docs(evidence: list[Evidence]) -> list[Evidence]:
    """Documentation pins only when nothing else does, across every source of evidence (`collect` sees the files
    that are not YAML; the per-file stage finds the YAML pins)."""
    configuration = [e for e in evidence if not e.file.lower().endswith(DOC_EXTENSIONS)]
    return configuration or list(evidence)


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
