"""Run the per-file stage (`engine.process_input`) over many files: from the cache, in worker processes, or
in this process. Whatever the route, each file's `FileOutcome` is the same.

Workers are forked (cheap: the rules are already imported) and get files in chunks; each returns the file's
summary and the pickled documents the run stage reads, which is also what the cache stores.
"""

from __future__ import annotations

import os
import pickle
import time

from karplint.config import Config
from karplint.engine import (FileOutcome, FileResult, FileSummary, InputFile, process_input, read_input,
                             run_reads)
from karplint.rules import Rule

# Below this many files to process, worker start-up costs more than it saves.
MIN_PARALLEL_FILES = 64
PICKLE_PROTOCOL = pickle.HIGHEST_PROTOCOL


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_STATE: tuple | None = None


def _init(config: Config, codes: list[str]) -> None:
    global _STATE
    from karplint.rules import REGISTRY, all_rules

    all_rules()
    rules = [REGISTRY[c] for c in codes]
    _STATE = (config, rules, run_reads(rules))


def _work(chunk: list[tuple[int, str, str | None, bytes | None]]) -> list[tuple[int, bytes]]:
    assert _STATE is not None
    config, rules, reads = _STATE
    out = []
    for i, display, abspath, raw in chunk:
        item = InputFile(display, abspath)
        if raw is None:
            got = read_input(item, config)
            if isinstance(got, FileResult):
                out.append((i, pickle.dumps((_problem_summary(got), None), PICKLE_PROTOCOL)))
                continue
            raw = got
        o = process_input(item, raw, config, rules, reads)
        out.append((i, pickle.dumps((o.summary, o.documents_blob()), PICKLE_PROTOCOL)))
    return out


def _context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _problem_summary(fr: FileResult) -> FileSummary:
    return FileSummary(fr.display, fr.problems)


def _stat(item: InputFile) -> tuple | None:
    if item.stat is not None:
        return item.stat
    try:
        st = os.stat(item.abspath)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def run_files(inputs: list[InputFile], config: Config, rules: list[Rule], *, jobs: int = 1, cache=None,
              started_ns: int | None = None) -> list[FileOutcome]:
    """The per-file stage for every input, in input order.

    With a cache, a file whose size, mtime and inode are those recorded (and whose mtime was old enough then
    that a later change must have moved it) is not even read; any other file is read and looked up by the hash
    of its path and bytes. `started_ns`: when the inputs' `stat` were taken (default: now)."""
    started_ns = time.time_ns() if started_ns is None else started_ns
    outcomes: list[FileOutcome | None] = [None] * len(inputs)
    todo: list[tuple[int, InputFile, bytes | None, str | None, tuple | None]] = []
    for i, item in enumerate(inputs):
        key = st = None
        raw: bytes | FileResult | None = None
        if cache is not None and item.data is None and item.abspath is not None:
            st = _stat(item)
            hit = cache.by_stat(item.display, st) if st is not None else None
            if hit is not None:
                outcomes[i] = hit
                continue
        if cache is not None or item.data is not None:
            raw = read_input(item, config)
            if isinstance(raw, FileResult):
                outcomes[i] = FileOutcome(_problem_summary(raw), None)
                continue
            if cache is not None:
                key = cache.key(item.display, raw)
                hit = cache.by_key(item.display, key)
                if hit is not None:
                    cache.restat(item.display, st, started_ns)
                    outcomes[i] = hit
                    continue
        todo.append((i, item, raw, key, st))

    if jobs > 1 and len(todo) >= MIN_PARALLEL_FILES:
        _run_parallel(todo, config, rules, jobs, outcomes, cache, started_ns)
    else:
        reads = run_reads(rules)
        for i, item, raw, key, st in todo:
            if raw is None:
                got = read_input(item, config)
                if isinstance(got, FileResult):
                    outcomes[i] = FileOutcome(_problem_summary(got), None)
                    continue
                raw = got
            o = process_input(item, raw, config, rules, reads)
            o.key = key
            if cache is not None and key is not None:
                cache.put(item.display, st, started_ns, key, o.summary, o.documents_blob())
            outcomes[i] = o
    return outcomes  # type: ignore[return-value]


def _run_parallel(todo, config, rules, jobs, outcomes, cache, started_ns) -> None:
    jobs = min(jobs, max(1, len(todo) // (MIN_PARALLEL_FILES // 2)))
    size = max(8, min(256, len(todo) // (jobs * 8) or 1))
    meta = {i: (item.display, key, st) for i, item, _raw, key, st in todo}
    chunks = [[(i, item.display, item.abspath, raw) for i, item, raw, _key, _st in todo[s:s + size]]
              for s in range(0, len(todo), size)]
    codes = [r.code for r in rules]
    with _context().Pool(jobs, initializer=_init, initargs=(config, codes)) as pool:
        for batch in pool.imap_unordered(_work, chunks):
            for i, blob in batch:
                summary, docs = pickle.loads(blob)
                display, key, st = meta[i]
                if cache is not None and key is not None:
                    cache.put(display, st, started_ns, key, summary, docs)
                outcomes[i] = FileOutcome(summary, docs, key)
