"""Run the per-file stage (`engine.process_input`) over many files: from the cache, in worker processes, or
in this process. Whatever the route, each file's `FileOutcome` is the same.

Workers are forked (cheap: the rules are already imported) and get files in chunks; each returns the file's
summary and the pickled documents the run stage reads, which is also what the cache stores.

The run stage (`run_stage`) is shared by two processes when it has thousands of documents to read.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
from typing import NamedTuple

from karplint.config import Config
from karplint.engine.files import FileOutcome, FileResult, FileSummary, InputFile, read_input
from karplint.engine import progress
from karplint.engine.perfile import process_input, run_reads
from karplint.engine.runstage import scoped_run_stage
from karplint.rules import Rule
from karplint.safe_write import interrupts_deferred

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
    _leave_interrupts_to_the_parent()
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


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: ignore SIGINT. Ctrl-C reaches the whole process group; the parent stops the run (and its
    workers) and exits 130, while a worker interrupted on its own would print a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _problem_summary(fr: FileResult) -> FileSummary:
    return FileSummary(fr.display, fr.problems)


def stat_of(item: InputFile) -> tuple | None:
    """(size, mtime_ns, ctime_ns, inode) of an input file: from discovery, else stat() now; None for data or an
    error."""
    if item.data is not None or item.abspath is None:
        return None
    if item.stat is not None:
        return item.stat
    try:
        st = os.stat(item.abspath)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _from_cache(cache, item: InputFile, key: str, config: Config, rules: list[Rule]) -> FileOutcome | None:
    got = cache.summary(item.display, key)
    if got is None:
        return None
    summary, has_documents = got
    if not has_documents:
        return FileOutcome(summary, None, key)

    def documents():  # only when a cross-file rule must run again; a lost entry is recomputed
        blob = cache.documents(item.display, key)
        if blob is not None:
            return blob
        raw = read_input(item, config)
        return None if isinstance(raw, FileResult) else process_input(item, raw, config, rules, run_reads(rules)).documents()

    return FileOutcome(summary, documents, key)


def content_keys(inputs: list[InputFile], config: Config, cache, started_ns: int | None = None) -> "ContentKeys":
    """Each input's content key: vouched for by its stat when the cache can, else by reading and hashing it
    (and recording it, so that next time its stat will do); None when it cannot be read."""
    started_ns = time.time_ns() if started_ns is None else started_ns
    out = ContentKeys([], {})
    for i, item in enumerate(inputs):
        st = stat_of(item)
        key = cache.vouched_key(item.display, st) if st is not None else None
        if key is None:
            raw = out.read[i] = read_input(item, config)
            if not isinstance(raw, FileResult):
                key = cache.key(item.display, raw)
                cache.seen(item.display, st, started_ns, key)
        out.keys.append(key)
    return out


class ContentKeys(NamedTuple):
    keys: list  # per input: its content key, or None
    read: dict  # input index -> what reading it gave (bytes, or a FileResult with the problem)


def run_files(inputs: list[InputFile], config: Config, rules: list[Rule], *, jobs: int = 1, cache=None,
              started_ns: int | None = None, known: ContentKeys | None = None) -> list[FileOutcome]:
    """The per-file stage for every input, in input order.

    With a cache, a file whose size, mtime and inode are those recorded (and whose mtime was old enough then
    that a later change must have moved it) is not even read; any other file is read and looked up by the hash
    of its path and bytes. `started_ns`: when the inputs' `stat` were taken (default: now); `known`: their
    content keys, when `content_keys` already worked them out."""
    started_ns = time.time_ns() if started_ns is None else started_ns
    if cache is not None and known is None:
        known = content_keys(inputs, config, cache, started_ns)
    outcomes: list[FileOutcome | None] = [None] * len(inputs)
    todo: list[tuple[int, InputFile, bytes | None, str | None]] = []
    line = progress.current()  # (None but on a terminal)
    if line is not None:
        line.begin(len(inputs))
    for i, item in enumerate(inputs):
        key = known.keys[i] if known is not None else None
        # (bytes read to work out the key are the workers' now, or not needed: not kept for the whole run)
        raw: bytes | FileResult | None = known.read.pop(i, None) if known is not None else None
        if key is not None:
            hit = _from_cache(cache, item, key, config, rules)
            if hit is not None:
                outcomes[i] = hit
                continue
        if known is not None:
            if raw is None:
                raw = read_input(item, config)
        elif item.data is not None:
            raw = read_input(item, config)
        if isinstance(raw, FileResult):
            outcomes[i] = FileOutcome(_problem_summary(raw), None)
            continue
        todo.append((i, item, raw, key))
    if line is not None:
        line.advance(len(inputs) - len(todo))

    if jobs > 1 and len(todo) >= MIN_PARALLEL_FILES:
        _run_parallel(todo, config, rules, jobs, outcomes, cache, line)
    else:
        reads = run_reads(rules)
        for i, item, raw, key in todo:
            if raw is None:
                got = read_input(item, config)
                if isinstance(got, FileResult):
                    outcomes[i] = FileOutcome(_problem_summary(got), None)
                    if line is not None:
                        line.advance()
                    continue
                raw = got
            o = process_input(item, raw, config, rules, reads)
            o.key = key
            if cache is not None and key is not None:
                cache.put(item.display, key, o.summary, o.documents_blob())
            outcomes[i] = o
            if line is not None:
                line.advance()
    return outcomes  # type: ignore[return-value]


def _run_parallel(todo, config, rules, jobs, outcomes, cache, line=None) -> None:
    jobs = min(jobs, max(1, len(todo) // (MIN_PARALLEL_FILES // 2)))
    size = max(8, min(256, len(todo) // (jobs * 8) or 1))
    keys = {i: (item.display, key) for i, item, _raw, key in todo}
    chunks = [[(i, item.display, item.abspath, raw) for i, item, raw, _key in todo[s:s + size]]
              for s in range(0, len(todo), size)]
    codes = [r.code for r in rules]
    with contextlib.ExitStack() as stack:
        with interrupts_deferred():  # (a worker forked meanwhile would be interrupted before its initializer runs)
            pool = stack.enter_context(_context().Pool(jobs, initializer=_init, initargs=(config, codes)))
        for batch in pool.imap_unordered(_work, chunks):
            for i, blob in batch:
                summary, docs = pickle.loads(blob)
                display, key = keys[i]
                if cache is not None and key is not None:
                    cache.put(display, key, summary, docs)
                outcomes[i] = FileOutcome(summary, docs, key)
            if line is not None:
                line.advance(len(batch))


# ---------------------------------------------------------------------------------------------- run stage

# Below this many documents for cross-file rules, a second process costs more than it saves.
MIN_PARALLEL_RUN_DOCUMENTS = 2_000


def rule_families(rules: list[Rule]) -> list[list[Rule]]:
    """`rules` grouped by the module that defines them: rules of one module share what they work out (the
    memos they keep on the model), so a family runs in one process, over one model."""
    families: dict[str, list[Rule]] = {}
    for r in rules:
        families.setdefault(getattr(r.check, "__module__", r.code), []).append(r)
    return list(families.values())


def run_stage(outcomes: list[FileOutcome], config: Config, rules: list[Rule], jobs: int = 1) -> dict:
    """`engine.scoped_run_stage`, in two processes when there is enough work. The rule families are lined up by
    how many documents they read; this process takes them from the front, the other from the back, until they
    meet: the families reading the most (and the most widely shared) documents end up together, and the other
    process reads the fewest documents twice. Each process reads only the documents of the families it took.
    Verdicts are the same as in one process: a rule's verdicts depend only on the documents it reads
    (`Rule.reads`; tests/perf/test_run_reads.py).

    The cyclic garbage collector is off meanwhile: the stage unpickles thousands of documents that live until
    it ends, and its rules make little cyclic garbage; the collector would walk those documents over and over
    (0.03 s, a twentieth of a run that re-checks a NodePool), and in a forked child it would touch, and so copy,
    every object the child inherits."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_stage(outcomes, config, rules, jobs)
    finally:
        if enabled:
            gc.enable()


def _run_stage(outcomes: list[FileOutcome], config: Config, rules: list[Rule], jobs: int) -> dict:
    families = rule_families(rules)
    documents = sum(o.summary.run_documents for o in outcomes)
    if jobs < 2 or not 2 <= len(families) <= 255 or documents < MIN_PARALLEL_RUN_DOCUMENTS or not _can_fork():
        return _one_process(outcomes, config, rules)
    readers = [{r.code for r in family} for family in families]
    weight = [sum(o.summary.run_documents for o in outcomes if o.summary.run_rules & codes) for codes in readers]
    order = sorted(range(len(families)), key=lambda i: -weight[i])
    for o in outcomes:  # the cached documents are fetched once, here, and shared with the child
        if o.summary.run_rules:
            o.fetch()
    return _split(outcomes, config, [families[i] for i in order])


def _one_process(outcomes: list[FileOutcome], config: Config, rules: list[Rule]) -> dict:
    out = scoped_run_stage(outcomes, config, rules)
    for o in outcomes:
        o.release()
    return out


def _can_fork() -> bool:
    """fork() is there, and no other thread runs (one holding a lock would leave it held in the child)."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


class _Line:
    """Indexes into a line of families that two processes share: one takes from the front, the other from the
    back. The two ends live in memory both processes map; a byte passed through a pipe is the lock."""

    def __init__(self, n: int):
        import mmap

        self._ends = mmap.mmap(-1, 2)  # (anonymous: shared with a forked child)
        self._ends[0], self._ends[1] = 0, n
        self._lock_r, self._lock_w = os.pipe()
        os.write(self._lock_w, b"\0")

    def take(self, front: bool) -> int | None:
        os.read(self._lock_r, 1)
        try:
            first, end = self._ends[0], self._ends[1]
            if first >= end:
                return None
            if front:
                self._ends[0] = first + 1
                return first
            self._ends[1] = end - 1
            return end - 1
        finally:
            os.write(self._lock_w, b"\0")

    def close(self) -> None:
        os.close(self._lock_r)
        os.close(self._lock_w)
        self._ends.close()


def _take(line: _Line, front: bool, outcomes, config, families) -> dict:
    """Run the families taken from `line` (at its front or its back) until none is left; their verdicts."""
    out: dict = {}
    done: set[str] = set()
    while True:
        i = line.take(front)
        if i is None:
            for o in outcomes:
                o.release()
            return out
        family = families[i]
        codes = {r.code for r in family}
        read = [o for o in outcomes if o.summary.run_rules & codes]
        out.update(scoped_run_stage(read, config, family))
        done |= codes
        for o in read:  # documents no family left here reads
            if o.summary.run_rules <= done:
                o.release()


def _split(outcomes, config, families) -> dict:
    import signal

    line = _Line(len(families))
    results_r, results_w = os.pipe()
    # Ctrl-C is held back across the fork, so that it arrives either in the child once it ignores it, or in this
    # process inside the `try` below, which stops the child: before, a Ctrl-C landing just after the fork (a loaded
    # machine) left the child running with the terminal's pipes open.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    try:
        pid = os.fork()
    except OSError:  # (no process to spare: all of it here)
        if held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        for fd in (results_r, results_w):
            os.close(fd)
        line.close()
        return _one_process(outcomes, config, [r for f in families for r in f])
    if pid == 0:  # the child: its verdicts go back pickled; it never returns into the caller
        status = 1
        try:
            _leave_interrupts_to_the_parent()
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
            os.close(results_r)
            blob = pickle.dumps(_take(line, False, outcomes, config, families), PICKLE_PROTOCOL)
            with os.fdopen(results_w, "wb") as out:
                out.write(blob)
            status = 0
        finally:
            os._exit(status)
    try:
        try:
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)  # (a Ctrl-C pending since the fork: raised here)
            os.close(results_w)
            with os.fdopen(results_r, "rb") as results:
                mine = _take(line, True, outcomes, config, families)
                blob = results.read()
                _, status = os.waitpid(pid, 0)
        except BaseException:  # (interrupted: the child's work would be lost anyway)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
    finally:
        line.close()
    theirs = pickle.loads(blob) if status == 0 and blob else {}
    mine.update(theirs)
    left = [r for family in families for r in family if r.code not in mine]
    if left:  # the child failed: what it took is done here
        codes = {r.code for r in left}
        mine.update(_one_process([o for o in outcomes if o.summary.run_rules & codes], config, left))
    return mine
