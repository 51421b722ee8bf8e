"""Structural validation against the CRD schema of the targeted Karpenter release (KPL100-KPL129).

Every rule here reads the same cached validation (`karplint.schema.validate.check`) and reports one class of
its errors. The CEL rules of the CRDs (`x-kubernetes-validations`) are KPL130-KPL159 (karplint.schema.cel).
"""

from __future__ import annotations

from karplint.model import karpenter_resources
from karplint.rules.base import REGISTRY, rule
from karplint.schema import select
from karplint.schema.validate import check
from karplint.model.versions import KARPENTER_KINDS

KINDS = tuple(KARPENTER_KINDS)


def _emit(res, ctx, kind: str):
    result = check(res, ctx.karpenter_version)
    if result is None:
        return
    for err in result.errors:
        if err.kind != kind:
            continue
        if err.defer_to and err.defer_to in REGISTRY:
            continue  # the catalog rule reports this one with more context
        yield ctx.violation(res, err.path, err.message, on=err.on, fix=err.fix)


@rule("KPL100", "invalid-field-type", category="schema", severity="error",
      summary="A field has the wrong type for the CRD schema (string vs number, list vs mapping, ...)", kinds=KINDS)
def invalid_field_type(res, ctx):
    yield from _emit(res, ctx, "type")
    yield from _emit(res, ctx, "other")  # any other structural violation (no current CRD has one)


@rule("KPL101", "invalid-enum-value", category="schema", severity="error",
      summary="A field's value is not one of the values the CRD schema allows", kinds=KINDS)
def invalid_enum_value(res, ctx):
    yield from _emit(res, ctx, "enum")


@rule("KPL102", "pattern-mismatch", category="schema", severity="error",
      summary="A string does not match the format the CRD schema requires (durations, quantities, ids, ...)",
      kinds=KINDS, fix="safe")
def pattern_mismatch(res, ctx):
    yield from _emit(res, ctx, "pattern")


@rule("KPL103", "required-field-missing", category="schema", severity="error",
      summary="A field the CRD schema requires is missing or empty", kinds=KINDS, fix="safe")
def required_field_missing(res, ctx):
    yield from _emit(res, ctx, "required")


@rule("KPL104", "unknown-field", category="schema", severity="error",
      summary="A field the CRD schema does not define; the API server rejects it (strict decoding)",
      kinds=KINDS, fix="unsafe")
def unknown_field(res, ctx):
    yield from _emit(res, ctx, "unknown")


@rule("KPL105", "moved-field", category="schema", severity="error",
      summary="A field or value of another apiVersion (v1beta1 -> v1, v1alpha5 -> v1beta1) that moved or was renamed",
      kinds=KINDS, fix="safe")
def moved_field(res, ctx):
    yield from _emit(res, ctx, "moved")


@rule("KPL106", "value-out-of-range", category="schema", severity="error",
      summary="A number, string length or list/map size outside the bounds of the CRD schema", kinds=KINDS)
def value_out_of_range(res, ctx):
    yield from _emit(res, ctx, "range")


@rule("KPL129", "schema-release-approximate", category="schema", severity="info",
      summary="The targeted Karpenter version has no bundled schema and some verdicts depend on it",
      reads=(karpenter_resources,))
def schema_release_approximate(model, ctx):
    """Once per run: schema verdicts that differ between the bundled releases around the target (not reported), or
    findings made against a different release than the target because the nearer one lacks the kind."""
    undecided = []
    fallback = []
    for res in model.resources:
        if res.kind not in KARPENTER_KINDS:
            continue
        sel = select(res.group, res.version, res.kind, ctx.karpenter_version)
        if sel is None or sel.exact or sel.unserved:
            continue  # the target's own schema, or an apiVersion it does not serve (each finding names its schema)
        result = check(res, ctx.karpenter_version)
        if result is None:
            continue
        sel = result.selection
        for err in result.undecided:
            if not (err.defer_to and err.defer_to in REGISTRY):
                undecided.append((res, sel, err))
        if not sel.exact and sel.upper is None and result.errors:
            fallback.append((res, sel, result.errors[0]))
    if not undecided and not fallback:
        return
    target = ctx.karpenter_version
    notes = []
    anchor = (undecided or fallback)[0]
    if undecided:
        pairs = sorted({(s.release, _label(s.upper)) for _r, s, _e in undecided})
        between = "; ".join(f"{lo} and {hi}" for lo, hi in pairs)
        fields = ", ".join(dict.fromkeys(_where(r, e) for r, _s, e in undecided[:5]))
        more = f" and {len(undecided) - 5} more" if len(undecided) > 5 else ""
        n = len(undecided)
        head = f"Karpenter {target} has no bundled schema: {n} verdict{'s' if n != 1 else ''} not reported"
        notes.append(f"they differ between the bundled releases {between} ({fields}{more})")
    else:
        head = f"Karpenter {target} has no bundled schema: checked against another release"
    if fallback:
        by_release: dict[str, list[str]] = {}
        for r, s, _e in fallback:
            by_release.setdefault(s.release, [])
            what = f"{r.api_version} {r.kind}"
            if what not in by_release[s.release]:
                by_release[s.release].append(what)
        for rel, whats in sorted(by_release.items()):
            notes.append(f"no bundled schema of Karpenter {target} or older serves {', '.join(whats)}; checked "
                         f"against {rel} instead, so findings may differ on the real release")
    res, _sel, err = anchor
    span = res.doc.key_span(err.path) if err.on == "key" else res.doc.span(err.path)
    yield ctx.at(res, res.doc, span, head + "\nhelp: set karpenter-version to a bundled release for exact results"
                 + "".join(f"\nnote: {n}" for n in notes))


def _label(release: str | None) -> str:
    if release and not release[:1].isdigit():
        return "the provider's main branch (unreleased)"
    return release or "later releases"


def _where(res, err) -> str:
    from karplint.schema.validate import format_path

    return f"{res} {format_path(err.path)}"
