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
from karplint.model import Model, Resource
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
    src = decode(item.display, raw, item.abspath)
    if isinstance(src, Problem):
        return FileResult(item.display, None, problems=[src])
    try:
        docs, problems = load(src)
    except Exception as exc:  # noqa: BLE001 - isolation: one file never stops the others
        return FileResult(item.display, src, problems=[Problem(
            "KPL006", f"internal error while loading: {type(exc).__name__}: {exc}", Span.point(1, 1))])
    return FileResult(item.display, src, docs, problems, from_comments(src))


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


def run_rules(model: Model, ctx: Context, rules: Iterable[Rule]) -> list[tuple[Rule, Violation]]:
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


def check(inputs: list[InputFile], config: Config, *, extra_problems: list[tuple[str, Problem]] = ()) -> Report:
    results = [load_input(item, config) for item in inputs]
    return evaluate(results, config, extra_problems=extra_problems)


def evaluate(results: list[FileResult], config: Config, *,
             extra_problems: Iterable[tuple[str, Problem]] = ()) -> Report:
    rules = [r for r in all_rules() if is_selected(r, config)]
    selected = {r.code for r in rules}
    model = Model()
    sources: dict[str, SourceFile] = {}
    for fr in results:
        if fr.source is not None:
            sources[fr.display] = fr.source
        model.add(fr.documents)
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
    for r, v in run_rules(model, ctx, rules):
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
