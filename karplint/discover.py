"""Find the files to check: recursive, excluded directories, globs, .gitignore, only regular files."""

from __future__ import annotations

import fnmatch
import os
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
    name = rel.rsplit("/", 1)[-1]
    for pat in patterns:
        pat = pat.rstrip("/")
        if fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(name, pat):
            return True
        if "/" not in pat and any(fnmatch.fnmatchcase(part, pat) for part in rel.split("/")):
            return True
        if fnmatch.fnmatchcase(rel, pat + "/*") or rel.startswith(pat + "/"):
            return True
    return False


class _GitIgnore:
    """.gitignore files from the repository root down to each walked directory."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.specs: dict[str, object] = {}
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

    def ignored(self, abspath: str, is_dir: bool) -> bool:
        if not self.enabled:
            return False
        path = Path(abspath)
        for directory in path.parents:
            spec = self._spec(str(directory))
            if spec is not None:
                rel = os.path.relpath(abspath, directory).replace(os.sep, "/")
                if spec.match_file(rel + ("/" if is_dir else "")):
                    return True
            if (directory / ".git").exists():
                break
        return False


def _chart_root(abspath: str) -> str | None:
    """The Helm chart directory when `abspath` is under `<chart>/templates/`."""
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

    def rel_for_exclude(abspath: str) -> str:
        rel = os.path.relpath(abspath, root).replace(os.sep, "/")
        return rel

    def add_file(display: str, abspath: str, explicit: bool) -> None:
        try:
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
                for name in sorted(filenames):
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, abspath)
                    display = os.path.normpath(os.path.join(given, rel))
                    if not name.lower().endswith(EXTENSIONS):
                        continue
                    if _matches(rel_for_exclude(full), patterns) or gitignore.ignored(full, False):
                        continue
                    add_file(display, full, explicit=False)
                # directories named *.yaml are walked like any directory, never read as files
        else:
            if force_exclude and (_matches(rel_for_exclude(abspath), patterns) or gitignore.ignored(abspath, False)):
                continue
            add_file(os.path.normpath(given), abspath, explicit=True)
    for chart, (first, templates) in charts.items():
        result.helm_charts[first] = templates
    return result
