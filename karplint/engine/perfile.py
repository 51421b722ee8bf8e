"""The per-file stage (`process_input`): parse one file and run the selected resource- and file-scope rules on it;
the documents the run stage will read (`RunReads`) are kept. It depends only on the file, the configuration and
karplint, so its outcome can be computed in any process and cached."""

from __future__ import annotations

import os
import traceback
from itertools import islice
from typing import Callable, Iterable


from karplint.config import Config
from karplint.readers.document import Document
from karplint.readers.loader import Problem
from karplint.model import Model, Parts, Resource, as_resource, cluster_record
from karplint.model.versions import KARPENTER_GROUPS
from karplint.readers.kustomize import INLINE_PATCH_HOST, PATCH_RULES, evident_patch
from karplint.rules import Context, Rule, Violation
from karplint.rules.base import REGISTRY
from karplint.readers.source import Span
from karplint.readers.suppression import ANNOTATION, Suppression, split_codes
from karplint.engine.files import (MAX_CHECKED_PER_KIND, MAX_FINDINGS_PER_RESOURCE, DocKey, FileOutcome, FileSummary,
                                    InputFile, Result, parse_input)



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


def _annotation_codes(res: Resource) -> tuple[tuple[str, ...], tuple]:
    """The codes of the resource's `karplint.io/ignore` annotations, and the path of the first of them (where
    KPL090 and KPL091 point: the annotation's key, not `metadata:`)."""
    codes: tuple[str, ...] = ()
    first: tuple = ()
    paths = [("metadata", "annotations"), ("spec", "template", "metadata", "annotations")]
    if res.pod_template:
        paths.append(res.pod_template[0] + ("annotations",))
    for path in paths:
        ann = res.get(path)
        if isinstance(ann, dict) and isinstance(ann.get(ANNOTATION), str):
            codes += split_codes(ann[ANNOTATION])
            first = first or path + (ANNOTATION,)
    return codes, first


def _host_span(doc: Document, span: Span) -> Span:
    emb = doc.source.embedding
    return span if emb is None else emb.span(span, doc.source)


def _context(model, config: Config) -> Context:
    from karplint.rules import option_defaults

    return Context(model, config.karpenter_version, dict(config.cluster), {**option_defaults(), **config.options},
                   config.karpenter_version_source, config.release_candidates, config.focus)


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
                         {**option_defaults(), **config.options}, config.karpenter_version_source,
                         config.release_candidates, config.focus)


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
    fr = parse_input(item, raw, config.charts)
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
    patch = (bool(config.kustomize_patches) and fr.display in config.kustomize_patches) or \
        evident_patch(item.abspath or fr.display)
    # inline patches of a kustomization (`patch: |-`): documents of that file, judged as patches too
    inline = {id(d) for d in fr.documents if d.source.embedding is not None
              and d.source.embedding.host_kind == INLINE_PATCH_HOST}
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
                    if inline and id(res.doc) in inline and r.code not in PATCH_RULES:
                        continue
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
        from karplint.readers.virtual import documentation_filter  # Markdown snippets: readers/virtual.py

        results = documentation_filter(results, fr.documents, _doc_key)
        if fr.documents[0].source.embedding.host_kind == "gotemplate":  # templates: readers/chart_templates.py
            from karplint.readers.chart_templates import incomplete_filter

            results = incomplete_filter(results, fr.documents, _doc_key)
        elif any(d.fragment and not d.documentation_example for d in fr.documents):
            from karplint.readers.elision import excerpt_filter  # a Terraform template that inserts unknown lines

            results = excerpt_filter(results, fr.documents, _doc_key)
    elif any(d.fragment for d in fr.documents):
        from karplint.readers.elision import excerpt_filter  # excerpts of documentation: readers/elision.py

        results = excerpt_filter(results, fr.documents, _doc_key)
    summary.results = [x for x in results if x.rule not in needs_model
                       and not (patch and x.code == "KPL008")]  # (a JSON 6902 patch is a list of operations)
    summary.needs_model = frozenset(needs_model)
    for _doc, res in resources:
        codes, where = _annotation_codes(res) if res is not None else ((), ())
        if codes:
            summary.annotations.append(
                (_doc_key(res.doc), Suppression(codes, _host_span(res.doc, res.doc.key_span(where)), "annotation")))
    run_docs: list[Document] = []
    run_rules: set[str] = set()
    if reads and not patch:  # (a patch is not an object of the cluster: cross-file rules do not see it)
        for doc, res in resources:
            if (doc.documentation_example and not cluster_record(doc)) or id(doc) in inline:
                continue  # documentation examples and patches are not cluster state: no cross-file verdicts
            kept, codes = reads.keep(doc, res)
            if kept is not None:
                run_docs.append(kept)
                run_rules |= codes
    summary.run_documents = len(run_docs)
    summary.run_rules = frozenset(run_rules)
    return FileOutcome(summary, run_docs or None)


# ---------------------------------------------------------------------------------------------- run stage

