"""The cache: per-file summaries (`engine.FileSummary` plus the pickled documents the run stage reads) and the
last run stage's verdicts, never a cross-file verdict keyed by one file.

One pack file per (karplint code, configuration, working directory) under `.karplint_cache/` in the project
root (the directory of the configuration file) or the user cache directory; `KARPLINT_CACHE_DIR` overrides.

* Files: display path -> (size, mtime_ns, inode, checked_ns, key, summary, documents). `key` hashes the path and
  bytes. A file whose size, mtime and inode are unchanged is not read again, provided its mtime was more than
  `RACY_NS` older than when it was checked (git's "racily clean" rule: a change in the same clock tick as the
  check could leave mtime unchanged); any other file is read and looked up by `key`.
* Run: rule code -> (digest, verdicts) of that cross-file rule's last run. The digest covers, in order, the path
  and key of every file holding a document the rule reads (`Rule.reads`); its verdicts depend on nothing else
  (karplint and the configuration are in the pack's name), so equal digests mean equal verdicts.

Writes go to a temporary file renamed over the pack (atomic: concurrent runs never see a torn pack; the last
writer wins). A pack or entry that cannot be read is ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

FORMAT = 2
RACY_NS = 2_000_000_000  # coarser than any filesystem's mtime granularity in practice (FAT: 2 s)


def _code_fingerprint() -> str:
    """karplint's version and the state of its source files (a development checkout changes without a new
    version), plus the interpreter and the YAML libraries."""
    import karplint

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT} {karplint.__version__} {sys.version} {sys.implementation.cache_tag}".encode())
    for mod in ("yaml", "ruamel.yaml"):
        m = sys.modules.get(mod)
        h.update(f" {mod}={getattr(m, '__version__', None)}".encode())
    root = os.path.dirname(os.path.abspath(karplint.__file__))
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".json", ".toml", ".yaml", ".md")):
                try:
                    st = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                h.update(f"{os.path.relpath(os.path.join(dirpath, name), root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def _config_fingerprint(config, rules) -> str:
    """Everything the per-file and run stages depend on besides the files: the selected rules and what they may
    read."""
    parts = (
        sorted(r.code for r in rules),
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


class Cache:
    def __init__(self, directory: Path, namespace: str):
        self.directory = Path(directory)
        self.path = self.directory / f"{namespace}.pack"
        self._files: dict[str, tuple] | None = None
        self._run: dict = {}
        self._dirty = False

    @classmethod
    def for_run(cls, config, rules, directory: Path | None = None) -> "Cache":
        directory = Path(directory) if directory is not None else default_directory(config)
        ns = hashlib.blake2b(
            f"{_code_fingerprint()}|{_config_fingerprint(config, rules)}|{os.getcwd()}".encode(),
            digest_size=16).hexdigest()
        return cls(directory, ns)

    @staticmethod
    def key(display: str, raw: bytes) -> str:
        h = hashlib.blake2b(display.encode("utf-8", "surrogateescape"), digest_size=20)
        h.update(b"\0")
        h.update(raw)
        return h.hexdigest()

    def _load(self) -> dict:
        if self._files is None:
            files: dict = {}
            run: dict = {}
            try:
                with open(self.path, "rb") as fh:
                    loaded = pickle.load(fh)
                if isinstance(loaded, dict) and loaded.get("format") == FORMAT:
                    files, run = loaded["files"], loaded["run"]
            except FileNotFoundError:
                pass
            except Exception:  # noqa: BLE001 - a corrupt or foreign pack is ignored (and replaced)
                files, run = {}, {}
            self._files = files if isinstance(files, dict) else {}
            self._run = run if isinstance(run, dict) else {}
        return self._files

    @staticmethod
    def _outcome(entry):
        from karplint.engine import FileOutcome, FileSummary

        if not (isinstance(entry, tuple) and len(entry) == 7 and isinstance(entry[5], FileSummary)):
            return None
        return FileOutcome(entry[5], entry[6], entry[4])

    def by_stat(self, display: str, st: tuple):
        """The cached outcome when the file's (size, mtime_ns, inode) vouch for unchanged bytes, else None."""
        entry = self._load().get(display)
        if entry is None or tuple(entry[:3]) != tuple(st) or entry[3] - entry[1] <= RACY_NS:
            return None
        return self._outcome(entry)

    def by_key(self, display: str, key: str):
        entry = self._load().get(display)
        if entry is None or entry[4] != key:
            return None
        return self._outcome(entry)

    def restat(self, display: str, st: tuple | None, checked_ns: int) -> None:
        """The file's bytes were found unchanged (by hash): record its current stat for the next run."""
        entry = self._load().get(display)
        if st is None or entry is None or (tuple(entry[:3]) == tuple(st) and entry[3] == checked_ns):
            return
        self._files[display] = (*st, checked_ns, *entry[4:])
        self._dirty = True

    def put(self, display: str, st: tuple | None, checked_ns: int, key: str, summary, documents: bytes | None) -> None:
        self._load()[display] = (*(st or (-1, -1, -1)), checked_ns, key, summary, documents)
        self._dirty = True

    def get_run(self, code: str, digest: str):
        self._load()
        got = self._run.get(code)
        if isinstance(got, tuple) and len(got) == 2 and got[0] == digest and isinstance(got[1], list):
            return got[1]
        return None

    def put_run(self, code: str, digest: str, results: list) -> None:
        self._load()
        self._run[code] = (digest, results)
        self._dirty = True

    def save(self) -> None:
        if not self._dirty or self._files is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _mark_cache_dir(self.directory)
            fd, tmp = tempfile.mkstemp(prefix=".pack-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump({"format": FORMAT, "files": self._files, "run": self._run}, fh,
                                pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:  # read-only checkout, full disk: run without caching
            return
        self._dirty = False


def _mark_cache_dir(directory: Path) -> None:
    gi = directory / ".gitignore"
    if not gi.exists():
        try:
            gi.write_text("# created by karplint\n*\n", encoding="utf-8")
            (directory / "CACHEDIR.TAG").write_text(
                "Signature: 8a477f597d28d172789f06886806bc55\n# karplint cache directory\n", encoding="utf-8")
        except OSError:
            pass
