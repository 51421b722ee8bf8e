"""The project of a run, worked out once before the check: every front end (`check`, `--fix`, `--diff`,
`--show-settings`, `simulate`, `budgets`, `render`) builds it from the same flags and gets the same answer.

    paths, configuration -> discover the named paths (the files to report on)
                         -> the project of each named path (karplint/discover/boundary.py: the configuration root,
                            else the git work tree; never the working directory) and its other files (CONTEXT:
                            read by cross-file rules and for release evidence, never reported on), for named
                            files and named subdirectories alike; test data (`tests/`, `fixtures/`, ...) is
                            context only for the named paths inside it (project/clusters.py)
                         -> the Karpenter release evidence of the files the per-file stage does not read it from
                            (Terraform, scripts, documents: `karplint.model.repo_version.collect`)
                         -> the Kustomize patch files, each Helm chart's values (and rendering, with helm on the
                            PATH), the notices (KPL003, KPL016)

A file then gets the same findings whether the run names the whole tree, its directory or the file alone, with
`--fix` or without: the context holds the Karpenter pin and the Cilium install that live elsewhere.

Stage order: this package imports discover, readers and model, never the engine or the command line.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from karplint.config import Config
from karplint.discover import EXTENSIONS, DiscoveryResult, discover
from karplint.discover.boundary import inside, project_root
from karplint.project.clusters import cluster_dirs, cluster_of, test_scope
from karplint.project.notices import discovery_notices
from karplint.readers.files import InputFile, read_regular
from karplint.readers.foreign import is_test_code
from karplint.readers.loader import Problem
from karplint.wording import counted

if TYPE_CHECKING:  # (repo_version compiles its patterns on import: only runs that read evidence need it)
    from karplint.model.repo_version import Evidence


@dataclass
class Project:
    config: Config  # the run's configuration: the Kustomize patches, the charts and the release evidence filled in
    named: list[str]  # the paths named (without `-`)
    inputs: list[InputFile]  # the files reported on (stdin last)
    context: list[InputFile] = field(default_factory=list)  # the project's other files: read, never reported on
    roots: tuple[str, ...] = ()  # the real paths of the projects the context came from
    notices: list[tuple[str, Problem]] = field(default_factory=list)  # (display, problem): KPL003, KPL016
    found: DiscoveryResult = field(default_factory=DiscoveryResult)  # the named paths' discovery
    # (display, abspath) of the files that hold no manifest but may pin the release (scripts, variables, docs,
    # program code), named or context: read for release evidence only
    pin_files: list[tuple[str, str]] = field(default_factory=list)

    @property
    def files(self) -> list[InputFile]:
        """Every file the check reads: the inputs, then the context."""
        return [*self.inputs, *self.context]

    def version_lines(self) -> list[str] | None:
        """`--show-settings` with `karpenter-version` unset: the versions the project deploys (a check reads them
        the same way) and how many named files each applies to; None when nothing pins one."""
        from karplint.model.repo_version import collect, without_stale_docs

        paths = [(i.display, i.abspath) for i in self.files if i.abspath is not None]
        evidence = self.config.release_evidence
        if self.config.karpenter_version_source == "default":  # (the YAML pins: the check reads them per file)
            evidence = _plausible([*evidence, *collect(
                [p for p in paths if p[0].lower().endswith(EXTENSIONS)], read_regular, self.config.max_file_size)])
        evidence = without_stale_docs(evidence)
        if not evidence:
            return None
        chosen = releases_for([i.display for i in self.inputs], evidence, self.config)
        counts: dict[str, int] = {}
        for e in chosen.values():
            counts[e.version] = counts.get(e.version, 0) + 1
        firsts: dict[str, Evidence] = {}
        for e in evidence:
            firsts.setdefault(e.version, e)
        return [f"{v} (read from {e.where}; {counted(counts.get(v, 0), 'file')})" for v, e in firsts.items()]


def configure(explicit: str | None, paths: list[str], stdin_filename: str | None = None) -> Config:
    """The configuration of a run over `paths`: `explicit` (--config), else the nearest configuration file above
    the first named path (stdin: above `stdin_filename`; nothing named: the working directory). Raises
    `karplint.config.ConfigError`."""
    from karplint.config import load_config

    first = next((p for p in paths if p != "-"), None)
    search_from = Path(first) if first else (Path(stdin_filename).parent if stdin_filename else Path.cwd())
    return load_config(explicit, search_from)


def build(paths: list[str], cfg: Config, *, respect_gitignore: bool = True, follow_links: bool = False,
          force_exclude: bool = False, stdin_filename: str | None = None, stdin: bytes | None = None) -> Project:
    """The project of a run over `paths` (files, directories, `-` for stdin, read here unless `stdin` is given:
    at most one byte over the size limit, enough to report the limit). Raises `karplint.discover.MissingPath`."""
    named = [p for p in paths if p != "-"]
    found = discover(named, exclude=cfg.exclude, respect_gitignore=respect_gitignore, force_exclude=force_exclude,
                     exclude_root=cfg.root, follow_links=follow_links)
    inputs = [InputFile(c.display, c.abspath, stat=c.stat) for c in found.files]
    # stdin named by --stdin-filename (an editor's unsaved buffer) belongs to that file's project, as the file would
    stdin_name = stdin_filename if "-" in paths and stdin_filename and stdin_filename != "-" else None
    context, side, roots = (_context(named, found, cfg, respect_gitignore, stdin_name) if cfg.project_context
                            else ([], [], ()))
    pin_files = [(c.display, c.abspath) for c in (*found.pin_files, *found.code_files)] + side
    if "-" in paths:
        data = stdin if stdin is not None else sys.stdin.buffer.read(cfg.max_file_size + 1)
        inputs.append(InputFile(stdin_filename or "-", None, data))
    from karplint.readers.helm_charts import chart_context
    from karplint.readers.kustomize import patch_files

    run_config = replace(cfg, kustomize_patches=patch_files([*inputs, *context], read_regular, cfg.root),
                         charts=chart_context([*inputs, *context], read_regular, cfg.root))  # (both in the cache's key)
    if cfg.karpenter_version_source == "default":
        run_config.release_evidence = release_evidence([*inputs, *context], pin_files, cfg)
    return Project(run_config, named, inputs, context, roots, discovery_notices(found), found, pin_files)


def release_evidence(files: list[InputFile], pin_files: list[tuple[str, str]], cfg: Config,
                     read=read_regular) -> tuple[Evidence, ...]:
    """The plausible release evidence the project stage reads (`_pre_check_evidence`); `read(abspath, limit)`
    reads a file (an editor's buffer in its place: karplint/server/workspace.py)."""
    return tuple(_plausible(_pre_check_evidence(files, pin_files, cfg, read)))


def _pre_check_evidence(files: list[InputFile], pin_files: list[tuple[str, str]], cfg: Config,
                        read=read_regular) -> list[Evidence]:
    """Release evidence of the files whose pins the per-file stage does not read: every file but YAML and JSON
    (Terraform, scripts, documents, variables, program code). A YAML file's pins (a Flux HelmRelease, an Argo CD
    Application, the controller image) come from its per-file summary, computed once and cached with it, in the
    inputs and the context alike (the check reads both): reading them here too would read every YAML file again
    on a run the cache answers without reading any."""
    paths = [(i.display, i.abspath) for i in files
             if i.abspath is not None and not i.display.lower().endswith(EXTENSIONS)] + pin_files
    if not paths:
        return []
    from karplint.model.repo_version import collect

    return collect(list(dict.fromkeys(paths)), read, cfg.max_file_size)


def _plausible(evidence: list[Evidence]) -> list[Evidence]:
    from karplint.model.versions import Version, implausible

    return [e for e in evidence if implausible(Version.parse(e.version)) is None]


def releases_for(files: list[str], evidence: list[Evidence], config: Config) -> dict[str, Evidence]:
    """The release evidence that applies to each file (display paths) when that is clear: the file's cluster's
    (the `clusters` setting), else the nearest (`karplint.model.repo_version.assign`)."""
    from karplint.model.repo_version import assign

    fn = None
    if config.clusters:
        dirs = cluster_dirs(config)
        fn = lambda display: cluster_of(display, dirs)  # noqa: E731
    # Test data's pins are for the test data (project/clusters.py): each test directory's files take its pins and
    # the project's; the project's files the project's only.
    by_scope: dict[str | None, list[str]] = {}
    for f in files:
        by_scope.setdefault(test_scope(f), []).append(f)
    if set(by_scope) <= {None} and not any(test_scope(e.file) for e in evidence):
        return assign(files, evidence, fn)
    out: dict[str, Evidence] = {}
    for scope, members in by_scope.items():
        out.update(assign(members, [e for e in evidence if test_scope(e.file) in (None, scope)], fn))
    return out


def _marked_root(path: str, config_root: str | None) -> str | None:
    """The real path of the project of a named path when something marks it (the configuration root, a git work
    tree); None when the project would only be the named directory itself (a loose file's siblings are no
    context: nothing says they deploy together)."""
    root = project_root(path, config_root)
    if config_root is not None and root == os.path.realpath(config_root):
        return root
    return root if os.path.lexists(os.path.join(root, ".git")) else None


def _context(named: list[str], found: DiscoveryResult, cfg: Config, respect_gitignore: bool,
             stdin_name: str | None = None) -> tuple[list[InputFile], list[tuple[str, str]], tuple[str, ...]]:
    """The other files of the projects of the named paths (files or directories; `stdin_name`: the file stdin
    stands for, whose bytes on disk are not read): those the check reads, those that may only pin the release
    (display, abspath), and those projects' roots. A project named whole needs no second walk; a named path in
    no marked project has no context."""
    anchors = [*named, *([stdin_name] if stdin_name else [])]
    if not (found.files or stdin_name):
        return [], [], ()
    roots: dict[str, None] = {}
    for p in anchors:
        root = _marked_root(p, cfg.root)
        if root is not None:
            roots[root] = None
    whole = {os.path.realpath(p) for p in named if os.path.isdir(p)}
    if all(root in whole for root in roots):
        return [], [], ()  # (each project named whole, or none marked: the ordinary run walks nothing more)
    asked = {os.path.realpath(c.abspath) for c in found.files}
    if stdin_name:
        asked.add(os.path.realpath(stdin_name))
    if not all(any(inside(real, root) for root in roots) for real in asked):
        return [], [], ()  # files from outside the projects (links followed on request): no project is theirs
    asked.update(os.path.realpath(c.abspath) for c in (*found.pin_files, *found.code_files))
    out: list[InputFile] = []
    side: list[tuple[str, str]] = []
    for root in roots:
        if root in whole:
            continue  # (named whole: every file is an input already)
        # Links are never followed for context (`--follow-links` is for the named paths): a link to / in the
        # project would make the context the whole file system.
        walked = discover([os.path.relpath(root)], exclude=cfg.exclude, respect_gitignore=respect_gitignore,
                          exclude_root=cfg.root, follow_links=False)
        # (test data is context only for the named paths in the same test directory)
        scopes = {None, *(test_scope(os.path.relpath(os.path.realpath(a), root)) for a in anchors)}
        for c in walked.files:
            real = os.path.realpath(c.abspath)
            if real not in asked and test_scope(os.path.relpath(real, root)) in scopes:
                asked.add(real)
                out.append(InputFile(c.display, c.abspath, stat=c.stat))
        for c in (*walked.pin_files, *walked.code_files):
            real = os.path.realpath(c.abspath)
            relative = os.path.relpath(real, root)
            scope = test_scope(relative)
            if real not in asked and scope in scopes and (scope is not None or not is_test_code(relative)):
                asked.add(real)
                side.append((c.display, c.abspath))
    return out, side, tuple(roots)
