"""Cold, warm (cached) and parallel runs give identical findings; the cache never holds cross-file verdicts."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from karplint.engine.cache import Cache
from karplint.engine import InputFile, check
from karplint.model import karpenter_resources
from karplint.rules.base import REGISTRY, rule
from karplint.testing import make_config

SHARED = Path(os.environ.get("KARPLINT_SHARED", Path(__file__).parents[2].parent / "shared"))
CORPUS = SHARED / "corpus"


def _run(args, cache_dir, cwd):
    env = dict(os.environ, KARPLINT_CACHE_DIR=str(cache_dir))
    env.pop("KARPLINT_NO_CACHE", None)
    proc = subprocess.run([sys.executable, "-m", "karplint", "check", *args, "--output-format", "json",
                           "--exit-zero"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["findings"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not found at {CORPUS} (set KARPLINT_SHARED)")
def test_corpus_cold_warm_parallel_identical(tmp_path):
    cache = tmp_path / "cache"
    cold = _run(["corpus", "--jobs", "1"], cache, SHARED)
    assert list(cache.glob("*.pack")), "the cold run wrote no cache"
    warm = _run(["corpus", "--jobs", "1"], cache, SHARED)
    parallel = _run(["corpus", "--jobs", "2", "--no-cache"], cache, SHARED)
    parallel_warm = _run(["corpus", "--jobs", "2"], cache, SHARED)
    assert cold, "the corpus has findings"
    assert warm == cold
    assert parallel == cold
    assert parallel_warm == cold


# ------------------------------------------------------------------ engine-level: rules across files, guards

NODEPOOL = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec: {{}}\n"


@pytest.fixture()
def probe_rules():
    """A run-scope rule counting NodePools across files and a resource rule that reads ctx.model (declaring it)."""

    @rule("KPL698", "perf-probe-run", category="input", severity="info", summary="test probe",
          reads=(karpenter_resources,))
    def run_probe(model, ctx):
        pools = list(model.nodepools())
        for res in pools:
            yield ctx.violation(res, ("metadata", "name"), f"one of {len(pools)} NodePools")

    @rule("KPL699", "perf-probe-model", category="input", severity="info", summary="test probe",
          kinds=("NodePool",), reads=(karpenter_resources,))
    def model_probe(res, ctx):
        others = [r.name for r in ctx.model.nodepools() if r.name != res.name]
        yield ctx.violation(res, ("metadata", "name"), f"others: {','.join(sorted(others))}")

    yield
    del REGISTRY["KPL698"], REGISTRY["KPL699"]


def _findings(report):
    return [(f.file, f.line, f.column, f.code, f.message) for f in report.findings]


def _inputs(tmp_path, names):
    out = []
    for name in names:
        p = tmp_path / f"{name}.yaml"
        if not p.exists():
            p.write_text(NODEPOOL.format(name=name))
        out.append(InputFile(str(p), str(p)))
    return out


def test_cross_file_rules_stay_correct_with_cache(tmp_path, probe_rules):
    cfg = make_config({"select": ["KPL698", "KPL699"]})
    cache_dir = tmp_path / "cache"
    first = check(_inputs(tmp_path, ["a", "b"]), cfg, cache=Cache.for_run(cfg, cache_dir))
    assert [m for *_, m in _findings(first)] == ["one of 2 NodePools", "others: b",
                                                 "one of 2 NodePools", "others: a"]
    # a third file appears: the cached files' verdicts must change
    inputs = _inputs(tmp_path, ["a", "b", "c"])
    cached = check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir))
    uncached = check(inputs, cfg)
    parallel = check(inputs * 30, cfg, jobs=2)  # enough files for the worker pool
    assert _findings(cached) == _findings(uncached)
    assert "others: b,c" in [m for *_, m in _findings(cached)]
    assert _findings(parallel) == _findings(check(inputs * 30, cfg))


def test_corrupt_cache_is_ignored(tmp_path):
    cfg = make_config()
    p = tmp_path / "np.yaml"
    p.write_text("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n")
    inputs = [InputFile(str(p), str(p))]
    expected = _findings(check(inputs, cfg))
    cache = Cache.for_run(cfg, tmp_path / "cache")
    assert _findings(check(inputs, cfg, cache=cache)) == expected
    pack = cache.path
    assert pack.exists()
    pack.write_bytes(pack.read_bytes()[:50])  # truncated by a crash
    assert _findings(check(inputs, cfg, cache=Cache.for_run(cfg, tmp_path / "cache"))) == expected
    # Entries of the wrong shape in each of the cache's files, and a file cut short: each is ignored.
    # Authentic files (sealed with this user's key) are still validated entry by entry.
    from karplint.engine.cache import MAGIC

    seal = cache._index._seal
    for path in sorted(cache.directory.glob(pack.stem + ".*")):
        blob = path.read_bytes()
        try:
            data = pickle.loads(blob[len(MAGIC) + 32:])
        except (pickle.UnpicklingError, EOFError, ValueError):
            continue  # still the truncated pack: the last run had no need to rewrite it
        for key in [k for k in data if k != "format"]:
            data[key] = {name: ("garbage", b"garbage") for name in data[key]} if isinstance(data[key], dict) else ("x",)
        payload = pickle.dumps(data)
        mac = seal()
        mac.update(payload)
        path.write_bytes(MAGIC + mac.digest() + payload)
    assert _findings(check(inputs, cfg, cache=Cache.for_run(cfg, tmp_path / "cache"))) == expected
    for path in sorted(cache.directory.glob(pack.stem + ".*")):
        path.write_bytes(path.read_bytes()[:-10])
    assert _findings(check(inputs, cfg, cache=Cache.for_run(cfg, tmp_path / "cache"))) == expected


def test_model_reading_rule_without_reads_is_an_internal_error(tmp_path):
    """A resource rule that reads the run without declaring what it reads cannot be given a correct model: it
    is reported (KPL006), never silently wrong."""

    @rule("KPL697", "perf-probe-undeclared", category="input", severity="info", summary="test probe",
          kinds=("NodePool",))
    def undeclared(res, ctx):
        yield ctx.violation(res, ("metadata", "name"), f"{len(list(ctx.model.nodepools()))} pools")

    try:
        report = check(_inputs(tmp_path, ["a"]), make_config({"select": ["KPL697", "KPL006"]}))
    finally:
        del REGISTRY["KPL697"]
    assert [(f.code, f.line) for f in report.findings] == [("KPL006", 1)]
    assert "does not declare what it reads" in report.findings[0].message


def test_unchanged_files_are_not_read_again(tmp_path, monkeypatch):
    """Size, mtime, ctime and inode vouch for a file's bytes once they are older than the racy window of the
    check that recorded them; anything else is read and hashed again."""
    from karplint import engine
    from karplint.engine import parallel

    pool = "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n"
    cfg = make_config()
    p = tmp_path / "np.yaml"
    p.write_text(pool)
    inputs = [InputFile(str(p), str(p))]
    cache_dir = tmp_path / "cache"

    def run(started_ns=None):
        return _findings(check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir), started_ns=started_ns))

    def later():  # a check made 3 s after the last change: past the racy window
        return time.time_ns() + 3 * 10**9

    first = run(later())
    reads = []
    real = engine.read_input
    monkeypatch.setattr(parallel, "read_input", lambda item, config: reads.append(item.display) or real(item, config))
    assert run() == first and reads == []  # vouched for by stat
    # Other bytes of the same size, mtime set back as `cp -p` or `touch -r` would: ctime still moved.
    before = os.stat(p)
    p.write_text(pool.replace("kind: NodePool", "kind: Nodepool"))
    os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(p)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    second = run(later())
    assert reads == [str(p)] and second == _findings(check(inputs, cfg)) and second != first
    # Recorded by a check within the racy window of the last change: read again rather than trust the stat.
    reads.clear()
    p.write_text(pool)
    run()
    run()
    assert reads == [str(p), str(p)]


def test_run_stage_reuses_verdicts_only_for_the_same_inputs(tmp_path, probe_rules, monkeypatch):
    """The run stage's verdicts are reused when no file holding a run-stage document changed, and recomputed
    when one did; a file the run stage does not read may change freely."""
    from karplint import engine

    cfg = make_config({"select": ["KPL698", "KPL699"]})
    cache_dir = tmp_path / "cache"
    other = tmp_path / "svc.yaml"
    other.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    inputs = _inputs(tmp_path, ["a", "b"]) + [InputFile(str(other), str(other))]
    runs = []
    from karplint.engine import runstage

    real = runstage.run_stage
    monkeypatch.setattr(runstage, "run_stage", lambda *a: runs.append(1) or real(*a))

    def cached():
        return _findings(check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir)))

    first = cached()
    assert cached() == first and len(runs) == 1
    other.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: t}\n")
    assert cached() == first and len(runs) == 1
    (tmp_path / "b.yaml").write_text(NODEPOOL.format(name="z"))
    changed = cached()
    assert len(runs) == 2 and changed == _findings(check(inputs, cfg)) and changed != first


def test_cache_is_keyed_by_content_and_configuration(tmp_path):
    p = tmp_path / "np.yaml"
    p.write_text("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n")
    inputs = [InputFile(str(p), str(p))]
    old = make_config(karpenter_version="0.37.0")
    new = make_config()
    assert Cache.for_run(old, tmp_path).path != Cache.for_run(new, tmp_path).path
    assert _findings(check(inputs, new, cache=Cache.for_run(new, tmp_path))) != []
    p.write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n")
    cached = check(inputs, new, cache=Cache.for_run(new, tmp_path))
    assert _findings(cached) == _findings(check(inputs, new))


def test_unchanged_run_reuses_the_last_report(tmp_path, monkeypatch):
    """Nothing changed: the last report stands without even loading per-file summaries. Anything that shapes
    findings beyond the cache's name (here a severity override) makes it stale."""
    from karplint.engine import parallel

    p = tmp_path / "np.yaml"
    p.write_text("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n")
    old = os.stat(p).st_mtime_ns - 10 * 10**9
    os.utime(p, ns=(old, old))
    inputs = [InputFile(str(p), str(p))]
    cfg = make_config(karpenter_version="1.14.1")
    cache_dir = tmp_path / "cache"
    first = _findings(check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir)))
    calls = []
    real = parallel.run_files
    monkeypatch.setattr(parallel, "run_files", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert _findings(check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir))) == first
    assert calls == []
    louder = make_config({"severity": {"KPL801": "warning"}}, karpenter_version="1.14.1")
    report = check(inputs, louder, cache=Cache.for_run(louder, cache_dir))
    assert calls == [1] and {f.severity for f in report.findings if f.code == "KPL801"} == {"warning"}


def test_lost_run_stage_documents_are_recomputed(tmp_path, probe_rules):
    """The documents a cross-file rule reads live in their own cache file; if it is lost while another file
    changes, they are recomputed from the files, never taken as empty."""
    cfg = make_config({"select": ["KPL698", "KPL699"]})
    cache_dir = tmp_path / "cache"
    inputs = _inputs(tmp_path, ["a", "b"])
    check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir))
    for docs in cache_dir.glob("*.docs"):
        docs.unlink()
    (tmp_path / "b.yaml").write_text(NODEPOOL.format(name="z"))
    cached = check(inputs, cfg, cache=Cache.for_run(cfg, cache_dir))
    assert _findings(cached) == _findings(check(inputs, cfg))
    assert "others: z" in [m for *_, m in _findings(cached)]


def test_documents_file_is_loaded_only_for_files_that_had_documents(tmp_path):
    """A touched file no cross-file rule reads does not load the cache's largest file; one that had documents
    for the run stage and has none now loses them."""
    from karplint.engine import FileSummary

    cfg = make_config()
    cache = Cache.for_run(cfg, tmp_path / "cache")
    cache.put("a.yaml", "k1", FileSummary("a.yaml", resources=1), None)
    cache.put("b.yaml", "k1", FileSummary("b.yaml", resources=1, run_documents=1, run_rules=frozenset({"KPL301"})),
              b"docs")
    cache.save()
    again = Cache.for_run(cfg, tmp_path / "cache")
    again.put("a.yaml", "k2", FileSummary("a.yaml", resources=2), None)
    assert again._docs._data is None  # not loaded
    assert again.documents("b.yaml", "k1") == b"docs"
    again.put("b.yaml", "k2", FileSummary("b.yaml", resources=1), None)
    assert again.documents("b.yaml", "k1") is None
