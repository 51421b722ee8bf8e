"""CEL rules of the Karpenter CRDs (`x-kubernetes-validations`), evaluated offline (karplint.schema.cel).

KPL130 reports every rule the API server would reject the object with; KPL131 lists, once per resource, a rule
present at one of its nodes that karplint cannot evaluate (never counted as passing). Transition rules (`oldSelf`)
only run on updates and are not reported (see `karplint rules --cel-coverage`).
"""

from __future__ import annotations

from karplint.readers.document import per_document
from karplint.rules import rule
from karplint.schema import load_schema, select
from karplint.schema.cel import Outcome, evaluate
from karplint.schema.validate import format_path
from karplint.model.versions import KARPENTER_KINDS, Version

_KINDS = tuple(KARPENTER_KINDS)

def outcome(res, karpenter_version: Version | str) -> tuple[Outcome, set | None] | None:
    """(outcome against the selected release, identities of the failures the next bundled release shares or None
    when the target is a bundled release), cached per document (both rules of this module ask for it); None
    when no CRD schema applies."""
    if res.kind not in KARPENTER_KINDS or not isinstance(res.data, dict):
        return None
    return _outcome(res, Version.parse(karpenter_version))


# CEL rules that a rule of its own reports more precisely (at the offending item, with a fix): not reported twice.
# (kind, the CEL rule's message): KPL404 names the budget that has `schedule` without `duration` or the reverse;
# this rule would point at `budgets:` as a whole.
OWNED_ELSEWHERE = frozenset({("NodePool", "'schedule' must be set with 'duration'")})


def _ident(f) -> tuple:
    return (f.report_path, f.rule.rule, f.message)


@per_document
def _outcome(res, target: Version):
    sel = select(res.group, res.version, res.kind, target)
    if sel is None:
        return None
    schema = load_schema(sel.release, res.group, res.version, res.kind)
    if schema is None:
        return None
    out = evaluate(res.data, schema)
    shared = None
    if sel.upper and out.failures:
        upper = load_schema(sel.upper, res.group, res.version, res.kind)
        if upper is not None:
            shared = {_ident(f) for f in evaluate(res.data, upper).failures}
    return out, shared


@rule("KPL130", "cel-validation", category="schema", severity="error",
      summary="The CRD's CEL validation rules (x-kubernetes-validations) reject the object",
      kinds=_KINDS)
def cel_validation(res, ctx):
    got = outcome(res, ctx.karpenter_version)
    if got is None:
        return
    out, shared = got
    sel = select(res.group, res.version, res.kind, ctx.karpenter_version)
    note = f"\nnote: {sel.note} (Karpenter {ctx.karpenter_version} does not serve it)" if sel and sel.unserved else ""
    for f in out.failures:
        if shared is not None and _ident(f) not in shared:
            continue  # the target lies between two bundled releases that disagree: undecidable
        if (res.kind, f.message) in OWNED_ELSEWHERE:
            continue
        yield ctx.violation(res, f.report_path, f"{format_path(f.report_path)}: {f.message}{note}", on="key")


@rule("KPL131", "cel-rule-unevaluated", category="schema", severity="info",
      summary="A CEL rule of the CRD applies here but karplint cannot evaluate it (listed, never assumed to pass)",
      kinds=_KINDS)
def cel_rule_unevaluated(res, ctx):
    got = outcome(res, ctx.karpenter_version)
    if got is None:
        return
    seen = set()
    for path, r, why in got[0].unevaluated:
        if r.rule in seen:
            continue
        seen.add(r.rule)
        yield ctx.violation(res, path, f"{format_path(path)}: CEL rule not checked by karplint ({why}): "
                                       f"{r.rule.strip()[:120]}", on="key")
