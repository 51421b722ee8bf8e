"""The project boundary: the directory a checked path belongs to, and the only place its content may make karplint
read.

A checked tree is untrusted (a pull request chooses its links and the paths its files name), so what is read on its
behalf (a file reached through a symbolic link, a template named by `# Source:`) must lie inside the tree's project,
whatever directory karplint runs from. The project of a named path is the nearest of, going up from it:

* the configuration root (the directory of the `.karplint.toml` / `pyproject.toml` that applies), and
* a git work tree (a directory holding `.git`);

else the named directory itself (for a named file: its directory). The nearest wins: a repository cloned below a
directory with a configuration (a home directory, a workspace) is its own project, and its links cannot reach its
neighbours. A named directory is taken as the user named it (a link on the command line is their choice); a named
file is judged from its directory, so a link named by a file list (pre-commit) is checked like one met in a walk.
`--follow-links` is the only opt-out.
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


_roots_of_anchor: dict[tuple[str, str | None], str] = {}


def _project_of_directory(real_dir: str, config_root: str | None) -> str:
    """The project root (a real path) of the real directory `real_dir`; memoised (pre-commit names many files of
    few directories)."""
    key = (real_dir, config_root)
    hit = _roots_of_anchor.get(key)
    if hit is not None:
        return hit
    config_real = os.path.realpath(config_root) if config_root else None
    root = real_dir
    here = real_dir
    while True:
        if here == config_real or os.path.lexists(os.path.join(here, ".git")):
            root = here
            break
        parent = os.path.dirname(here)
        if parent == here:
            break  # neither: the named directory itself
        here = parent
    _roots_of_anchor[key] = root
    return root


_real_dirs: dict[str, str] = {}


def anchor_of(path: str) -> str:
    """The real directory a named path's project is looked up from: a directory as named, a file's directory (so
    that a named file which is a link is judged, not followed)."""
    abspath = os.path.abspath(path)
    directory = abspath if os.path.isdir(abspath) else os.path.dirname(abspath)
    real = _real_dirs.get(directory)
    if real is None:  # (memoised: pre-commit names thousands of files in a few directories)
        real = _real_dirs[directory] = os.path.realpath(directory)
    return real


def project_root(path: str, config_root: str | None = None) -> str:
    """The real path of the project `path` (as named on the command line or by the user) belongs to."""
    return _project_of_directory(anchor_of(path), config_root)


def boundary_of(paths: Iterable[str], config_root: str | None = None) -> Boundary:
    """The projects of `paths`, as one Boundary."""
    return Boundary(project_root(p, config_root) for p in paths)
