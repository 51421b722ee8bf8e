"""The Karpenter Helm chart's values, checked against the chart of the release that installs them
(karplint/schema/chart_values.py): a key the chart's templates never read is ignored by Helm without a word.

Where values are: a Flux HelmRelease of chart karpenter (`spec.values`), an Argo CD Application of chart karpenter
(`helm.valuesObject`, `helm.values`, `helm.parameters`), a Terraform `helm_release` of chart karpenter (its values
heredocs, `yamlencode` objects and `set` blocks: readers/chart_values.py), and a file named as Karpenter's values
(`karpenter-values.yaml`, `values-karpenter.yaml`, `karpenter.values.yaml`) with one of the chart's top-level keys.
The release is the chart version the installing object pins, else the release the project targets when one is
pinned; with neither, only keys no release of the chart has are reported.
"""

from __future__ import annotations

import difflib
import os
import re

from karplint.readers.chart_values import split_parameter_name
from karplint.readers.templating import is_templated
from karplint.rules.base import rule

_VALUES_FILE = re.compile(r"^(?:karpenter[-_.]values|values[-_.]karpenter)(?:[-_.][\w.-]*)?\.ya?ml$", re.I)
_FLUX_GROUP = "helm.toolkit.fluxcd.io"
MAX_KEYS = 5_000  # keys walked per values document


def _karpenter_chart(chart) -> bool:
    if not isinstance(chart, str) or chart.strip().startswith((".", "/", "~")):
        return False
    return chart.strip().rstrip("/").rsplit("/", 1)[-1] == "karpenter"


def _has_chart_key(data: dict) -> bool:
    """Whether a file named as Karpenter's values has a top-level key of some release of the chart: the name
    (`values-karpenter.yaml`) is also the natural one for another chart's overlay for clusters that run Karpenter,
    whose keys are that chart's (caipe-io/ai-platform-engineering#1446); with none of Karpenter's keys, say nothing."""
    from karplint.schema.chart_values import RENAMED, any_release, known_in

    known = any_release().known
    return any(isinstance(k, str) and (k in known or k in RENAMED or known_in(k) is not None) for k in data)


def _sources(model):
    """(document, path of the values in it, values, pinned chart version or None, what installs them, parameters:
    whether the keys are `helm.parameters` names)."""
    for doc in model.documents:
        emb = doc.source.embedding
        if emb is not None and getattr(emb, "chart_values", ()):
            if isinstance(doc.data, dict):
                yield doc, (), doc.data, emb.chart_values[0] or None, emb.chart_values[1]
            continue
        data = doc.data
        if not isinstance(data, dict):
            continue
        kind = data.get("kind")
        if kind is None and "apiVersion" not in data and doc.index == 0 and emb is None and \
                _VALUES_FILE.match(os.path.basename(doc.path)):
            if _has_chart_key(data):
                yield doc, (), data, None, os.path.basename(doc.path)
            continue
        spec = data.get("spec")
        if not isinstance(spec, dict) or not isinstance(data.get("apiVersion"), str):
            continue
        name = (data.get("metadata") or {}).get("name", "") if isinstance(data.get("metadata"), dict) else ""
        if kind == "HelmRelease" and data["apiVersion"].startswith(_FLUX_GROUP + "/"):
            chart = ((spec.get("chart") or {}).get("spec") or {}) if isinstance(spec.get("chart"), dict) else {}
            if isinstance(chart, dict) and _karpenter_chart(chart.get("chart")) and isinstance(spec.get("values"), dict):
                yield doc, ("spec", "values"), spec["values"], chart.get("version"), f"HelmRelease {name}"
        elif kind == "Application" and data["apiVersion"].startswith("argoproj.io/"):
            sources = [(("spec", "source"), spec.get("source"))]
            if isinstance(spec.get("sources"), list):
                sources += [(("spec", "sources", i), s) for i, s in enumerate(spec["sources"])]
            for where, source in sources:
                if not isinstance(source, dict) or not _karpenter_chart(source.get("chart")):
                    continue
                helm = source.get("helm")
                if not isinstance(helm, dict):
                    continue
                version = source.get("targetRevision")
                if isinstance(helm.get("valuesObject"), dict):
                    yield doc, (*where, "helm", "valuesObject"), helm["valuesObject"], version, f"Application {name}"
                params = helm.get("parameters")
                if isinstance(params, list):
                    for i, p in enumerate(params):
                        if isinstance(p, dict) and isinstance(p.get("name"), str):
                            yield doc, (*where, "helm", "parameters", i, "name"), p["name"], version, \
                                f"Application {name}"


def _release(version, ctx):
    """The chart table of the release these values go to, or None (unknown: say less)."""
    from karplint.model.release_evidence import exact
    from karplint.rules.core import release_pinned
    from karplint.schema.chart_values import chart_keys

    v = exact(version) if isinstance(version, str) else None
    if v is not None:
        return chart_keys(v), v
    if release_pinned(ctx):
        return chart_keys(str(ctx.karpenter_version)), str(ctx.karpenter_version)
    return None, None


def _suggest(parent: str, key: str, keys, elsewhere: bool = True) -> str:
    """A `help:` line naming the key meant, if one is close."""
    siblings = keys.children(parent)
    lower = {s.lower(): s for s in siblings}
    pre = f"{parent}." if parent else ""
    if key.lower() in lower:
        return f"\nhelp: did you mean `{pre}{lower[key.lower()]}`? (keys are case-sensitive)"
    if "." in key and key in keys.known | {f"{pre}{key}"} or f"{pre}{key}" in keys.known:
        nested = ": ".join(key.split(".")) if key.count(".") == 1 else key
        return (f"\nhelp: Helm does not split dotted keys in a values file: nest them (`{nested}: ...`)")
    close = difflib.get_close_matches(key, siblings, n=1, cutoff=0.75)
    if close:
        return f"\nhelp: did you mean `{pre}{close[0]}`?"
    found = sorted(k for k in keys.known if k.rsplit(".", 1)[-1] == key and not keys.is_open(k))
    if elsewhere and not parent and len(found) == 1:  # (a top-level key that belongs under another: clusterName)
        return f"\nhelp: did you mean `{found[0]}`?"
    return ""


def _check(model, ctx, sources=None):
    """(code, document, path of the key, message) of every values key the chart of the release ignores."""
    from karplint.schema.chart_values import RENAMED, any_release, known_in

    for doc, base, values, version, what in (sources if sources is not None else _sources(model)):
        keys, release = _release(version, ctx)
        every = any_release()
        if isinstance(values, str):  # a `helm.parameters` name: one dotted key
            parts = split_parameter_name(values)
            if not parts or is_templated(values):
                continue
            items = [(base, parts, None)]
        else:
            items = [((*base, k), [k], v) for k, v in values.items()]
        budget = MAX_KEYS
        while items and budget > 0:
            at, parts, value = items.pop(0)
            budget -= 1
            key = parts[-1]
            if not isinstance(key, str) or is_templated(key):
                continue
            dotted = ".".join(parts)
            table = keys if keys is not None else every
            if table.is_open(dotted):
                continue
            if dotted in table.unread:
                read = sorted(k for k in table.known - table.unread if k.rsplit(".", 1)[-1] == key and k != dotted)
                hint = f"\nhelp: the chart reads `{read[0]}`" if len(read) == 1 else ""
                where = f"Karpenter chart {release}" if keys is not None else "every Karpenter chart that has it"
                yield "KPL152", doc, at, (
                    f"`{dotted}` is read by no template of {where}: it has no effect{hint}\n"
                    f"note: the chart's values.yaml declares it, but nothing renders it\nnote: set in {what}")
                continue
            if dotted in table.known:
                if isinstance(value, dict):
                    items += [((*at, k), [*parts, k], v) for k, v in value.items()]
                continue
            parent = ".".join(parts[:-1])
            if keys is None:  # the release is unknown: only what no release of the chart has
                if known_in(dotted) is None and not every.is_open(dotted):
                    yield "KPL150", doc, at, (
                        f"`{dotted}` is a value of no Karpenter chart release: Helm ignores it"
                        f"{_suggest(parent, key, every)}\nnote: set in {what}; no release pinned, so checked against "
                        "the charts of every release")
                continue
            span = known_in(dotted)
            if span is not None and isinstance(value, dict) and value and all(
                    isinstance(k, str) and known_in(f"{dotted}.{k}") is not None for k in value):
                # (a mapping of another release's keys: each key said, with its rename if it has one)
                items += [((*at, k), [*parts, k], v) for k, v in value.items()]
                continue
            if span is not None or dotted in RENAMED:
                new = RENAMED.get(dotted)
                if new is not None and new in keys.known:
                    msg = (f"`{dotted}` is not read by Karpenter chart {release}: renamed `{new}`\n"
                           f"help: write `{new}`\nnote: renamed in v0.32.0; both names were read through v0.32.x, "
                           "the old one is ignored from v0.33.0")
                else:
                    first, last = span
                    msg = (f"`{dotted}` is not read by Karpenter chart {release}: Helm ignores it"
                           f"{_suggest(parent, key, keys, elsewhere=False)}\n"
                           f"note: the chart has it from {first} to {last}")
                yield "KPL151", doc, at, f"{msg}\nnote: set in {what}; the setting does not take effect"
                continue
            yield "KPL150", doc, at, (
                f"`{dotted}` is not a value of Karpenter chart {release}: Helm ignores it"
                f"{_suggest(parent, key, keys)}\nnote: set in {what}; the chart's templates never read it, the "
                "setting does not take effect")


def _report(model, ctx, code):
    for c, doc, at, message in _check(model, ctx):
        if c == code:
            yield ctx.at(None, doc, doc.key_span(at) if at and doc.exact(at) is not None and
                         doc.exact(at).key_span is not None else doc.span(at), message)


@rule("KPL150", "chart-values-unknown-key", category="schema", severity="warning",
      summary="A Karpenter Helm chart value that the chart of the release never reads: Helm ignores it",
      scope="file")
def chart_values_unknown_key(model, ctx):
    yield from _report(model, ctx, "KPL150")


@rule("KPL152", "chart-values-unread-key", category="schema", severity="warning",
      summary="A Karpenter Helm chart value that the chart declares but none of its templates reads: no effect",
      scope="file")
def chart_values_unread_key(model, ctx):
    yield from _report(model, ctx, "KPL152")


@rule("KPL151", "chart-values-renamed-key", category="schema", severity="warning",
      summary="A Karpenter Helm chart value renamed or removed (or not yet added) at the release that installs it",
      scope="file")
def chart_values_renamed_key(model, ctx):
    yield from _report(model, ctx, "KPL151")


# ------------------------------------------------------------------------------------------------ umbrella charts

_UMBRELLA_VALUES = ("values.yaml", "values.yml")


def reads_umbrella_values(doc, res) -> bool:
    """What KPL153 reads: Chart.yaml documents, and values.yaml documents with a top-level mapping (one of them may
    be a dependency's values)."""
    base = os.path.basename(doc.path)
    return base == "Chart.yaml" or (base in _UMBRELLA_VALUES and res is None and isinstance(doc.data, dict))


def _umbrella_sources(model):
    """The values of a chart's karpenter dependency: `karpenter:` (or its alias) in the values.yaml beside a
    Chart.yaml whose `dependencies` name the karpenter chart from a repository (not a local `file://` chart)."""
    deps: dict[str, tuple[str, object, str]] = {}  # directory -> (values key, version, what)
    for doc in model.documents:
        if os.path.basename(doc.path) != "Chart.yaml" or not isinstance(doc.data, dict):
            continue
        for dep in doc.data.get("dependencies") or () if isinstance(doc.data.get("dependencies"), list) else ():
            if not isinstance(dep, dict) or dep.get("name") != "karpenter":
                continue
            repo = dep.get("repository")
            if not isinstance(repo, str) or repo.startswith("file://") or not repo.strip():
                continue
            key = dep.get("alias") if isinstance(dep.get("alias"), str) else "karpenter"
            deps[os.path.dirname(doc.path)] = (key, dep.get("version"),
                                               f"dependency karpenter of {doc.data.get('name', 'the chart')}")
    if not deps:
        return
    for doc in model.documents:
        if os.path.basename(doc.path) not in _UMBRELLA_VALUES or not isinstance(doc.data, dict):
            continue
        found = deps.get(os.path.dirname(doc.path))
        if found is None or not isinstance(doc.data.get(found[0]), dict):
            continue
        key, version, what = found
        yield doc, (key,), doc.data[key], version, what


_KINDS = {"KPL150": "not a value of the chart", "KPL151": "renamed or removed", "KPL152": "declared but unread"}


@rule("KPL153", "chart-values-dependency-key", category="schema", severity="warning",
      summary="A value for the Karpenter chart as a dependency of another chart (its values.yaml `karpenter:`) that "
              "the chart of the release ignores (KPL150-KPL152 across Chart.yaml and values.yaml)",
      reads=(reads_umbrella_values,))
def chart_values_dependency_key(model, ctx):
    for code, doc, at, message in _check(model, ctx, list(_umbrella_sources(model))):
        yield ctx.at(None, doc, doc.key_span(at) if doc.exact(at) is not None and doc.exact(at).key_span is not None
                     else doc.span(at), f"{message}\nnote: {code}'s verdict ({_KINDS[code]}), on a dependency's values")


# ------------------------------------------------------------------------------------------------ chart version

_OCI_HOST = "public.ecr.aws/karpenter"
_V_PREFIX_FROM = (0, 17, 0)  # the OCI registry's first tags (`v0.17.0`); the `v` was dropped at 0.35.0
_NO_PREFIX_FROM = (0, 35, 0)


def _oci(repository) -> bool:
    return isinstance(repository, str) and _OCI_HOST in repository.replace("oci://", "")


def _references(model):
    """(document, path of the version, version, chart, what) of the karpenter charts pulled from the OCI registry
    with a literal version: Terraform helm_release (readers/chart_values.py), Argo CD Application sources."""
    for doc in model.documents:
        emb = doc.source.embedding
        data = doc.data
        if emb is not None and getattr(emb, "chart_reference", ()):
            chart, repo = data.get("chart", ""), data.get("repository", "")
            if isinstance(data.get("version"), str) and (_oci(repo) or _oci(chart)):
                yield doc, ("version",), data["version"], chart.rstrip("/").rsplit("/", 1)[-1], emb.chart_reference[0]
            continue
        if not isinstance(data, dict) or data.get("kind") != "Application" or \
                not str(data.get("apiVersion", "")).startswith("argoproj.io/") or not isinstance(data.get("spec"), dict):
            continue
        spec = data["spec"]
        sources = [(("spec", "source"), spec.get("source"))]
        if isinstance(spec.get("sources"), list):
            sources += [(("spec", "sources", i), s) for i, s in enumerate(spec["sources"])]
        for where, source in sources:
            if isinstance(source, dict) and source.get("chart") in ("karpenter", "karpenter-crd") and \
                    _oci(source.get("repoURL")) and isinstance(source.get("targetRevision"), str):
                yield doc, (*where, "targetRevision"), source["targetRevision"], source["chart"], "Application"


@rule("KPL154", "chart-version-tag-form", category="schema", severity="error",
      summary="A Karpenter chart version from the OCI registry written in the tag form it does not have (`v1.0.5`: "
              "no `v` from 0.35.0 on; `0.34.0`: a `v` from 0.17.0 to 0.34.x)", scope="file")
def chart_version_tag_form(model, ctx):
    from karplint.model.release_evidence import exact

    for doc, at, version, chart, what in _references(model):
        v = exact(version)
        if v is None or is_templated(version):
            continue  # (a range, a variable, a template: resolved elsewhere)
        key = tuple(int(x) for x in v.split("."))
        prefixed = version.strip().startswith("v")
        if key >= _NO_PREFIX_FROM and prefixed:
            right, why = v, "from 0.35.0 the chart's OCI tags are plain semantic versions, without the `v`"
        elif _V_PREFIX_FROM <= key < _NO_PREFIX_FROM and not prefixed:
            right, why = f"v{v}", "from 0.17.0 to 0.34.x the chart's OCI tags carry a `v` (`v0.34.0`)"
        else:
            continue
        yield ctx.at(None, doc, doc.span(at), (
            f"`{version}` is no tag of public.ecr.aws/karpenter/{chart}: the pull fails (`not found`)\n"
            f"help: write `{right}`\nnote: {why}\nnote: set in {what}"))
