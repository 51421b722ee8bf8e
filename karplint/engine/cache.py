"""The cache: what the per-file stage produced for each file, what each cross-file rule concluded from its files,
and the last report; never a verdict reused for inputs other than those it was computed from.

Three files per (karplint code, configuration, working directory) under `.karplint_cache/` in the project root
(the directory of the configuration file) or the user cache directory; `KARPLINT_CACHE_DIR` overrides. Each is
read only when needed, and every entry carries the content key it was made from (a hash of the file's path and
bytes), so files written by different runs never mix wrongly.

* `.index`: display path -> (size, mtime_ns, ctime_ns, inode, checked_ns, key). A file whose size, mtime, ctime
  and inode are unchanged is not read again, provided its mtime and ctime were more than `RACY_NS` older than
  when it was checked (git's "racily clean" rule: a change within the same clock tick as the check could leave
  them unchanged). ctime cannot be set back, so tools that restore mtime after a write do not fool it. Also the
  last report, keyed by a digest of every input's path and key, in order, and the settings that shape findings:
  a run where nothing changed reads nothing else.
* `.pack`: display path -> (key, `engine.FileSummary` or just its resource count, has documents); and rule code -> (digest, verdicts) of
  each cross-file rule's last run, the digest covering the path and key of every file holding a document it
  reads (karplint and the configuration are in the file names, so equal digests mean equal verdicts).
* `.docs`: display path -> (key, pickled documents the run stage reads); loaded only when a cross-file rule
  must run again.

Writes go to a temporary file renamed over the old one (atomic: concurrent runs never see a torn file; the
last writer wins). A file or entry that cannot be read is ignored.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
from pathlib import Path

from karplint.engine import FileSummary

FORMAT = 2
RACY_NS = 2_000_000_000  # coarser than any filesystem's mtime granularity in practice (FAT: 2 s)


def _code_fingerprint() -> str:
    """karplint's version and the state of its source files (a development checkout changes without a new
    version), plus the interpreter and the YAML libraries."""
    import karplint

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT} {karplint.__version__} {sys.version} {sys.implementation.cache_tag}".encode())
    # The YAML libraries as installed (not as imported so far, which varies within a process): their files' state.
    for mod in ("yaml", "_yaml", "ruamel.yaml", "_ruamel_yaml"):
        try:
            origin = importlib.util.find_spec(mod).origin
            st = os.stat(origin)
            h.update(f" {mod}={origin}:{st.st_size}:{st.st_mtime_ns}".encode())
        except (ImportError, AttributeError, TypeError, ValueError, OSError):
            h.update(f" {mod}=-".encode())
    # karplint's own files: a development checkout changes without a new version.
    stack = [(os.path.dirname(os.path.abspath(karplint.__file__)), "")]
    while stack:
        directory, rel = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    stack.append((entry.path, f"{rel}{entry.name}/"))
            elif entry.name.endswith((".py", ".json", ".toml", ".yaml", ".md")):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                h.update(f"{rel}{entry.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def _config_fingerprint(config) -> str:
    """Everything the per-file and run stages depend on besides the files and karplint's code: the rule
    selection as written (which rules it selects follows from the code), the target release and what rules may
    read."""
    parts = (
        config.select, config.extend_select, config.ignore,
        str(config.karpenter_version),
        config.karpenter_version_source,
        sorted((k, repr(v)) for k, v in config.cluster.items()),
        sorted((k, repr(v)) for k, v in config.options.items()),
        config.max_file_size,
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def default_directory(config) -> Path:
    env = os.environ.get("KARPLINT_CACHE_DIR")
    if env:
        return Path(env)
    if config.root:
        return Path(config.root) / ".karplint_cache"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "karplint"


class _Store:
    """One pickled dict on disk, loaded on first use, written back atomically when changed."""

    def __init__(self, path: Path, default: dict):
        self.path = path
        self._default = default
        self._data: dict | None = None
        self.dirty = False

    @property
    def data(self) -> dict:
        if self._data is None:
            data = None
            try:
                with open(self.path, "rb") as fh:
                    data = pickle.load(fh)
            except FileNotFoundError:
                pass
            except Exception:  # noqa: BLE001 - a corrupt or foreign file is ignored (and replaced)
                data = None
            if not (isinstance(data, dict) and data.get("format") == FORMAT
                    and all(isinstance(data.get(k), type(v)) for k, v in self._default.items())):
                data = {"format": FORMAT, **{k: type(v)() for k, v in self._default.items()}}
            self._data = data
        return self._data

    def save(self, directory: Path) -> None:
        if not self.dirty or self._data is None:
            return
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(self._data, fh, pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        self.dirty = False


class Cache:
    def __init__(self, directory: Path, namespace: str):
        self.directory = Path(directory)
        self.path = self.directory / f"{namespace}.pack"
        self._index = _Store(self.directory / f"{namespace}.index", {"files": {}, "report": ()})
        self._pack = _Store(self.path, {"summaries": {}, "run": {}})
        self._docs = _Store(self.directory / f"{namespace}.docs", {"docs": {}})

    @classmethod
    def for_run(cls, config, directory: Path | None = None) -> "Cache":
        directory = Path(directory) if directory is not None else default_directory(config)
        ns = hashlib.blake2b(
            f"{_code_fingerprint()}|{_config_fingerprint(config)}|{os.getcwd()}".encode(),
            digest_size=16).hexdigest()
        return cls(directory, ns)

    @staticmethod
    def key(display: str, raw: bytes) -> str:
        h = hashlib.blake2b(display.encode("utf-8", "surrogateescape"), digest_size=20)
        h.update(b"\0")
        h.update(raw)
        return h.hexdigest()

    # ---------------------------------------------------------------- files

    def vouched_key(self, display: str, st: tuple | None) -> str | None:
        """The content key of a file whose (size, mtime_ns, ctime_ns, inode) vouch for unchanged bytes, else None."""
        entry = self._index.data["files"].get(display)
        if st is None or not isinstance(entry, tuple) or len(entry) != 6 or tuple(entry[:4]) != tuple(st) \
                or entry[4] - max(entry[1], entry[2]) <= RACY_NS:
            return None
        return entry[5]

    def summary(self, display: str, key: str):
        """(summary, whether it has documents for the run stage) made from these bytes, or None."""
        entry = self._pack.data["summaries"].get(display)
        if not (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == key
                and (isinstance(entry[1], FileSummary) or type(entry[1]) is int)):
            return None
        return FileSummary.unpacked(display, entry[1]), entry[2]

    def documents(self, display: str, key: str) -> bytes | None:
        entry = self._docs.data["docs"].get(display)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == key and isinstance(entry[1], bytes):
            return entry[1]
        return None

    def seen(self, display: str, st: tuple | None, checked_ns: int, key: str) -> None:
        """Record that `display` had content `key` when stat()ed as `st`, no earlier than `checked_ns`."""
        files = self._index.data["files"]
        new = (*(st or (-1, -1, -1, -1)), checked_ns, key)
        if files.get(display) != new:
            files[display] = new
            self._index.dirty = True

    def put(self, display: str, key: str, summary, documents: bytes | None) -> None:
        self._pack.data["summaries"][display] = (key, summary.packed(), documents is not None)
        self._pack.dirty = True
        docs = self._docs.data["docs"]
        if documents is not None:
            docs[display] = (key, documents)
            self._docs.dirty = True
        elif docs.pop(display, None) is not None:
            self._docs.dirty = True

    # ---------------------------------------------------------------- verdicts

    def get_run(self, code: str, digest: str):
        got = self._pack.data["run"].get(code)
        if isinstance(got, tuple) and len(got) == 2 and got[0] == digest and isinstance(got[1], list):
            return got[1]
        return None

    def put_run(self, code: str, digest: str, results: list) -> None:
        self._pack.data["run"][code] = (digest, results)
        self._pack.dirty = True

    def get_report(self, digest: str):
        got = self._index.data["report"]
        if isinstance(got, tuple) and len(got) == 2 and got[0] == digest:
            return got[1]
        return None

    def put_report(self, digest: str, payload) -> None:
        self._index.data["report"] = (digest, payload)
        self._index.dirty = True

    def save(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _mark_cache_dir(self.directory)
            for store in (self._docs, self._pack, self._index):  # the index last: it points into the others
                store.save(self.directory)
        except OSError:  # read-only checkout, full disk: run without caching
            return


def _mark_cache_dir(directory: Path) -> None:
    gi = directory / ".gitignore"
    if not gi.exists():
        try:
            gi.write_text("# created by karplint\n*\n", encoding="utf-8")
            (directory / "CACHEDIR.TAG").write_text(
                "Signature: 8a477f597d28d172789f06886806bc55\n# karplint cache directory\n", encoding="utf-8")
        except OSError:
            pass
