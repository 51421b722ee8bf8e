"""Karpenter releases pinned in YAML/JSON values that are not Kubernetes objects: GitOps add-on catalogues, helmfile
releases, Kustomize `helmCharts`, Cluster API `HelmChartProxy`, k3s `HelmChart`.

A mapping pins a release, at the line of its version key, when

* it names the karpenter (or karpenter-crd) chart under a chart key (`chart: karpenter/karpenter`,
  `chartName: karpenter`, `addonChart: karpenter`; a bare `karpenter` needs a repository key beside it, or `name`
  beside a `repo`, as in Kustomize `helmCharts`) and has an exact version key (`version`, `chartVersion`,
  `targetRevision`, `addonChartVersion`); the gitops-bridge values of
  https://github.com/aws-samples/eks-blueprints-for-terraform-workshop (gitops/addons/charts/gitops-bridge/values.yaml)
  write `karpenter: {chart: karpenter/karpenter, targetRevision: "1.0.4"}`;
* or it is the value of a `karpenter` / `karpenter-crd` key and has such a version key
  (`addons: {karpenter: {chartVersion: 1.0.6}}`).

Documents that `karplint.model.detect` reads as chart installs (Flux, Argo CD Applications, Chart.yaml) are left to
it; an ApplicationSet is walked too, for the values of its generators (`addonChart: karpenter`,
`addonChartVersion: v0.30.0` in https://github.com/aws-samples/eks-blueprints-add-ons,
argocd/bootstrap/control-plane/addons/aws/addons-aws-oss-karpenter-appset.yaml).
"""

from __future__ import annotations

import re

from karplint.model.release_evidence import KARPENTER_CHARTS, Evidence, exact, is_karpenter_chart

MAX_NODES = 100_000  # mappings and lists walked per file
MAX_PINS = 100  # evidence kept per file
_CHART_KEYS = ("chart", "chartName", "chart_name", "addonChart")
_REPO_KEYS = ("repo", "repoURL", "repoUrl", "repository", "chartRepository", "chart_repository",
              "addonChartRepository")
_VERSION_KEYS = ("version", "chartVersion", "chart_version", "targetRevision", "addonChartVersion")
_PARENT_KEYS = frozenset(KARPENTER_CHARTS + ("karpenter_crd", "karpenterCrd"))
_PARENT_TEXT = re.compile(r"""karpenter(?:-crd|_crd|Crd)?["']?[ \t]*:""")


def might_pin(text: str) -> bool:
    """Whether `values_evidence` can find anything in a source of this text (which mentions karpenter)."""
    return "chart" in text or "Chart" in text or "repo" in text or _PARENT_TEXT.search(text) is not None


def _chart_named(node: dict) -> bool:
    for key in _CHART_KEYS:
        chart = node.get(key)
        if isinstance(chart, str) and is_karpenter_chart(chart):
            return "/" in chart or any(isinstance(node.get(k), str) for k in _REPO_KEYS)
    name, repo = node.get("name"), node.get("repo")
    return isinstance(name, str) and name in KARPENTER_CHARTS and isinstance(repo, str) and "karpenter" in repo


def _dotted(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path))


def values_evidence(docs) -> list[Evidence]:
    """The Karpenter releases the YAML/JSON documents of one file pin as values (see the module docstring)."""
    from karplint.model import as_resource
    from karplint.model.detect import reads_chart_installs

    out: list[Evidence] = []
    checked: dict[int, bool] = {}  # id(source) -> might_pin
    budget = MAX_NODES
    for doc in docs:
        src = doc.source
        if id(src) not in checked:
            checked[id(src)] = "karpenter" in src.text and might_pin(src.text)
        if not checked[id(src)] or not isinstance(doc.data, (dict, list)):
            continue
        if src.embedding is not None and getattr(src.embedding, "chart_reference", ()):
            continue  # (a helm_release read as a document: readers/chart_values.py; its pin is repo_version's)
        res = as_resource(doc)
        if reads_chart_installs(doc, res) and (res is None or res.kind != "ApplicationSet"):
            continue  # (an ApplicationSet's generators carry add-on values that detect does not read)
        stack: list[tuple[tuple, object, object]] = [((), doc.data, None)]  # (path, node, key it sits under)
        while stack and budget > 0 and len(out) < MAX_PINS:
            path, node, under = stack.pop()
            budget -= 1
            if isinstance(node, list):
                stack.extend(((*path, i), item, None) for i, item in reversed(list(enumerate(node)))
                             if isinstance(item, (dict, list)))
                continue
            if not isinstance(node, dict):
                continue
            if _chart_named(node) or under in _PARENT_KEYS:
                for key in _VERSION_KEYS:
                    v = exact(node.get(key)) if isinstance(node.get(key), str) else None
                    if v is not None:
                        where = (*path, key)
                        out.append(Evidence(v, doc.path, doc.span(where).line, _dotted(where[-3:])))
                        break
            stack.extend(((*path, k), child, k) for k, child in reversed(list(node.items()))
                         if isinstance(child, (dict, list)))
    return out
