"""Facts found in the run: which node agents (CNI, CSI drivers) are installed, which Karpenter version is deployed.

Rules ask `installed_agents(model, cluster)` and `deployed_karpenter(model)`; results are cached on the model.
Detection is by evidence in the linted files, each `Found` says where it came from so messages can name it:

* a DaemonSet running the agent (name or image, `karplint.model.agents.AGENTS`),
* a Flux `HelmRelease`, an Argo CD `Application`, or a Helm `Chart.yaml` dependency installing its chart,
* Helm values for the chart (a values document in a file whose path names the chart),
* for Cilium, its configuration: the `cilium-config` ConfigMap or Helm values (`agentNotReadyTaintKey`,
  `operator.setNodeTaints`, which defaults to `operator.removeNodeTaints`, itself `true`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from karplint.model.agents import AGENTS, BY_NAME, Agent
from karplint.readers.document import Document
from karplint.model import Model, Resource
from karplint.model.release_evidence import KARPENTER_CHARTS
from karplint.model.versions import Version

# Controller images: public.ecr.aws/karpenter/controller:1.0.0, public.ecr.aws/karpenter/controller:v0.37.0@sha256:...
_KARPENTER_IMAGE = re.compile(r"(?:^|/)karpenter/controller:v?(\d+\.\d+\.\d+)(?:[@\s]|$)")
_EXACT_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")

CILIUM_SET_NODE_TAINTS_EFFECT = "NoSchedule"  # cilium operator/watchers/node_taint.go setNodeTaint


@dataclass
class Found:
    agent: Agent
    where: str  # human description: "DaemonSet kube-system/cilium in deploy/cilium.yaml:1"
    resource: Resource | None = None
    pod_specs: list = field(default_factory=list)  # pod specs of the DaemonSets seen running it (Linux, Windows…)
    taint_key: str = ""
    applies_effect: str | None = None  # effect the agent itself applies, when its configuration is visible
    effect_source: str = ""
    from_cluster: bool = False  # only known from `[cluster]`

    def __post_init__(self):
        self.taint_key = self.taint_key or self.agent.taint_key


def _loc(doc: Document) -> str:
    return f"{doc.path}:{doc.span(()).line}"


def _describe(res: Resource) -> str:
    ns = f"{res.namespace}/" if res.namespace else ""
    return f"{res.kind} {ns}{res.name or '<unnamed>'} at {_loc(res.doc)}"


def _containers(spec: dict) -> Iterator[dict]:
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        if isinstance(items, list):
            yield from (c for c in items if isinstance(c, dict))


def _image_repo_matches(image: Any, suffixes: tuple[str, ...]) -> bool:
    if not isinstance(image, str):
        return False
    repo = image.split("@", 1)[0]
    last = repo.rsplit("/", 1)[-1]
    if ":" in last:
        repo = repo[: len(repo) - len(last)] + last.split(":", 1)[0]
    return any(repo == s or repo.endswith("/" + s) for s in suffixes)


# ------------------------------------------------------------------------------------------ helm sources

@dataclass
class ChartInstall:
    chart: str
    version: str | None
    values: dict | None
    res: Resource | None
    doc: Document
    where: str


def _helm_installs(model: Model) -> list[ChartInstall]:
    out: list[ChartInstall] = []
    for res in model.resources:
        spec = res.spec
        if res.kind == "HelmRelease" and res.group.startswith("helm.toolkit.fluxcd.io"):
            chart_spec = spec.get("chart", {}).get("spec", {}) if isinstance(spec.get("chart"), dict) else {}
            if isinstance(chart_spec, dict) and isinstance(chart_spec.get("chart"), str):
                values = spec.get("values") if isinstance(spec.get("values"), dict) else None
                version = chart_spec.get("version")
                out.append(ChartInstall(chart_spec["chart"].rsplit("/", 1)[-1], str(version) if version is not None else None,
                                        values, res, res.doc, _describe(res)))
        elif res.kind in ("Application", "ApplicationSet") and res.group == "argoproj.io":
            spec_t = spec.get("template", {}).get("spec", {}) if res.kind == "ApplicationSet" else spec
            if not isinstance(spec_t, dict):
                continue
            sources = [spec_t.get("source")] + (spec_t.get("sources") if isinstance(spec_t.get("sources"), list) else [])
            for src in sources:
                if not isinstance(src, dict):
                    continue
                chart = src.get("chart")
                if not isinstance(chart, str):
                    repo = src.get("repoURL")
                    chart = repo.rstrip("/").rsplit("/", 1)[-1] if isinstance(repo, str) and repo.startswith("oci") else None
                if not chart:
                    continue
                helm = src.get("helm") if isinstance(src.get("helm"), dict) else {}
                values = helm.get("valuesObject") if isinstance(helm.get("valuesObject"), dict) else None
                params = helm.get("parameters")
                if isinstance(params, list):
                    values = dict(values or {})
                    for p in params:
                        if isinstance(p, dict) and isinstance(p.get("name"), str):
                            _set_dotted(values, p["name"], p.get("value"))
                rev = src.get("targetRevision")
                out.append(ChartInstall(chart, str(rev) if rev is not None else None, values, res, res.doc, _describe(res)))
    for res in model.of_kind("OCIRepository"):
        # Flux `chartRef` to an OCI chart: oci://public.ecr.aws/karpenter/karpenter with ref.tag
        url, ref = res.spec.get("url"), res.spec.get("ref")
        if res.group.startswith("source.toolkit.fluxcd.io") and isinstance(url, str) and isinstance(ref, dict):
            tag = ref.get("tag") or ref.get("semver")
            out.append(ChartInstall(url.rstrip("/").rsplit("/", 1)[-1], str(tag) if tag is not None else None, None,
                                    res, res.doc, _describe(res)))
    for doc in model.documents:
        if os.path.basename(doc.path) != "Chart.yaml" or not isinstance(doc.data, dict):
            continue
        if isinstance(doc.data.get("name"), str) and doc.data.get("appVersion") is not None:
            # The chart itself (a vendored copy of e.g. the karpenter chart): its appVersion is the release.
            out.append(ChartInstall(doc.data["name"], str(doc.data["appVersion"]), None, None, doc,
                                    f"Chart.yaml of chart {doc.data['name']} at {doc.path}:1"))
        deps = doc.data.get("dependencies")
        if isinstance(deps, list):
            for i, dep in enumerate(deps):
                if isinstance(dep, dict) and isinstance(dep.get("name"), str):
                    version = dep.get("version")
                    out.append(ChartInstall(dep["name"], str(version) if version is not None else None, None, None, doc,
                                            f"Chart.yaml dependency {dep['name']} at {doc.path}:{doc.span(('dependencies', i)).line}"))
    return out


def _set_dotted(values: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    cur = values
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    if isinstance(value, str) and value.lower() in ("true", "false"):
        value = value.lower() == "true"
    cur[parts[-1]] = value


_CILIUM_VALUES_KEYS = {"operator", "hubble", "kubeProxyReplacement", "ipam", "agentNotReadyTaintKey", "eni",
                       "routingMode", "tunnelProtocol", "k8sServiceHost"}


def _cilium_values_docs(model: Model) -> Iterator[Document]:
    """Standalone Helm values documents for the cilium chart: no apiVersion/kind, in a path naming cilium."""
    for doc in model.documents:
        data = doc.data
        if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
            continue
        if "cilium" not in doc.path.lower() or os.path.basename(doc.path) == "Chart.yaml":
            continue
        if len(_CILIUM_VALUES_KEYS & set(data)) >= 1:
            yield doc


def _apply_cilium_values(found: Found, values: dict | None, where: str) -> None:
    """Read the taint key and the operator's own tainting from cilium chart values (defaults when absent)."""
    values = values or {}
    key = values.get("agentNotReadyTaintKey")
    if isinstance(key, str) and key.strip():
        found.taint_key = key.strip()
    operator = values.get("operator") if isinstance(values.get("operator"), dict) else {}
    set_taints = operator.get("setNodeTaints")
    if set_taints is None:
        set_taints = operator.get("removeNodeTaints", True)
        why = "operator.setNodeTaints defaults to operator.removeNodeTaints (true) in the cilium Helm chart"
    else:
        why = f"operator.setNodeTaints: {set_taints} in {where}"
    if isinstance(set_taints, str):
        set_taints = set_taints.lower() == "true"
    if set_taints is True:
        found.applies_effect = CILIUM_SET_NODE_TAINTS_EFFECT
        found.effect_source = why
    elif set_taints is False:
        found.applies_effect = None
        found.effect_source = f"operator.setNodeTaints is false in {where}"


def _scan(model: Model, cluster: dict) -> dict[str, Found]:
    found: dict[str, Found] = {}
    # DaemonSets
    for res in model.of_kind("DaemonSet"):
        if res.group not in ("apps", "extensions"):
            continue
        spec = res.get(("spec", "template", "spec"))
        if not isinstance(spec, dict):
            continue
        for agent in AGENTS:
            by_name = res.name in agent.daemonsets
            by_image = any(_image_repo_matches(c.get("image"), agent.images) for c in _containers(spec))
            if by_name or by_image:
                if agent.name not in found:
                    found[agent.name] = Found(agent, _describe(res), res)
                found[agent.name].pod_specs.append(spec)
    # Helm installs
    for inst in _helm_installs(model):
        for agent in AGENTS:
            if inst.chart in agent.charts:
                f = found.get(agent.name)
                if f is None:
                    f = found[agent.name] = Found(agent, inst.where, inst.res)
                if agent.name == "cilium":
                    _apply_cilium_values(f, inst.values, inst.where)
    # Standalone cilium values files
    for doc in _cilium_values_docs(model):
        f = found.get("cilium")
        where = f"Helm values {doc.path}"
        if f is None:
            f = found["cilium"] = Found(BY_NAME["cilium"], where)
        _apply_cilium_values(f, doc.data, where)
    # Cilium's own ConfigMap wins over chart defaults
    for res in model.of_kind("ConfigMap"):
        if res.name != "cilium-config" or not isinstance(res.get(("data",)), dict):
            continue
        data = res.get(("data",))
        f = found.get("cilium")
        if f is None:
            f = found["cilium"] = Found(BY_NAME["cilium"], _describe(res), res)
        key = data.get("agent-not-ready-taint-key")
        if isinstance(key, str) and key.strip():
            f.taint_key = key.strip()
        flag = data.get("set-cilium-node-taints")
        if flag is not None:
            if str(flag).lower() == "true":
                f.applies_effect = CILIUM_SET_NODE_TAINTS_EFFECT
                f.effect_source = f"set-cilium-node-taints: \"true\" in {_describe(res)}"
            else:
                f.applies_effect = None
                f.effect_source = f"set-cilium-node-taints is not true in {_describe(res)}"
    # [cluster] cni
    cni = cluster.get("cni")
    name = cni.strip().lower() if isinstance(cni, str) else ""
    if name in BY_NAME and BY_NAME[name].cni and name not in found:
        agent = BY_NAME[name]
        found[agent.name] = Found(agent, f"`cni = \"{cni}\"` in [cluster]", from_cluster=True)
    return found


def installed_agents(model: Model, cluster: dict) -> dict[str, Found]:
    """Agents installed according to the run (and `[cluster] cni`), by agent name."""
    key = ("agents", tuple(sorted((k, str(v)) for k, v in cluster.items())))
    cache = model.memo.setdefault("detect", {})
    if key not in cache:
        cache[key] = _scan(model, cluster)
    return cache[key]


# ------------------------------------------------------------------------------------------ karpenter version

@dataclass
class DeployedVersion:
    version: Version
    where: str
    all: list[tuple[Version, str]] = field(default_factory=list)


def _exact(text: Any) -> Version | None:
    if not isinstance(text, str):
        return None
    m = _EXACT_VERSION.match(text.strip())
    return Version.try_parse(f"{m.group(1)}.{m.group(2)}.{m.group(3)}") if m else None


@dataclass(frozen=True)
class KarpenterRelease:
    """One place where the run installs an exact Karpenter release."""
    version: Version
    where: str  # as messages name it: `HelmRelease flux-system/karpenter (file)`, `controller image of ...`
    what: str  # short, for summaries: `HelmRelease karpenter`, `Chart.yaml`, `Karpenter controller image`
    doc: Document
    path: tuple  # where the version is written in `doc` (() for the whole install document)


def karpenter_releases(model: Model) -> list[KarpenterRelease]:
    """Every exact Karpenter release the run installs: chart installs (Flux, Argo CD, Chart.yaml) of the karpenter
    chart, then Deployments running the controller image."""
    out: list[KarpenterRelease] = []
    for inst in _helm_installs(model):
        v = _exact(inst.version) if inst.chart in KARPENTER_CHARTS else None
        if v is not None:
            what = f"{inst.res.kind} {inst.res.name or '<unnamed>'}" if inst.res is not None else "Chart.yaml"
            out.append(KarpenterRelease(v, inst.where, what, inst.doc, () if inst.res is not None
                                        else _chart_version_path(inst)))
    for res in model.workloads():
        if res.kind != "Deployment":
            continue
        spec = res.get(("spec", "template", "spec"))
        if not isinstance(spec, dict):
            continue
        for key in ("containers", "initContainers"):
            items = spec.get(key)
            for i, c in enumerate(items if isinstance(items, list) else ()):
                image = c.get("image") if isinstance(c, dict) else None
                m = _KARPENTER_IMAGE.search(image) if isinstance(image, str) else None
                tag = Version.try_parse(m.group(1)) if m else None  # (None: a tag of thousands of digits)
                if tag is not None:
                    out.append(KarpenterRelease(tag, f"controller image of {_describe(res)}",
                                                "Karpenter controller image", res.doc,
                                                ("spec", "template", "spec", key, i, "image")))
    return out


def _chart_version_path(inst: ChartInstall) -> tuple:
    deps = inst.doc.data.get("dependencies") if isinstance(inst.doc.data, dict) else None
    if isinstance(deps, list):
        for i, dep in enumerate(deps):
            if isinstance(dep, dict) and dep.get("name") == inst.chart:
                return ("dependencies", i, "version")
    return ("appVersion",)


def _scan_karpenter(model: Model) -> DeployedVersion | None:
    seen = [(r.version, r.where) for r in karpenter_releases(model)]
    if not seen:
        return None
    return DeployedVersion(seen[0][0], seen[0][1], seen)


def deployed_karpenter(model: Model) -> DeployedVersion | None:
    """The Karpenter release the run deploys (first exact version found), or None."""
    cache = model.memo.setdefault("detect", {})
    if "karpenter" not in cache:
        cache["karpenter"] = _scan_karpenter(model)
    return cache["karpenter"]


def target_karpenter(ctx) -> tuple[Version, str, bool]:
    """(version, where it came from, whether it was chosen or found rather than defaulted).

    An explicit `karpenter-version` (config, CLI) wins; else the version deployed in the run; else the default.
    """
    if ctx.version_source != "default":
        return ctx.karpenter_version, f"Karpenter {ctx.karpenter_version} (set by {ctx.version_source})", True
    found = deployed_karpenter(ctx.model)
    if found is not None:
        return found.version, f"Karpenter {found.version} from {found.where}", True
    return ctx.karpenter_version, f"Karpenter {ctx.karpenter_version}", False  # (the default: --show-settings says so)


def versions_in_play(ctx) -> list[tuple[Version, str]]:
    """The explicit target, else every distinct release deployed in the run (a monorepo may hold several); none when
    the version is only the default, which is not a fact about the cluster (rules on known bugs stay quiet then)."""
    if ctx.version_source != "default":
        version, where, _ = target_karpenter(ctx)
        return [(version, where)]
    found = deployed_karpenter(ctx.model)
    if found is None:
        return []
    out: dict[Version, str] = {}
    for version, where in found.all:
        out.setdefault(version, f"Karpenter {version} from {where}")
    return list(out.items())


# ------------------------------------------------------------------------------------------ what detection reads
# For `Rule.reads` of the rules that ask `installed_agents` or `deployed_karpenter` (see karplint/model/__init__.py).

_INSTALLERS = ("HelmRelease", "Application", "ApplicationSet", "OCIRepository")


def reads_chart_installs(doc: Document, res: Resource | None) -> bool:
    """What `_helm_installs` reads: Flux/Argo CD installs, OCI chart sources, and any document of a Chart.yaml."""
    return (res is not None and res.kind in _INSTALLERS) or os.path.basename(doc.path) == "Chart.yaml"


def reads_agents(doc: Document, res: Resource | None) -> bool:
    """What `installed_agents` reads: DaemonSets, chart installs, cilium values documents, cilium-config."""
    if reads_chart_installs(doc, res):
        return True
    if res is None:
        return "cilium" in doc.path.lower()
    return res.kind == "DaemonSet" or (res.kind == "ConfigMap" and res.name == "cilium-config")


def reads_karpenter_release(doc: Document, res: Resource | None) -> bool:
    """What `deployed_karpenter` reads: chart installs and Deployments running the Karpenter controller image."""
    if reads_chart_installs(doc, res):
        return True
    if res is None or res.kind != "Deployment":
        return False
    spec = res.get(("spec", "template", "spec"))
    return isinstance(spec, dict) and any(
        isinstance(c.get("image"), str) and _KARPENTER_IMAGE.search(c["image"]) for c in _containers(spec))
