"""Startup taints (KPL3xx): node agents' readiness taints against NodePool `startupTaints` and `taints`.

Sources: core `pkg/controllers/nodeclaim/lifecycle/initialization.go` (initialization waits for startup taints, key and
effect), aws/karpenter-provider-aws#6355 (Cilium), the agents table `karplint.model.agents`, and what the run installs (`karplint.model.detect`).
"""

from __future__ import annotations

from karplint.fix import yamledit
from karplint.model.agents import AGENTS, BY_TAINT_KEY, Agent, is_ephemeral
from karplint.model.detect import Found, installed_agents, reads_agents
from karplint.findings import Fix
from karplint.model import Model, Resource, karpenter_resources, pods_with_tolerations
from karplint.provisioning.placement import can_land, runs_windows, tolerates
from karplint.rules import rule

TEMPLATE_SPEC = ("spec", "template", "spec")
STARTUP = TEMPLATE_SPEC + ("startupTaints",)
TAINTS = TEMPLATE_SPEC + ("taints",)


def _taints(res: Resource, path) -> list[tuple[int, dict]]:
    items = res.get(path)
    if not isinstance(items, list):
        return []
    return [(i, t) for i, t in enumerate(items) if isinstance(t, dict) and isinstance(t.get("key"), str)]


def _agent_runs_on(found: Found, np: Resource) -> bool:
    if found.agent.linux_only and runs_windows(np):
        return False
    if found.pod_specs:
        return any(can_land(spec, np) for spec in found.pod_specs)
    return True


def _origin(found: Found) -> str:
    if found.from_cluster:
        return f"{found.agent.title} is assumed installed (from `cni = \"{found.agent.name}\"` in [cluster])"
    return f"{found.agent.title} is installed ({found.where})"


def _effect_for(found: Found) -> tuple[str, str]:
    """(effect to add, why)."""
    if found.applies_effect:
        return found.applies_effect, f"the effect {found.agent.title} applies ({found.effect_source})"
    return found.agent.effect, (f"assumed {found.agent.effect}: {found.agent.title}'s configuration is not in the "
                                "linted files; use the effect your installation applies")


def _add_startup_taint_edits(res: Resource, key: str, effect: str, value=None):
    item = {"key": key}
    if value not in (None, ""):
        item["value"] = str(value)
    item["effect"] = effect
    return yamledit.append_item(res.doc, STARTUP, item)


def _add_startup_taint_fix(res: Resource, key: str, effect: str) -> Fix | None:
    edits = _add_startup_taint_edits(res, key, effect)
    if not edits:
        return None
    return Fix(f"add `{key}:{effect}` to spec.template.spec.startupTaints", "unsafe", edits)


def _missing(model: Model, ctx, want_cni: bool):
    found = installed_agents(model, ctx.cluster)
    for f in found.values():
        if f.agent.cni != want_cni:
            continue
        for np in model.nodepools():
            if not ctx.in_focus(np) or not _agent_runs_on(f, np) or not isinstance(np.get(TEMPLATE_SPEC), dict):
                continue
            keys = {t["key"] for _, t in _taints(np, STARTUP)}
            if f.taint_key in keys or f.taint_key in {t["key"] for _, t in _taints(np, TAINTS)}:
                continue  # present, or under `taints` (KPL302)
            effect, why = _effect_for(f)
            consequence = f.agent.missing
            if f.applies_effect:
                consequence = (f"the agent taints not-ready nodes with effect {f.applies_effect} "
                               f"({f.effect_source}); Karpenter does not know that taint, sees pending pods as "
                               "unschedulable on the new node and keeps launching extra nodes "
                               "(aws/karpenter-provider-aws#6355)")
            path = STARTUP if np.doc.exact(STARTUP) else TEMPLATE_SPEC
            yield ctx.violation(
                np, path,
                f"NodePool lacks the startup taint `{f.taint_key}`\n"
                f"help: add `{f.taint_key}:{effect}` to spec.template.spec.startupTaints"
                + ("" if f.applies_effect else f" ({why})") + "\n"
                f"note: {_origin(f)}; {consequence}",
                on="key", fix=_add_startup_taint_fix(np, f.taint_key, effect))


@rule("KPL301", "cni-startup-taint-missing", category="taints", severity="error",
      summary="The cluster runs Cilium but a NodePool lacks its `node.cilium.io/agent-not-ready` startup taint",
      fix="unsafe",
      reads=(karpenter_resources, reads_agents))
def cni_startup_taint_missing(model, ctx):
    yield from _missing(model, ctx, want_cni=True)


@rule("KPL304", "agent-startup-taint-missing", category="taints", severity="warning",
      summary="A node agent with a readiness taint (EBS/EFS/FSx CSI) is installed but a NodePool lacks its startup taint",
      fix="unsafe",
      reads=(karpenter_resources, reads_agents))
def agent_startup_taint_missing(model, ctx):
    yield from _missing(model, ctx, want_cni=False)


def _agent_keys(model: Model, ctx) -> dict[str, Agent]:
    keys = dict(BY_TAINT_KEY)
    for f in installed_agents(model, ctx.cluster).values():
        keys[f.taint_key] = f.agent
    return keys


@rule("KPL302", "agent-taint-in-taints", category="taints", severity="error",
      summary="A node agent's readiness taint is listed under `taints` instead of `startupTaints`",
      fix="unsafe",
      reads=(karpenter_resources, reads_agents))
def agent_taint_in_taints(model, ctx):
    keys = _agent_keys(model, ctx)
    for np in model.nodepools():
        if not ctx.in_focus(np):
            continue
        for i, t in _taints(np, TAINTS):
            agent = keys.get(t["key"])
            if agent is None:
                continue
            yield ctx.violation(
                np, TAINTS + (i, "key"),
                f"readiness taint `{t['key']}` is under `taints`, not `startupTaints`\n"
                "help: move it to startupTaints\n"
                f"note: {agent.title} removes it once it runs, but under `taints` Karpenter treats it as permanent: it "
                "only launches nodes for pods that tolerate it, so ordinary pods never get a node from this NodePool "
                "(aws/karpenter-provider-aws#5293)",
                fix=_move_fix(np, i, t))


def _move_fix(np: Resource, index: int, taint: dict) -> Fix | None:
    doc = np.doc
    effect = taint.get("effect")
    if not isinstance(effect, str):
        return None
    taints = np.get(TAINTS)
    if len(taints) == 1:
        remove = yamledit.delete_entry(doc, TAINTS, prune=False)
    else:
        remove = yamledit.delete_item(doc, TAINTS, index)
    same = [t for _, t in _taints(np, STARTUP) if t["key"] == taint["key"] and t.get("effect") == effect]
    add = () if same else _add_startup_taint_edits(np, taint["key"], effect, taint.get("value"))
    edits = yamledit.combine(remove, add)
    if not edits:
        return None
    return Fix(f"move `{taint['key']}` from spec.template.spec.taints to startupTaints", "unsafe", edits)


@rule("KPL303", "agent-taint-effect-mismatch", category="taints", severity="warning",
      summary="A startup taint has the agent's key but not the effect the agent's configuration applies",
      reads=(karpenter_resources, reads_agents))
def agent_taint_effect_mismatch(model, ctx):
    for f in installed_agents(model, ctx.cluster).values():
        if not f.applies_effect:
            continue  # configuration not visible: the agent removes the taint by key whatever its effect
        for np in model.nodepools():
            if not _agent_runs_on(f, np):
                continue
            entries = [(i, t) for i, t in _taints(np, STARTUP) if t["key"] == f.taint_key]
            if not entries or any(t.get("effect") == f.applies_effect for _, t in entries):
                continue
            i, t = entries[0]
            yield ctx.violation(
                np, STARTUP + (i, "effect"),
                f"startup taint `{f.taint_key}` has effect {t.get('effect')!r}, not {f.applies_effect}\n"
                f"help: use effect {f.applies_effect}\n"
                f"note: {f.agent.title} taints nodes with `{f.taint_key}:{f.applies_effect}` ({f.effect_source}); "
                "Karpenter matches startup taints by key and effect, so it counts the agent's taint as a real one "
                "and may launch extra nodes")


@rule("KPL305", "unremoved-startup-taint", category="taints", severity="info",
      summary="A startup taint that no known agent removes: nodes never initialize unless something does",
      reads=(karpenter_resources, reads_agents, pods_with_tolerations))
def unremoved_startup_taint(model, ctx):
    keys = _agent_keys(model, ctx)
    tolerated_by_someone: list[list] = []
    for res in model.resources:
        paths = res.pod_template
        if paths is None:
            continue
        spec = res.get(paths[1])
        if isinstance(spec, dict) and isinstance(spec.get("tolerations"), list):
            tolerated_by_someone.append([t for t in spec["tolerations"] if isinstance(t, dict) and t.get("key")])
    for np in model.nodepools():
        if not ctx.in_focus(np):
            continue
        for i, t in _taints(np, STARTUP):
            key = t["key"]
            if key in keys or is_ephemeral(key) or "${" in key or "{{" in key:
                continue
            if any(tolerates(tols, t) for tols in tolerated_by_someone):
                continue  # a workload in the run tolerates it by key: likely the controller that removes it
            yield ctx.violation(
                np, STARTUP + (i, "key"),
                f"startup taint `{key}`: nothing known removes it\n"
                "help: make sure a controller removes it, or drop it from startupTaints\n"
                "note: Karpenter waits for every startup taint to be removed before it marks the node initialized; "
                f"it is not the readiness taint of an agent karplint knows ({', '.join(a.title for a in AGENTS)}) "
                "and nothing in the checked files tolerates it")
