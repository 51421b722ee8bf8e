"""Find the files to check: recursive, excluded directories, globs, .gitignore, only regular files."""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

EXTENSIONS = (".yaml", ".yml", ".json")
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", ".terraform", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".karplint_cache", ".hypothesis", ".cache",
)


@dataclass
class Candidate:
    display: str  # the path as shown in reports
    abspath: str


@dataclass
class PathProblem:
    display: str
    message: str


@dataclass
class DiscoveryResult:
    files: list[Candidate] = field(default_factory=list)
    problems: list[PathProblem] = field(default_factory=list)
    helm_charts: dict[str, list[str]] = field(default_factory=dict)  # chart dir (display) -> skipped templates


class MissingPath(Exception):
    pass


def _matches(rel: str, patterns: list[str]) -> bool:
    return _Matcher.of(patterns).matches(rel)


class _Matcher:
    """`_matches` for one list of patterns, compiled once: the same answers, a regex per check instead of a
    loop over patterns, and the per-component check memoised (directory names repeat across files)."""

    _cache: dict[tuple, "_Matcher"] = {}

    @classmethod
    def of(cls, patterns: list[str]) -> "_Matcher":
        key = tuple(patterns)
        m = cls._cache.get(key)
        if m is None:
            m = cls._cache[key] = cls(patterns)
        return m

    def __init__(self, patterns: list[str]):
        pats = [p.rstrip("/") for p in patterns]

        def union(globs: list[str]):
            return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)) if globs else None

        self.exact = union(pats)  # rel or its name matches pat
        self.slash = union([p + "/*" for p in pats])  # rel matches pat/*
        self.part = union([p for p in pats if "/" not in p])  # a component matches a slash-less pat
        self.prefixes = tuple(p + "/" for p in pats)
        self.parts: dict[str, bool] = {}

    def matches(self, rel: str) -> bool:
        if self.exact is None:
            return False
        if self.exact.match(rel) or self.exact.match(rel.rsplit("/", 1)[-1]) or self.slash.match(rel):
            return True
        if rel.startswith(self.prefixes):
            return True
        if self.part is not None:
            parts = self.parts
            for part in rel.split("/"):
                hit = parts.get(part)
                if hit is None:
                    hit = parts[part] = self.part.match(part) is not None
                if hit:
                    return True
        return False


class _GitIgnore:
    """.gitignore files from the repository root down to each walked directory."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.specs: dict[str, object] = {}
        self.chains: dict[str, list] = {}
        self._pathspec = None
        if enabled:
            try:
                import pathspec

                self._pathspec = pathspec
            except ImportError:  # pragma: no cover
                self.enabled = False

    def _spec(self, directory: str):
        if directory not in self.specs:
            spec = None
            gi = os.path.join(directory, ".gitignore")
            if os.path.isfile(gi):
                try:
                    with open(gi, encoding="utf-8", errors="replace") as fh:
                        spec = self._pathspec.GitIgnoreSpec.from_lines(fh.read().splitlines())
                except OSError:
                    spec = None
            self.specs[directory] = spec
        return self.specs[directory]

    def _chain(self, directory: str) -> list:
        """(directory, spec) for each .gitignore from `directory` up to the repository root, nearest first
        (memoised per directory, built from the parent's)."""
        chain = self.chains.get(directory)
        if chain is None:
            spec = self._spec(directory)
            own = [(directory, spec)] if spec is not None else []
            parent = os.path.dirname(directory)
            if parent == directory or os.path.exists(os.path.join(directory, ".git")):
                chain = own
            else:
                chain = own + self._chain(parent)
            self.chains[directory] = chain
        return chain

    def ignored(self, abspath: str, is_dir: bool) -> bool:
        if not self.enabled:
            return False
        for directory, spec in self._chain(os.path.dirname(abspath)):
            prefix = directory.rstrip(os.sep) + os.sep
            if abspath.startswith(prefix):
                rel = abspath[len(prefix):]
            else:  # pragma: no cover - not a normalised path
                rel = os.path.relpath(abspath, directory)
            if spec.match_file(rel.replace(os.sep, "/") + ("/" if is_dir else "")):
                return True
        return False


def _chart_root(abspath: str) -> str | None:
    """The Helm chart directory when `abspath` is under `<chart>/templates/`."""
    if "templates" not in abspath:
        return None
    parts = Path(abspath).parts
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "templates":
            chart = Path(*parts[:i])
            if (chart / "Chart.yaml").is_file() or (chart / "Chart.yml").is_file():
                return str(chart)
    return None


def _looks_like_template(abspath: str) -> bool:
    try:
        with open(abspath, "rb") as fh:
            return b"{{" in fh.read(1 << 20)
    except OSError:
        return False


def discover(
    paths: list[str],
    *,
    exclude: list[str] | None = None,
    respect_gitignore: bool = True,
    force_exclude: bool = False,
    exclude_root: str | None = None,
) -> DiscoveryResult:
    result = DiscoveryResult()
    patterns = list(DEFAULT_EXCLUDES) + list(exclude or [])
    gitignore = _GitIgnore(respect_gitignore)
    root = exclude_root or os.getcwd()
    seen: set[str] = set()
    charts: dict[str, tuple[str, list[str]]] = {}
    matcher = _Matcher.of(patterns)

    def rel_for_exclude(abspath: str) -> str:
        rel = os.path.relpath(abspath, root).replace(os.sep, "/")
        return rel

    def add_file(display: str, abspath: str, explicit: bool, real_dir: str | None = None) -> None:
        try:
            st = None
            if real_dir is not None:  # walking: one lstat tells a plain file (the common case) from a link
                lst = os.lstat(abspath)
                if not stat.S_ISLNK(lst.st_mode):
                    st = lst
            if st is None:
                real_dir = None
                st = os.stat(abspath)
        except OSError as exc:
            if os.path.islink(abspath):
                result.problems.append(PathProblem(display, "dangling or looping symbolic link; not followed"))
            else:
                result.problems.append(PathProblem(display, f"cannot read: {exc.strerror}"))
            return
        if not stat.S_ISREG(st.st_mode):
            kind = ("FIFO" if stat.S_ISFIFO(st.st_mode) else "socket" if stat.S_ISSOCK(st.st_mode)
                    else "device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "special file")
            result.problems.append(PathProblem(display, f"not a regular file ({kind}); not read"))
            return
        if real_dir is not None:
            real = os.path.join(real_dir, os.path.basename(abspath))  # = realpath(abspath): not a link
        else:
            real = os.path.realpath(abspath)
        if real in seen:
            return
        seen.add(real)
        chart = _chart_root(abspath)
        if chart is not None and _looks_like_template(abspath):
            entry = charts.setdefault(chart, (display, []))
            entry[1].append(display)
            return
        result.files.append(Candidate(display, abspath))

    for given in paths:
        if given == "-":
            continue
        abspath = os.path.abspath(given)
        if not os.path.lexists(abspath):
            raise MissingPath(given)
        if os.path.isdir(abspath):
            visited_dirs: set[str] = set()
            for dirpath, dirnames, filenames in os.walk(abspath, followlinks=True):
                real_dir = os.path.realpath(dirpath)
                if real_dir in visited_dirs:
                    rel = os.path.relpath(dirpath, abspath)
                    result.problems.append(
                        PathProblem(os.path.normpath(os.path.join(given, rel)), "symbolic link loop; not followed"))
                    dirnames[:] = []
                    continue
                visited_dirs.add(real_dir)
                keep = []
                for d in sorted(dirnames):
                    full = os.path.join(dirpath, d)
                    if _matches(rel_for_exclude(full), patterns) or gitignore.ignored(full, True):
                        continue
                    if os.path.islink(full) and os.path.realpath(full) in visited_dirs | {real_dir}:
                        rel = os.path.relpath(full, abspath)
                        result.problems.append(
                            PathProblem(os.path.normpath(os.path.join(given, rel)), "symbolic link loop; not followed"))
                        continue
                    keep.append(d)
                dirnames[:] = keep
                # Per-directory parts of the per-file paths (relpath is slow and the same for every file here).
                rel_dir = os.path.relpath(dirpath, abspath)
                root_rel_dir = rel_for_exclude(dirpath)
                for name in sorted(filenames):
                    if not name.lower().endswith(EXTENSIONS):
                        continue
                    full = os.path.join(dirpath, name)
                    rel = name if rel_dir == "." else os.path.join(rel_dir, name)
                    display = os.path.normpath(os.path.join(given, rel))
                    excl_rel = name if root_rel_dir == "." else f"{root_rel_dir}/{name}"
                    if matcher.matches(excl_rel) or gitignore.ignored(full, False):
                        continue
                    add_file(display, full, explicit=False, real_dir=real_dir)
                # directories named *.yaml are walked like any directory, never read as files
        else:
            if force_exclude and (_matches(rel_for_exclude(abspath), patterns) or gitignore.ignored(abspath, False)):
                continue
            add_file(os.path.normpath(given), abspath, explicit=True)
    for chart, (first, templates) in charts.items():
        result.helm_charts[first] = templates
    return result
