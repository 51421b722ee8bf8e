"""The run stage: the run-scope rules over the documents they read, across files (`run_stage`), once per cluster
scope when `clusters` is set (`scoped_run_stage`). karplint/engine/parallel.py shares it between two processes
when it is large."""

from __future__ import annotations

from karplint.config import Config
from karplint.model import Model, Resource
from karplint.rules import Rule
from karplint.engine.files import FileOutcome, Result
from karplint.engine.perfile import _context, _internal, _resolve
from karplint.project.clusters import cluster_dirs, cluster_of, test_scope  # noqa: F401 - (cluster_of: also karplint.engine's)



def run_stage(outcomes: list[FileOutcome], config: Config, rules: list[Rule]) -> dict[str, list[Result]]:
    """Cross-file verdicts by rule code: `rules` (run-scope rules, and resource rules that read the model) over
    the documents the per-file stage kept for them, in input order. Each rule reads only its own documents
    (`Rule.reads`), so it does not matter which other rules' documents the outcomes also hold."""
    model = Model()
    for o in outcomes:
        if o.summary.run_documents:
            docs = o.documents()
            model.add(d for d in docs if not d.documentation_example)
            model.add_recorded(d for d in docs if d.documentation_example)  # (`cluster_record`s: names only)
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
                    if not ctx.in_focus(res):  # (a resource rule reports on its resource's own file)
                        continue
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


def scoped_run_stage(outcomes: list[FileOutcome], config: Config, rules: list[Rule]) -> dict[str, list[Result]]:
    """`run_stage`, once per cluster when `clusters` says which directories each hold one cluster: a rule sees
    the cluster's files and the shared ones (outside every cluster), so a Cilium install in clusters/prod/ is not
    a verdict on clusters/dev/'s NodePools. A shared file's finding found in several clusters is reported once.
    Test data (project/clusters.py `test_scope`) is judged with the project's files, and they without it."""
    dirs = cluster_dirs(config)
    where = [cluster_of(o.summary.display, dirs) for o in outcomes] if dirs else [None] * len(outcomes)
    scopes = [test_scope(o.summary.display) if o.summary.run_documents else None for o in outcomes]
    present = sorted({c for c in where if c is not None})
    tests = sorted({t for t in scopes if t is not None})
    if not present and not tests:
        return run_stage(outcomes, config, rules)
    merged: dict[str, list[Result]] = {r.code: [] for r in rules}
    seen: set = set()

    def merge(members: list[FileOutcome], only: str | None = None) -> None:
        for code, results in run_stage(members, config, rules).items():
            for x in results:
                key = (x.code, x.file, x.span, x.message)
                if key not in seen and (only is None or test_scope(x.file) == only):
                    seen.add(key)
                    merged[code].append(x)

    for cluster in present or [None]:  # the cluster's files and the shared ones, in input order
        mine = [(o, t) for o, c, t in zip(outcomes, where, scopes) if c in (cluster, None)]
        merge([o for o, t in mine if t is None])
        for scope in tests:  # a test directory's findings, with the project's files around it
            if any(t == scope for _o, t in mine):
                merge([o for o, t in mine if t in (None, scope)], only=scope)
    return merged
