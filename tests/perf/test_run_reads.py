"""The run stage sees only the documents the selected cross-file rules declare they read (`Rule.reads`). A
declaration that misses something a rule reads would change its verdicts: compare pruned runs with runs that
give the run stage every document, on everything the project has (corpus, rule docs, fixtures, a synthetic
monorepo), under configurations that switch on the rules reading the most."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karplint import engine, parallel
from karplint.docs import rule_doc
from karplint.engine import InputFile, check
from karplint.rules import all_rules
from karplint.testing import REPO, SHARED, make_config

CONFIGS = {
    "default": {},
    "repair-cilium": {"cluster": {"node-repair": True, "cni": "cilium"}},
    "old-release": {"karpenter-version": "0.37.0"},
    "between-releases": {"karpenter-version": "1.4.7"},
}


def _findings(inputs, cfg, *, full: bool, monkeypatch):
    with monkeypatch.context() as m:
        if full:
            m.setattr(parallel, "run_reads", lambda rules: engine._reads_everything)
        report = check(inputs, cfg)
    return [(f.file, f.line, f.column, f.code, f.severity, f.message, f.fix) for f in report.findings]


def _config(name):
    raw = dict(CONFIGS[name])
    version = raw.pop("karpenter-version", None)
    return make_config(raw, version)


def _files_under(*roots: Path) -> list[InputFile]:
    out = []
    for root in roots:
        if root.is_dir():
            for p in sorted(root.rglob("*")):
                if p.suffix in (".yaml", ".yml", ".json") and p.is_file():
                    out.append(InputFile(str(p), str(p)))
    return out


def _doc_examples() -> list[InputFile]:
    out = []
    for r in all_rules():
        doc = rule_doc(r.code)
        for i, ex in enumerate(doc.examples if doc else ()):
            out.append(InputFile(f"docs/{r.code}-{ex.kind}-{i}.yaml", None, ex.text.encode()))
    return out


def test_every_cross_file_rule_declares_what_it_reads():
    undeclared = [r.code for r in all_rules() if r.check is not None and r.scope == "run" and r.reads is None]
    assert not undeclared, f"run-scope rules without `reads` make the run stage load every document: {undeclared}"


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_pruned_run_equals_full_run_on_docs_and_fixtures(config, monkeypatch):
    inputs = _doc_examples() + _files_under(REPO / "tests" / "fixtures", REPO / "examples")
    cfg = _config(config)
    pruned = _findings(inputs, cfg, full=False, monkeypatch=monkeypatch)
    assert pruned
    assert pruned == _findings(inputs, cfg, full=True, monkeypatch=monkeypatch)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_pruned_run_equals_full_run_on_corpus(config, monkeypatch):
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        pytest.skip(f"shared corpus not found at {corpus}")
    inputs = _files_under(corpus)
    cfg = _config(config)
    assert _findings(inputs, cfg, full=False, monkeypatch=monkeypatch) == \
        _findings(inputs, cfg, full=True, monkeypatch=monkeypatch)


def test_pruned_run_equals_full_run_on_synthetic_monorepo(tmp_path, monkeypatch):
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from gen import generate
    finally:
        sys.path.pop(0)
    generate(tmp_path, 400)
    inputs = _files_under(tmp_path)
    for name in ("default", "repair-cilium"):
        cfg = _config(name)
        pruned = _findings(inputs, cfg, full=False, monkeypatch=monkeypatch)
        assert pruned == _findings(inputs, cfg, full=True, monkeypatch=monkeypatch)
