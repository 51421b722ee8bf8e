"""The run stage sees only the documents the selected cross-file rules declare they read (`Rule.reads`), and the
cache reuses each rule's verdicts while the files holding its documents are unchanged. Both are right only if
every cross-file rule's verdicts follow from the documents it declares: check that, rule by rule, against the
same rule given every document, on everything the project has (rule docs, fixtures, examples, a synthetic
monorepo, the shared corpus) under configurations that switch on the rules reading the most."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karplint import engine

from karplint.engine import parallel
from karplint.docs import rule_doc
from karplint.model import as_resource
from karplint.engine import FileOutcome, InputFile, RunReads, check, process_input, run_stage, selected_rules
from karplint.rules import all_rules
from karplint.testing import REPO, SHARED, make_config

CONFIGS = {
    "default": ({}, None),
    "repair-cilium": ({"cluster": {"node-repair": True, "cni": "cilium"}}, None),
    "old-release": ({}, "0.37.0"),
    "between-releases": ({}, "1.4.7"),
}
CROSS_FILE = [r for r in all_rules() if r.check is not None and (r.scope == "run" or r.reads is not None)]


def _files_under(*roots: Path) -> list[InputFile]:
    out = []
    for root in roots:
        if root.is_dir():
            for p in sorted(root.rglob("*")):
                if p.suffix in (".yaml", ".yml", ".json") and p.is_file():
                    out.append(InputFile(str(p), None, p.read_bytes()))
    return out


def _doc_examples() -> list[InputFile]:
    out = []
    for r in all_rules():
        doc = rule_doc(r.code)
        for i, ex in enumerate(doc.examples if doc else ()):
            out.append(InputFile(f"docs/{r.code}-{ex.kind}-{i}.yaml", None, ex.text.encode()))
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[InputFile]:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from gen import generate
    finally:
        sys.path.pop(0)
    synthetic = tmp_path_factory.mktemp("synthetic")
    generate(synthetic, 300)
    return (_doc_examples() + _files_under(REPO / "tests" / "fixtures", REPO / "examples", synthetic)
            + _files_under(SHARED / "corpus"))


def _verdicts(outcomes: list[FileOutcome], cfg, rule, reads: RunReads | None) -> list:
    """`rule`'s run-stage verdicts given every document (reads None) or only those `reads` says it reads."""
    if reads is not None:
        pruned = []
        for o in outcomes:
            docs = [k for d in o.documents() if (k := reads.keep(d, as_resource(d))[0]) is not None]
            summary = engine.FileSummary(o.summary.display, run_documents=len(docs),
                                         run_rules=frozenset({rule.code}) if docs else frozenset())
            pruned.append(FileOutcome(summary, docs or None))
        outcomes = pruned
    return [tuple(x) for x in run_stage(outcomes, cfg, [rule])[rule.code]]


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_each_cross_file_rule_reads_only_its_declared_documents(config, inputs):
    raw, version = CONFIGS[config]
    cfg = make_config(raw, version)
    rules = selected_rules(cfg)
    everything = RunReads(rules, everything=True)
    outcomes = [process_input(item, item.data, cfg, rules, everything) for item in inputs]
    fired = 0
    for rule in CROSS_FILE:
        full = _verdicts(outcomes, cfg, rule, None)
        assert _verdicts(outcomes, cfg, rule, RunReads([rule])) == full, (
            f"{rule.code} gives other verdicts with only the documents its `reads` declares")
        fired += bool(full)
    assert fired >= 10, "the inputs should exercise most cross-file rules"


def test_every_cross_file_rule_declares_what_it_reads():
    undeclared = [r.code for r in all_rules() if r.check is not None and r.scope == "run" and r.reads is None]
    assert not undeclared, f"run-scope rules without `reads` make the run stage load every document: {undeclared}"


def test_pruned_check_equals_full_check(inputs, monkeypatch):
    """End to end through `check`: the pruned run stage gives the findings of a run stage with every document."""
    cfg = make_config({"cluster": {"node-repair": True, "cni": "cilium"}})
    pruned = [(f.file, f.line, f.column, f.code, f.message) for f in check(inputs, cfg).findings]
    monkeypatch.setattr(parallel, "run_reads", lambda rules: RunReads(rules, everything=True))
    full = [(f.file, f.line, f.column, f.code, f.message) for f in check(inputs, cfg).findings]
    assert pruned == full and len(pruned) > 100


# ---------------------------------------------------------------------------------------------- parts of documents

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeSelector: {disk: ssd}
      containers:
        - name: web
          image: nginx
"""


def _deployment():
    from karplint.readers.loader import load
    from karplint.readers.source import SourceFile

    docs, problems = load(SourceFile("deploy.yaml", DEPLOYMENT))
    assert not problems
    return docs[0]


def test_document_only_keeps_the_named_parts_and_nothing_else():
    doc = _deployment()
    part = doc.only([("metadata", "name"), ("spec", "template", "spec", "nodeSelector"), ("spec", "absent"),
                     ("spec", "template"), ("spec", "template", "metadata")])  # (a path inside another is kept once)
    assert part.data == {"metadata": {"name": "web"}, "spec": {"template": doc.data["spec"]["template"]}}
    assert doc.data["spec"]["replicas"] == 3 and doc.source.text == DEPLOYMENT  # the original is untouched
    assert part.source.text == "" and part.path == "deploy.yaml"
    assert part.span(("metadata", "name")) == doc.start  # no positions: the document's start


def test_run_reads_keeps_parts_only_when_no_rule_reads_the_whole_document():
    from karplint.model import Parts, as_resource
    from karplint.rules.base import Rule

    def deployments(doc, res):
        return res is not None and res.kind == "Deployment"

    def rule(code, *reads):
        return Rule(code=code, slug=code.lower(), category="disruption", severity="warning", summary="",
                    check=lambda model, ctx: (), scope="run", reads=reads)

    labels = Parts(deployments, lambda res: [("metadata",), res.pod_template[0] + ("labels",)])
    doc = _deployment()
    kept, codes = RunReads([rule("KPL990", labels)]).keep(doc, as_resource(doc))
    assert codes == {"KPL990"}
    assert kept.data == {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": doc.data["metadata"],
                         "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}}
    kept, codes = RunReads([rule("KPL990", labels), rule("KPL991", deployments)]).keep(doc, as_resource(doc))
    assert codes == {"KPL990", "KPL991"} and kept is doc
    anything = Parts(lambda doc, res: True, lambda res: [("metadata",)])
    kept, codes = RunReads([rule("KPL990", anything)]).keep(doc, None)
    assert kept is doc and codes == {"KPL990"}  # (not a resource: no parts to name)
