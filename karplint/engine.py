"""Run a check: load every input, build the model, run the selected rules, apply suppressions.

    inputs (display path + bytes) -> FileResult (per file) -> Model -> rules -> Finding -> Report
"""

from __future__ import annotations

import fnmatch
import os
import traceback
from dataclasses import dataclass, field
from typing import Iterable

from karplint.config import Config
from karplint.document import Document
from karplint.findings import Finding, severity_rank
from karplint.loader import Problem, decode, load
from karplint.model import Model, Resource, as_resource
from karplint.rules import Context, Rule, Violation, all_rules
from karplint.rules.base import REGISTRY
from karplint.source import SourceFile, Span
from karplint.suppression import ANNOTATION, Suppression, from_comments, split_codes


@dataclass
class InputFile:
    display: str
    abspath: str | None = None  # None: `data` is given (stdin, tests)
    data: bytes | None = None


@dataclass
class FileResult:
    display: str
    source: SourceFile | None
    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    # Per-file stage (`process_input`): what the selected resource-scope rules yielded for this file's
    # resources, by (rule code, position in `documents`) -> [(code to report, Violation)]; None: not run yet.
    rule_results: dict | None = None
    # Resource-scope rules that read `ctx.model` here: their per-file results are dropped and they run on the
    # whole model instead (see `_ModelGuard`).
    needs_model: set = field(default_factory=set)


@dataclass
class Report:
    findings: list[Finding]
    files: int
    resources: int
    config: Config
    sources: dict[str, SourceFile] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # messages for stderr

    def failed(self) -> bool:
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
            with open(item.abspath, "rb") as fh:
                raw = fh.read(config.max_file_size + 1)
        if len(raw) > config.max_file_size:
            return FileResult(item.display, None, problems=[Problem(
                "KPL004", f"input is over the {config.max_file_size:,}-byte limit (`max-file-size`); not checked",
                Span.point(1, 1))])
    except OSError as exc:
        return FileResult(item.display, None, problems=[
            Problem("KPL003", f"cannot read file: {exc.strerror or exc}", Span.point(1, 1))])
    return raw


def parse_input(item: InputFile, raw: bytes) -> FileResult:
    src = decode(item.display, raw, item.abspath)
    if isinstance(src, Problem):
        return FileResult(item.display, None, problems=[src])
    try:
        docs, problems = load(src)
    except Exception as exc:  # noqa: BLE001 - isolation: one file never stops the others
        return FileResult(item.display, src, problems=[Problem(
            "KPL006", f"internal error while loading: {type(exc).__name__}: {exc}", Span.point(1, 1))])
    return FileResult(item.display, src, docs, problems, from_comments(src))


class _NeedsModel(BaseException):
    """A resource-scope rule read `ctx.model` in the per-file stage (BaseException: rules' `except Exception`
    must not swallow it)."""


class _ModelGuard:
    """`ctx.model` for resource-scope rules in the per-file stage.

    Resource-scope rules see one resource; their results are computed per file (in worker processes, and
    cached with the file). A rule that reads `ctx.model` there depends on other files: the engine drops its
    per-file results and runs it in the main process over the whole model instead, on every run.
    """

    def __getattr__(self, name):
        raise _NeedsModel()

    def __iter__(self):
        raise _NeedsModel()


def process_input(item: InputFile, raw: bytes, config: Config, rules: list[Rule]) -> FileResult:
    """The per-file stage: parse one file and run the selected resource-scope rules on its resources.

    Depends only on the file (path and bytes), the configuration and karplint itself, so its result can be
    computed in any process and cached; cross-file verdicts belong to `evaluate`."""
    fr = parse_input(item, raw)
    fr.rule_results = {}
    resource_rules = [r for r in rules if r.check is not None and r.scope == "resource"]
    if not resource_rules or not fr.documents:
        return fr
    ctx = Context(_ModelGuard(), config.karpenter_version, dict(config.cluster), dict(config.options),  # type: ignore[arg-type]
                  config.karpenter_version_source)
    by_kind: dict[str, list[tuple[int, Resource]]] = {}
    for pos, doc in enumerate(fr.documents):
        res = as_resource(doc)
        if res is not None:
            by_kind.setdefault(res.kind, []).append((pos, res))
    internal = REGISTRY["KPL006"].code
    for r in resource_rules:
        for kind in r.kinds:
            for pos, res in by_kind.get(kind, ()):
                out: list = []
                try:
                    for v in r.check(res, ctx) or ():
                        out.append((r.code, v))
                except _NeedsModel:
                    fr.needs_model.add(r.code)
                    continue
                except Exception as exc:  # noqa: BLE001
                    out.append((internal, _internal(r, exc, res.doc, res)))
                if out:
                    fr.rule_results.setdefault((r.code, pos), []).extend(out)
    for code in fr.needs_model:
        for key in [k for k in fr.rule_results if k[0] == code]:
            del fr.rule_results[key]
    return fr


# ---------------------------------------------------------------------------------------------- running

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


def _doc_key(doc: Document) -> tuple:
    return (doc.source.path, doc.index, doc.base)


def run_rules(model: Model, ctx: Context, rules: Iterable[Rule],
              precomputed: dict | None = None, needs_model: set = frozenset()) -> list[tuple[Rule, Violation]]:
    """Every violation of `rules`, in rule order, then kind, then model order.

    `precomputed`: id(document) -> (FileResult, position) for documents whose file went through
    `process_input`; their resource-scope results are taken from there, except for rules in `needs_model`."""
    out: list[tuple[Rule, Violation]] = []
    by_kind: dict[str, list[Resource]] = {}
    for res in model.resources:
        by_kind.setdefault(res.kind, []).append(res)
    for r in rules:
        if r.check is None:
            continue
        if r.scope == "resource":
            for kind in r.kinds:
                for res in by_kind.get(kind, ()):
                    pre = precomputed.get(id(res.doc)) if precomputed and r.code not in needs_model else None
                    if pre is not None:
                        fr, pos = pre
                        for code, v in fr.rule_results.get((r.code, pos), ()):
                            out.append((r if code == r.code else REGISTRY[code], v))
                        continue
                    try:
                        for v in r.check(res, ctx) or ():
                            out.append((r, v))
                    except Exception as exc:  # noqa: BLE001
                        out.append((REGISTRY["KPL006"], _internal(r, exc, res.doc, res)))
        else:
            try:
                for v in r.check(model, ctx) or ():
                    out.append((r, v))
            except Exception as exc:  # noqa: BLE001
                anchor = model.resources[0] if model.resources else None
                if anchor is not None:
                    out.append((REGISTRY["KPL006"], _internal(r, exc, anchor.doc, None)))
    return out


def _internal(r: Rule, exc: Exception, doc: Document, res: Resource | None) -> Violation:
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    loc = f" at {os.path.basename(where.filename)}:{where.lineno}" if where else ""
    return Violation(doc, doc.span(()), f"internal error in {r.code} ({r.slug}): {type(exc).__name__}: {exc}{loc}; "
                     "please report it", res)


def selected_rules(config: Config) -> list[Rule]:
    return [r for r in all_rules() if is_selected(r, config)]


def check(inputs: list[InputFile], config: Config, *, extra_problems: list[tuple[str, Problem]] = (),
          jobs: int = 1, cache=None) -> Report:
    """Check `inputs`. `jobs` > 1: the per-file stage runs in that many worker processes (when there is enough
    work); `cache`: a `karplint.cache.Cache` holding per-file stage results. The findings are the same
    whatever `jobs` and `cache` are."""
    from karplint.parallel import run_files

    results = run_files(inputs, config, selected_rules(config), jobs=jobs, cache=cache)
    return evaluate(results, config, extra_problems=extra_problems)


def evaluate(results: list[FileResult], config: Config, *,
             extra_problems: Iterable[tuple[str, Problem]] = ()) -> Report:
    rules = selected_rules(config)
    selected = {r.code for r in rules}
    model = Model()
    sources: dict[str, SourceFile] = {}
    precomputed: dict[int, tuple[FileResult, int]] = {}
    needs_model: set[str] = set()
    for fr in results:
        if fr.source is not None:
            sources[fr.display] = fr.source
        model.add(fr.documents)
        if fr.rule_results is not None:
            needs_model |= fr.needs_model
            for pos, doc in enumerate(fr.documents):
                precomputed[id(doc)] = (fr, pos)
    ctx = Context(model, config.karpenter_version, dict(config.cluster), dict(config.options),
                  config.karpenter_version_source)

    findings: list[Finding] = []

    def emit(r: Rule, display: str, span: Span, message: str, *, res: Resource | None = None, fix=None,
             severity: str | None = None, source: SourceFile | None = None) -> Finding:
        sev = config.severity.get(r.code) or severity or r.severity
        f = Finding(r.code, r.slug, r.category, sev, message, display, span, res.ref() if res else None, fix,
                    source or sources.get(display))
        findings.append(f)
        return f

    for display, problem in extra_problems:
        emit(REGISTRY[problem.code], display, problem.span, problem.message)
    for fr in results:
        for p in fr.problems:
            emit(REGISTRY[p.code], fr.display, p.span, p.message)

    # Which document each finding belongs to, for annotation suppressions.
    finding_doc: dict[int, tuple] = {}
    for r, v in run_rules(model, ctx, rules, precomputed, needs_model):
        f = emit(r, v.doc.source.path, v.span, v.message, res=v.resource, fix=v.fix, severity=v.severity,
                 source=v.doc.source)
        finding_doc[id(f)] = _doc_key(v.doc)

    findings = [f for f in findings if f.code in selected and not _ignored_for_file(f.code, f.file, config)]
    findings = _apply_suppressions(findings, results, model, finding_doc, config, selected, sources)
    findings.sort(key=Finding.sort_key)
    return Report(findings, len(results), len(model.resources), config, sources)


def _apply_suppressions(findings, results, model, finding_doc, config, selected, sources) -> list[Finding]:
    by_file: dict[str, list[Suppression]] = {fr.display: fr.suppressions for fr in results if fr.suppressions}
    annotations: dict[tuple, Suppression] = {}
    for res in model.resources:
        codes = _annotation_codes(res)
        if codes:
            annotations[_doc_key(res.doc)] = Suppression(codes, res.doc.key_span(("metadata",)), "annotation")

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

    def report_suppression(display: str, s: Suppression, source: SourceFile | None) -> None:
        for code in s.codes:
            if code not in known:
                if unknown.code in selected:
                    kept.append(Finding(unknown.code, unknown.slug, unknown.category,
                                        config.severity.get(unknown.code, unknown.severity),
                                        f"unknown rule {code!r} in a karplint suppression", display, s.span,
                                        None, None, source))
                continue
            real = slugs.get(code, code)
            if code == "ALL":
                if not s.used and unused.code in selected:
                    kept.append(Finding(unused.code, unused.slug, unused.category,
                                        config.severity.get(unused.code, unused.severity),
                                        "suppression `ALL` suppresses nothing", display, s.span, None, None, source))
                continue
            if real not in s.used and real in selected and unused.code in selected:
                kept.append(Finding(unused.code, unused.slug, unused.category,
                                    config.severity.get(unused.code, unused.severity),
                                    f"suppression of {real} suppresses nothing here; remove it", display, s.span,
                                    None, None, source))

    for display, sups in by_file.items():
        for s in sups:
            report_suppression(display, s, sources.get(display))
    for res in model.resources:
        s = annotations.get(_doc_key(res.doc))
        if s is not None:
            report_suppression(res.doc.source.path, s, res.doc.source)
    return kept
