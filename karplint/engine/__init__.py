"""Run a check: load every input, build the model, run the selected rules, apply suppressions.

    inputs -> per-file stage (one file at a time: parse, resource- and file-scope rules) -> FileSummary
           -> run stage (run-scope rules over the documents they read, across files; two processes share it
              when it is large: engine/parallel.py) -> Finding -> Report

The per-file stage depends only on one file, the configuration and karplint, so its `FileSummary` can be
computed in worker processes and cached. The run stage sees only the documents some selected cross-file rule
reads (each such rule declares them: `Rule.reads`); most documents of a monorepo are never loaded into it.
"""

from __future__ import annotations

import fnmatch
import os
import traceback
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Callable, Iterable, NamedTuple

from karplint.config import Config
from karplint.readers.document import Document
from karplint.readers.files import read_regular  # (also karplint.engine.read_regular, for its callers)
from karplint.findings import Finding, Fix, severity_rank
from karplint.readers.loader import Problem, decode, load
from karplint.model import Model, Parts, Resource, as_resource
from karplint.model.versions import KARPENTER_GROUPS
from karplint.readers.kustomize import PATCH_RULES
from karplint.rules import Context, Rule, Violation, all_rules
from karplint.rules.base import REGISTRY
from karplint.readers.source import SourceFile, Span
from karplint.readers.suppression import ANNOTATION, Suppression, from_comments, split_codes


@dataclass
class InputFile:
    display: str
    abspath: str | None = None  # None: `data` is given (stdin, tests)
    data: bytes | None = None
    stat: tuple | None = None  # (size, mtime_ns, ctime_ns, inode) seen by discovery: lets the cache skip reading


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


class Sources:
    """Decoded sources by display path, read on first use (code frames and fixes need a few files, not all).

    A file is read again here: it has the bytes the check saw a moment ago (the cache vouched for them by hash,
    or by size, mtime and inode), and only files with findings are ever asked for."""

    def __init__(self, inputs: Iterable[InputFile] = ()):
        self._inputs = {item.display: item for item in inputs}
        self._decoded: dict[str, SourceFile | None] = {}

    def add(self, display: str) -> None:
        """Make a file outside the inputs readable for code frames (a chart template findings were moved to)."""
        if display not in self._inputs:
            self._inputs[display] = InputFile(display, os.path.abspath(display))
            self._decoded.pop(display, None)

    def get(self, display: str, default=None) -> SourceFile | None:
        if display not in self._decoded:
            self._decoded[display] = self._read(display)
        return self._decoded[display] or default

    def _read(self, display: str) -> SourceFile | None:
        item = self._inputs.get(display)
        if item is None:
            return None
        raw = item.data
        if raw is None and item.abspath is not None:
            try:
                raw = read_regular(item.abspath)
            except OSError:
                return None
        if raw is None:
            return None
        src = decode(display, raw, item.abspath)
        return src if isinstance(src, SourceFile) else None


@dataclass
class Report:
    findings: list[Finding]
    files: int
    resources: int
    config: Config
    sources: Sources = field(default_factory=Sources)
    notes: list[str] = field(default_factory=list)  # messages for stderr
    resources_by_file: dict[str, int] = field(default_factory=dict)
    karpenter_by_file: dict[str, int] = field(default_factory=dict)  # Karpenter objects checked, per file
    helm_rendered: frozenset = frozenset()  # files holding rendered Helm output (karplint/readers/helm_rendered.py)
    # The Karpenter versions read from the repository (`karpenter-version` unset): (version, where, files checked
    # against it), first found first; empty when none was found or the version was set.
    karpenter_versions: tuple = ()

    @property
    def karpenter_resources(self) -> int:
        return sum(self.karpenter_by_file.values())

    def nothing_checked(self) -> bool:
        """No Karpenter object was checked at all: a pass would be silent about nothing."""
        return not self.karpenter_by_file or not any(self.karpenter_by_file.values())

    def failed(self) -> bool:
        if self.config.fail_on_nothing_checked and self.nothing_checked():
            return True
        threshold = severity_rank(self.config.fail_on)
        return any(severity_rank(f.severity) >= threshold for f in self.findings)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out


# ---------------------------------------------------------------------------------------------- selection

def _selector_matches(selector: str, r: Rule) -> bool:
    s = selector.strip()
    if s.upper() == "ALL":
        return True
    return r.code.startswith(s.upper()) or s.lower() in (r.slug, r.category)


def is_selected(r: Rule, config: Config) -> bool:
    if not any(_selector_matches(s, r) for s in config.select + config.extend_select):
        return False
    return not any(_selector_matches(s, r) for s in config.ignore)


def _ignored_for_file(code: str, display: str, config: Config) -> bool:
    if not config.per_file_ignores:
        return False
    path = display.replace(os.sep, "/")
    candidates = {path, path.lstrip("./")}
    if config.root:
        try:
            candidates.add(os.path.relpath(os.path.abspath(display), config.root).replace(os.sep, "/"))
        except ValueError:
            pass
    r = REGISTRY.get(code)
    for glob, codes in config.per_file_ignores.items():
        if any(fnmatch.fnmatchcase(c, glob) or fnmatch.fnmatchcase(c.rsplit("/", 1)[-1], glob) for c in candidates):
            if r is not None and any(_selector_matches(s, r) for s in codes):
                return True
    return False


# ---------------------------------------------------------------------------------------------- loading

def load_input(item: InputFile, config: Config) -> FileResult:
    """Read, decode and parse one file. Every problem becomes a `Problem`; nothing raises."""
    raw = read_input(item, config)
    if isinstance(raw, FileResult):
        return raw
    return parse_input(item, raw)


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


def parse_input(item: InputFile, raw: bytes) -> FileResult:
    host = _host_kind(item.display)
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
            docs, problems = load(src)
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


class _NeedsModel(BaseException):
    """A resource-scope rule read `ctx.model` in the per-file stage (BaseException: rules' `except Exception`
    must not swallow it)."""


class _ModelGuard:
    """`ctx.model` for resource-scope rules in the per-file stage.

    Resource-scope rules see one resource; their results are computed per file (in worker processes, and
    cached with the file). A rule that reads `ctx.model` there depends on other files: the engine drops its
    per-file results and runs it in the run stage over the whole model instead, on every run. Such a rule must
    declare what it reads (`Rule.reads`) so that the run stage has it.
    """

    def __getattr__(self, name):
        raise _NeedsModel()

    def __iter__(self):
        raise _NeedsModel()


# ---------------------------------------------------------------------------------------------- what the run stage reads

Reads = Callable[[Document, "Resource | None"], bool]


class RunReads:
    """Which documents each cross-file rule reads: run-scope rules, and resource rules that declare `reads`
    (they read `ctx.model`; their own resources count too). A run-scope rule that declares nothing reads every
    document; `everything=True` makes every rule read every document (tests compare the two)."""

    def __init__(self, rules: Iterable[Rule], *, everything: bool = False):
        self.by_rule: dict[str, tuple[Reads, ...] | None] = {}
        self.kinds: dict[str, frozenset] = {}
        for r in rules:
            if r.check is None:
                continue
            if r.scope == "run":
                self.by_rule[r.code] = None if everything else r.reads
            elif r.scope == "resource" and r.reads is not None:
                self.by_rule[r.code] = None if everything else r.reads
                self.kinds[r.code] = frozenset(r.kinds)
        self._preds = list(dict.fromkeys(p for ps in self.by_rule.values() if ps for p in ps))
        self._all_kinds = frozenset().union(*self.kinds.values())
        # Which predicates hold (and the kind, where some rule reads its own kind) -> what is kept: a document's
        # fate depends on nothing else, and a run sees few different combinations.
        self._plans: dict[tuple, tuple[frozenset, bool, tuple]] = {}

    def __bool__(self) -> bool:
        return bool(self.by_rule)

    def keep(self, doc: Document, res: Resource | None) -> tuple[Document | None, frozenset]:
        """(what the run stage keeps of `doc`: the document, only the parts its readers declare (`Parts`), or None;
        the codes of the rules that read it)."""
        hits = tuple([p(doc, res) for p in self._preds])  # each predicate once per document
        kind = res.kind if res is not None and res.kind in self._all_kinds else None
        plan = self._plans.get((hits, kind))
        if plan is None:
            plan = self._plans[(hits, kind)] = self._plan(dict(zip(self._preds, hits)), kind)
        codes, whole, parts = plan
        if not codes:
            return None, codes
        if whole or res is None:
            return doc, codes
        return doc.only([("apiVersion",), ("kind",)] + [path for p in parts for path in p.paths(res)]), codes

    def _plan(self, hit: dict, kind: str | None) -> tuple[frozenset, bool, tuple]:
        codes: set[str] = set()
        parts: list[Parts] = []
        whole = False
        for code, preds in self.by_rule.items():
            if preds is None or kind in self.kinds.get(code, ()):
                codes.add(code)
                whole = True
                continue
            matched = [p for p in preds if hit[p]]
            if matched:
                codes.add(code)
                whole = whole or not all(isinstance(p, Parts) for p in matched)
                parts.extend(matched)
        return frozenset(codes), whole, tuple(dict.fromkeys(parts))


def run_reads(rules: Iterable[Rule]) -> RunReads:
    return RunReads(rules)


# ---------------------------------------------------------------------------------------------- per-file stage

def _doc_key(doc: Document) -> DocKey:
    return (doc.source.path, doc.index, doc.base)


def _resolve(v: Violation, code: str, rule_code: str) -> Result:
    span, fix = v.span, v.fix
    emb = v.doc.source.embedding
    if emb is not None:  # a heredoc or Markdown block: positions and edits on the host file
        span, fix = emb.span(span, v.doc.source), emb.fix(fix)
    return Result(v.code or code, rule_code, v.doc.source.path, span, v.message,
                  v.resource.ref() if v.resource else None, fix, v.severity, _doc_key(v.doc))


def _internal(r: Rule, exc: BaseException, doc: Document, res: Resource | None) -> Result:
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    loc = f" at {os.path.basename(where.filename)}:{where.lineno}" if where else ""
    v = Violation(doc, doc.span(()), f"internal error in {r.code} ({r.slug}): {type(exc).__name__}: {exc}{loc}; "
                  "please report it", res)
    return _resolve(v, REGISTRY["KPL006"].code, r.code)


def _annotation_codes(res: Resource) -> tuple[str, ...]:
    codes: tuple[str, ...] = ()
    paths = [("metadata", "annotations"), ("spec", "template", "metadata", "annotations")]
    if res.pod_template:
        paths.append(res.pod_template[0] + ("annotations",))
    for path in paths:
        ann = res.get(path)
        if isinstance(ann, dict) and isinstance(ann.get(ANNOTATION), str):
            codes += split_codes(ann[ANNOTATION])
    return codes


def _host_span(doc: Document, span: Span) -> Span:
    emb = doc.source.embedding
    return span if emb is None else emb.span(span, doc.source)


def _context(model, config: Config) -> Context:
    from karplint.rules import option_defaults

    return Context(model, config.karpenter_version, dict(config.cluster), {**option_defaults(), **config.options},
                   config.karpenter_version_source)


class _VersionWatch(Context):
    """A `Context` that notes whether a rule read `karpenter_version`: a file none of whose verdicts did is not
    checked again when the repository deploys another version than the default (`_repository_versions`)."""

    version_read = False

    @property
    def karpenter_version(self):
        self.version_read = True
        return self._version

    @karpenter_version.setter
    def karpenter_version(self, value):
        self._version = value


def _watched_context(model, config: Config) -> _VersionWatch:
    from karplint.rules import option_defaults

    return _VersionWatch(model, config.karpenter_version, dict(config.cluster),
                         {**option_defaults(), **config.options}, config.karpenter_version_source)


_STEPS: dict[tuple, tuple[list[Rule], dict]] = {}


def _per_file_steps(rules: list[Rule], kinds) -> list[tuple[Rule, tuple[str, ...]]]:
    """The per-file stage's work on a file holding resources of `kinds`, in `rules` order: (resource rule, the
    kinds it checks that the file has) and (file rule, ()). Worked out once per set of kinds (a run sees few),
    rather than walking every rule's kinds for every file."""
    key = tuple(map(id, rules))  # (each entry keeps its rules alive: their ids stay theirs)
    entry = _STEPS.get(key)
    if entry is None:
        if len(_STEPS) > 16:
            _STEPS.clear()
        entry = _STEPS[key] = (list(rules), {})
    present = frozenset(kinds)
    steps = entry[1].get(present)
    if steps is None:
        steps = entry[1][present] = [
            (r, tuple(k for k in r.kinds if k in present) if r.scope == "resource" else ())
            for r in rules if r.check is not None and r.scope in ("resource", "file")
            and (r.scope == "file" or any(k in present for k in r.kinds))]
    return steps


def process_input(item: InputFile, raw: bytes, config: Config, rules: list[Rule],
                  reads: RunReads | None = None) -> FileOutcome:
    """The per-file stage: parse one file, run the selected resource- and file-scope rules on it, and keep the
    documents the run stage reads (`reads`, from `run_reads`).

    Depends only on the file (path and bytes), the configuration and karplint itself, so its result can be
    computed in any process and cached; cross-file verdicts belong to the run stage."""
    fr = parse_input(item, raw)
    summary = FileSummary(fr.display, fr.problems, fr.suppressions)
    if fr.source is not None and "# Source: " in fr.source.text:
        from karplint.readers.helm_rendered import has_sources

        summary.helm_rendered = has_sources(fr.source.text)
    if config.karpenter_version_source == "default" and fr.source is not None and "karpenter" in fr.source.text:
        from karplint.model.repo_version import yaml_evidence  # the release this file installs, if any

        summary.releases = tuple(yaml_evidence(fr.documents))
    if not fr.documents:
        return FileOutcome(summary, None)
    guarded = _watched_context(_ModelGuard(), config)
    file_ctx: _VersionWatch | None = None
    # A Kustomize patch sets some fields of an object defined elsewhere: only the rules judging what it sets run.
    patch = bool(config.kustomize_patches) and fr.display in config.kustomize_patches
    resources: list[tuple[Document, Resource | None]] = [(doc, as_resource(doc)) for doc in fr.documents]
    by_kind: dict[str, list[Resource]] = {}
    for _doc, res in resources:
        if res is not None:
            by_kind.setdefault(res.kind, []).append(res)
    summary.resources = sum(len(v) for v in by_kind.values())
    summary.karpenter = sum(1 for _doc, res in resources if res is not None and res.group in KARPENTER_GROUPS)
    for kind, of_kind in by_kind.items():
        if len(of_kind) > MAX_CHECKED_PER_KIND and of_kind[0].group in KARPENTER_GROUPS:
            first = of_kind[MAX_CHECKED_PER_KIND]
            summary.problems.append(Problem("KPL004", (
                f"more than {MAX_CHECKED_PER_KIND:,} {kind} objects in one file (too large): this one and the "
                f"{len(of_kind) - MAX_CHECKED_PER_KIND - 1:,} after it are not checked one by one; split the file"),
                first.doc.span(())))
            del of_kind[MAX_CHECKED_PER_KIND:]
    results: list[Result] = []
    needs_model: set[str] = set()
    file_model: Model | None = None
    for r, kinds in _per_file_steps(rules, by_kind.keys()):
        if kinds:
            if patch and r.code not in PATCH_RULES:
                continue
            for kind in kinds:
                for res in by_kind.get(kind, ()):
                    try:
                        out = [_resolve(v, r.code, r.code) for v in islice(r.check(res, guarded) or (),
                                                                         MAX_FINDINGS_PER_RESOURCE + 1)]
                        if len(out) > MAX_FINDINGS_PER_RESOURCE:  # hostile input: bound the work and the report
                            last = out[MAX_FINDINGS_PER_RESOURCE]
                            out[MAX_FINDINGS_PER_RESOURCE] = last._replace(message=(
                                f"more than {MAX_FINDINGS_PER_RESOURCE} findings of {r.code} on this resource; "
                                "the rest are not reported"))
                    except _NeedsModel:
                        if r.reads is None:
                            results.append(_internal(r, RuntimeError(
                                "the rule reads the whole run but does not declare what it reads (`reads`)"),
                                res.doc, res))
                        else:
                            needs_model.add(r.code)
                        continue
                    except Exception as exc:  # noqa: BLE001 - isolation: one rule never stops the others
                        out = [_internal(r, exc, res.doc, res)]
                    results.extend(out)
        else:  # a file-scope rule
            if file_model is None:
                file_model = Model()
                file_model.add(fr.documents)
            try:
                if file_ctx is None:
                    file_ctx = _watched_context(file_model, config)
                results.extend(_resolve(v, r.code, r.code) for v in r.check(file_model, file_ctx) or ())
            except Exception as exc:  # noqa: BLE001
                results.append(_internal(r, exc, fr.documents[0], None))
    summary.version_dependent = guarded.version_read or (file_ctx is not None and file_ctx.version_read)
    if fr.source is not None and fr.documents and fr.documents[0].source is not fr.source:
        from karplint.readers.embedded import documentation_filter  # Markdown snippets: readers/embedded.py

        results = documentation_filter(results, fr.documents, _doc_key)
    summary.results = [x for x in results if x.rule not in needs_model
                       and not (patch and x.code == "KPL008")]  # (a JSON 6902 patch is a list of operations)
    summary.needs_model = frozenset(needs_model)
    for _doc, res in resources:
        codes = _annotation_codes(res) if res is not None else ()
        if codes:
            summary.annotations.append(
                (_doc_key(res.doc), Suppression(codes, _host_span(res.doc, res.doc.key_span(("metadata",))),
                                                "annotation")))
    run_docs: list[Document] = []
    run_rules: set[str] = set()
    if reads and not patch:  # (a patch is not an object of the cluster: cross-file rules do not see it)
        for doc, res in resources:
            if doc.documentation_example:
                continue  # documentation examples are not cluster state: no cross-file verdicts from or on them
            kept, codes = reads.keep(doc, res)
            if kept is not None:
                run_docs.append(kept)
                run_rules |= codes
    summary.run_documents = len(run_docs)
    summary.run_rules = frozenset(run_rules)
    return FileOutcome(summary, run_docs or None)


# ---------------------------------------------------------------------------------------------- run stage

def run_stage(outcomes: list[FileOutcome], config: Config, rules: list[Rule]) -> dict[str, list[Result]]:
    """Cross-file verdicts by rule code: `rules` (run-scope rules, and resource rules that read the model) over
    the documents the per-file stage kept for them, in input order. Each rule reads only its own documents
    (`Rule.reads`), so it does not matter which other rules' documents the outcomes also hold."""
    model = Model()
    for o in outcomes:
        if o.summary.run_documents:
            model.add(o.documents())
    ctx = _context(model, config)
    by_kind: dict[str, list[Resource]] = {}
    for res in model.resources:
        by_kind.setdefault(res.kind, []).append(res)
    out: dict[str, list[Result]] = {}
    for r in rules:
        got = out[r.code] = []
        if r.scope == "resource":
            for kind in r.kinds:
                for res in by_kind.get(kind, ()):
                    try:
                        got.extend(_resolve(v, r.code, r.code) for v in r.check(res, ctx) or ())
                    except Exception as exc:  # noqa: BLE001
                        got.append(_internal(r, exc, res.doc, res))
            continue
        try:
            got.extend(_resolve(v, r.code, r.code) for v in r.check(model, ctx) or ())
        except Exception as exc:  # noqa: BLE001
            # Anchored on the first document the rule reads (the same whichever rules run with it).
            anchor = next((o.documents()[0] for o in outcomes if r.code in o.summary.run_rules), None)
            if anchor is not None:  # (with no document to read, a rule has nothing to fail on)
                got.append(_internal(r, exc, anchor, None))
    return out


def cluster_of(display: str, clusters: list[str]) -> str | None:
    """The cluster directory (a real path among `clusters`) holding the file `display`, the deepest one; None
    for files outside every cluster (shared by all: bases, common add-ons)."""
    real = os.path.realpath(display)
    best = None
    for c in clusters:
        if (real == c or real.startswith(c + os.sep)) and (best is None or len(c) > len(best)):
            best = c
    return best


def scoped_run_stage(outcomes: list[FileOutcome], config: Config, rules: list[Rule]) -> dict[str, list[Result]]:
    """`run_stage`, once per cluster when `clusters` says which directories each hold one cluster: a rule sees
    the cluster's files and the shared ones (outside every cluster), so a Cilium install in clusters/prod/ is not
    a verdict on clusters/dev/'s NodePools. A shared file's finding found in several clusters is reported once."""
    if not config.clusters:
        return run_stage(outcomes, config, rules)
    import glob

    root = config.root or os.getcwd()
    dirs = sorted({os.path.realpath(d) for pattern in config.clusters
                   for d in glob.glob(os.path.join(root, pattern)) if os.path.isdir(d)})
    where = [cluster_of(o.summary.display, dirs) for o in outcomes]
    present = sorted({c for c in where if c is not None})
    if not present:
        return run_stage(outcomes, config, rules)
    merged: dict[str, list[Result]] = {r.code: [] for r in rules}
    seen: set = set()
    for cluster in present:  # the cluster's files and the shared ones, in input order
        members = [o for o, c in zip(outcomes, where) if c in (cluster, None)]
        for code, results in run_stage(members, config, rules).items():
            for x in results:
                key = (x.code, x.file, x.span, x.message)
                if key not in seen:
                    seen.add(key)
                    merged[code].append(x)
    return merged


def _rule_digests(outcomes: list[FileOutcome], codes: list[str]) -> dict[str, str]:
    """For each cross-file rule, what its verdicts depend on besides karplint and the configuration (both in
    the cache's name): the path and bytes of every file holding a document it reads, in order. Empty when a
    file has no content key (no cache)."""
    import hashlib

    hashers = {code: hashlib.blake2b(code.encode(), digest_size=20) for code in codes}
    for o in outcomes:
        wanted = o.summary.run_rules
        if not wanted:
            continue
        if o.key is None:
            return {}
        token = b"\0" + o.summary.display.encode("utf-8", "surrogateescape") + b"\0" + o.key.encode()
        for code in wanted:
            h = hashers.get(code)
            if h is not None:
                h.update(token)
    return {code: h.hexdigest() for code, h in hashers.items()}


# ---------------------------------------------------------------------------------------------- running

def selected_rules(config: Config) -> list[Rule]:
    return [r for r in all_rules() if is_selected(r, config)]


def check(inputs: list[InputFile], config: Config, *, extra_problems: list[tuple[str, Problem]] = (),
          jobs: int = 1, cache=None, started_ns: int | None = None, context: list[InputFile] = ()) -> Report:
    """Check `inputs`. `jobs` > 1: the per-file stage runs in that many worker processes (when there is enough
    work); `cache`: a `karplint.engine.cache.Cache` (per-file summaries, cross-file verdicts, the last report). The
    findings are the same whatever `jobs` and `cache` are. `started_ns`: when the inputs were discovered (their
    `stat`), for the cache. `context`: the project's other files, read by cross-file rules (the EC2NodeClass of
    a NodePool staged alone, Cilium installed elsewhere) but not reported on: a partial run (pre-commit passes
    only the staged files) judges each file as a run over the whole project would."""
    if context:
        asked = {i.display for i in inputs}
        others = [c for c in context if c.display not in asked]
        hidden = {c.display for c in others}
        whole = check([*inputs, *others], config, extra_problems=extra_problems, jobs=jobs, cache=cache,
                      started_ns=started_ns)
        findings = [f for f in whole.findings if f.file not in hidden]
        resources = sum(n for display, n in whole.resources_by_file.items() if display not in hidden)
        return Report(findings, len(inputs), resources, config, Sources(inputs), resources_by_file={
            d: n for d, n in whole.resources_by_file.items() if d not in hidden}, karpenter_by_file={
            d: n for d, n in whole.karpenter_by_file.items() if d not in hidden}, helm_rendered=whole.helm_rendered,
            karpenter_versions=whole.karpenter_versions)
    from karplint.engine.parallel import content_keys, run_files

    if config.kustomize_patches is None:  # (the CLI finds them before it opens the cache: they are in its key)
        from karplint.readers.kustomize import patch_files

        config = replace(config, kustomize_patches=patch_files(inputs, read_regular, config.root))
    known = None
    if cache is not None:  # nothing changed since the last run: its report stands
        known = content_keys(inputs, config, cache, started_ns)
        if all(known.keys):
            memo = cache.get_report(_report_digest(inputs, known.keys, config, extra_problems))
            if isinstance(memo, tuple) and len(memo) == 7:
                cache.save()  # (files read to confirm their bytes are now vouched for by their stat)
                findings, files, resources, by_file, karpenter, rendered, versions = memo
                if len(versions) == 1:
                    config = _version_config(config, versions[0][0])
                return Report(list(findings), files, resources, config, Sources(inputs), resources_by_file=by_file,
                              karpenter_by_file=karpenter, helm_rendered=rendered, karpenter_versions=versions)
    outcomes = run_files(inputs, config, selected_rules(config), jobs=jobs, cache=cache, started_ns=started_ns,
                         known=known)
    keys = [o.key for o in outcomes]
    versions: tuple = ()
    run_config, run_cache = config, cache
    if config.karpenter_version_source == "default":
        outcomes, run_config, run_cache, versions = _repository_versions(inputs, outcomes, config, jobs, cache,
                                                                         started_ns)
    report = evaluate(outcomes, run_config, extra_problems=extra_problems, cache=run_cache, sources=Sources(inputs),
                      jobs=jobs)
    report.karpenter_versions = versions
    if cache is not None:
        if all(keys):
            cache.put_report(_report_digest(inputs, keys, config, extra_problems),
                             (report.findings, report.files, report.resources, report.resources_by_file,
                              report.karpenter_by_file, report.helm_rendered, versions))
        cache.save()
        if run_cache is not cache:
            run_cache.save()
    return report


def _version_config(config: Config, version: str) -> Config:
    """`config` targeting a version read from the repository. Its source stays "default" (nobody chose it): the
    rules that name where a deployed version came from find it themselves (`karplint.model.detect`)."""
    from karplint.model.versions import Version

    return replace(config, karpenter_version=Version.parse(version))


MAX_POOLED_VERSIONS = 4  # versions read from the repository whose files are checked again by worker processes


def _repository_versions(inputs: list[InputFile], outcomes: list[FileOutcome], config: Config, jobs: int, cache,
                         started_ns: int | None):
    """`karpenter-version` unset: the Karpenter version(s) the repository deploys (`karplint.model.repo_version`),
    and each file checked again against the one that applies to it (a second per-file stage, with the cache of
    that configuration, only for files whose version differs from the default). One version: the run stage
    targets it too; several: the run stage keeps the default target (its rules find each deployed release).
    Returns (outcomes, the run stage's configuration and cache, versions)."""
    from karplint.engine.parallel import run_files
    from karplint.model.repo_version import assign
    from karplint.model.versions import implausible

    evidence = [e for e in (*config.terraform_releases, *(e for o in outcomes for e in o.summary.releases))
                if implausible(_parse_version(e.version)) is None]
    if not evidence:
        return outcomes, config, cache, ()
    cluster_fn = None
    if config.clusters:
        import glob

        root = config.root or os.getcwd()
        dirs = sorted({os.path.realpath(d) for pattern in config.clusters
                       for d in glob.glob(os.path.join(root, pattern)) if os.path.isdir(d)})
        cluster_fn = lambda display: cluster_of(display, dirs)  # noqa: E731
    chosen = assign([i.display for i in inputs], evidence, cluster_fn)
    groups: dict[str, tuple] = {}  # version -> (first evidence, input indexes)
    for e in evidence:
        groups.setdefault(e.version, (e, []))
    for idx, item in enumerate(inputs):
        e = chosen.get(item.display)
        if e is not None:  # (else no version applies clearly: the default target stays)
            groups[e.version][1].append(idx)
    # Only files some rule judged with the version read it again (most files of a monorepo are not Karpenter's).
    again = {idx for idx, o in enumerate(outcomes) if o.summary.version_dependent}
    outcomes = list(outcomes)
    caches = {}
    redos = {version: [i for i in idxs if i in again] for version, (_e, idxs) in groups.items()}
    # Worker processes for the largest groups only: a pool per version costs a start-up each, which thousands of
    # releases of a few files each would multiply (the others are checked in this process).
    pooled = set(sorted(redos, key=lambda v: -len(redos[v]))[:MAX_POOLED_VERSIONS])
    for version, (e, idxs) in groups.items():
        cfg = _version_config(config, version)
        if cfg.karpenter_version == config.karpenter_version:
            caches[version] = (cfg, cache)
            continue  # (checked against this version already)
        sub_cache = caches[version] = (cfg, cache.sibling(cfg) if cache is not None else None)
        redo_idxs = redos[version]
        if redo_idxs:
            redo = run_files([inputs[i] for i in redo_idxs], cfg, selected_rules(cfg),
                             jobs=jobs if version in pooled else 1, cache=sub_cache[1], started_ns=started_ns)
            for i, o in zip(redo_idxs, redo):
                outcomes[i] = o
    versions = tuple((v, e.where, len(idxs)) for v, (e, idxs) in groups.items())
    if len(groups) == 1:
        run_config, run_cache = caches[next(iter(groups))]
    else:
        run_config, run_cache = config, cache
    for _cfg, c in caches.values():
        if c is not None and c is not cache and c is not run_cache:
            c.save()
    return outcomes, run_config, run_cache, versions


def _parse_version(text: str):
    from karplint.model.versions import Version

    return Version.parse(text)


def _report_digest(inputs: list[InputFile], keys: list[str], config: Config, extra_problems) -> str:
    """Every input (path and content key, in order) and what shapes findings beyond the cache's name: severity
    overrides, per-file ignores, the project root, and the problems found while discovering files."""
    import hashlib

    h = hashlib.blake2b(repr((sorted(config.severity.items()), sorted(config.per_file_ignores.items()),
                              config.root, [(d, p.code, p.message, p.span) for d, p in extra_problems],
                              list(config.terraform_releases))).encode(),
                        digest_size=20)
    for item, key in zip(inputs, keys):
        h.update(b"\0" + item.display.encode("utf-8", "surrogateescape") + b"\0" + key.encode())
    return h.hexdigest()


def evaluate(outcomes: list[FileOutcome], config: Config, *, extra_problems: Iterable[tuple[str, Problem]] = (),
             cache=None, sources: Sources | None = None, jobs: int = 1) -> Report:
    rules = selected_rules(config)
    selected = {r.code for r in rules}
    needs_model: set[str] = set()
    for o in outcomes:
        needs_model |= o.summary.needs_model

    # The run stage: each rule's verdicts come from the cache when the files it reads are unchanged.
    stage = [r for r in rules if r.check is not None and (
        r.scope == "run" or (r.scope == "resource" and r.code in needs_model))]
    digests = _rule_digests(outcomes, [r.code for r in stage]) if cache is not None else {}
    by_rule: dict[str, list[Result]] = {}
    for r in stage:
        hit = cache.get_run(r.code, digests[r.code]) if r.code in digests else None
        if hit is not None:
            by_rule[r.code] = hit
    missing = [r for r in stage if r.code not in by_rule]
    if missing:
        codes = {r.code for r in missing}
        from karplint.engine.parallel import run_stage as parallel_run_stage

        computed = parallel_run_stage([o for o in outcomes if o.summary.run_rules & codes], config, missing, jobs)
        for r in missing:
            by_rule[r.code] = computed[r.code]
            if r.code in digests:
                cache.put_run(r.code, digests[r.code], computed[r.code])
    run_results = [x for r in stage for x in by_rule[r.code]]

    findings: list[Finding] = []
    finding_doc: dict[int, DocKey] = {}  # which document each finding belongs to, for annotation suppressions

    def emit(code: str, display: str, span: Span, message: str, resource=None, fix=None,
             severity: str | None = None) -> Finding:
        r = REGISTRY[code]
        sev = config.severity.get(r.code) or severity or r.severity
        f = Finding(r.code, r.slug, r.category, sev, message, display, span, resource, fix)
        findings.append(f)
        return f

    for display, problem in extra_problems:
        emit(problem.code, display, problem.span, problem.message)
    for o in outcomes:
        for p in o.summary.problems:
            emit(p.code, o.summary.display, p.span, p.message)
    for o in outcomes:
        for x in o.summary.results:
            if x.rule not in needs_model:
                finding_doc[id(emit(x.code, x.file, x.span, x.message, x.resource, x.fix, x.severity))] = x.doc
    notices: set = set()
    for x in run_results:
        if x.code != x.rule:  # a budget notice (`Context.too_large`): rules sharing the budget report it once
            if (x.code, x.file, x.span, x.message) in notices:
                continue
            notices.add((x.code, x.file, x.span, x.message))
        finding_doc[id(emit(x.code, x.file, x.span, x.message, x.resource, x.fix, x.severity))] = x.doc

    findings = [f for f in findings if f.code in selected and not _ignored_for_file(f.code, f.file, config)]
    findings = _apply_suppressions(findings, [o.summary for o in outcomes], finding_doc, config, selected)
    findings.sort(key=Finding.sort_key)
    return Report(findings, len(outcomes), sum(o.summary.resources for o in outcomes), config,
                  sources if sources is not None else Sources(),
                  resources_by_file={o.summary.display: o.summary.resources for o in outcomes},
                  karpenter_by_file={o.summary.display: o.summary.karpenter for o in outcomes if o.summary.karpenter},
                  helm_rendered=frozenset(o.summary.display for o in outcomes if o.summary.helm_rendered))


def _apply_suppressions(findings, summaries: list[FileSummary], finding_doc, config, selected) -> list[Finding]:
    # Fresh copies: `used` is filled in below, and summaries may come from a cache shared by several checks.
    by_file: dict[str, list[Suppression]] = {
        s.display: [replace(x, used=set()) for x in s.suppressions] for s in summaries if s.suppressions}
    by_doc = [(key, replace(sup, used=set())) for s in summaries for key, sup in s.annotations]
    annotations: dict[DocKey, Suppression] = dict(by_doc)

    def suppressed(f: Finding) -> bool:
        if f.category == "suppression":
            return False
        hit = False
        for s in by_file.get(f.file, ()):
            if (s.kind == "file" or (s.kind == "line" and s.target_line == f.span.line)) and \
                    (f.code in s.codes or f.slug.upper() in s.codes or "ALL" in s.codes):
                s.used.add(f.code)
                hit = True
        key = finding_doc.get(id(f))
        s = annotations.get(key) if key else None
        if s is not None and (f.code in s.codes or f.slug.upper() in s.codes or "ALL" in s.codes):
            s.used.add(f.code)
            hit = True
        return hit

    kept = [f for f in findings if not suppressed(f)]
    unused, unknown = REGISTRY["KPL090"], REGISTRY["KPL091"]
    known = {r.code for r in all_rules()} | {r.slug.upper() for r in all_rules()} | {"ALL"}
    slugs = {r.slug.upper(): r.code for r in all_rules()}

    def report_suppression(display: str, s: Suppression) -> None:
        for code in s.codes:
            if code not in known:
                if unknown.code in selected:
                    kept.append(Finding(unknown.code, unknown.slug, unknown.category,
                                        config.severity.get(unknown.code, unknown.severity),
                                        f"unknown rule {code!r} in a karplint suppression", display, s.span))
                continue
            real = slugs.get(code, code)
            if code == "ALL":
                if not s.used and unused.code in selected:
                    kept.append(Finding(unused.code, unused.slug, unused.category,
                                        config.severity.get(unused.code, unused.severity),
                                        "suppression `ALL` suppresses nothing", display, s.span))
                continue
            if real not in s.used and real in selected and unused.code in selected:
                kept.append(Finding(unused.code, unused.slug, unused.category,
                                    config.severity.get(unused.code, unused.severity),
                                    f"suppression of {real} suppresses nothing here\nhelp: remove it", display, s.span))

    for display, sups in by_file.items():
        for s in sups:
            report_suppression(display, s)
    for key, sup in by_doc:
        if annotations.get(key) is sup:
            report_suppression(key[0], sup)
    return kept
