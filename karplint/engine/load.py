"""Loading a project's documents without checking them: the same project as `check` (karplint/project/:
configuration, discovery, the project's other files as context, release evidence), without rules, cache or
workers. What the display commands (`render`, `budgets`, `simulate`) and `karplint diff`'s two sides read."""

from __future__ import annotations

import hashlib
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


def load(paths: list[str], config=None, *, cluster_state: bool = False, parsed: dict | None = None) -> Loaded:
    """The project of `paths` (files, directories, `-` for stdin) loaded. `config`: None finds the configuration
    as `check` does. `cluster_state`: without documentation examples (YAML blocks of Markdown files), which `check`
    does not count as the cluster's objects either. `parsed`: a memo of parsed files shared between loads of two
    versions of one tree (`karplint diff`): a file with the same display path and the same bytes is parsed once,
    its documents shared (nothing downstream changes a document). Raises `karplint.discover.MissingPath`,
    `karplint.config.ConfigError`."""
    from karplint.engine.files import load_input
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
        result = load_input(item, project.config) if parsed is None else _parsed_once(item, project.config, parsed)
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


def _parsed_once(item, config, parsed: dict):
    """`load_input`, answered from `parsed` when a file of the same display path and bytes was parsed before.
    Not shared: a template while charts are known (read with its chart's values, which may differ between the
    versions) and Terraform (its locals count as used by the other `.tf` files of its directory)."""
    from karplint.engine.files import parse_input, read_input

    raw = read_input(item, config)
    if not isinstance(raw, bytes):
        return raw  # (a FileResult: the problem that prevented reading it)
    if (b"{{" in raw and config.charts) or item.display.lower().endswith((".tf", ".tf.json")):
        return parse_input(item, raw, config.charts)
    key = (item.display, hashlib.blake2b(raw, digest_size=20).digest())
    hit = parsed.get(key)
    if hit is None:
        hit = parsed[key] = parse_input(item, raw, config.charts)
    return hit
