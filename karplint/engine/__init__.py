"""Run a check: load every input, build the model, run the selected rules, apply suppressions.

    inputs -> per-file stage (one file at a time: parse, resource- and file-scope rules) -> FileSummary
           -> run stage (run-scope rules over the documents they read, across files; two processes share it
              when it is large: engine/parallel.py) -> Finding -> Report

The per-file stage (engine/perfile.py; its inputs and outputs: engine/files.py) depends only on one file, the
configuration and karplint, so its `FileSummary` can be computed in worker processes and cached; the run stage is
engine/runstage.py. The run stage sees only the documents some selected cross-file rule
reads (each such rule declares them: `Rule.reads`); most documents of a monorepo are never loaded into it.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field, replace
from typing import Iterable

from karplint.config import Config
from karplint.readers.files import read_regular  # (also karplint.engine.read_regular, for its callers)
from karplint.findings import Finding, severity_rank
from karplint.readers.loader import Problem, decode
from karplint.rules import Rule, all_rules
from karplint.rules.base import REGISTRY
from karplint.readers.source import SourceFile, Span
from karplint.readers.suppression import Suppression
from karplint.engine.files import (  # noqa: F401 - the stage's types and readers, imported from here by its users
    MAX_CHECKED_PER_KIND, MAX_FINDINGS_PER_RESOURCE, DocKey, FileOutcome, FileResult, FileSummary, InputFile, Result,
    load_any, load_input, parse_input, read_input,
)
from karplint.engine.perfile import RunReads, process_input, run_reads  # noqa: F401
from karplint.engine.runstage import cluster_of, run_stage, scoped_run_stage  # noqa: F401 - (cluster_of: project/)
from karplint.engine import parallel  # (called through the module: tests replace its functions)


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
    karpenter_by_version: dict = field(default_factory=dict)  # display -> the version read for it (of those)

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
        # The releases of the reported files, counted on them; when none has a clear one, every release read
        # (with no file each), so that the report still says why the default target applies.
        chosen = whole.karpenter_by_version
        counted = [(v, where, sum(1 for i in inputs if chosen.get(i.display) == v))
                   for v, where, _n in whole.karpenter_versions]
        versions = tuple(x for x in counted if x[2]) or tuple(counted)
        resources = sum(n for display, n in whole.resources_by_file.items() if display not in hidden)
        run_config = whole.config  # (the one release read, when the project deploys one)
        if len(versions) == 1 and versions[0][2]:  # one release for the reported files, among several
            run_config = _version_config(config, versions[0][0])
        return Report(findings, _files_counted([i.display for i in inputs], extra_problems), resources, run_config,
                      Sources(inputs), resources_by_file={
            d: n for d, n in whole.resources_by_file.items() if d not in hidden}, karpenter_by_file={
            d: n for d, n in whole.karpenter_by_file.items() if d not in hidden}, helm_rendered=whole.helm_rendered,
            karpenter_versions=versions)

    if config.kustomize_patches is None:  # (the CLI finds them before it opens the cache: they are in its key)
        from karplint.readers.kustomize import patch_files

        config = replace(config, kustomize_patches=patch_files(inputs, read_regular, config.root))
    if config.charts is None:  # (likewise: the charts' values and renderings)
        from karplint.readers.helm_charts import chart_context

        config = replace(config, charts=chart_context(inputs, read_regular, config.root))
    known = None
    if cache is not None:  # nothing changed since the last run: its report stands
        known = parallel.content_keys(inputs, config, cache, started_ns)
        if all(known.keys):
            memo = cache.get_report(_report_digest(inputs, known.keys, config, extra_problems))
            if isinstance(memo, tuple) and len(memo) == 7:
                cache.save()  # (files read to confirm their bytes are now vouched for by their stat)
                findings, files, resources, by_file, karpenter, rendered, (versions, by_version) = memo
                if len(versions) == 1:
                    config = _version_config(config, versions[0][0])
                return Report(list(findings), files, resources, config, Sources(inputs), resources_by_file=by_file,
                              karpenter_by_file=karpenter, helm_rendered=rendered, karpenter_versions=versions,
                              karpenter_by_version=by_version)
    outcomes = parallel.run_files(inputs, config, selected_rules(config), jobs=jobs, cache=cache, started_ns=started_ns,
                         known=known)
    keys = [o.key for o in outcomes]
    versions: tuple = ((), {})
    run_config, run_cache = config, cache
    if config.karpenter_version_source == "default":
        outcomes, run_config, run_cache, versions = _repository_versions(inputs, outcomes, config, jobs, cache,
                                                                         started_ns)
    report = evaluate(outcomes, run_config, extra_problems=extra_problems, cache=run_cache, sources=Sources(inputs),
                      jobs=jobs)
    report.karpenter_versions, report.karpenter_by_version = versions
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
    """`karpenter-version` unset: the Karpenter version(s) the repository deploys (`karplint.model.repo_version`:
    the project stage's evidence from files that are not YAML, `config.release_evidence`, and the YAML pins each
    file's summary holds), and each file checked again against the one that applies to it (a second per-file
    stage, with the cache of that configuration, only for files whose version differs from the default). One version: the run stage
    targets it too; several: the run stage keeps the default target (its rules find each deployed release).
    Returns (outcomes, the run stage's configuration and cache, (versions, the version of each file that has
    one))."""
    from karplint.model.repo_version import without_stale_docs
    from karplint.model.versions import implausible
    from karplint.project import releases_for

    evidence = without_stale_docs([
        *config.release_evidence,  # (the project's files that are not YAML: plausible already)
        *(e for o in outcomes for e in o.summary.releases if implausible(_parse_version(e.version)) is None)])
    if not evidence:
        return outcomes, config, cache, ((), {})
    chosen = releases_for([i.display for i in inputs], evidence, config)
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
            redo = parallel.run_files([inputs[i] for i in redo_idxs], cfg, selected_rules(cfg),
                             jobs=jobs if version in pooled else 1, cache=sub_cache[1], started_ns=started_ns)
            for i, o in zip(redo_idxs, redo):
                outcomes[i] = o
    unclear = [i for i in sorted(again) if inputs[i].display not in chosen]
    if unclear and len(groups) > 1:  # several pins, none clearly this file's: what none of them serves is certain
        cfg = replace(config, release_candidates=tuple(sorted(groups, key=_parse_version)))
        sub_cache = cache.sibling(cfg) if cache is not None else None
        for i, o in zip(unclear, parallel.run_files([inputs[i] for i in unclear], cfg, selected_rules(cfg), jobs=1,
                                                    cache=sub_cache, started_ns=started_ns)):
            outcomes[i] = o
        if sub_cache is not None:
            sub_cache.save()
    listed = tuple((v, e.where, len(idxs)) for v, (e, idxs) in groups.items())
    # The versions the checked files get; a pin no checked file gets (a partial run: it applies to other parts of
    # the project) is no conflict of theirs. When no file gets one clearly, all stay: the warning says so.
    listed = tuple(x for x in listed if x[2]) or listed
    versions = (listed, {inputs[i].display: v for v, (_e, idxs) in groups.items() for i in idxs})
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
                              list(config.release_evidence),
                              sorted(config.focus) if config.focus is not None else None)).encode(),
                        digest_size=20)
    for item, key in zip(inputs, keys):
        h.update(b"\0" + item.display.encode("utf-8", "surrogateescape") + b"\0" + key.encode())
    return h.hexdigest()


def _files_counted(read: list[str], extra_problems: Iterable[tuple[str, Problem]]) -> int:
    """The files of a run: those read, and those only scanned whose notice is a finding (program code defining a
    Karpenter object: KPL016), which a summary would otherwise count as none (\"3 findings in 0 files\")."""
    return len(read) + len({display for display, _p in extra_problems} - set(read))


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
    if config.focus is not None:  # (verdicts on some files only: kept apart from a whole run's)
        import hashlib

        focus = hashlib.blake2b(repr(sorted(config.focus)).encode(), digest_size=8).hexdigest()
        digests = {code: f"{d}/{focus}" for code, d in digests.items()}
    by_rule: dict[str, list[Result]] = {}
    for r in stage:
        hit = cache.get_run(r.code, digests[r.code]) if r.code in digests else None
        if hit is not None:
            by_rule[r.code] = hit
    missing = [r for r in stage if r.code not in by_rule]
    if missing:
        codes = {r.code for r in missing}

        computed = parallel.run_stage([o for o in outcomes if o.summary.run_rules & codes], config, missing, jobs)
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
            emit(p.code, o.summary.display, p.span, p.message, severity=p.severity)
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
    return Report(findings, _files_counted([o.summary.display for o in outcomes], extra_problems),
                  sum(o.summary.resources for o in outcomes), config,
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
