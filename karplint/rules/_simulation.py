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
