"""Input problems, suppression bookkeeping and API-version rules: the rules the core owns."""

from __future__ import annotations

import difflib

from karplint.rules.base import declare, rule
from karplint.model.versions import API_SERVED, KARPENTER_GROUPS, KARPENTER_KINDS, LATEST, served, served_range
from karplint.schema import select
from karplint.readers.templating import is_templated

# Findings produced by the loader and the engine (documented and selectable like any rule).
declare("KPL001", "invalid-yaml", category="input", severity="error",
        summary="The file is not valid YAML (syntax error, tab indentation, unclosed quote or bracket)")
declare("KPL002", "duplicate-key", category="input", severity="error",
        summary="A mapping defines the same key twice")
declare("KPL003", "unreadable-file", category="input", severity="error",
        summary="A file cannot be read as text (encoding, binary content, broken link, not a regular file)")
declare("KPL004", "input-too-large", category="input", severity="error",
        summary="A file exceeds a size, depth, node or alias budget and was not fully checked")
declare("KPL005", "helm-template-skipped", category="input", severity="info",
        summary="Part of a Go/Helm template could not be read without rendering it; that part is not checked")
declare("KPL006", "internal-error", category="input", severity="error",
        summary="karplint failed on this document; the rest of the run carried on")
declare("KPL090", "unused-suppression", category="suppression", severity="info",
        summary="A karplint suppression that suppresses nothing")
declare("KPL091", "unknown-suppression-code", category="suppression", severity="warning",
        summary="A karplint suppression names a rule that does not exist")


@rule("KPL007", "malformed-resource", category="input", severity="error",
      summary="A Kubernetes document whose apiVersion, kind, metadata or spec has the wrong type",
      scope="file")
def malformed_resource(model, ctx):
    for doc in model.documents:
        data = doc.data
        if not isinstance(data, dict):
            continue
        if "apiVersion" not in data and "kind" not in data:
            continue
        for key in ("apiVersion", "kind"):
            if key in data and not isinstance(data[key], str):
                yield ctx.at(None, doc, doc.span((key,)),
                             f"`{key}` must be a string, not {type(data[key]).__name__}")
        kind = data.get("kind")
        if isinstance(kind, str) and kind in KARPENTER_KINDS and isinstance(data.get("apiVersion"), str):
            # (a template hole, `spec = local.x` in HCL or `spec: ${x}`: a mapping once filled in, unknown here)
            if "metadata" in data and not isinstance(data["metadata"], dict) and not is_templated(data["metadata"]):
                yield ctx.at(None, doc, doc.span(("metadata",)), "`metadata` must be a mapping")
            if "spec" in data and not isinstance(data["spec"], dict) and not is_templated(data["spec"]):
                yield ctx.at(None, doc, doc.span(("spec",)),
                             f"{kind} `spec` must be a mapping (it is {'empty' if data['spec'] is None else type(data['spec']).__name__})")


@rule("KPL008", "non-mapping-document", category="input", severity="info",
      summary="A YAML document that is a scalar or a list, not a Kubernetes object",
      scope="file")
def non_mapping_document(model, ctx):
    for doc in model.documents:
        if doc.data is not None and not isinstance(doc.data, dict) and not doc.base:
            what = "a list" if isinstance(doc.data, list) else "a scalar"
            yield ctx.at(None, doc, doc.span(()), f"document {doc.index + 1} is {what}, not a Kubernetes object\n"
                                                    "note: karplint skips it")



def release_pinned(ctx) -> bool:
    """Whether the targeted release was chosen (configuration, flag) or read from the repository rather than
    karplint's default. The engine retargets a file at the release its repository deploys but leaves the source
    "default" (nobody chose it), so a target other than the default is the repository's."""
    return ctx.version_source != "default" or ctx.karpenter_version != LATEST


def _served_by_none(res, ctx) -> tuple[str, ...]:
    """The releases the repository pins when none clearly applies to this file and none of them serves the object's
    apiVersion (then it is certainly not served, whichever the file gets); else ()."""
    from karplint.model.versions import V

    cands = ctx.release_candidates
    if cands and not any(served(res.group, res.version, res.kind, V(c))[0] for c in cands):
        return tuple(cands)
    return ()


def _unserved(res, ctx) -> bool:
    """A Karpenter kind under its own group whose apiVersion the targeted release does not serve."""
    return res.group in KARPENTER_GROUPS and KARPENTER_KINDS.get(res.kind) == res.group \
        and not served(res.group, res.version, res.kind, ctx.karpenter_version)[0]


@rule("KPL801", "removed-api-version", category="deprecation", severity="error",
      summary="A Karpenter apiVersion that the pinned Karpenter release does not serve",
      kinds=tuple(KARPENTER_KINDS))
def removed_api_version(res, ctx):
    if not _unserved(res, ctx):
        return
    if not release_pinned(ctx):
        pins = _served_by_none(res, ctx)
        if pins:  # (several pins, none clearly this file's, and none serves it)
            yield ctx.violation(res, ("apiVersion",), (
                f"{res.api_version} {res.kind} is served by none of the releases this repository pins "
                f"({', '.join(pins)})\nnote: none of them clearly applies to this file (set `karpenter-version` or "
                f"`clusters` to say which); it is served by Karpenter "
                f"{served_range(res.group, res.version, res.kind)}"))
        return  # (else no release pinned: KPL803 says once per file what the apiVersion implies)
    _ok, removed_in, hint = served(res.group, res.version, res.kind, ctx.karpenter_version)
    target = f"Karpenter {ctx.karpenter_version}"
    if removed_in:
        msg = (f"{res.api_version} {res.kind} is not served by {target}\n"
               f"help: {hint}\nnote: removed in Karpenter {removed_in}")
    else:
        msg = f"{res.api_version} {res.kind} is not served by {target}\nnote: {hint}"
    sel = select(res.group, res.version, res.kind, ctx.karpenter_version)
    if sel is not None and sel.unserved:
        msg += f"\nnote: its fields are checked against the {sel.note}"
    yield ctx.violation(res, ("apiVersion",), msg)


@rule("KPL803", "older-api-version-unpinned", category="deprecation", severity="info",
      summary="Karpenter objects of an older apiVersion and no release pinned: what the apiVersion implies (once "
              "per file)", scope="file")
def older_api_version_unpinned(model, ctx):
    """Without a pinned release, the default target is a guess: an error per object of an older apiVersion would
    mostly say that the guess is wrong. One notice per file says what the objects imply and how to pin."""
    if release_pinned(ctx):
        return
    found = [res for res in model.resources if _unserved(res, ctx) and not _served_by_none(res, ctx)]
    if not found:
        return
    by_api: dict[str, list] = {}
    for res in found:
        kinds = by_api.setdefault(f"{res.group}/{res.version}", [])
        if res.kind not in kinds:
            kinds.append(res.kind)
    first, n = found[0], len(found)
    them = "it" if n == 1 else "them"
    what = f"{first.api_version} {first.kind}" if n == 1 else f"{n} objects of older apiVersions"
    notes = []
    for api, kinds in by_api.items():
        group, _, version = api.partition("/")
        sel = select(group, version, kinds[0], ctx.karpenter_version)
        checked = f"; checked against the {sel.note}" if sel is not None and sel.unserved else ""
        notes.append(f"note: {api} ({', '.join(kinds)}) is served by Karpenter "
                     f"{served_range(group, version, kinds[0])}{checked}")
    unpinned = ("no release clearly applies to this file (the repository pins "
                f"{', '.join(ctx.release_candidates)})" if ctx.release_candidates else "no release is pinned")
    yield ctx.violation(
        first, ("apiVersion",),
        f"{what} {'is' if n == 1 else 'are'} not served by Karpenter {ctx.karpenter_version}, and {unpinned}\n"
        f"help: pin the release you run (`karpenter-version` in the configuration, or `--karpenter-version`) to "
        f"check {them} against it; Karpenter {ctx.karpenter_version} needs karpenter.sh/v1 and karpenter.k8s.aws/v1 "
        "(KPL801 then reports each object)\n"
        f"note: Karpenter {ctx.karpenter_version} is karplint's default target\n" + "\n".join(notes))


_KNOWN_VERSIONS = {
    "karpenter.sh": ("v1", "v1beta1", "v1alpha5", "v1alpha4", "v1alpha3", "v1alpha1"),
    "karpenter.k8s.aws": ("v1", "v1beta1", "v1alpha1"),
}


@rule("KPL802", "wrong-api-group", category="deprecation", severity="error",
      summary="A Karpenter kind under the wrong API group, or a misspelt Karpenter apiVersion or kind",
      scope="file")
def wrong_api_group(model, ctx):
    kinds_lower = {k.lower(): k for k in KARPENTER_KINDS}
    for res in model.resources:
        group, version, kind = res.group, res.version, res.kind
        if is_templated(res.api_version) or is_templated(kind):
            continue  # a template hole (`apiVersion: karpenter.sh/{{ .Values.apiVersion }}`): unknown until rendered
        expected = KARPENTER_KINDS.get(kind)
        if expected is None and kind.lower() in kinds_lower and (group in KARPENTER_GROUPS or "karpenter" in group):
            right = kinds_lower[kind.lower()]
            yield ctx.violation(res, ("kind",), f"unknown kind {kind!r}\nhelp: did you mean {right!r}? "
                                                "(kinds are case-sensitive)")
            continue
        if expected is None:
            if group in KARPENTER_GROUPS:
                close = difflib.get_close_matches(kind, list(KARPENTER_KINDS), n=1, cutoff=0.7)
                hint = f"\nhelp: did you mean {close[0]!r}?" if close else ""
                yield ctx.violation(res, ("kind",), f"{group} has no kind {kind!r}{hint}")
            continue
        if group != expected:
            what = f"`{res.api_version}`" if group else f"`{res.api_version}` (no API group)"
            yield ctx.violation(
                res, ("apiVersion",),
                f"{kind} belongs to the API group {expected}, not {what}\n"
                f"help: use apiVersion: {expected}/v1\nnote: the API server has no such resource")
            continue
        if version not in _KNOWN_VERSIONS[group]:
            close = difflib.get_close_matches(version, _KNOWN_VERSIONS[group], n=1, cutoff=0.5)
            hint = f"\nhelp: did you mean {group}/{close[0]}?" if close else ""
            yield ctx.violation(res, ("apiVersion",), f"{group} has no version {version!r}{hint}")
            continue
        never = _never_served(group, version, kind)
        if never:
            yield ctx.violation(res, ("apiVersion",), f"no Karpenter release serves {kind} as {res.api_version}\n"
                                                       f"{never}\nnote: the API server has no such resource")


def _never_served(group: str, version: str, kind: str) -> str:
    """What to say of a known group/version that no release served `kind` under (`karpenter.sh/v1` Provisioner),
    or "" when one did or a later release still may (a version newer than the kind's newest: NodeOverlay v1)."""
    if (group, version, kind) in API_SERVED:
        return ""
    facts = [(v, API_SERVED[(g, v, k)]) for (g, v, k) in API_SERVED if g == group and k == kind]
    if not facts:
        return ""
    order = _KNOWN_VERSIONS[group]  # newest first
    newest = min(order.index(v) for v, _ in facts)
    removed_kind = all(fact[1] is not None for _, fact in facts)
    if not removed_kind and order.index(version) < newest:
        return ""
    where = ", ".join(f"{group}/{v} (Karpenter {served_range(group, v, kind)})" for v, _ in facts)
    hint = next((fact[2] for _, fact in facts if fact[2]), "") if removed_kind else f"use apiVersion {group}/{order[newest]}"
    return f"note: {kind} is served as {where}" + (f"\nhelp: {hint}" if hint else "")


