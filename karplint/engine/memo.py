"""The cache's interface (karplint/engine/cache.py) kept in memory, for a process that checks the same files again
and again (the language server: a check per keystroke): `engine.check(..., cache=Memo.for_config(config))`.

A check then runs the per-file stage only for the files whose bytes changed (an edited buffer, a file saved), and
each cross-file rule only when a file it reads changed; everything else is the last check's, as a run with the
disk cache would take it, under the same keys (a file's path and bytes; a rule's files), so that the findings are
those of a run without any cache. Nothing is written to disk. The documents the run stage reads are kept
unpickled once read (`documents`): every check's run stage then reads the same objects, as the rules of one run
already do (no rule changes a document: they share them within a run), and a document's positions, composed
lazily (readers/fastload.py), are composed once, not per keystroke.

It holds one entry per file and per rule (the latest), per configuration: its size is that of the workspace.
"""

from __future__ import annotations

from karplint.engine.cache import RACY_NS, Cache, _config_fingerprint
from karplint.engine.files import FileSummary


class Memo:
    """One configuration's entries; `sibling` gives another configuration's (a Karpenter version read from the
    repository), from the same family."""

    refused = None  # (as `Cache.refused`: a memo is always usable)
    key = staticmethod(Cache.key)

    def __init__(self, family: dict | None = None):
        self._family = family if family is not None else {}
        self._files: dict[str, tuple] = {}  # display -> (stat, checked_ns, key)
        # display -> (key, FileSummary, the documents: pickled until first read, then the list; or None)
        self._summaries: dict[str, tuple] = {}
        self._run: dict[str, tuple] = {}  # rule code -> (digest, verdicts)
        self._report: tuple = ()  # (digest, payload)
        self.used = False

    @classmethod
    def for_config(cls, config, family: dict | None = None) -> "Memo":
        """The memo of `config` in `family` (a dict the caller keeps: configuration fingerprint -> Memo)."""
        family = {} if family is None else family
        fingerprint = _config_fingerprint(config)
        memo = family.get(fingerprint)
        if memo is None:
            memo = family[fingerprint] = cls(family)
        memo.used = True  # (the caller may drop the memos a check did not use: `used` False beforehand)
        return memo

    def sibling(self, config) -> "Memo":
        return self.for_config(config, self._family)

    # ---------------------------------------------------------------- files

    def vouched_key(self, display: str, st: tuple | None) -> str | None:
        """As `Cache.vouched_key`: unchanged (size, mtime, ctime, inode), old enough when last read."""
        entry = self._files.get(display)
        if st is None or entry is None or entry[0] != tuple(st) or entry[1] - max(st[1], st[2]) <= RACY_NS:
            return None
        return entry[2]

    def seen(self, display: str, st: tuple | None, checked_ns: int, key: str) -> None:
        if st is None:
            self._files.pop(display, None)
        else:
            self._files[display] = (tuple(st), checked_ns, key)

    def forget(self, display: str) -> None:
        """`display` changed on disk: its stat no longer vouches for its bytes (in every configuration)."""
        for memo in self._family.values() or (self,):
            memo._files.pop(display, None)

    def summary(self, display: str, key: str):
        entry = self._summaries.get(display)
        if entry is None or entry[0] != key:
            return None
        return entry[1], entry[2] is not None

    def documents(self, display: str, key: str) -> list | None:
        """The run stage's documents of `display` (unpickled now, and kept so), or None."""
        entry = self._summaries.get(display)
        if entry is None or entry[0] != key or entry[2] is None:
            return None
        docs = entry[2]
        if isinstance(docs, bytes):
            import pickle

            docs = pickle.loads(docs)
            self._summaries[display] = (entry[0], entry[1], docs)
        return docs

    def put(self, display: str, key: str, summary: FileSummary, documents: bytes | None) -> None:
        self._summaries[display] = (key, summary, documents)

    # ---------------------------------------------------------------- verdicts

    def get_run(self, code: str, digest: str):
        got = self._run.get(code)
        return got[1] if got is not None and got[0] == digest else None

    def put_run(self, code: str, digest: str, results: list) -> None:
        self._run[code] = (digest, results)

    def get_report(self, digest: str):
        return self._report[1] if self._report and self._report[0] == digest else None

    def put_report(self, digest: str, payload) -> None:
        self._report = (digest, payload)

    def save(self) -> None:
        """(nothing to write)"""
