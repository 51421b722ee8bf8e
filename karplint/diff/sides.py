"""The two sides of `karplint diff`: which two trees (a git revision and the working tree, or two paths), each read
exactly as `check` reads a project (karplint/engine/load.py: configuration found on that side, discovery, the
project's other files as context, release evidence).

The base revision's files that a check may read are written into a temporary directory (in RAM when possible)
through a temporary index (`git read-tree` + `git checkout-index`, while the working tree is read): the user's
working tree, index and worktree list are never touched, and the directory is always removed. A `.git` directory is made at its top so that the project boundary and the `.gitignore` files
apply as they do in the repository. Each side is loaded from the same directory relative to the repository root
(the working directory, mirrored), with the same relative scope paths, so a file has the same display path on
both sides and in every message. Files with the same display path and bytes on both sides are parsed once (the
head side first, so shared documents name the working tree's file).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from karplint.config import CONFIG_FILES
from karplint.discover import read_by_name
from karplint.engine.load import Loaded, load

GIT_TIMEOUT = 60  # seconds for a query (rev-parse, merge-base)
CHECKOUT_TIMEOUT = 600  # seconds to write the base tree (a large monorepo)
RAM_DIRECTORY = "/dev/shm"  # where the base tree is written when it has RAM_MIN_FREE bytes free (_ram_directory)
RAM_MIN_FREE = 1 << 30
# What the branch names without a remote's HEAD are tried as, in order (the brief's and GitHub's defaults)
DEFAULT_BRANCHES = ("refs/remotes/origin/main", "refs/remotes/origin/master", "refs/heads/main", "refs/heads/master")
# Environment variables that would point git at another repository, index or work tree than the one of the
# directory it runs in (set by a hook or an outer git command), or make it prompt
_GIT_ENV_DROPPED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX")


class DiffUsageError(Exception):
    """A usage problem of `karplint diff` (not a repository, unknown revision, ...): the CLI prints the message
    and exits 2."""


@dataclass
class Side:
    label: str  # for people: "origin/main (merge base 1a2b3c4)", "working tree", "old/" (a path)
    commit: str | None  # full sha when the side is a commit, else None
    loaded: Loaded
    display_root: str  # the directory display paths are relative to (the base: the same directory, at its commit)
    read_root: str = ""  # the directory the side's files were read from (the base: its temporary tree)


def load_sides(*, base: str | None, paths: list[str], two_paths: tuple[str, str] | None = None,
               cwd: str | None = None, config: str | None = None,
               karpenter_version: str | None = None) -> tuple[Side, Side]:
    """(base, head). base: a git revision (None: the merge base of HEAD with the default branch); paths: the scope
    inside the repository (default ["."]), relative to `cwd` (default: the working directory), read as
    `check PATHS` reads them, on both sides; head = the working tree. two_paths: (old, new) directories or files
    instead of git. `config`: an explicit configuration file for both sides (else each side finds its own);
    `karpenter_version`: `--karpenter-version` for both. Raises DiffUsageError for every usage problem."""
    cwd = os.path.abspath(cwd or os.getcwd())
    scope = list(paths or ["."])
    if config:
        config = os.path.join(cwd, config)  # (each side is read from its own directory)
    for p in scope:
        if p == "-":
            raise DiffUsageError("`-` (standard input) cannot be diffed: name files or directories")
    if two_paths is not None:
        return _two_paths(two_paths, scope, cwd, config, karpenter_version)
    return _git_sides(base, scope, cwd, config, karpenter_version)


def is_revision(arg: str, cwd: str | None = None) -> bool:
    """Whether `arg` names a commit of the repository at `cwd` and no file or directory there: how the command
    line tells `karplint diff main` (a base) from `karplint diff infra/` (a path)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    if arg.startswith("-") or os.path.lexists(os.path.join(cwd, arg)):
        return False
    try:
        return _commit(arg, cwd) is not None
    except DiffUsageError:  # (no git: not a revision)
        return False


# -- git ---------------------------------------------------------------------------------------------------------

def _git_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROPPED}
    # no prompt for credentials, no index refresh behind the user's back, no LFS download for the base tree,
    # messages in English (matched below)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_LFS_SKIP_SMUDGE="1", LC_ALL="C", LANGUAGE="")
    env.update(extra or {})
    return env


def _git(args: list[str], cwd: str, *, timeout: float = GIT_TIMEOUT, env: dict | None = None,
         ) -> subprocess.CompletedProcess:
    """git ARGS in `cwd` (never through a shell): the completed process, output as bytes."""
    try:
        return subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, env=_git_env(env),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise DiffUsageError("git is not installed (or not on the PATH): compare two paths with --old/--new "
                             "instead") from None
    except subprocess.TimeoutExpired:
        raise DiffUsageError(f"`git {' '.join(args[:2])}` took more than {timeout:.0f} s; stopped") from None


def _out(proc: subprocess.CompletedProcess) -> str:
    return os.fsdecode(proc.stdout).strip()


def _err(proc: subprocess.CompletedProcess) -> str:
    lines = os.fsdecode(proc.stderr).strip().splitlines()
    return lines[0] if lines else f"exit {proc.returncode}"


def _commit(rev: str, top: str) -> str | None:
    proc = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], top)
    return _out(proc) if proc.returncode == 0 and _out(proc) else None


def _shallow(top: str) -> bool:
    return _out(_git(["rev-parse", "--is-shallow-repository"], top)) == "true"


_UNSHALLOW = "run `git fetch --unshallow` (in GitHub Actions: `fetch-depth: 0` on actions/checkout)"


def _default_branch(top: str) -> str:
    """The default branch's ref: origin/HEAD's target, else the first of DEFAULT_BRANCHES that exists."""
    proc = _git(["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"], top)
    target = _out(proc)
    if proc.returncode == 0 and target and _commit(target, top):
        return target
    for ref in DEFAULT_BRANCHES:
        if _commit(ref, top):
            return ref
    raise DiffUsageError("no default branch found (no origin/HEAD, origin/main, origin/master, main or master): "
                         "name the base revision, e.g. `karplint diff --base origin/develop`")


def _short_ref(ref: str) -> str:
    for prefix in ("refs/remotes/", "refs/heads/", "refs/tags/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref


def _base_commit(base: str | None, top: str) -> tuple[str, str]:
    """(sha, label) of the base side."""
    if base is not None:
        if not base or base.startswith("-"):
            raise DiffUsageError(f"{base!r}: not a revision")
        sha = _commit(base, top)
        if sha is None:
            hint = f" (this is a shallow clone: {_UNSHALLOW})" if _shallow(top) else ""
            raise DiffUsageError(f"unknown revision {base!r}: not a commit of {top}{hint}")
        return sha, sha[:7] if sha.startswith(base.lower()) else f"{base} ({sha[:7]})"
    if _commit("HEAD", top) is None:
        raise DiffUsageError(f"{top}: HEAD has no commit yet; name the base revision with --base")
    branch = _default_branch(top)
    name = _short_ref(branch)
    proc = _git(["merge-base", "HEAD", branch], top)
    if proc.returncode != 0 or not _out(proc):
        if _shallow(top):
            raise DiffUsageError(f"the merge base of HEAD and {name} is not in this shallow clone: {_UNSHALLOW}, "
                                 "or name the base revision with --base")
        raise DiffUsageError(f"HEAD and {name} have no common ancestor: name the base revision with --base")
    sha = _out(proc).split()[0]
    return sha, f"{name} (merge base {sha[:7]})"


class _CheckOut:
    """The files of commit `sha` that a check may read (`_wanted`) being written under `tree` by git, through the
    temporary index `index` (the user's index and working tree untouched; filters such as LFS's smudge do not
    download), while the working tree is read (git is another process: the second core); `wait` then adds the
    submodules' files when their commits are in the submodule's repository (as a checkout with initialised
    submodules has them)."""

    def __init__(self, sha: str, top: str, tree: str, index: str, depth: int = 0):
        self.sha, self.top, self.tree, self.index, self.depth = sha, top, tree, index, depth
        self.env = {"GIT_INDEX_FILE": index}
        proc = _git(["read-tree", sha], top, timeout=CHECKOUT_TIMEOUT, env=self.env)
        if proc.returncode == 0:
            proc = _git(["ls-files", "--stage", "-z"], top, timeout=CHECKOUT_TIMEOUT, env=self.env)
        if proc.returncode != 0:
            raise DiffUsageError(f"cannot read commit {sha[:7]} (`git {proc.args[3]}`: {_err(proc)})")
        self.entries = [(meta, name) for meta, _tab, name in
                        (entry.partition(b"\t") for entry in proc.stdout.split(b"\0") if entry)]
        self.paths = {name for _meta, name in self.entries}
        try:
            with open(index + ".names", "wb") as names:  # (a file, not a pipe: git reads it while it writes)
                names.write(b"".join(n + b"\0" for n in _wanted([(m[:6], n) for m, n in self.entries])))
        except OSError as exc:
            raise _WriteFailed(f"cannot write to {os.path.dirname(index)}: {exc.strerror}") from None
        with open(index + ".names", "rb") as names:
            self.proc = subprocess.Popen(
                ["git", "-c", "core.quotepath=off", "checkout-index", "--force", "-z", "--stdin",
                 f"--prefix={tree}{os.sep}"], cwd=top, env=_git_env(self.env), stdin=names,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def has(self, rel: str) -> bool:
        """Whether the commit has the file or directory `rel` (relative to the repository root)."""
        rel = os.path.normpath(rel)
        if rel == ".":
            return True
        key = os.fsencode(rel.replace(os.sep, "/"))
        return key in self.paths or any(p.startswith(key + b"/") for p in self.paths)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()

    def wait(self) -> list[tuple[str, str]]:
        """(path below the tree, commit) of the initialised submodules whose commit could not be read."""
        try:
            _out, err = self.proc.communicate(timeout=CHECKOUT_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.stop()
            raise DiffUsageError(f"`git checkout-index` took more than {CHECKOUT_TIMEOUT} s; stopped") from None
        if self.proc.returncode != 0:
            first = os.fsdecode(err).strip().splitlines()[:1] or [f"exit {self.proc.returncode}"]
            raise _WriteFailed(f"cannot write commit {self.sha[:7]} to {self.tree} (`git checkout-index`: "
                               f"{first[0]})")
        # the repository root, for the project boundary and the .gitignore chain (karplint/discover/), as in the
        # working tree; nothing runs git there
        try:
            os.makedirs(os.path.join(self.tree, ".git"), exist_ok=True)
        except OSError as exc:
            raise _WriteFailed(f"cannot write to {self.tree}: {exc.strerror}") from None
        missing = []
        links = [(meta, name) for meta, name in self.entries if meta.startswith(b"160000 ")]  # (submodules)
        for number, (meta, name) in enumerate(links):
            path, commit = os.fsdecode(name), meta.split()[1].decode()
            sub = os.path.join(self.top, path)
            if not os.path.lexists(os.path.join(sub, ".git")):
                continue  # (not initialised: empty in the working tree too)
            if self.depth < 8 and _commit(commit, sub):
                inner = _CheckOut(commit, sub, os.path.join(self.tree, path), f"{self.index}.{number}",
                                  self.depth + 1)
                try:
                    missing += [(os.path.join(path, p), c) for p, c in inner.wait()]
                finally:
                    inner.stop()
            else:
                missing.append((path, commit))
        return missing


class _WriteFailed(Exception):
    """Writing the base tree failed (no space left, ...): tried again elsewhere, else a usage error."""


def _ram_directory() -> str | None:
    """A RAM-backed directory for the base tree when the user chose no temporary directory and it has room:
    creating thousands of small files costs far more on a journaling disk than reading them (10,000 files took 4
    to 7 s of system time on ext4 in a virtual machine, 0.2 s on tmpfs); else None (the temporary directory)."""
    if tempfile.tempdir is not None or any(os.environ.get(v) for v in ("TMPDIR", "TEMP", "TMP")):
        return None
    try:
        st = os.statvfs(RAM_DIRECTORY)
    except (OSError, AttributeError):
        return None
    free = st.f_bavail * st.f_frsize
    return RAM_DIRECTORY if free >= RAM_MIN_FREE and os.access(RAM_DIRECTORY, os.W_OK | os.X_OK) else None


_CHART_FILES = (b"Chart.yaml", b"Chart.yml", b"chart.yaml", b"chart.yml")
_READ_BY_NAME = frozenset(n.encode() for n in (".gitignore", *CONFIG_FILES))


def _wanted(entries: list[tuple[bytes, bytes]]) -> list[bytes]:
    """The paths of (mode, path) index entries a check of the tree may read: what discovery takes by name, the
    .gitignore and configuration files, every file of a Helm chart (helm renders it whole: its dependencies,
    `.Files.Get`), and symbolic links (their targets are judged by discovery, as in the working tree). A
    repository of program code with a few manifests then writes a few files, not the whole tree."""
    charts = tuple(path[:-len(name)] for _mode, path in entries for name in _CHART_FILES
                   if path == name or path.endswith(b"/" + name))
    out = []
    for mode, path in entries:
        if mode == b"160000":
            continue  # (a submodule: read from its own repository)
        name = path.rpartition(b"/")[2]
        if (mode == b"120000" or name in _READ_BY_NAME or read_by_name(os.fsdecode(name))
                or (charts and path.startswith(charts))):
            out.append(path)
    return out


def _git_sides(base: str | None, scope: list[str], cwd: str, config: str | None,
               karpenter_version: str | None) -> tuple[Side, Side]:
    if not os.path.isdir(cwd):
        raise DiffUsageError(f"{cwd}: no such directory")
    proc = _git(["rev-parse", "--show-toplevel"], cwd)
    top = _out(proc)
    if proc.returncode != 0 or not top:
        raise DiffUsageError(f"{cwd}: not a git repository (or inside its .git directory): run `karplint diff` "
                             "in a repository, or compare two paths with --old OLD --new NEW")
    top = os.path.realpath(top)
    here = os.path.realpath(cwd)
    inner = os.path.relpath(here, top)  # the working directory, relative to the repository root
    names = []
    for p in scope:  # (relative to the working directory on both sides: the same display paths)
        full = os.path.normpath(os.path.join(here, p))
        if os.path.relpath(full, top).split(os.sep)[0] == os.pardir:
            raise DiffUsageError(f"{p}: outside the repository {top}")
        names.append(os.path.relpath(full, here) if os.path.isabs(p) else p)
    sha, label = _base_commit(base, top)
    for root in dict.fromkeys([_ram_directory(), None]):
        try:
            tmp = tempfile.mkdtemp(prefix="karplint-diff-", dir=root)
        except OSError:
            continue
        try:
            return _read_both(sha, label, top, here, inner, names, tmp, config, karpenter_version)
        except _WriteFailed as exc:  # (the RAM directory full: the ordinary temporary directory next)
            if root is None:
                raise DiffUsageError(str(exc)) from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    raise DiffUsageError(f"cannot create a temporary directory in {tempfile.gettempdir()}")


def _read_both(sha: str, label: str, top: str, here: str, inner: str, names: list[str], tmp: str,
               config: str | None, karpenter_version: str | None) -> tuple[Side, Side]:
    """Both sides, the base's files written under `tmp` (which the caller removes)."""
    tree = os.path.join(tmp, "tree")
    checkout = _CheckOut(sha, top, tree, os.path.join(tmp, "index"))
    try:
        in_head = [p for p in names if os.path.lexists(os.path.join(here, p))]
        for p in names:
            if p not in in_head and not checkout.has(os.path.join(inner, p)):
                raise DiffUsageError(f"{p}: no such file or directory in the working tree or at {label}")
        head_cfg = _config(config, in_head or ["."], here, karpenter_version, None)
        parsed: dict = {}
        head = _load_side(in_head, here, head_cfg, parsed, "working tree")
        unread = checkout.wait()
    finally:
        checkout.stop()
    there = os.path.normpath(os.path.join(tree, inner))
    os.makedirs(there, exist_ok=True)  # (the working directory may be new since the base)
    # (a path of the commit holding no file a check reads was not written: nothing to read there)
    in_base = [p for p in names if os.path.lexists(os.path.join(there, p))]
    base_cfg = _config(config, in_base or ["."], there, karpenter_version, (tree, top, head_cfg))
    based = _load_side(in_base, there, base_cfg, parsed, label, tree)
    based.problems.extend(
        f"{os.path.relpath(os.path.join(top, path), here)}:1:1: submodule commit {commit[:7]} is not in its "
        "local repository (`git submodule update --init`); its files are not read on this side"
        for path, commit in unread)
    return Side(label, sha, based, here, there), Side("working tree", None, head, here, here)


# -- two paths ---------------------------------------------------------------------------------------------------

def _two_paths(two_paths: tuple[str, str], scope: list[str], cwd: str, config: str | None,
               karpenter_version: str | None) -> tuple[Side, Side]:
    full = [os.path.normpath(os.path.join(cwd, p)) for p in two_paths]
    for given, path in zip(two_paths, full):
        if not os.path.lexists(path):
            raise DiffUsageError(f"{given}: no such file or directory")
    dirs = [os.path.isdir(p) for p in full]
    if dirs[0] != dirs[1]:
        raise DiffUsageError(f"{two_paths[0]} and {two_paths[1]}: compare two directories or two files, not one "
                             "of each")
    sides = []
    parsed: dict = {}
    for given, path in zip(reversed(two_paths), reversed(full)):  # (the new side first: see the module's docstring)
        if dirs[0]:
            root, names = path, scope
            present = [p for p in names if os.path.lexists(os.path.join(root, p))]
        else:
            root, names = os.path.dirname(path), [os.path.basename(path)]
            present = names
        cfg = _config(config, present or ["."], root, karpenter_version, None, tree=os.path.realpath(root))
        # (each tree is a project of its own: the files around it, in a repository that holds both, are neither
        # side's context; two files have no context at all, as a loose file's siblings)
        if dirs[0]:
            cfg.root = os.path.realpath(root)
        else:
            cfg.project_context = False
        sides.append(Side(given, None, _load_side(present, root, cfg, parsed, given), root, root))
    if dirs[0]:
        for p in scope:
            if not any(os.path.lexists(os.path.join(side.display_root, p)) for side in sides):
                raise DiffUsageError(f"{p}: no such file or directory in {two_paths[0]} or {two_paths[1]}")
    return sides[1], sides[0]


# -- reading one side --------------------------------------------------------------------------------------------

@contextlib.contextmanager
def _working_directory(path: str):
    """Discovery names files relative to the working directory (and `check` does): each side is read from its own
    directory. (Process-wide: `diff` is a command, not a server.)"""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _config(explicit: str | None, names: list[str], where: str, karpenter_version: str | None,
            base_of: tuple[str, str, object] | None, tree: str | None = None):
    """The configuration of one side: `explicit` (--config), else the nearest configuration file above the first
    path, found on that side. For the base side (`base_of` = (its tree, the repository root, the head's
    configuration)) the search stops at the top of its tree (above is a temporary directory): a configuration
    above the repository applies to both sides, the head's."""
    from karplint.config import ConfigError, find_config, from_mapping, load_config
    from pathlib import Path

    try:
        if explicit:
            cfg = load_config(explicit, None)
        elif tree is not None:  # (--old/--new: a configuration above the tree is not its own)
            found = find_config(Path(os.path.abspath(os.path.join(where, names[0]))))
            if found is not None and _below(os.path.realpath(str(found)), tree):
                cfg = load_config(str(found), None)
            else:
                cfg = from_mapping({}, "defaults")
        elif base_of is None:
            with _working_directory(where):
                cfg = load_config(None, Path(os.path.abspath(names[0])))
        else:
            tree, top, head_cfg = base_of
            found = find_config(Path(os.path.join(where, names[0])))
            if found is not None and _below(str(found), tree):
                cfg = load_config(str(found), None)
            elif head_cfg.path and not _below(os.path.realpath(head_cfg.path), top):
                cfg = load_config(head_cfg.path, None)
            else:
                cfg = from_mapping({}, "defaults")
    except ConfigError as exc:
        message = str(exc)
        if base_of is not None:  # (name the file as it is in the repository, not in the temporary tree)
            message = message.replace(base_of[0] + os.sep, "")
        raise DiffUsageError(message) from None
    if karpenter_version:
        from karplint.model.versions import Version, implausible

        try:
            cfg.karpenter_version = Version.parse(karpenter_version)
        except ValueError as exc:
            raise DiffUsageError(f"--karpenter-version: {exc}") from None
        why = implausible(cfg.karpenter_version)
        if why:
            raise DiffUsageError(f"--karpenter-version: {why}")
        cfg.karpenter_version_source = "--karpenter-version"
    return cfg


def _below(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _load_side(names: list[str], where: str, cfg, parsed: dict, label: str, tree: str | None = None) -> Loaded:
    """One side's project, read from `where`; a side where no scope path exists is empty (everything added or
    removed), not an error."""
    from karplint.discover import MissingPath
    from karplint.model import Model
    from karplint.project import build

    with _working_directory(where):
        if not names:
            return Loaded(Model(), [], set(), build([], cfg), [])
        try:
            return load(names, cfg, parsed=parsed)
        except MissingPath as exc:  # (checked above; a file removed meanwhile)
            raise DiffUsageError(f"{exc.args[0]}: no such file or directory ({label})") from None
