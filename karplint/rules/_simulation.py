"""The run's provisioning simulation, worked out once and shared by the KPL9xx rules (karplint/rules/provisioning.py,
karplint/rules/scheduling.py) and `karplint simulate`: the catalog (bundled, or extended by the configuration's
`instance-types`) and each NodePool's simulation (`karplint.provisioning`)."""

from __future__ import annotations

from typing import Iterator

from karplint.model import Model, Resource
from karplint.rules._catalog import ami_family, nodeclasses_by_name, resolve_nodeclass

CATALOG_OPTION = "instance-types"
CATALOG_MODE_OPTION = "instance-types-mode"  # "add" (to the bundled catalog) or "replace" (the whole catalog)
# Labels only Karpenter's nodes carry: a pod selecting one wants Karpenter's capacity.
KARPENTER_ONLY_PREFIXES = ("karpenter.sh/nodepool", "karpenter.sh/capacity-type", "karpenter.k8s.aws/")


def karpenter_only_keys(spec) -> list[str]:
    """The Karpenter-only labels a raw pod spec requires, when they confine its pods to Karpenter's nodes: one in
    `nodeSelector`, or one in every required node-affinity term (`In`, `Exists`, `Gt`, `Lt`: they need the label);
    [] otherwise. (A selector on them is the evidence that the pods run on Karpenter's nodes.)"""
    if not isinstance(spec, dict):
        return []
    selector = spec.get("nodeSelector")
    keys = [k for k in selector if isinstance(k, str) and k.startswith(KARPENTER_ONLY_PREFIXES)] \
        if isinstance(selector, dict) else []
    if keys:
        return keys
    affinity = spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    if not isinstance(terms, list) or not terms:
        return []
    found: list[str] = []
    for term in terms:
        exprs = term.get("matchExpressions") if isinstance(term, dict) else None
        mine = [e["key"] for e in exprs or () if isinstance(e, dict) and isinstance(e.get("key"), str)
                and e["key"].startswith(KARPENTER_ONLY_PREFIXES) and e.get("operator") in ("In", "Exists", "Gt", "Lt")] \
            if isinstance(exprs, list) else []
        if not mine:
            return []  # this alternative may land on any node
        found += [k for k in mine if k not in found]
    return found


def pools_with_requirements(model: Model) -> bool:
    return any(isinstance(np.get(("spec", "template", "spec", "requirements")), list) and
               np.get(("spec", "template", "spec", "requirements")) for np in model.nodepools())


def catalog_of(ctx):
    from karplint.provisioning.catalog import ExtraTypesError, configured, load

    try:
        return configured({CATALOG_OPTION: ctx.option(CATALOG_OPTION),
                           CATALOG_MODE_OPTION: ctx.option(CATALOG_MODE_OPTION)})
    except ExtraTypesError:
        return load()  # the configuration is reported by the config loader's checks; simulate with the bundled one


def nodeclass_facts_resolver(model: Model):
    """NodePool -> the NodeClassFacts of the EC2NodeClass it references in `model` (empty facts when none)."""
    from karplint.provisioning.nodepools import NodeClassFacts, nodeclass_facts

    by_name = nodeclasses_by_name(model)

    def facts_for(np: Resource):
        nc = resolve_nodeclass(np, by_name) if by_name else None
        if nc is None:
            return NodeClassFacts()
        family, path = ami_family(nc)
        return nodeclass_facts(nc, family, path)

    return facts_for


def simulation(model: Model, ctx):
    """(catalog, the run's NodePool simulations), computed once per model (several rules ask); (None, []) when no
    NodePool has requirements, so that the catalog is never loaded for such runs."""
    if not pools_with_requirements(model):
        return None, []
    memo = model.memo.get("provisioning pools")
    if memo is not None:
        return memo
    from karplint.provisioning.simulate import simulate_pools

    catalog = catalog_of(ctx)
    omitted = model.memo["provisioning omitted"] = []
    memo = model.memo["provisioning pools"] = (catalog, simulate_pools(model, catalog,
                                                                      nodeclass_facts_resolver(model), omitted))
    return memo


def legacy_simulation(model: Model, ctx):
    """(catalog, the simulations of the v1alpha5 Provisioners the target release serves), once per model; (None, [])
    when there are none. Only KPL910 judges workloads against them (the other KPL9xx verdicts are on NodePools).
    Their AWSNodeTemplate is not read: allocatable resources are the catalog's (AL2023 defaults), as for a NodePool
    whose EC2NodeClass is not in the run."""
    memo = model.memo.get("provisioning legacy pools")
    if memo is not None:
        return memo
    from karplint.rules._legacy import judged

    provisioners = [p for p in model.of_kind("Provisioner", group="karpenter.sh")
                    if p.version == "v1alpha5" and judged(p, ctx, legacy=True)]
    if not provisioners:
        memo = model.memo["provisioning legacy pools"] = (None, [])
        return memo
    from karplint.provisioning.nodepools import simulate_pool
    from karplint.provisioning.simulate import MAX_POOLS, overlay_resources

    catalog = simulation(model, ctx)[0] or catalog_of(ctx)
    overlays = overlay_resources(model)
    sims = []
    for p in provisioners[:MAX_POOLS]:
        sims.append(simulate_pool(p, catalog))
        sims[-1].memo["overlay_resources"] = overlays
    memo = model.memo["provisioning legacy pools"] = (catalog, sims)
    return memo


def too_large(model: Model, ctx) -> Iterator:
    """KPL004 where a budget of the simulation left NodePools or workloads out (`provisioning.simulate`). Every
    KPL9xx rule reports it (the engine keeps one): whichever of them runs, the verdict is never shown as complete."""
    simulation(model, ctx)
    for o in model.memo.get("provisioning omitted", ()):
        yield ctx.too_large(o.resource, o.path, o.message)



def catalog_date(catalog) -> str:
    src = catalog.source
    if src.get("mode") == "replace" and "repo" not in src:  # (a private catalog names no release)
        return '`instance-types-mode = "replace"`'

    return f"{src.get('version', '?')}, {src.get('repo', '?')}@{src.get('commit', '?')[:8]}"


def catalog_name(catalog) -> str:
    """"bundled catalog", or "configured catalog" when `instance-types-mode = "replace"` made it."""
    return "configured catalog" if catalog.source.get("mode") == "replace" else "bundled catalog"
