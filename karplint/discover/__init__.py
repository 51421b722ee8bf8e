"""Find the files to check: recursive, excluded directories, globs, .gitignore, only regular files."""

from __future__ import annotations

import fnmatch
import operator
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from karplint.discover.boundary import inside as _inside, project_root

EXTENSIONS = (".yaml", ".yml", ".json")
# files that may hold Kubernetes YAML inside (Terraform heredocs and templates, shell heredocs, Markdown and
# AsciiDoc code blocks): read by karplint.readers.embedded, after a cheap check of their bytes
EMBEDDING_EXTENSIONS = (".tf", ".tftpl", ".tpl", ".sh", ".bash", ".md", ".markdown", ".adoc", ".asciidoc")
# Go templates by name (helmfile's `*.yaml.gotmpl`); chart templates and other templates are known by their text
# (karplint/readers/chart_templates.py)
TEMPLATE_EXTENSIONS = (".gotmpl",)
_ALL_EXTENSIONS = EXTENSIONS + EMBEDDING_EXTENSIONS + TEMPLATE_EXTENSIONS
# Program code that may build Karpenter manifests (CDK, cdk8s, Pulumi): not checked, only byte-scanned for a notice
# (karplint/readers/foreign.py). Kept out of `files`.
CODE_EXTENSIONS = (".ts", ".mts", ".cts", ".js", ".mjs", ".py", ".go", ".java", ".cs", ".kt")
# Files that hold no manifest but may pin the Karpenter release (variables, CI settings, docs, Terragrunt inputs):
# never checked, only handed to the release evidence (karplint/model/repo_version.py `collect`, which reads their
# bytes first). Kept out of `files`.
PIN_EXTENSIONS = (".tfvars", ".hcl", ".env", ".mk", ".mdx", ".adoc", ".asciidoc", ".rst", ".txt", ".zsh")
PIN_NAMES = frozenset(("Makefile", "makefile", "GNUmakefile", "Dockerfile", "Justfile", "justfile", ".env",
                       "Taskfile", ".envrc"))
_SIDE_EXTENSIONS = CODE_EXTENSIONS + PIN_EXTENSIONS
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", ".terraform", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".karplint_cache", ".hypothesis", ".cache",
)


@dataclass
class Candidate:
    display: str  # the path as shown in reports
    abspath: str
    # (st_size, st_mtime_ns, st_ctime_ns, st_ino) of the file that will be read (links followed), from discovery's own
    # stat; None when unknown (stdin)
    stat: tuple[int, int, int, int] | None = None


@dataclass
class PathProblem:
    display: str
    message: str


@dataclass
class DiscoveryResult:
    files: list[Candidate] = field(default_factory=list)
    problems: list[PathProblem] = field(default_factory=list)
    code_files: list[Candidate] = field(default_factory=list)  # CODE_EXTENSIONS files, for notices only
    pin_files: list[Candidate] = field(default_factory=list)  # PIN_EXTENSIONS and PIN_NAMES files: release evidence


class MissingPath(Exception):
    pass


class _Matcher:
    """The exclude check for one list of patterns, compiled once: a path relative to the exclude root matches
    when it, its last component or `pat/*` matches a pattern, it starts with `pat/`, or one of its components
    matches a pattern without "/". A regex per check instead of a loop over patterns, and the per-component
    check memoised (directory names repeat across files)."""

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
        # For child_matcher: a pattern without wildcards matches exactly itself, and `pat/*` then says
        # rel.startswith(pat + "/") as `prefixes` does, so only the patterns with wildcards need regexes.
        self.literals = frozenset(p for p in pats if not any(c in p for c in "*?["))
        self.nested = [p for p in self.literals if "/" in p]  # literals that can name a file in a subdirectory
        globs = [p for p in pats if p not in self.literals]
        self.glob_rel = union(globs + [p + "/*" for p in globs])  # rel matches pat or pat/*
        self.glob_name = union(globs)
        self.prefixes = tuple(p + "/" for p in pats)
        self.parts: dict[str, bool] = {}

    def _part_hit(self, components: list[str]) -> bool:
        if self.part is not None:
            parts = self.parts
            for part in components:
                hit = parts.get(part)
                if hit is None:
                    hit = parts[part] = self.part.match(part) is not None
                if hit:
                    return True
        return False

    def matches(self, rel: str) -> bool:
        if self.exact is None:
            return False
        if self.exact.match(rel) or self.exact.match(rel.rsplit("/", 1)[-1]) or self.slash.match(rel):
            return True
        if rel.startswith(self.prefixes):
            return True
        return self._part_hit(rel.split("/"))

    def child_matcher(self, rel_base: str) -> Callable[[str], bool]:
        """`lambda name: self.matches(rel_base + name)` for the entries of one directory (rel_base is "" or
        its relative path + "/"), with the work that depends only on the directory done once: its components,
        `prefixes` (a name has no "/", so only a prefix of rel_base can be one of rel's) and the literal
        patterns, which become a set of names. Usually just a set lookup per name."""
        if rel_base.startswith(self.prefixes) or self._part_hit(rel_base.split("/")[:-1]):
            return lambda name: True
        names = self.literals  # exact(name); and exact(rel) for a literal rel_base + name:
        if self.nested:
            here = {lit[len(rel_base):] for lit in self.nested if lit.startswith(rel_base)}
            names = names | {rest for rest in here if "/" not in rest}
        if self.glob_rel is None:
            return names.__contains__
        glob_rel, glob_name = self.glob_rel.match, self.glob_name.match
        return lambda name: (name in names or glob_rel(rel_base + name) is not None
                             or glob_name(name) is not None)


class _GitIgnore:
    """.gitignore files from the repository root down to each walked directory."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.specs: dict[str, object] = {}
        self.chains: dict[str, list] = {}
        self.no_git: set[str] = set()  # directories whose listing has no .git entry

    def _parse(self, lines: list[str]):
        """A parsed .gitignore (karplint/discover/gitignore.py: linear-time matching of untrusted patterns)."""
        from karplint.discover.gitignore import GitIgnore

        return GitIgnore(lines)

    def _spec(self, directory: str):
        if directory not in self.specs:
            spec = None
            gi = os.path.join(directory, ".gitignore")
            try:  # never through a symbolic link (git does not follow one either) nor from a FIFO
                fd = os.open(gi, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            except OSError:  # absent, or a link (ELOOP)
                fd = None
            if fd is not None:
                with os.fdopen(fd, "rb") as fh:
                    try:
                        if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                            spec = self._parse(fh.read().decode("utf-8", "replace").splitlines())
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
            if parent == directory or (
                    directory not in self.no_git and os.path.exists(os.path.join(directory, ".git"))):
                chain = own
            else:
                chain = own + self._chain(parent)
            self.chains[directory] = chain
        return chain

    def walked_chain(self, directory: str, parent_chain: list | None, has_gitignore: bool,
                     has_git: bool) -> list:
        """`_chain(directory)` for a directory being walked, from its listing (does it have a `.gitignore`,
        a `.git`?) and its parent's chain (None for the top): only those two entries need the disk, so most
        directories cost no syscall and no work here. Empty when disabled."""
        if not self.enabled:
            return []
        if parent_chain is not None and not has_gitignore and not has_git:
            chain = self.chains[directory] = parent_chain  # no spec of its own, not a repository root
            return chain
        if not has_gitignore:  # what _spec's isfile and _chain's exists would find out
            self.specs.setdefault(directory, None)
        if not has_git:
            self.no_git.add(directory)
        return self._chain(directory)

    def ignored(self, abspath: str, is_dir: bool) -> bool:
        """For a path named directly (not walked): its directories are looked at too."""
        if not self.enabled:
            return False
        return self.ignored_in(self._chain(os.path.dirname(abspath)), abspath, is_dir, parents=True)

    @staticmethod
    def ignored_in(chain: list, abspath: str, is_dir: bool, parents: bool = False) -> bool:
        """`ignored` with the chain of abspath's directory already looked up: the nearest .gitignore with a
        pattern that matches decides (git's precedence), a negation re-including the path."""
        for directory, spec in chain:
            prefix = directory.rstrip(os.sep) + os.sep
            if abspath.startswith(prefix):
                rel = abspath[len(prefix):]
            else:  # pragma: no cover - not a normalised path
                rel = os.path.relpath(abspath, directory)
            verdict = spec.decide(rel.replace(os.sep, "/"), is_dir, parents)
            if verdict is not None:
                return verdict
        return False


def read_by_name(name: str) -> bool:
    """Whether a walk takes a file of this name (to check, or for release evidence only): the name test of
    `discover`'s walk (`karplint diff` writes only these files of the base revision, and the files the project
    stage reads by name: .gitignore, configuration, Helm charts)."""
    return (name.endswith(_ALL_EXTENSIONS) or name.lower().endswith(_ALL_EXTENSIONS)
            or name.endswith(_SIDE_EXTENSIONS) or name in PIN_NAMES)


def _chart_root(abspath: str) -> str | None:
    """The Helm chart directory when `abspath` is under `<chart>/templates/`."""
    if "templates" not in abspath:
        return None
    parts = Path(abspath).parts
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "templates":
            chart = Path(*parts[:i])
            if any((chart / name).is_file() for name in ("Chart.yaml", "Chart.yml", "chart.yaml", "chart.yml")):
                return str(chart)
    return None


def _join_base(path: str) -> str:
    """`path` ready for a name to be appended: what os.path.join(path, name) puts before the name."""
    return path if path.endswith(os.sep) else path + os.sep


def _unreadable(display: str, abspath: str, exc: OSError) -> PathProblem:
    if os.path.islink(abspath):
        return PathProblem(display, "dangling or looping symbolic link; not followed")
    return PathProblem(display, f"cannot read: {exc.strerror}")


def _special(display: str, mode: int) -> PathProblem:
    kind = ("FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
            else "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file")
    return PathProblem(display, f"not a regular file ({kind}); not read")


_LOOP = "symbolic link loop; not followed"
_OUTSIDE = ("symbolic link to {} outside the checked tree; not followed (a checked tree must not make karplint "
            "read elsewhere: `--follow-links` follows it)")


_NOT_LOOKED_UP = object()
_by_name = operator.attrgetter("name")


def excluded(abspath: str, exclude: list[str] | None = None, exclude_root: str | None = None) -> bool:
    """Whether `discover` would leave out a file at `abspath` (that may not exist yet: an editor's new buffer) for
    its exclude patterns (`--force-exclude`'s check, without .gitignore, which needs the file)."""
    root = exclude_root or os.getcwd()
    rel = os.path.relpath(abspath, root).replace(os.sep, "/")
    return _Matcher.of(list(DEFAULT_EXCLUDES) + list(exclude or [])).matches(rel)


def discover(
    paths: list[str],
    *,
    exclude: list[str] | None = None,
    respect_gitignore: bool = True,
    force_exclude: bool = False,
    exclude_root: str | None = None,
    follow_links: bool = False,
) -> DiscoveryResult:
    """The files to check under `paths`. Symbolic links are followed only while they stay inside the project of the
    named path they were reached from (karplint/discover/boundary.py: the configuration root `exclude_root` or the
    git work tree, else the named directory; never the working directory), unless `follow_links`: the tree is
    untrusted, and a link to /etc or to / must not make its bytes appear in a report. Exclude patterns are relative
    to `exclude_root`, else the working directory."""
    result = DiscoveryResult()
    problems = result.problems
    patterns = list(DEFAULT_EXCLUDES) + list(exclude or [])
    gitignore = _GitIgnore(respect_gitignore)
    root = exclude_root or os.getcwd()
    seen: set[str] = set()  # real paths of the files taken: a file reached twice (links) is checked once
    matcher = _Matcher.of(patterns)

    def rel_for_exclude(abspath: str) -> str:
        return os.path.relpath(abspath, root).replace(os.sep, "/")

    def accept(display: str, abspath: str, st: os.stat_result, real: str, chart: str | None) -> None:
        if real in seen:
            return
        seen.add(real)
        if display.endswith(PIN_EXTENSIONS) or os.path.basename(display) in PIN_NAMES:  # (never a template)
            result.pin_files.append(Candidate(display, abspath, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))
            return
        if chart is not None and display.lower().endswith(EMBEDDING_EXTENSIONS):
            return  # a chart's _helpers.tpl, NOTES or README: Helm's, not manifests
        if display.endswith(CODE_EXTENSIONS):
            result.code_files.append(Candidate(display, abspath, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))
            return
        result.files.append(Candidate(display, abspath, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))

    def walk(given: str, top: str, project: str) -> None:
        """The files under directory `top` in os.walk(top, followlinks=True)'s order (top-down, depth first,
        names sorted). One scandir per directory, whose DirEntry.is_dir needs no syscall, and one lstat per
        file, which tells a regular file (the common case) from a link and gives Candidate.stat."""
        norm = os.path.normpath(given)
        top_rel, top_real = rel_for_exclude(top), os.path.realpath(top)
        visited: set[str] = set()  # real paths of the directories walked so far
        # Per directory: path, path + sep, display path + sep, path relative to the exclude root + "/" ("" for
        # the root), real path, real path + sep, the parent's .gitignore chain. Each is its parent's plus the
        # name (os.path.join/normpath/relpath/realpath per entry are what made this slow); only a symlinked
        # directory needs realpath.
        stack = [(top, _join_base(top), "" if norm == os.curdir else _join_base(norm),
                  "" if top_rel == "." else top_rel + "/", top_real, _join_base(top_real), None)]
        while stack:
            path, base, disp, rel_base, real, real_base, chain = stack.pop()
            dirs, files = [], []
            has_gitignore = has_git = False
            try:
                with os.scandir(path) as it:
                    for entry in it:
                        name = entry.name
                        try:
                            is_dir = entry.is_dir()
                        except OSError:
                            is_dir = False
                        if is_dir:  # a directory named *.yaml is walked, never read
                            dirs.append(entry)
                        elif name.endswith(_ALL_EXTENSIONS) or name.lower().endswith(_ALL_EXTENSIONS):  # mostly no copy
                            files.append(name)
                        elif name.endswith(_SIDE_EXTENSIONS) or name in PIN_NAMES:
                            files.append(name)
                        if name == ".gitignore":
                            has_gitignore = True
                        elif name == ".git":
                            has_git = True
            except OSError as exc:  # unreadable: reported (a silent skip would pass a tree it never read)
                problems.append(PathProblem(disp[:-len(os.sep)] if disp else norm,
                                            f"cannot read directory: {exc.strerror}; its files were not checked"))
                continue
            if real in visited:  # reached again through a symbolic link (not the top: `visited` is empty then)
                problems.append(PathProblem(disp[:-len(os.sep)], _LOOP))
                continue
            visited.add(real)
            chain = gitignore.walked_chain(path, chain, has_gitignore, has_git)  # usually []: no work per entry
            # relpath(parent/name) is relpath(parent) + "/name" except when the parent is an ancestor of root
            upward = rel_base.startswith("..") and all(part == ".." for part in rel_base[:-1].split("/"))
            excluded = matcher.child_matcher(rel_base)

            children = []
            for entry in sorted(dirs, key=_by_name):
                name = entry.name
                full = base + name
                if upward:
                    rel = rel_for_exclude(full)
                    if matcher.matches(rel):
                        continue
                else:
                    rel = rel_base + name
                    if excluded(name):
                        continue
                if chain and gitignore.ignored_in(chain, full, True):
                    continue
                if entry.is_symlink():
                    child_real = os.path.realpath(full)
                    if not follow_links and not _inside(child_real, project):
                        problems.append(PathProblem(disp + name, _OUTSIDE.format("a directory")))
                        continue
                    if child_real in visited:
                        problems.append(PathProblem(disp + name, _LOOP))
                        continue
                    child_real_base = _join_base(child_real)
                else:
                    child_real = real_base + name  # = realpath(full): not a link, in a real directory
                    child_real_base = child_real + os.sep
                children.append((full, full + os.sep, disp + name + os.sep, "" if rel == "." else rel + "/",
                                 child_real, child_real_base, chain))

            # the Helm chart a file here belongs to depends only on this directory: looked up once, if needed
            chart = _NOT_LOOKED_UP if "templates" in path else None
            files.sort()
            for name in files:  # the hot loop: `accept` inlined for the common case, a plain new file
                if excluded(name):
                    continue
                full = base + name
                if chain and gitignore.ignored_in(chain, full, False):
                    continue
                try:
                    st = os.lstat(full)
                    if stat.S_ISLNK(st.st_mode):
                        st = os.stat(full)
                        real_file = None
                    else:
                        real_file = real_base + name
                except OSError as exc:
                    problems.append(_unreadable(disp + name, full, exc))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    problems.append(_special(disp + name, st.st_mode))
                    continue
                if real_file is None:
                    real_file = os.path.realpath(full)
                    if not follow_links and not _inside(real_file, project):
                        problems.append(PathProblem(disp + name, _OUTSIDE.format("a file")))
                        continue
                if chart is not None or name.endswith(_SIDE_EXTENSIONS) or name in PIN_NAMES:
                    if chart is _NOT_LOOKED_UP:
                        chart = _chart_root(full)
                    accept(disp + name, full, st, real_file, chart)
                elif real_file not in seen:
                    seen.add(real_file)
                    result.files.append(Candidate(disp + name, full, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))

            stack.extend(reversed(children))  # popped in sorted order, after everything below this directory

    for given in paths:
        if given == "-":
            continue
        abspath = os.path.abspath(given)
        if not os.path.lexists(abspath):
            raise MissingPath(given)
        project = project_root(abspath, exclude_root)  # (a real path: the boundary of what `given` holds)
        if os.path.isdir(abspath):
            walk(given, abspath, project)
            continue
        if force_exclude and (matcher.matches(rel_for_exclude(abspath)) or gitignore.ignored(abspath, False)):
            continue
        display = os.path.normpath(given)
        real = os.path.realpath(abspath)
        if not follow_links and not _inside(real, project):  # (a link, or a path through a linked directory)
            problems.append(PathProblem(display, _OUTSIDE.format("a file")))
            continue
        try:
            st = os.stat(abspath)
        except OSError as exc:
            problems.append(_unreadable(display, abspath, exc))
            continue
        if not stat.S_ISREG(st.st_mode):
            problems.append(_special(display, st.st_mode))
            continue
        accept(display, abspath, st, real, _chart_root(abspath))
    return result
