"""Run the per-file stage (`engine.process_input`) over many files: from the cache, in worker processes, or
in this process. Whatever the route, each file's `FileResult` is the same.

Workers are forked (cheap: the rules are already imported) and get files in chunks; each returns the pickled
`FileResult`, which is also what the cache stores, so nothing is pickled twice.
"""

from __future__ import annotations

import os
import pickle

from karplint.config import Config
from karplint.engine import FileResult, InputFile, process_input, read_input
from karplint.rules import Rule

# Below this many files to process, worker start-up costs more than it saves.
MIN_PARALLEL_FILES = 64
PICKLE_PROTOCOL = pickle.HIGHEST_PROTOCOL


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_STATE: tuple[Config, list[Rule]] | None = None


def _init(config: Config, codes: list[str]) -> None:
    global _STATE
    from karplint.rules import REGISTRY, all_rules

    all_rules()
    _STATE = (config, [REGISTRY[c] for c in codes])


def _work(chunk: list[tuple[int, str, str | None, bytes | None]]) -> list[tuple[int, bytes]]:
    assert _STATE is not None
    config, rules = _STATE
    out = []
    for i, display, abspath, raw in chunk:
        item = InputFile(display, abspath)
        if raw is None:
            got = read_input(item, config)
            if isinstance(got, FileResult):
                out.append((i, pickle.dumps(got, PICKLE_PROTOCOL)))
                continue
            raw = got
        fr = process_input(item, raw, config, rules)
        out.append((i, pickle.dumps(fr, PICKLE_PROTOCOL)))
    return out


def _context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def run_files(inputs: list[InputFile], config: Config, rules: list[Rule], *, jobs: int = 1,
              cache=None) -> list[FileResult]:
    results: list[FileResult | None] = [None] * len(inputs)
    todo: list[tuple[int, InputFile, bytes | None, str | None]] = []
    for i, item in enumerate(inputs):
        key = None
        raw: bytes | FileResult | None = None
        if cache is not None or item.data is not None:
            raw = read_input(item, config)
            if isinstance(raw, FileResult):
                results[i] = raw
                continue
            if cache is not None:
                key = cache.key(item.display, raw)
                hit = cache.get(item.display, key)
                if hit is not None:
                    results[i] = hit
                    continue
        todo.append((i, item, raw, key))

    if jobs > 1 and len(todo) >= MIN_PARALLEL_FILES:
        _run_parallel(todo, config, rules, jobs, results, cache)
    else:
        for i, item, raw, key in todo:
            if raw is None:
                got = read_input(item, config)
                if isinstance(got, FileResult):
                    results[i] = got
                    continue
                raw = got
            fr = process_input(item, raw, config, rules)
            if cache is not None and key is not None:
                cache.put(item.display, key, pickle.dumps(fr, PICKLE_PROTOCOL))
            results[i] = fr
    if cache is not None:
        cache.save()
    return results  # type: ignore[return-value]


def _run_parallel(todo, config, rules, jobs, results, cache) -> None:
    jobs = min(jobs, max(1, len(todo) // (MIN_PARALLEL_FILES // 2)))
    size = max(8, min(256, len(todo) // (jobs * 8) or 1))
    keys = {i: (item.display, key) for i, item, _raw, key in todo}
    chunks = [[(i, item.display, item.abspath, raw) for i, item, raw, _key in todo[s:s + size]]
              for s in range(0, len(todo), size)]
    codes = [r.code for r in rules]
    with _context().Pool(jobs, initializer=_init, initargs=(config, codes)) as pool:
        for batch in pool.imap_unordered(_work, chunks):
            for i, blob in batch:
                fr = pickle.loads(blob)
                display, key = keys[i]
                if cache is not None and key is not None and fr.rule_results is not None:
                    cache.put(display, key, blob)
                results[i] = fr
