"""Karpenter's own scheduler tests, translated, run through karplint's simulation (the shared contract of
tests/upstream/: a case is `cases/<suite>/L<line>-<slug>.yaml`, a header document then the objects; each suite's
`<suite>.tsv` indexes every upstream test with its status).

`run_case(path)` loads the case's objects through the stages `karplint simulate` and the KPL9xx rules use (engine
load -> model -> `karplint.provisioning.simulate.simulate`, EC2NodeClass facts resolved as they resolve them), with
the instance-type catalog REPLACED by the case's (`catalog: fake | aws | <file under catalogs/>`, the `replace`
mode of `instance-types`), and returns the mismatches between each pod's verdict and the header's `expect`.
`cases(suite)` gives the pytest parameters of a suite (a case with `xfail:` runs as a strict xfail).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
CATALOGS = HERE / "catalogs"
TAG = "v1.14.1"
SUITES = {
    "core-scheduling": "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/suite_test.go",
    "core-provisioning": "kubernetes-sigs/karpenter pkg/controllers/provisioning/suite_test.go",
    "aws-instancetype": "aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go",
    "aws-cloudprovider": "aws/karpenter-provider-aws pkg/cloudprovider/suite_test.go",
}
HEADER_KEYS = ("upstream", "test", "catalog", "expect", "xfail", "note")
EXPECT_KEYS = ("schedules", "pools", "types", "types_include", "types_exclude", "labels")


class CaseError(Exception):
    """A case file that does not follow the contract (the test fails with this message)."""


def read_case(path: Path) -> tuple[dict, list]:
    """(header, objects) of a case file."""
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    if not docs or not isinstance(docs[0], dict) or "kind" in docs[0]:
        raise CaseError(f"{path.name}: the first document must be the header (no `kind`)")
    header = docs[0]
    for key in header:
        if key not in HEADER_KEYS:
            raise CaseError(f"{path.name}: unknown header key `{key}` (known: {', '.join(HEADER_KEYS)})")
    for key in ("upstream", "test", "catalog", "expect"):
        if key not in header:
            raise CaseError(f"{path.name}: the header has no `{key}`")
    if not isinstance(header["expect"], dict) or not header["expect"]:
        raise CaseError(f"{path.name}: `expect` must map each Pod's name to its expected verdict")
    for pod, exp in header["expect"].items():
        if not isinstance(exp, dict) or "schedules" not in exp:
            raise CaseError(f"{path.name}: expect.{pod} needs `schedules: true|false`")
        for key in exp:
            if key not in EXPECT_KEYS:
                raise CaseError(f"{path.name}: expect.{pod}: unknown key `{key}` (known: {', '.join(EXPECT_KEYS)})")
    return header, docs[1:]


def case_line(path: Path) -> int:
    """The upstream line a case file translates (its name: `L<line>-<slug>[-<n>].yaml`)."""
    stem = path.name
    if not stem.startswith("L") or not stem.endswith(".yaml") or "-" not in stem:
        raise CaseError(f"{path.name}: a case file is named L<line>-<slug>.yaml")
    digits = stem[1:stem.index("-")]
    if not digits.isdigit():
        raise CaseError(f"{path.name}: a case file is named L<line>-<slug>.yaml")
    return int(digits)


def upstream_ref(suite: str, line: int) -> str:
    return f"{SUITES[suite]}@{TAG}#L{line}"


@lru_cache(maxsize=None)
def catalog_data(name: str):
    """The `instance-types` content of a case's catalog: None for the bundled AWS catalog."""
    if name == "aws":
        return None
    path = CATALOGS / (name if name.endswith(".json") else f"{name}.json")
    if not path.is_file():
        raise CaseError(f"catalog `{name}`: no {path.relative_to(HERE)}")
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _catalog(name: str):
    """The case's catalog, built by the same function `check` and `simulate` build theirs with (cached: the
    simulation's shared work lives on the catalog object)."""
    from karplint.provisioning.catalog import configured

    data = catalog_data(name)
    if data is None:
        return configured({})
    return configured({"instance-types": data, "instance-types-mode": "replace"})


def simulate_case(path: Path):
    """(header, RunSimulation, catalog) of a case."""
    from karplint.config import Config
    from karplint.engine.load import load
    from karplint.provisioning.simulate import simulate
    from karplint.rules._simulation import nodeclass_facts_resolver

    header, _objects = read_case(path)
    # Only the case file, judged alone (no project context, no configuration found above it).
    loaded = load([str(path)], Config(project_context=False), cluster_state=True)
    if loaded.problems:
        raise CaseError(f"{path.name}: karplint could not read it: {loaded.problems}")
    catalog = _catalog(str(header["catalog"]))
    model = loaded.model
    return header, simulate(model, catalog, nodeclass_facts_resolver(model)), catalog


def _works(sim, term, types: list[str]) -> tuple:
    """(merged requirements, the types of `types` that satisfy `term` on NodePool `sim`), or (None, []) when the
    term is incompatible with the NodePool."""
    if sim.requirements.compatible(term, sim.well_known) is not None:
        return None, []
    merged = sim.requirements.copy()
    merged.add(*term.by_key.values())
    offered = {it.name: it for it in sim.types}
    return merged, [n for n in types if sim.type_reqs[n].intersects(merged) is None and offered[n].offered(merged)]


def possible_values(run, result, key: str) -> set[str] | None:
    """Every value of `key` a node hosting the pod may carry (None: some node may carry any value), over the
    NodePools that can host it and their fitting instance types. Required node-affinity terms are tried in order,
    as Karpenter relaxes them (`preferences.go` `removeRequiredNodeAffinityTerm`): the first term some NodePool
    can satisfy is the one the node is launched for."""
    from karplint.provisioning.requirements import Requirements

    sims = {sim.name: sim for sim in run.pools}
    hosts = [(sims[v.pool], v.types) for v in result.verdicts if v.ok is True]
    for term in result.pod.terms or [Requirements()]:
        out: set[str] = set()
        used = False
        for sim, types in hosts:
            merged, fitting = _works(sim, term, types)
            for name in fitting:
                used = True
                it_reqs = sim.type_reqs[name]
                req = merged.get(key)
                if it_reqs.has(key):
                    req = req.intersection(it_reqs.by_key[key])
                offerings = [o for o in _offerings(sim, name) if key in o and
                             all(merged.get(k).has(x) for k, x in o.items() if merged.has(k))]
                if offerings:  # (the offerings the pod can get: a zone is sold with some capacity types only)
                    out |= {o[key] for o in offerings if req.has(o[key])}
                elif req.complement:
                    return None
                else:
                    out |= set(req.values)
        if used:
            return out
    return set()


def _offerings(sim, name: str) -> tuple:
    for it in sim.types:
        if it.name == name:
            return it.offerings
    return ()


def run_case(path: Path | str) -> list[str]:
    """The mismatches between karplint's verdicts and the case's `expect` (empty: they agree)."""
    path = Path(path)
    try:
        header, run, _catalog_used = simulate_case(path)
    except CaseError as exc:
        return [str(exc)]
    where = f"{header['upstream']} ({header['test']})"
    results = {w.pod.res.name: w for w in run.workloads if w.pod.res.kind == "Pod"}
    out = []
    for name in sorted(set(results) - set(header["expect"])):
        out.append(f"{path.name}: Pod `{name}` has no `expect` entry")
    for name, exp in header["expect"].items():
        w = results.get(name)
        if w is None:
            out.append(f"{path.name}: no Pod `{name}` among the case's objects")
            continue
        got = w.hostable
        if got is None:
            reasons = "; ".join(f"{v.pool}: {v.reason}" for v in w.verdicts if v.ok is None)
            out.append(f"{where}: Pod `{name}`: karplint cannot tell ({reasons}), upstream says "
                       f"{'it schedules' if exp['schedules'] else 'it does not schedule'}")
            continue
        if got != bool(exp["schedules"]):
            why = "; ".join(f"{v.pool}: {v.reason}" for v in w.verdicts if v.ok is not True) or \
                "; ".join(f"{v.pool} with {', '.join(v.types)}" for v in w.verdicts if v.ok)
            out.append(f"{where}: Pod `{name}`: karplint says it {'schedules' if got else 'does not schedule'} "
                       f"({why}), upstream says the opposite")
            continue
        if not got:
            continue
        hosts = [v for v in w.verdicts if v.ok]
        if len(hosts) < w.counts.get(True, 0):
            out.append(f"{where}: Pod `{name}`: more NodePools host it than the simulation lists")
        pools = sorted(v.pool for v in hosts)
        types = sorted({t for v in hosts for t in v.types})
        if "pools" in exp and sorted(map(str, exp["pools"])) != pools:
            out.append(f"{where}: Pod `{name}`: NodePools {pools}, upstream {sorted(map(str, exp['pools']))}")
        if "types" in exp and sorted(map(str, exp["types"])) != types:
            out.append(f"{where}: Pod `{name}`: instance types {types}, upstream {sorted(map(str, exp['types']))}")
        missing = sorted(set(map(str, exp.get("types_include", ()))) - set(types))
        if missing:
            out.append(f"{where}: Pod `{name}`: instance types {missing} cannot host it in karplint (got {types})")
        extra = sorted(set(map(str, exp.get("types_exclude", ()))) & set(types))
        if extra:
            out.append(f"{where}: Pod `{name}`: instance types {extra} can host it in karplint, not upstream")
        for key, value in (exp.get("labels") or {}).items():
            values = possible_values(run, w, str(key))
            if values != {str(value)}:
                shown = "any value" if values is None else sorted(values)
                out.append(f"{where}: Pod `{name}`: label {key} may be {shown} in karplint, upstream {value}")
    return out


def cases(suite: str) -> list:
    """pytest parameters, one per case file of `suite` (ids: the file names); xfail cases are strict."""
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite}")
    out = []
    for path in sorted((CASES / suite).glob("*.yaml"), key=lambda p: (case_line(p), p.name)):
        marks = []
        try:
            header, _ = read_case(path)
        except CaseError:
            header = {}
        if header.get("xfail"):
            marks.append(pytest.mark.xfail(reason=str(header["xfail"]), strict=True))
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


def check(path: Path) -> None:
    """The test body of a case: fails with the mismatches."""
    problems = run_case(path)
    assert not problems, "\n".join(problems)
