"""Node repair and dead or dying nodes (KPL5xx): tolerations that keep pods on broken nodes, and what Karpenter's
NodeRepair feature really does for the targeted release (core `pkg/controllers/node/health/controller.go`)."""

from __future__ import annotations

from typing import Iterator

from karplint.model import Model, Resource, karpenter_annotated_pods, karpenter_resources, of_kinds
from karplint.rules.base import rule
from karplint.rules._catalog import WORKLOAD_KINDS, pod_spec, tolerations
from karplint.model.versions import V

# Taints the node lifecycle controller puts on nodes whose kubelet stopped reporting (NoExecute evicts pods
# that do not tolerate them; the DefaultTolerationSeconds admission plugin adds 300 s tolerations).
DEAD_NODE_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")

# Karpenter's taint on nodes being disrupted: key -> (value it carries, releases that use it). core `pkg/apis/v1/taints.go`.
DISRUPTION_TAINTS: dict[str, tuple[str, str]] = {
    "karpenter.sh/disrupted": ("", ">= v1.0"),
    "karpenter.sh/disruption": ("disrupting", "v0.32-v0.37"),
}

# Node repair waits this long on Ready=False/Unknown before replacing the node (aws/karpenter-provider-aws `pkg/cloudprovider/cloudprovider.go` RepairPolicies).
REPAIR_TOLERATION_SECONDS = 30 * 60

# NodeRepair facts by release (release notes): (first release, what the release does not do before it).
NODE_REPAIR_GATE = V("1.1.0")  # alpha gate NodeRepair, default false
READY_UNKNOWN_REPAIR = V("1.2.0")  # Ready=Unknown policy, aws/karpenter-provider-aws#7514

# What node repair does not respect (core pkg/controllers/node/health/controller.go: forceful deletion).
# (kind, path inside the resource or pod template metadata, what users expect from it)
REPAIR_BYPASSES = (
    ("PodDisruptionBudget", None, "PodDisruptionBudgets"),
    ("pod", ("annotations", "karpenter.sh/do-not-disrupt"), "the karpenter.sh/do-not-disrupt annotation"),
    ("NodePool", ("spec", "template", "spec", "terminationGracePeriod"), "terminationGracePeriod"),
    ("NodePool", ("spec", "disruption", "budgets"), "disruption budgets"),
)

AUTO_MODE_NODECLASS_GROUP = "eks.amazonaws.com"

_ASSUMED = "`[cluster] node-repair = true` says Karpenter replaces unhealthy nodes"


def _matches_effect(effect, wanted: str) -> bool:
    return effect in (None, "", wanted)


def _tolerates_taint(t: dict, key: str, value: str, effect: str) -> bool:
    """Whether toleration `t` (with a key) tolerates the taint key=value:effect (Kubernetes ToleratesTaint)."""
    if t.get("key") != key or not _matches_effect(t.get("effect"), effect):
        return False
    op = t.get("operator") or "Equal"
    if op == "Exists":
        return True
    return op == "Equal" and str(t.get("value") or "") == value


def _is_blanket(t: dict) -> bool:
    return not t.get("key") and t.get("operator") == "Exists"


def _non_daemonset(res: Resource) -> bool:
    return res.kind != "DaemonSet" and pod_spec(res) is not None


def _auto_mode(pool: Resource) -> bool:
    """EKS Auto Mode pools run on AWS's managed Karpenter, whose repair the `[cluster]` setting does not describe."""
    return pool.get(("spec", "template", "spec", "nodeClassRef", "group")) == AUTO_MODE_NODECLASS_GROUP


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600}h"
    if seconds % 60 == 0:
        return f"{seconds // 60}m"
    return f"{seconds}s"


@rule("KPL501", "tolerates-dead-node", category="repair", severity="warning",
      summary="A workload that tolerates not-ready/unreachable nodes forever or longer than node repair waits",
      kinds=WORKLOAD_KINDS, options={"repair-window-seconds": REPAIR_TOLERATION_SECONDS})
def tolerates_dead_node(res: Resource, ctx) -> Iterator:
    if not _non_daemonset(res):
        return
    window = ctx.option("repair-window-seconds")
    for path, t in tolerations(res):
        taint = next((k for k in DEAD_NODE_TAINTS if _tolerates_taint(t, k, "", "NoExecute")), None)
        if taint is None:
            continue
        seconds = t.get("tolerationSeconds")
        if seconds is None:
            yield ctx.violation(
                res, path,
                f"tolerates `{taint}:NoExecute` forever: pods stay on a dead node\n"
                f"help: set tolerationSeconds (at most {_duration(window)}, the node-repair window)\n"
                "note: without it they are never evicted (the Kubernetes default is 300s) and never rescheduled")
        elif isinstance(seconds, int) and not isinstance(seconds, bool) and seconds > window:
            yield ctx.violation(
                res, path + ("tolerationSeconds",),
                f"tolerates `{taint}:NoExecute` for {_duration(seconds)}, longer than node repair waits\n"
                f"help: lower tolerationSeconds to at most {window} ({_duration(window)})\n"
                "note: the pods stay on an unreachable node until it is replaced")


@rule("KPL502", "blanket-toleration", category="repair", severity="warning",
      summary="A non-DaemonSet workload that tolerates every taint (operator Exists without a key)",
      kinds=WORKLOAD_KINDS)
def blanket_toleration(res: Resource, ctx) -> Iterator:
    if not _non_daemonset(res):
        return
    for path, t in tolerations(res):
        if not _is_blanket(t):
            continue
        effect = t.get("effect") or ""
        if effect == "PreferNoSchedule":
            continue
        what = {
            "": "every taint",
            "NoSchedule": "every NoSchedule taint",
            "NoExecute": "every NoExecute taint",
        }.get(effect)
        if what is None:
            continue
        consequences = []
        if effect in ("", "NoSchedule"):
            consequences.append("Karpenter does not drain its pods from nodes it is disrupting "
                                "(`karpenter.sh/disrupted:NoSchedule`), keeping them busy until forced")
        if effect in ("", "NoExecute"):
            consequences.append("its pods stay bound to not-ready/unreachable nodes forever")
        yield ctx.violation(
            res, path,
            f"tolerates {what} (operator Exists without a key)\n"
            "help: tolerate the specific taints it needs (DaemonSets are exempt)\n"
            + "\n".join(f"note: {c}" for c in consequences))


@rule("KPL503", "tolerates-disrupted-taint", category="repair", severity="warning",
      summary="A workload that tolerates Karpenter's disruption taint, so its pods are never drained",
      kinds=WORKLOAD_KINDS)
def tolerates_disrupted_taint(res: Resource, ctx) -> Iterator:
    if not _non_daemonset(res):
        return
    for path, t in tolerations(res):
        for key, (value, releases) in DISRUPTION_TAINTS.items():
            if _tolerates_taint(t, key, value, "NoSchedule"):
                yield ctx.violation(
                    res, path,
                    f"tolerates Karpenter's disruption taint `{key}`: pods are never drained\n"
                    "help: remove the toleration\n"
                    f"note: Karpenter {releases} taints nodes it consolidates, drifts or expires with it; a node "
                    "running these pods stays up until they are killed (terminationGracePeriod)")
                break


@rule("KPL504", "node-repair-assumption", category="repair", severity="info",
      summary="The cluster setting node-repair = true, but the targeted Karpenter release or these resources "
              "do not get the repair behaviour that implies",
      reads=(karpenter_resources, karpenter_annotated_pods, of_kinds("PodDisruptionBudget")))
def node_repair_assumption(model: Model, ctx) -> Iterator:
    if ctx.cluster.get("node-repair") is not True:
        return
    version = ctx.karpenter_version
    pools = [p for p in model.nodepools() if not _auto_mode(p)]
    # The release facts concern the whole cluster: reported once, on the run's first NodePool.
    if version < NODE_REPAIR_GATE:
        if pools:
            yield ctx.violation(
                pools[0], ("metadata", "name"),
                f"Karpenter {version} has no node repair, but `[cluster] node-repair = true`\n"
                f"help: upgrade to Karpenter {NODE_REPAIR_GATE} or later (alpha NodeRepair feature gate), or drop "
                "the setting\n"
                "note: broken nodes stay until replaced by hand (reported once for the run)")
        return
    if version < READY_UNKNOWN_REPAIR and pools:
        yield ctx.violation(
            pools[0], ("metadata", "name"),
            f"Karpenter {version} repairs only Ready=False nodes, not Ready=Unknown\n"
            f"help: upgrade to Karpenter {READY_UNKNOWN_REPAIR} or later, and enable the alpha NodeRepair feature "
            "gate (off by default)\n"
            f"note: {_ASSUMED}, but a node whose kubelet stopped reporting is not repaired (reported once for "
            "the run)")
    for kind, path, what in REPAIR_BYPASSES:
        if kind == "pod":
            for res in model.workloads():
                meta_path = res.pod_template[0]
                if res.get(meta_path + path) is not None:
                    yield ctx.violation(
                        res, meta_path + path,
                        f"node repair ignores {what}: these pods are not protected from it\n"
                        f"note: {_ASSUMED}; repair deletes unhealthy nodes forcefully", on="key")
            continue
        for res in model.of_kind(kind):
            if kind == "NodePool" and (res.group != "karpenter.sh" or _auto_mode(res)):
                continue
            if path is not None and res.get(path) is None:
                continue
            yield ctx.violation(
                res, path or ("kind",),
                f"node repair ignores {what}\nnote: {_ASSUMED}; repair deletes unhealthy nodes forcefully",
                on="key" if path else "value")
