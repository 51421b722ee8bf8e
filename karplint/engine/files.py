"""The per-file stage's inputs and outputs: an input file, how it is read and parsed (`read_input`, `parse_input`,
`load_input`), and what the stage keeps of it (`FileSummary`, `FileOutcome`, `Result`), small enough to cache and to
send between processes."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from karplint.config import Config
from karplint.readers.document import Document
from karplint.readers.files import InputFile, read_regular  # noqa: F401 - (also karplint.engine's, for its callers)
from karplint.readers.kustomize import KUSTOMIZATION_FILES
from karplint.findings import Fix
from karplint.readers.loader import Problem, decode, load, load_file
from karplint.readers.source import SourceFile, Span
from karplint.readers.suppression import Suppression, from_comments


@dataclass
class FileResult:
    """One file parsed: what `load_input` returns (also used by `render`)."""

    display: str
    source: SourceFile | None
    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)


DocKey = tuple  # (path, document index, list-item base): identifies a document across processes


# A rule reports at most this many findings per resource (the next one says that more were cut): a userData with
# 200,000 `<powershell>` tags must not cost minutes and a gigabyte of report.
MAX_FINDINGS_PER_RESOURCE = 100
# Karpenter objects of one kind checked one by one in one file: schema, CEL and rules cost about a millisecond each
# (10,000 NodePools in a file took 12 s); no repository keeps this many in one file. Past it: KPL004, and the rest
# are still seen by cross-file rules (a NodePool left unchecked still hosts workloads).
MAX_CHECKED_PER_KIND = 1_000


class Result(NamedTuple):
    """A rule's verdict resolved to plain data (positions included), so it can be cached and shipped."""

    code: str  # the code reported: the rule's, or KPL006 for an internal error
    rule: str  # the rule that ran
    file: str
    span: Span
    message: str
    resource: dict | None
    fix: Fix | None
    severity: str | None
    doc: DocKey | None


@dataclass
class FileSummary:
    """What the run needs from one file besides its run-stage documents; small, cached per file."""

    display: str
    problems: list[Problem] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)  # verdicts of resource- and file-scope rules
    annotations: list[tuple[DocKey, Suppression]] = field(default_factory=list)  # karplint.io/ignore
    resources: int = 0
    karpenter: int = 0  # how many of them are Karpenter objects (karpenter.sh, karpenter.k8s.aws)
    helm_rendered: bool = False  # rendered Helm output (`# Source:` comments): findings may move to templates
    releases: tuple = ()  # Karpenter releases this file installs (`karplint.model.repo_version.Evidence`)
    version_dependent: bool = False  # some rule read the target Karpenter version on this file
    needs_model: frozenset = frozenset()  # resource-scope rules that read `ctx.model` here: run-stage instead
    run_documents: int = 0  # how many of its documents the run stage reads
    run_rules: frozenset = frozenset()  # the cross-file rules that read them

    def packed(self) -> "FileSummary | int | tuple":
        """What the cache stores: most files have nothing but resources to report, and a number pickles (and
        unpickles) far faster than an object; a file whose documents cross-file rules read (every workload, for
        some) is a tuple whose set of rules is shared with every other file's equal set."""
        if (self.problems or self.suppressions or self.results or self.annotations or self.needs_model
                or self.karpenter or self.helm_rendered or self.releases or self.version_dependent):
            return self
        if not (self.run_documents or self.run_rules):
            return self.resources
        rules = _SHARED_RULE_SETS.setdefault(self.run_rules, self.run_rules)
        return (self.resources, self.run_documents, rules)

    @staticmethod
    def unpacked(display: str, packed: "FileSummary | int | tuple") -> "FileSummary":
        if type(packed) is int:  # shared empty tuples: thousands of these are made per run, and never changed
            return FileSummary(display, (), (), (), (), packed)
        if type(packed) is tuple:
            resources, run_documents, run_rules = packed
            return FileSummary(display, (), (), (), (), resources, run_documents=run_documents, run_rules=run_rules)
        return packed

    @staticmethod
    def is_packed(packed) -> bool:
        return (isinstance(packed, FileSummary) or type(packed) is int
                or (type(packed) is tuple and len(packed) == 3 and type(packed[0]) is int
                    and type(packed[1]) is int and type(packed[2]) is frozenset))


_SHARED_RULE_SETS: dict[frozenset, frozenset] = {}


class FileOutcome:
    """A file's per-file stage result, computed now or taken from the cache: the summary, and the documents the
    run stage reads (a list; or, from the cache, the pickled list or a function fetching it, used only when a
    cross-file rule must run again)."""

    __slots__ = ("summary", "key", "_docs", "_blob")

    def __init__(self, summary: FileSummary, docs: list[Document] | bytes | Callable | None, key: str | None = None):
        self.summary = summary
        self.key = key
        self._docs = docs
        self._blob: bytes | None = None  # the pickled documents, kept while they are unpickled

    def documents(self) -> list[Document]:
        self.fetch()
        if isinstance(self._docs, bytes):
            import pickle

            self._blob = self._docs
            self._docs = pickle.loads(self._blob)
        return self._docs or []

    def fetch(self) -> None:
        """Fetch cached documents now, still pickled."""
        if callable(self._docs):
            self._docs = self._docs()

    def release(self) -> None:
        """Forget the unpickled documents (they can be unpickled again): the run stage's rules are done with them."""
        if self._blob is not None:
            self._docs, self._blob = self._blob, None

    def documents_blob(self) -> bytes | None:
        if self._docs is None or isinstance(self._docs, bytes):
            return self._docs
        if self._blob is not None:
            return self._blob
        if not self._docs:
            return None
        import pickle

        return pickle.dumps(self._docs, pickle.HIGHEST_PROTOCOL)


# ---------------------------------------------------------------------------------------------- loading

def load_input(item: InputFile, config: Config) -> FileResult:
    """Read, decode and parse one file. Every problem becomes a `Problem`; nothing raises."""
    raw = read_input(item, config)
    if isinstance(raw, FileResult):
        return raw
    return parse_input(item, raw, config.charts)


def read_input(item: InputFile, config: Config) -> bytes | FileResult:
    """The bytes of one input, or a FileResult holding the problem that prevented reading them."""
    try:
        if item.data is not None:
            raw = item.data
        else:
            size = os.stat(item.abspath).st_size
            if size > config.max_file_size:
                return FileResult(item.display, None, problems=[Problem(
                    "KPL004", f"file is {size:,} bytes, over the {config.max_file_size:,}-byte limit "
                    "(`max-file-size` in the configuration); not checked", Span.point(1, 1))])
            raw = read_regular(item.abspath, config.max_file_size)
        if len(raw) > config.max_file_size:
            return FileResult(item.display, None, problems=[Problem(
                "KPL004", f"input is over the {config.max_file_size:,}-byte limit (`max-file-size`); not checked",
                Span.point(1, 1))])
    except OSError as exc:
        return FileResult(item.display, None, problems=[
            Problem("KPL003", f"cannot read file: {exc.strerror or exc}", Span.point(1, 1))])
    return raw


def parse_input(item: InputFile, raw: bytes, charts: dict | None = None) -> FileResult:
    """Decode and parse one file's bytes. `charts`: each chart's values.yaml scalars and helm rendering, what Go
    templates are read with (`chart_context` in karplint/readers/helm_charts.py)."""
    host = _host_kind(item.display)
    if b"{{" in raw:  # a Go/Helm template (chart template, .gotmpl, a .tpl or .yaml with actions): read as one
        template = _load_template(item, raw, host, charts)
        if template is not None:
            return template
    if host is not None:  # YAML embedded in Terraform, templates, shell, Markdown (readers/embedded.py)
        from karplint.readers.embedded import worth_reading

        if not worth_reading(host, raw):  # the cheap pre-check: nothing to extract, nothing decoded
            return FileResult(item.display, None)
    src = decode(item.display, raw, item.abspath)
    if isinstance(src, Problem):
        return FileResult(item.display, None, problems=[src])
    try:
        if host is not None:
            from karplint.readers.embedded import load_host

            docs, problems = load_host(src, host)
        else:
            docs, problems = load_file(src)
            if b"patch" in raw and item.display.replace("\\", "/").rsplit("/", 1)[-1] in KUSTOMIZATION_FILES:
                from karplint.readers.kustomize import inline_patches  # `patch: |-` strings: readers/kustomize.py

                more, more_problems = inline_patches(src, docs)
                docs, problems = docs + more, problems + more_problems
            if b"Application" in raw and b"karpenter" in raw and b"values" in raw:
                from karplint.readers.chart_values import application_values  # `helm.values: |` strings

                more, more_problems = application_values(src, docs)
                docs, problems = docs + more, problems + more_problems
    except Exception as exc:  # noqa: BLE001 - isolation: one file never stops the others
        return FileResult(item.display, src, problems=[Problem(
            "KPL006", f"internal error while loading: {type(exc).__name__}: {exc}", Span.point(1, 1))])
    if any(p.code == "KPL001" for p in problems):  # a template or JSON with comments: not meant to be plain YAML
        docs, problems = _reread(src, host, docs, problems)
    return FileResult(item.display, src, docs, problems, from_comments(src))


def _reread(src: SourceFile, host: str | None, docs: list, problems: list) -> tuple[list, list]:
    from karplint.readers.reread import reread

    try:
        return reread(src, host, docs, problems)
    except Exception:  # noqa: BLE001 - isolation: the first reading and its syntax error stand
        return docs, problems


def _load_template(item: InputFile, raw: bytes, host: str | None, charts: dict | None) -> FileResult | None:
    """The FileResult of a Go template file, or None when the file is not one (then read as before)."""
    from karplint.readers.chart_templates import TEMPLATE_SUFFIXES, load_template, read_as_template
    from karplint.readers.gotemplate import has_unquoted_action

    if host not in (None, "tftemplate") and not item.display.lower().endswith(TEMPLATE_SUFFIXES):
        return None  # (Markdown, shell, Terraform: their regions are read by readers/embedded.py)
    src = decode(item.display, raw, item.abspath)
    if isinstance(src, Problem):
        return FileResult(item.display, None, problems=[src])
    if not read_as_template(item.display, raw, src.text, item.abspath):
        if not has_unquoted_action(src.text):
            return None
        # actions outside quotes that YAML happens to read or not: a template when plain YAML fails on it
        plain = load_any(src) if host is not None else load(src)
        if not any(p.code == "KPL001" for p in plain[1]):
            return FileResult(item.display, src, plain[0], plain[1], from_comments(src))
    try:
        docs, problems = load_template(src, charts)
    except Exception as exc:  # noqa: BLE001 - isolation: one file never stops the others
        return FileResult(item.display, src, problems=[Problem(
            "KPL006", f"internal error while loading: {type(exc).__name__}: {exc}", Span.point(1, 1))])
    return FileResult(item.display, src, docs, problems, from_comments(src))


def _host_kind(display: str) -> str | None:
    if display.endswith((".yaml", ".yml", ".json")):
        return None
    from karplint.readers.embedded import host_kind

    return host_kind(display)


def load_any(src: SourceFile) -> tuple[list[Document], list[Problem]]:
    """`load`, or the embedded regions of a host file (Terraform, template, shell, Markdown)."""
    host = _host_kind(src.path)
    if host is None:
        return load(src)
    from karplint.readers.embedded import load_host

    return load_host(src, host)


