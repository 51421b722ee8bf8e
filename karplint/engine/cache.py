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
* `.project`: the project the set belongs to (the configuration's directory, else the working directory), as
  plain text: in a cache directory several projects share (the user cache, `KARPLINT_CACHE_DIR`), `karplint
  clean PATH` removes that project's sets only.

Writes go to a temporary file renamed over the old one (atomic: concurrent runs never see a torn file; the
last writer wins). A file or entry that cannot be read is ignored.

The cache directory usually sits inside the checked tree, so its bytes are untrusted (a pull request can commit
a `.karplint_cache/`). They are unpickled only after their HMAC-SHA256 verifies under a per-user secret key kept
outside any project (`key_path()`, mode 0600, owned by the user), computed over the cache directory's real path
too: a file karplint did not write for this user and this project is never unpickled, only ignored and
replaced. Nothing is written through a symbolic link: a cache directory that is a link, or that resolves
outside the project, is not used, and files are created with O_EXCL | O_NOFOLLOW and renamed into place.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import os
import pickle
import stat
import sys
from pathlib import Path
from typing import BinaryIO, Callable

from karplint.engine.files import FileSummary
from karplint.safe_write import replace_file

FORMAT = 3
MAGIC = b"KPLCACHE3\n"  # then a 32-byte HMAC-SHA256, then the pickled payload
MAX_STORE_BYTES = 1 << 30  # a larger file is not ours (and would not fit in memory twice)
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
        config.release_candidates,
        sorted((k, repr(v)) for k, v in config.cluster.items()),
        sorted((k, repr(v)) for k, v in config.options.items()),
        config.max_file_size,
        config.clusters,
        sorted(config.kustomize_patches or ()),
        sorted((d, sorted((k, repr(v)) for k, v in vals.items())) for d, vals in (config.charts or {}).items()),
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


def key_path() -> Path:
    """Where the per-user secret that authenticates cache files lives: the user cache directory, never a project."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "karplint" / "cache-key"


def _secret() -> bytes | None:
    """The user's cache key, created on first use; None (run without cache) when it cannot be had safely."""
    path = key_path()
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            try:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                continue  # another run created it meanwhile: read that one
            except OSError:
                return None
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(32))
            continue
        except OSError:
            return None
        try:
            with _open_regular(fd) as fh:
                st = os.fstat(fh.fileno())
                if st.st_uid != os.getuid() or st.st_mode & 0o077:
                    return None  # not ours alone: do not trust what it would authenticate
                key = fh.read(64)
        except OSError:  # not a regular file (a directory stands there), unreadable
            return None
        return key if len(key) == 32 else None
    return None


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file owned by this user, read without following a link or blocking on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with _open_regular(fd) as fh:
            st = os.fstat(fh.fileno())
            if st.st_uid != os.getuid() or st.st_size > limit:
                return None
            return fh.read(limit + 1)
    except OSError:  # absent, a link, not a regular file (a directory where a cache file was), unreadable
        return None


def _not_a_file(paths) -> str | None:
    """Why the cache cannot be written, when one of its files is something else (a corrupted cache: a directory
    where a file was): an empty directory is removed (the file is a miss, rewritten at the end of the run),
    anything else is left alone and named. Links are fine: the rename at save replaces them."""
    for path in paths:
        try:
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(path)
            elif not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                return f"{path} is not a file"
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{path} is not a file and cannot be replaced ({exc.strerror})"
    return None


def _open_regular(fd: int) -> BinaryIO:
    """The open file of `fd` (closed here, with OSError, when it is not a regular file: a directory, a FIFO;
    `os.fdopen` itself raises for a directory)."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(f"not a regular file (descriptor {fd})")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _write_new(directory: Path, name: str, write: Callable[[BinaryIO], None]) -> None:
    """Create directory/name atomically with what `write(file)` writes: a fresh file (O_EXCL | O_NOFOLLOW)
    renamed over the old name, which replaces a link there rather than writing through it. Ctrl-C cuts a large
    store short (its temporary file is removed): entries carry their content keys, so stores written by
    different runs never mix wrongly."""
    target = directory / name
    try:
        is_dir = stat.S_ISDIR(os.lstat(target).st_mode)
    except OSError:
        is_dir = False
    if is_dir:  # a directory where the file goes (a corrupted cache): an empty one is removed, any other stays
        os.rmdir(target)  # (OSError: the caller warns, once)
    replace_file(target, write, mode=0o600, prefix=".tmp-", defer_interrupts=False)


class _MacWriter:
    """A file that also feeds what is written to a MAC: a store is pickled straight to disk, never held whole in
    memory."""

    def __init__(self, fh: BinaryIO, mac):
        self.fh, self.mac = fh, mac

    def write(self, chunk) -> int:
        self.mac.update(chunk)
        return self.fh.write(chunk)


class _Store:
    """One dict on disk, pickled behind an HMAC (see the module docstring), loaded on first use, written back
    atomically when changed."""

    def __init__(self, path: Path, default: dict, seal):
        self.path = path
        self._default = default
        self._seal = seal  # () -> a new HMAC object, or None when the cache cannot be trusted at all
        self._data: dict | None = None
        self.dirty = False

    def _load(self):
        if self._seal is None:
            return None
        blob = _read_regular(self.path, MAX_STORE_BYTES)
        if not blob or not blob.startswith(MAGIC):
            return None
        mac, payload = blob[len(MAGIC):len(MAGIC) + 32], memoryview(blob)[len(MAGIC) + 32:]
        check = self._seal()
        check.update(payload)
        if not hmac.compare_digest(mac, check.digest()):
            return None  # not written by this user's karplint for this project: never unpickled
        try:
            return pickle.loads(payload)
        except Exception:  # noqa: BLE001 - authentic but unreadable (another Python, a torn disk): start afresh
            return None

    @property
    def data(self) -> dict:
        if self._data is None:
            data = self._load()
            if not (isinstance(data, dict) and data.get("format") == FORMAT
                    and all(isinstance(data.get(k), type(v)) for k, v in self._default.items())):
                data = {"format": FORMAT, **{k: type(v)() for k, v in self._default.items()}}
            self._data = data
        return self._data

    def save(self, directory: Path) -> None:
        if not self.dirty or self._data is None or self._seal is None:
            return
        data, mac = self._data, self._seal()

        def write(fh: BinaryIO) -> None:
            fh.write(MAGIC + bytes(32))  # (the MAC, once the payload is written)
            pickle.dump(data, _MacWriter(fh, mac), pickle.HIGHEST_PROTOCOL)
            fh.seek(len(MAGIC))
            fh.write(mac.digest())

        _write_new(directory, self.path.name, write)
        self.dirty = False


class Cache:
    def __init__(self, directory: Path, namespace: str, inside: Path | None = None, project: str | None = None):
        """`inside`: the project root the directory must stay in (when it is the project's own cache);
        `project`: the project the set belongs to (written beside it, for `clear`)."""
        self.directory = Path(directory)
        self.inside = inside
        self.project = project
        self.path = self.directory / f"{namespace}.pack"
        self.refused: str | None = self._refusal()
        secret = None if self.refused else _secret()
        if secret is None and not self.refused:
            self.refused = f"no private cache key could be read or created at {key_path()}"
        where = os.path.realpath(self.directory).encode("utf-8", "surrogateescape")
        seal = None if secret is None else (lambda: hmac.new(secret, where + b"\0", hashlib.sha256))
        self._index = _Store(self.directory / f"{namespace}.index", {"files": {}, "report": ()}, seal)
        self._pack = _Store(self.path, {"summaries": {}, "run": {}}, seal)
        self._docs = _Store(self.directory / f"{namespace}.docs", {"docs": {}}, seal)
        if not self.refused:
            self.refused = _not_a_file((self._index.path, self._pack.path, self._docs.path))

    def _refusal(self) -> str | None:
        """Why this directory must not be used as a cache (a link, someone else's, outside the project), or None."""
        d = self.directory
        try:
            st = os.lstat(d)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            return f"cannot inspect {d}: {exc.strerror}"
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                return f"{d} is a symbolic link"
            if not stat.S_ISDIR(st.st_mode):
                return f"{d} is not a directory"
            if st.st_uid != os.getuid():
                return f"{d} belongs to another user"
        if self.inside is not None:
            real, root = os.path.realpath(d), os.path.realpath(self.inside)
            if os.path.commonpath([real, root]) != root:
                return f"{d} resolves outside the project ({real})"
        return None

    @classmethod
    def for_run(cls, config, directory: Path | None = None) -> "Cache":
        inside = None
        if directory is None:
            directory = default_directory(config)
            if not os.environ.get("KARPLINT_CACHE_DIR") and config.root:
                inside = Path(config.root)  # the project's own .karplint_cache/ must stay in the project
        code = _code_fingerprint()
        ns = hashlib.blake2b(f"{code}|{_config_fingerprint(config)}|{os.getcwd()}".encode(), digest_size=16).hexdigest()
        cache = cls(Path(directory), ns, inside, project_of(config))
        cache._code = code
        return cache

    def sibling(self, config) -> "Cache":
        """The cache of the same directory for another configuration (a Karpenter version read from the
        repository: per-file verdicts depend on it)."""
        code = getattr(self, "_code", None) or _code_fingerprint()
        ns = hashlib.blake2b(f"{code}|{_config_fingerprint(config)}|{os.getcwd()}".encode(), digest_size=16).hexdigest()
        other = type(self)(self.directory, ns, self.inside, self.project)
        other._code = code
        return other

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
        if not (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == key and FileSummary.is_packed(entry[1])):
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
        summaries = self._pack.data["summaries"]
        before = summaries.get(display)
        summaries[display] = (key, summary.packed(), documents is not None)
        self._pack.dirty = True
        if documents is not None:
            self._docs.data["docs"][display] = (key, documents)
            self._docs.dirty = True
        elif not (isinstance(before, tuple) and len(before) == 3 and before[2] is False):
            # (it may have had documents: the documents' file, the largest, is loaded only then)
            if self._docs.data["docs"].pop(display, None) is not None:
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
        if self.refused:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self.refused = self._refusal()  # the directory as it is now, after mkdir: still ours, still no link
            if self.refused:
                return
            _mark_cache_dir(self.directory)
            wrote = any(store.dirty for store in (self._docs, self._pack, self._index))
            for store in (self._docs, self._pack, self._index):  # the index last: it points into the others
                store.save(self.directory)
            if wrote:
                self._tag()
                _prune(self.directory, keep=self.path.stem)
        except OSError:  # read-only checkout, full disk: run without caching
            return


    def _tag(self) -> None:
        """The set's `.project` file, written when missing (a set's namespace includes the working directory and
        the configuration, so its project never changes)."""
        if self.project is None:
            return
        name = f"{self.path.stem}.project"
        try:
            os.lstat(self.directory / name)
            return
        except FileNotFoundError:
            pass
        data = self.project.encode("utf-8", "surrogateescape")
        _write_new(self.directory, name, lambda fh: fh.write(data))


def project_of(config) -> str:
    """The project a run belongs to, for the cache: its configuration's directory, else the working directory."""
    return os.path.realpath(config.root) if config.root else os.path.realpath(os.getcwd())


# A new karplint, configuration or working directory starts a new set of files: the sets not used most recently
# are removed beyond this many, and beyond this many bytes in all, so the cache cannot grow without bound.
MAX_NAMESPACES = 8
MAX_CACHE_BYTES = 512 * 1024 * 1024
_STALE_TMP_NS = 3600 * 10**9


_SET_FILES = ("index", "pack", "docs", "project")  # the files of one set, `{namespace}.{ext}`


def _prune(directory: Path, keep: str) -> None:
    """Remove the least recently used sets of cache files (never `keep`) and temporary files left by killed
    runs. Only this user's regular files with karplint's names are touched; links are unlinked, not followed."""
    import time

    sets: dict[str, list[tuple[int, int, str]]] = {}
    now = time.time_ns()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            continue
        stem, dot, ext = entry.name.rpartition(".")
        if entry.name.startswith(".tmp-") and now - st.st_mtime_ns > _STALE_TMP_NS:
            _unlink(entry.path)
        elif dot and ext in _SET_FILES and len(stem) == 32:
            sets.setdefault(stem, []).append((st.st_mtime_ns, st.st_size, entry.path))
    order = sorted(sets, key=lambda k: (k == keep, max(m for m, _, _ in sets[k])), reverse=True)
    total = 0
    for rank, stem in enumerate(order):
        size = sum(sz for _, sz, _ in sets[stem])
        total += size
        if stem != keep and (rank >= MAX_NAMESPACES or total > MAX_CACHE_BYTES):
            for _, _, path in sets[stem]:
                _unlink(path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _mark_cache_dir(directory: Path) -> None:
    """.gitignore and CACHEDIR.TAG, each created only where no entry of that name exists (never through a link)."""
    for name, text in ((".gitignore", "# created by karplint\n*\n"),
                       ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# karplint cache directory\n")):
        try:
            fd = os.open(directory / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except OSError:  # exists (whatever it is) or cannot be made: leave it
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)


def clear(directory: Path, project: str | None = None) -> tuple[int, str | None]:
    """Remove the files karplint keeps in `directory` (never through a link, never anything else), and the
    directory when that leaves it empty; with `project` (a real path), only the sets of that project or of a
    directory inside it, and the directory's markers only when no other set is left. (number removed, why
    nothing was removed or None)."""
    try:
        st = os.lstat(directory)
    except FileNotFoundError:
        return 0, None
    except OSError as exc:
        return 0, exc.strerror
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return 0, "not a directory (or a symbolic link)"
    sets: dict[str, list[str]] = {}
    others: list[str] = []  # the markers and temporary files
    for entry in os.scandir(directory):
        if not entry.is_file(follow_symlinks=False):
            continue
        stem, dot, ext = entry.name.rpartition(".")
        if dot and ext in _SET_FILES and len(stem) == 32:
            sets.setdefault(stem, []).append(entry.path)
        elif entry.name in (".gitignore", "CACHEDIR.TAG") or entry.name.startswith(".tmp-"):
            others.append(entry.path)
    doomed = sets if project is None else {stem: paths for stem, paths in sets.items()
                                           if _belongs(directory / f"{stem}.project", project)}
    removed = 0
    for paths in doomed.values():
        for path in paths:
            _unlink(path)
            removed += 1
    if len(doomed) == len(sets):  # nothing of another project left: the directory itself goes
        for path in others:
            _unlink(path)
            removed += 1
        try:
            os.rmdir(directory)
        except OSError:
            pass  # something else lives there: left alone
    return removed, None


def _belongs(tag: Path, project: str) -> bool:
    """Whether the set tagged by the file `tag` is of `project` or a directory inside it (an untagged set, from
    before tags, belongs to no project: `clean --all` removes it)."""
    data = _read_regular(tag, 64 * 1024)
    if not data:
        return False
    where = data.decode("utf-8", "surrogateescape")
    try:
        return os.path.commonpath([where, project]) == project
    except ValueError:  # a relative path, another drive: not this project
        return False
