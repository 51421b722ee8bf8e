"""Loading the files a display command (`render`, `budgets`, `simulate`) shows: the same project as `check`
(karplint/project/: configuration, discovery, the project's other files as context, release evidence), without
rules, cache or workers."""

from __future__ import annotations

from dataclasses import dataclass, field

from karplint.model import Model


@dataclass
class Loaded:
    """The documents of a project as one Model (the named files' and the context's), which of them were named,
    and every problem of a named file as `file:line:col: message` (first line)."""

    model: Model
    problems: list[str]
    named: set[str]  # display paths of the named files: what a display command shows
    project: object = None  # karplint.project.Project
    releases: list = field(default_factory=list)  # YAML release evidence of the documents read

    def shows(self, res) -> bool:
        """Whether the resource comes from a named file (context objects are read, not shown)."""
        return str(res.doc.path) in self.named

    def karpenter_version(self, display: str):
        """The Karpenter release the project deploys for the file `display` (as `check` assigns it), or None."""
        from karplint.model.versions import Version
        from karplint.project import releases_for

        cfg = self.project.config
        if cfg.karpenter_version_source != "default":
            return cfg.karpenter_version
        chosen = releases_for([display], [*cfg.release_evidence, *self.releases], cfg).get(display)
        return Version.parse(chosen.version) if chosen is not None else None


def read_model(paths: list[str], config=None, *, exclude_root: str | None = None,
               cluster_state: bool = False) -> tuple[Model, list[str]]:
    """(model, problems) of `load`: kept for its callers."""
    loaded = load(paths, config, cluster_state=cluster_state)
    return loaded.model, loaded.problems


def load(paths: list[str], config=None, *, cluster_state: bool = False) -> Loaded:
    """The project of `paths` (files, directories, `-` for stdin) loaded. `config`: None finds the configuration
    as `check` does. `cluster_state`: without documentation examples (YAML blocks of Markdown files), which `check`
    does not count as the cluster's objects either. Raises `karplint.discover.MissingPath`,
    `karplint.config.ConfigError`."""
    from karplint.engine import load_input
    from karplint.model.repo_version import yaml_evidence
    from karplint.project import build, configure

    paths = paths or ["."]
    if config is None:
        config = configure(None, paths)
    project = build(paths, config)
    model = Model()
    problems = [f"{display}:{p.span.line}:{p.span.column}: {p.message.splitlines()[0]}"
                for display, p in project.notices if p.code == "KPL003"]
    releases = []
    named = {item.display for item in project.inputs}
    for item in project.files:
        result = load_input(item, project.config)
        if item.display in named:
            problems.extend(f"{item.display}:{p.span.line}:{p.span.column}: {p.message.splitlines()[0]}"
                            for p in result.problems)
        docs = result.documents
        if project.config.karpenter_version_source == "default":
            releases.extend(yaml_evidence(docs))
        if cluster_state:
            docs = [d for d in docs if not d.documentation_example]
        model.add(docs)
    return Loaded(model, problems, named, project, releases)


def load_model(paths: list[str], err, command: str) -> Loaded | None:
    """`load` for a display command: problems are printed to `err` (a rich Console); None, after saying so, when
    a path does not exist or the configuration is bad."""
    from karplint.config import ConfigError
    from karplint.discover import MissingPath
    from karplint.report import escape

    try:
        loaded = load(paths)
    except MissingPath as exc:
        err.print(f"karplint {command}: {escape.name(str(exc.args[0]))}: no such file or directory", markup=False)
        return None
    except ConfigError as exc:
        err.print(f"karplint {command}: {escape.name(str(exc))}", markup=False)
        return None
    for problem in loaded.problems:
        err.print(escape.name(problem), markup=False)
    return loaded
