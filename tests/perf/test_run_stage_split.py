"""The run stage split across two processes (`karplint.engine.parallel.run_stage`) gives the findings of one
process, including when the second process dies."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from karplint.engine import InputFile, check
from karplint.engine import parallel
from karplint.testing import make_config

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from gen import generate  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the split needs fork()")


def _findings(report):
    return [(f.code, f.file, f.span.line, f.span.column, f.message, f.fix) for f in report.findings]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("tree")


@pytest.fixture(scope="module")
def tree(root):
    """A generated monorepo: NodePools, a Cilium DaemonSet, workloads, PDBs and autoscalers, so that every
    family of cross-file rules has verdicts."""
    return [InputFile(str(p), str(p)) for p in sorted(generate(root, 400))]


@pytest.fixture(scope="module")
def serial(tree):
    return _findings(check(tree, make_config(), jobs=1))


@pytest.fixture()
def splits(monkeypatch):
    """Split whatever the run's size, and count the splits."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL_RUN_DOCUMENTS", 0)
    calls = []
    real = parallel._split

    def spy(*args):
        calls.append(args[-1])
        return real(*args)

    monkeypatch.setattr(parallel, "_split", spy)
    return calls


def test_split_equals_one_process(tree, serial, splits):
    codes = {code for code, *_ in serial}
    assert {"KPL301", "KPL421", "KPL901"} & codes, "the tree exercises several families of cross-file rules"
    assert _findings(check(tree, make_config(), jobs=2)) == serial
    assert len(splits) == 1 and len(splits[0]) >= 5  # one split, over every family


def test_split_with_cluster_scopes(root, tree, splits):
    config = make_config({"clusters": ["teams/*", "platform/*"]})
    config.root = str(root)
    one = _findings(check(tree, config, jobs=1))
    assert not splits
    assert _findings(check(tree, config, jobs=2)) == one
    assert len(splits) == 1


def test_child_dying_loses_nothing(tree, serial, splits, monkeypatch):
    parent = os.getpid()
    real = parallel._take

    def take(line, front, *args):
        if os.getpid() != parent:  # the child takes a family from the line, then dies
            line.take(front)
            raise RuntimeError("boom")
        return real(line, front, *args)

    monkeypatch.setattr(parallel, "_take", take)
    assert _findings(check(tree, make_config(), jobs=2)) == serial
    assert len(splits) == 1


def test_small_runs_stay_in_one_process(tree, monkeypatch):
    monkeypatch.setattr(parallel, "_split", lambda *a: pytest.fail("split a run below the threshold"))
    check(tree[:40], make_config(), jobs=2)


def test_released_documents_come_back_from_their_blob(tree):
    from karplint.engine import FileOutcome, FileSummary
    from karplint.readers.loader import load
    from karplint.readers.source import SourceFile

    item = tree[0]
    docs, _ = load(SourceFile(item.display, Path(item.abspath).read_text()))
    import pickle

    blob = pickle.dumps(docs)
    o = FileOutcome(FileSummary(item.display), blob)
    first = o.documents()
    assert [d.data for d in first] == [d.data for d in docs]
    assert o.documents() is first  # unpickled once while in use
    o.release()
    assert o.documents_blob() is blob
    again = o.documents()
    assert again is not first and [d.data for d in again] == [d.data for d in docs]


def test_no_split_while_another_thread_runs(tree, serial, monkeypatch):
    """A thread holding a lock at fork() would leave it held in the child: with threads, one process."""
    import threading

    monkeypatch.setattr(parallel, "MIN_PARALLEL_RUN_DOCUMENTS", 0)
    monkeypatch.setattr(parallel, "_split", lambda *a: pytest.fail("split with another thread running"))
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert _findings(check(tree, make_config(), jobs=2)) == serial
    finally:
        stop.set()
        t.join()


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_is_off_during_the_run_stage_and_restored_after(tree, monkeypatch, enabled):
    import gc

    seen = []
    real = parallel._run_stage

    def spy(*args):
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(parallel, "_run_stage", spy)
    (gc.enable if enabled else gc.disable)()
    try:
        check(tree, make_config(), jobs=1)
        assert seen == [False]
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
