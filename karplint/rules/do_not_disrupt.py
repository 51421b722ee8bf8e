"""Pods and the disruption of their nodes: do-not-disrupt pods and annotations, termination grace periods
(KPL410-KPL415), Cluster Autoscaler's eviction annotation (KPL429), and the disruption annotations v1.0 removed
(KPL811).

Sources: https://karpenter.sh/docs/concepts/disruption/, the NodePool CRD of each release, the release notes, and the
issues each rule's doc names. NodePool-level disruption settings: karplint/rules/disruption.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import islice

from karplint.fix import yamledit
from karplint.model.detect import reads_karpenter_release, target_karpenter
from karplint.model.durations import format_seconds, parse_field, parse_go_duration
from karplint.findings import Fix
from karplint.model import (KYVERNO_POLICY_KINDS, Model, Resource, cluster_autoscaler_annotated_pods,
                            karpenter_annotated_pods, karpenter_resources, kyverno_annotation_keys,
                            kyverno_karpenter_mutations, pods_with_grace_period)
from karplint.provisioning.placement import PlacementBudget, can_land, scheduling_signature
from karplint.rules import rule
from karplint.model.versions import V
from karplint.readers.templating import has_placeholder
from karplint.rules.disruption import DO_NOT_DISRUPT, TEMPLATE_SPEC, is_v1_nodepool, release_origin

TGP = TEMPLATE_SPEC + ("terminationGracePeriod",)
EXPIRE = TEMPLATE_SPEC + ("expireAfter",)
TEMPLATE_ANNOTATIONS = ("spec", "template", "metadata", "annotations")
DEFAULT_EXPIRE_AFTER = "720h"  # the NodePool CRD default
DURATION_FORM_SINCE = V("1.12.0")  # pod do-not-disrupt "<duration>", core pkg/utils/pod/scheduling.go (v1.12)

# Annotations removed in v1.0 and what replaced them (https://karpenter.sh/docs/upgrading/v1-migration/).
REMOVED_ANNOTATIONS: dict[str, tuple[str, str, str]] = {
    # key: (replacement, deprecated in, removed in)
    "karpenter.sh/do-not-evict": (DO_NOT_DISRUPT, "0.32.0", "1.0.0"),
    "karpenter.sh/do-not-consolidate": (DO_NOT_DISRUPT, "0.32.0", "1.0.0"),
}


# ------------------------------------------------------------------------------------------ do-not-disrupt

@dataclass
class Pod:
    res: Resource
    meta_path: tuple
    spec_path: tuple

    @cached_property  # asked once per NodePool for each pod: computed once (the data never changes in a run)
    def annotations(self) -> dict:
        a = self.res.get(self.meta_path + ("annotations",))
        return a if isinstance(a, dict) else {}

    @cached_property
    def spec(self) -> dict:
        s = self.res.get(self.spec_path)
        return s if isinstance(s, dict) else {}

    @cached_property
    def signature(self) -> str:
        return scheduling_signature(self.spec)

    def can_land(self, np: Resource) -> bool:
        return can_land(self.spec, np, self.signature)


def _pods(model: Model) -> list[Pod]:
    cache = model.memo.get("disruption pods")
    if cache is None:
        cache = []
        for res in model.workloads():
            meta, spec = res.pod_template
            cache.append(Pod(res, meta, spec))
        model.memo["disruption pods"] = cache
    return cache


# Kinds whose pods run to completion: their do-not-disrupt protection ends when they finish, which is what
# Karpenter's docs recommend it for (batch work), so they never block a node for good.
RUN_TO_COMPLETION = ("Job", "CronJob")


def _protected(pod: Pod) -> bool:
    """Long-running pods permanently protected by do-not-disrupt ("true"; a duration expires, Jobs finish)."""
    if pod.annotations.get(DO_NOT_DISRUPT) != "true" or pod.res.kind in RUN_TO_COMPLETION:
        return False
    return not (pod.res.kind == "Pod" and pod.spec.get("restartPolicy") in ("Never", "OnFailure"))


def _protected_pods(model: Model) -> list[Pod]:
    """`[p for p in _pods(model) if _protected(p)]`, memoised like `_pods` (NodePool rules ask once per pool)."""
    cache = model.memo.get("disruption protected pods")
    if cache is None:
        cache = [p for p in _pods(model) if _protected(p)]
        model.memo["disruption protected pods"] = cache
    return cache


def _by_signature(pods: list[Pod]) -> dict[str, list[Pod]]:
    out: dict[str, list[Pod]] = {}
    for p in pods:
        out.setdefault(p.signature, []).append(p)
    return out


def _landing(groups: dict[str, list[Pod]], np: Resource, ctx, code: str) -> list[Pod] | None:
    """The pods of `groups` (`_by_signature`) that can land on `np`, asking once per scheduling signature (most pods
    share theirs); None once the rule's budget of pod-NodePool verdicts is spent (`_placement_budget`: each pod
    counts, as each may be listed)."""
    if not _placement_budget(ctx, code).take(sum(len(pods) for pods in groups.values())):
        return None
    out = []
    for signature, pods in groups.items():
        if pods[0].can_land(np):
            out.extend(pods)
    return out


def _placement_budget(ctx, code: str) -> PlacementBudget:
    """The run's budget of pod-NodePool verdicts for rule `code` (its own: a rule's verdicts never depend on
    which other rules ran)."""
    return ctx.model.memo.setdefault(("placement budget", code), PlacementBudget())


def _pool_not_checked(ctx, res: Resource, code: str):
    """KPL004 on the first NodePool the rule's budget left out (the rest go unsaid: one notice per run)."""
    budget = _placement_budget(ctx, code)
    if ctx.model.memo.setdefault(("placement budget said", code), res) is res:
        yield ctx.too_large(res, ("metadata", "name"), (
            f"NodePool `{res.name}` and the NodePools after it were not checked against the run's pods ({code}): "
            f"{budget.too_large()}"))


def _names(pods: list[Pod], limit: int = 3) -> str:
    names = [str(p.res) for p in pods[:limit]]
    more = f" and {len(pods) - limit} more" if len(pods) > limit else ""
    return ", ".join(names) + more


def _v1_pools(model: Model) -> list[Resource]:
    return [np for np in model.nodepools() if is_v1_nodepool(np) and isinstance(np.get(TEMPLATE_SPEC), dict)]


@rule("KPL410", "do-not-disrupt-without-tgp", category="disruption", severity="warning",
      summary="Long-running pods with `karpenter.sh/do-not-disrupt: \"true\"` can land on a NodePool without terminationGracePeriod",
      reads=(karpenter_resources, karpenter_annotated_pods))
def do_not_disrupt_without_tgp(model, ctx):
    pools = [np for np in _v1_pools(model) if np.get(TGP) is None]
    if not pools:
        return
    pools_for: dict[str, list[Resource]] = {}  # by scheduling signature: most pods share theirs
    budget = PlacementBudget()
    for pod in _pods(model):
        if not ctx.in_focus(pod.res) or not _protected(pod):
            continue
        hits = pools_for.get(pod.signature)
        if hits is None:
            if not budget.take(len(pools)):
                yield ctx.too_large(pod.res, ("metadata", "name"), (
                    f"{pod.res} and the pods after it were not checked against the NodePools without "
                    f"terminationGracePeriod (KPL410): {budget.too_large()}"))
                return
            # (four are enough to name three and say there are more)
            hits = pools_for[pod.signature] = list(islice((np for np in pools if pod.can_land(np)), 4))
        if not hits:
            continue
        names = ", ".join(np.name or "<unnamed>" for np in hits[:3]) + (" …" if len(hits) > 3 else "")
        yield ctx.violation(
            pod.res, pod.meta_path + ("annotations", DO_NOT_DISRUPT),
            f"do-not-disrupt pods can land on NodePools without terminationGracePeriod ({names})\n"
            "help: set spec.template.spec.terminationGracePeriod on the NodePool, or give the annotation a duration "
            "(Karpenter ≥ 1.12)\n"
            f"note: a node running {pod.res} is never consolidated or replaced on drift, and an expiring node waits "
            "for it forever (kubernetes-sigs/karpenter#1789)",
            on="key")


@rule("KPL411", "expire-after-without-tgp", category="disruption", severity="warning",
      summary="expireAfter (default 720h) without terminationGracePeriod while do-not-disrupt pods can land there",
      kinds=("NodePool",),
      reads=(karpenter_annotated_pods,))
def expire_after_without_tgp(res, ctx):
    if not is_v1_nodepool(res) or not isinstance(res.get(TEMPLATE_SPEC), dict) or res.get(TGP) is not None:
        return
    expire = res.get(EXPIRE)
    if expire == "Never" or has_placeholder(expire):
        return
    groups = ctx.model.memo.get("disruption protected groups")
    if groups is None:
        groups = ctx.model.memo["disruption protected groups"] = _by_signature(_protected_pods(ctx.model))
    pods = _landing(groups, res, ctx, "KPL411")
    if pods is None:
        yield from _pool_not_checked(ctx, res, "KPL411")
        return
    if not pods:
        return
    shown = f"expireAfter {expire}" if expire is not None else f"the default expireAfter {DEFAULT_EXPIRE_AFTER}"
    path = EXPIRE if expire is not None else TEMPLATE_SPEC
    yield ctx.violation(
        res, path,
        "no terminationGracePeriod: expiring nodes wait forever for do-not-disrupt pods\n"
        "help: set spec.template.spec.terminationGracePeriod\n"
        f"note: nodes expire after {shown.removeprefix('expireAfter ')}; {_names(pods)} use karpenter.sh/do-not-disrupt: \"true\"; expiration is forceful since Karpenter "
        "1.0, so expiring nodes are cordoned and start draining, then wait for those pods forever "
        "(kubernetes-sigs/karpenter#1789)",
        on="key")


def _grace_seconds(pod: Pod) -> int | None:
    g = pod.spec.get("terminationGracePeriodSeconds")
    return g if isinstance(g, int) and not isinstance(g, bool) else None


@rule("KPL412", "tgp-shorter-than-pod-grace", category="disruption", severity="warning",
      summary="NodePool terminationGracePeriod shorter than a matching pod's terminationGracePeriodSeconds",
      kinds=("NodePool",),
      reads=(pods_with_grace_period,))
def tgp_shorter_than_pod_grace(res, ctx):
    if not is_v1_nodepool(res):
        return
    tgp = parse_field("terminationGracePeriod", res.get(TGP))
    if tgp is None:
        return
    groups = ctx.model.memo.get("disruption graceful groups")
    if groups is None:  # (signature -> its pods with a grace period, the longest first)
        graceful = sorted((p for p in _pods(ctx.model) if _grace_seconds(p) is not None),
                          key=lambda p: -_grace_seconds(p))
        groups = ctx.model.memo["disruption graceful groups"] = _by_signature(graceful)
    if not _placement_budget(ctx, "KPL412").take(len(groups)):  # (the scan below)
        yield from _pool_not_checked(ctx, res, "KPL412")
        return
    longer_groups = {}
    for signature, pods in groups.items():
        if _grace_seconds(pods[0]) > tgp:
            longer_groups[signature] = [p for p in pods if _grace_seconds(p) > tgp]
    landing = _landing(longer_groups, res, ctx, "KPL412") if longer_groups else []
    if landing is None:
        yield from _pool_not_checked(ctx, res, "KPL412")
        return
    order = ctx.model.memo.get("disruption pod order")
    if order is None:
        order = ctx.model.memo["disruption pod order"] = {id(p): i for i, p in enumerate(_pods(ctx.model))}
    longer = [(_grace_seconds(p), p) for p in sorted(landing, key=lambda p: order[id(p)])]  # (the model's order)
    if not longer:
        return
    longer.sort(key=lambda x: -x[0])
    g, pod = longer[0]
    yield ctx.violation(
        res, TGP,
        f"terminationGracePeriod {res.get(TGP)} is shorter than its pods' grace period (up to {format_seconds(g)})\n"
        "help: raise terminationGracePeriod above the pods' terminationGracePeriodSeconds\n"
        f"note: {_names([p for _, p in longer])} ask for up to {g}s; Karpenter deletes such pods as soon as the node "
        "starts draining, bypassing PodDisruptionBudgets and do-not-disrupt, so they never get their full grace "
        "period")


@rule("KPL413", "tgp-too-long", category="disruption", severity="warning",
      summary="NodePool terminationGracePeriod above the configured bound (option max-termination-grace-period)",
      kinds=("NodePool",), options={"max-termination-grace-period": "168h"})
def tgp_too_long(res, ctx):
    if not is_v1_nodepool(res):
        return
    tgp = parse_field("terminationGracePeriod", res.get(TGP))
    bound_text = ctx.option("max-termination-grace-period")
    bound = parse_go_duration(bound_text) if isinstance(bound_text, str) else None
    if tgp is None or bound is None or tgp <= bound:
        return
    yield ctx.violation(
        res, TGP,
        f"terminationGracePeriod {res.get(TGP)} is above {bound_text}\n"
        "help: lower it, or raise the rule's option max-termination-grace-period\n"
        "note: a draining node may live that long after expiry or drift; a node's lifetime is up to expireAfter + "
        "terminationGracePeriod")


def _annotation_sites(model: Model):
    """(resource, annotations path, kind of site) for pods, NodePool templates and Nodes."""
    for pod in _pods(model):
        yield pod.res, pod.meta_path + ("annotations",), "pod"
    for np in model.nodepools():
        yield np, TEMPLATE_ANNOTATIONS, "node"
    for node in model.of_kind("Node", group=""):
        yield node, ("metadata", "annotations"), "node"


@rule("KPL414", "invalid-do-not-disrupt-value", category="disruption", severity="error",
      summary="A karpenter.sh/do-not-disrupt value Karpenter ignores (pods: \"true\" or a duration; nodes: \"true\")",
      reads=(karpenter_resources, karpenter_annotated_pods, reads_karpenter_release))
def invalid_do_not_disrupt_value(model, ctx):
    version, where, _ = target_karpenter(ctx)
    for res, path, site in _annotation_sites(model):
        if not ctx.in_focus(res):
            continue
        ann = res.get(path)
        if not isinstance(ann, dict) or DO_NOT_DISRUPT not in ann:
            continue
        value = ann[DO_NOT_DISRUPT]
        vpath = path + (DO_NOT_DISRUPT,)
        if value == "true" or value == "false" or has_placeholder(value):
            continue  # "false" is ignored, which is what it says
        if not isinstance(value, str):
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            yield ctx.violation(res, vpath, f"annotation value is a {type(value).__name__}, not a string\n"
                                f"help: quote it (`\"{shown}\"`)\nnote: the API server rejects a bare "
                                f"{type(value).__name__}")
            continue
        if site == "node":
            yield ctx.violation(res, vpath, f"Karpenter ignores do-not-disrupt {value!r} on a node\n"
                                "help: write \"true\"\nnote: on a node or NodePool template it is honoured only "
                                "when exactly \"true\"")
            continue
        seconds = parse_go_duration(value)
        if seconds is not None and seconds > 0:
            if version < DURATION_FORM_SINCE:
                yield ctx.violation(res, vpath, f"Karpenter {version} ignores do-not-disrupt {value!r}: the pod is "
                                    "not protected\n"
                                    f"help: write \"true\", or upgrade to Karpenter {DURATION_FORM_SINCE}\n"
                                    f"note: the duration form needs Karpenter ≥ {DURATION_FORM_SINCE}"
                                    + release_origin(where, version))
            continue
        yield ctx.violation(res, vpath, f"Karpenter ignores do-not-disrupt {value!r}: the pod is not protected\n"
                            "help: write \"true\" or a positive Go duration (e.g. \"30m\", Karpenter ≥ 1.12)")


# ------------------------------------------------------------------------------------------ KPL429

CA_SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
# Labels only node groups carry (EKS managed node groups, eksctl, Fargate): a pod that requires one runs on
# Cluster Autoscaler's or Fargate's nodes, where its annotation is read, unless a NodePool sets the label itself.
NODE_GROUP_LABELS = ("eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name", "eks.amazonaws.com/compute-type")


def _required_node_group_labels(spec: dict) -> set[str]:
    """The NODE_GROUP_LABELS a pod requires: in its nodeSelector, or in every term of its required node affinity."""
    found = {k for k in (spec.get("nodeSelector") or {}) if k in NODE_GROUP_LABELS} \
        if isinstance(spec.get("nodeSelector"), dict) else set()
    affinity = spec.get("affinity")
    required = affinity.get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution") \
        if isinstance(affinity, dict) and isinstance(affinity.get("nodeAffinity"), dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    if isinstance(terms, list) and terms:
        per_term = []
        for t in terms:
            exprs = t.get("matchExpressions") if isinstance(t, dict) else None
            per_term.append({e.get("key") for e in exprs if isinstance(e, dict) and e.get("key") in NODE_GROUP_LABELS
                             and e.get("operator") in ("In", "Exists")} if isinstance(exprs, list) else set())
        found |= set.intersection(*per_term)
    return found


def _nodepool_keys(np: Resource) -> set[str]:
    labels = np.get(("spec", "template", "metadata", "labels"))
    reqs = np.get(TEMPLATE_SPEC + ("requirements",))
    keys = set(labels) if isinstance(labels, dict) else set()
    return keys | ({r.get("key") for r in reqs if isinstance(r, dict)} if isinstance(reqs, list) else set())


@rule("KPL429", "cluster-autoscaler-evict-annotation", category="disruption", severity="warning",
      summary="A pod opts out of eviction with Cluster Autoscaler's safe-to-evict \"false\", which Karpenter never reads",
      reads=(karpenter_resources, cluster_autoscaler_annotated_pods))
def cluster_autoscaler_evict_annotation(model, ctx):
    # NodePools only (v1beta1, v1): every release serving them reads karpenter.sh/do-not-disrupt (v0.32+)
    pools = [np for np in model.nodepools() if isinstance(np.get(TEMPLATE_SPEC), dict)]
    if not pools:
        return  # no Karpenter NodePool in the run: the pods may well run on Cluster Autoscaler's nodes only
    lands: dict[str, bool] = {}  # by scheduling signature: most pods share theirs
    budget = _placement_budget(ctx, "KPL429")
    for pod in _pods(model):
        if not ctx.in_focus(pod.res) or pod.res.kind == "DaemonSet":
            continue  # DaemonSet pods are never evicted to empty a node
        if pod.annotations.get(CA_SAFE_TO_EVICT) != "false" or \
                any(key in pod.annotations for key in (DO_NOT_DISRUPT, *REMOVED_ANNOTATIONS)):
            continue  # a Karpenter annotation is there too: KPL414/KPL811 judge it
        pinned = _required_node_group_labels(pod.spec)
        if pinned and not any(pinned <= _nodepool_keys(np) for np in pools):
            continue  # it runs on a node group, where Cluster Autoscaler reads the annotation
        hit = lands.get(pod.signature)
        if hit is None:
            if not budget.take(len(pools)):
                yield ctx.too_large(pod.res, ("metadata", "name"), (
                    f"{pod.res} and the pods after it were not checked against the run's NodePools (KPL429): "
                    f"{budget.too_large()}"))
                return
            hit = lands[pod.signature] = any(pod.can_land(np) for np in pools)
        if hit:
            yield ctx.violation(
                pod.res, pod.meta_path + ("annotations", CA_SAFE_TO_EVICT),
                f"`{CA_SAFE_TO_EVICT}: \"false\"` does not protect {pod.res} from Karpenter\n"
                f"help: add `{DO_NOT_DISRUPT}: \"true\"` to the pod template's annotations (keep this one for "
                "Cluster Autoscaler)\n"
                "note: Karpenter reads only its own annotation: consolidation and drift evict this pod from its nodes "
                "(aws/karpenter-provider-aws#3775)",
                on="key")


# ------------------------------------------------------------------------------------------ KPL811

@rule("KPL811", "removed-disruption-annotation", category="deprecation", severity="error",
      summary="karpenter.sh/do-not-evict or karpenter.sh/do-not-consolidate, removed in v1.0 (use do-not-disrupt)",
      fix="safe",
      reads=(karpenter_resources, karpenter_annotated_pods, kyverno_karpenter_mutations, reads_karpenter_release))
def removed_disruption_annotation(model, ctx):
    version, where, _ = target_karpenter(ctx)
    yield from _removed_annotation_in_policies(model, ctx, version, where)
    for res, path, site in _annotation_sites(model):
        if not ctx.in_focus(res):
            continue
        ann = res.get(path)
        if not isinstance(ann, dict):
            continue
        for key, (replacement, deprecated, removed) in REMOVED_ANNOTATIONS.items():
            if key not in ann or version < V(removed):
                continue
            fix = None
            if replacement not in ann:
                edits = yamledit.rename_key(res.doc, path + (key,), replacement)
                if edits:
                    fix = Fix(f"rename `{key}` to `{replacement}`", "safe", edits)
            yield ctx.violation(
                res, path + (key,),
                f"`{key}` is ignored by Karpenter {version}: the {'pod' if site == 'pod' else 'node'} is not "
                f"protected\nhelp: use `{replacement}`\n"
                f"note: deprecated in Karpenter {deprecated}, removed in {removed}"
                + release_origin(where, version),
                on="key", fix=fix)


def _removed_annotation_in_policies(model, ctx, version, where):
    """KPL811 on the annotations Kyverno policies add to pods (kyverno/policies' add-karpenter-donot-evict still
    writes karpenter.sh/do-not-evict: kubernetes-sigs/karpenter#2170, kyverno/policies#1277)."""
    for kind in KYVERNO_POLICY_KINDS:
        for res in model.of_kind(kind, group="kyverno.io"):
            if not ctx.in_focus(res):
                continue
            for path, key in kyverno_annotation_keys(res, "karpenter.sh/"):
                if key not in REMOVED_ANNOTATIONS or version < V(REMOVED_ANNOTATIONS[key][2]):
                    continue
                replacement, deprecated, removed = REMOVED_ANNOTATIONS[key]
                yield ctx.violation(
                    res, path,
                    f"this Kyverno policy adds `{key}`, ignored by Karpenter {version}\n"
                    f"help: add `{replacement}` instead\n"
                    f"note: the pods it mutates are not protected; deprecated in Karpenter {deprecated}, removed in "
                    f"{removed}" + release_origin(where, version),
                    on="key")


@rule("KPL415", "do-not-disrupt-on-workload", category="disruption", severity="warning",
      summary="karpenter.sh/do-not-disrupt on a Deployment/StatefulSet/Job's own metadata, where Karpenter never looks",
      scope="file")
def do_not_disrupt_on_workload(model, ctx):
    keys = (DO_NOT_DISRUPT, *REMOVED_ANNOTATIONS)
    for pod in _pods(model):
        if pod.meta_path == ("metadata",):
            continue  # a bare Pod: its own metadata is the pod's
        own = pod.res.get(("metadata", "annotations"))
        if not isinstance(own, dict):
            continue
        for key in keys:
            if key in own and key not in pod.annotations:
                where = ".".join(pod.meta_path) + ".annotations"
                yield ctx.violation(
                    pod.res, ("metadata", "annotations", key),
                    f"`{key}` on the {pod.res.kind}'s own metadata does nothing\n"
                    f"help: move it to {where} so the pods carry it\n"
                    "note: Karpenter reads pod annotations", on="key")
