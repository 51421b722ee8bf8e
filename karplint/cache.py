"""A content-hash cache of the per-file stage (`engine.process_input`): loaded documents as plain data and the
findings of resource-scope rules, never a cross-file verdict (run-scope rules always run on the full model).

One pack file per (karplint code, configuration, working directory) under `.karplint_cache/` in the project
root (the directory of the configuration file) or the user cache directory; `KARPLINT_CACHE_DIR` overrides.
Inside: display path -> (hash of path and bytes, pickled `FileResult`). An entry is used only when the file's
bytes hash the same. Writes go to a temporary file renamed over the pack (atomic: concurrent runs never see a
torn pack; the last writer wins). A pack or entry that cannot be read is ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

FORMAT = 1


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
    """Everything the per-file stage depends on besides the file: the selected rules and what they may read."""
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
        self._entries: dict[str, tuple[str, bytes]] | None = None
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
        if self._entries is None:
            entries: dict = {}
            try:
                with open(self.path, "rb") as fh:
                    loaded = pickle.load(fh)
                if isinstance(loaded, dict):
                    entries = loaded
            except FileNotFoundError:
                pass
            except Exception:  # noqa: BLE001 - a corrupt or foreign pack is ignored (and replaced)
                entries = {}
            self._entries = entries
        return self._entries

    def get(self, display: str, key: str):
        entry = self._load().get(display)
        if not isinstance(entry, tuple) or len(entry) != 2 or entry[0] != key:
            return None
        try:
            return pickle.loads(entry[1])
        except Exception:  # noqa: BLE001 - a corrupt entry is recomputed
            return None

    def put(self, display: str, key: str, blob: bytes) -> None:
        self._load()[display] = (key, blob)
        self._dirty = True

    def save(self) -> None:
        if not self._dirty or self._entries is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _mark_cache_dir(self.directory)
            fd, tmp = tempfile.mkstemp(prefix=".pack-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump(self._entries, fh, pickle.HIGHEST_PROTOCOL)
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
