"""The project boundary: the directory a checked path belongs to, and the only place its content may make karplint
read.

A checked tree is untrusted (a pull request chooses its links and the paths its files name), so what is read on its
behalf (a file reached through a symbolic link, a template named by `# Source:`) must lie inside the tree's project,
whatever directory karplint runs from. The project of a named path is the nearest of, going up from it:

* the configuration root (the directory of the `.karplint.toml` / `pyproject.toml` that applies), and
* a git work tree (a directory holding `.git`);

else the named directory itself (for a named file: its directory). The nearest wins: a repository cloned below a
directory with a configuration (a home directory, a workspace) is its own project, and its links cannot reach its
neighbours. A named directory is taken as the user named it (its real path, as git finds a work tree). A named file
may come from a file list (pre-commit), so the names above it decide (`repo/link/x.yaml` belongs to `repo`'s project
wherever `link` points), and the file, links resolved, must then lie inside the project's real directory: a link
named that way is judged like one met in a walk. `--follow-links` is the only opt-out.
"""

from __future__ import annotations

import os
from typing import Iterable


def _with_sep(path: str) -> str:
    return path if path.endswith(os.sep) else path + os.sep


def inside(real: str, root_real: str) -> bool:
    """Whether the real path `real` is `root_real` or below it (both real paths)."""
    return real == root_real or real.startswith(_with_sep(root_real))


class Boundary:
    """One or more project directories (real paths): `contains(path)` says whether a path, links resolved, lies
    inside one of them."""

    __slots__ = ("roots", "_prefixes")

    def __init__(self, roots: Iterable[str]):
        self.roots = tuple(dict.fromkeys(roots))
        self._prefixes = tuple(_with_sep(r) for r in self.roots)

    def contains_real(self, real: str) -> bool:
        return real in self.roots or real.startswith(self._prefixes)

    def contains(self, path: str) -> bool:
        return self.contains_real(os.path.realpath(path))

    def __repr__(self) -> str:
        return f"Boundary({', '.join(self.roots)})"


_roots: dict[tuple[str, str | None], str] = {}


def forget_roots() -> None:
    """Forget the project roots found so far: a long-running process (the language server) calls it before each
    check, since a `.git` or a link may have come or gone since the last one."""
    _roots.clear()


def _project_of_directory(directory: str, config_root: str | None) -> str:
    """The real path of the project root of `directory` (absolute, as named: its ancestors are the names above it,
    not those of a link's target, so that a directory reached through a link in a repository belongs to that
    repository); memoised (pre-commit names many files of few directories)."""
    key = (directory, config_root)
    hit = _roots.get(key)
    if hit is not None:
        return hit
    config_name = os.path.basename(config_root) if config_root else None
    root = directory  # neither above: the named directory itself
    here = directory
    while True:
        if config_root is not None and (here == config_root or (
                os.path.basename(here) == config_name and _same_directory(here, config_root))):
            root = here
            break
        if os.path.lexists(os.path.join(here, ".git")):
            root = here
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    real = _roots[key] = os.path.realpath(root)
    return real


def _same_directory(a: str, b: str) -> bool:
    """(the configuration root is a real path; a named path may reach it through a link)"""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def project_root(path: str, config_root: str | None = None) -> str:
    """The real path of the project `path` (as named on the command line or by the user) belongs to: found from a
    named directory's real path (the user's choice, as git finds its work tree), or from the names above a named
    file (a file list may come from the tree itself)."""
    abspath = os.path.abspath(path)
    if os.path.isdir(abspath):
        return _project_of_directory(os.path.realpath(abspath), config_root)
    return _project_of_directory(os.path.dirname(abspath), config_root)


def boundary_of(paths: Iterable[str], config_root: str | None = None) -> Boundary:
    """The projects of `paths`, as one Boundary."""
    return Boundary(project_root(p, config_root) for p in paths)


def project_of_input(display: str, named: Iterable[str], config_root: str | None = None) -> str:
    """The project of a file discovered under one of the `named` paths (its display path starts with the named
    path, as karplint/discover writes it): the named path's project, which the file's own directory may lie below
    (without a configuration or git work tree, the project is the named directory, not the file's)."""
    best = None
    for given in named:
        norm = os.path.normpath(given)
        if norm == os.curdir:
            hit = not os.path.isabs(display) and not display.startswith(os.pardir + os.sep)
        else:
            hit = display == norm or display.startswith(_with_sep(norm))
        if hit and (best is None or len(norm) > len(os.path.normpath(best))):
            best = given
    return project_root(display if best is None else best, config_root)
