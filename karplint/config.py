"""Configuration: `[tool.karplint]` in pyproject.toml or `.karplint.toml`, overridden by CLI flags.

Unknown keys and bad values raise `ConfigError` naming the key and the file, and its line when it is read from
one (the CLI exits 2); values with a closed set or a grammar are checked in karplint/config_values.py.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karplint.findings import SEVERITIES
from karplint.model.versions import LATEST, Version

CONFIG_FILES = (".karplint.toml", "karplint.toml", "pyproject.toml")
DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024


class ConfigError(Exception):
    """`key`: the key path the message is about (from the top of the table), for `load_config` to find its line."""

    def __init__(self, message: str, key: tuple = ()):
        super().__init__(message)
        self.key = key


@dataclass
class Config:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    fail_on: str = "warning"
    exclude: list[str] = field(default_factory=list)
    karpenter_version: Version = field(default_factory=lambda: LATEST)
    karpenter_version_source: str = "default"
    cluster: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # as set; rules' defaults fill the rest (engine)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    project_context: bool = True  # named files and directories are judged with the project's other files (karplint/project/)
    clusters: list[str] = field(default_factory=list)  # globs of directories that each hold one cluster
    fail_on_nothing_checked: bool = False  # exit 1 when the run checked no Karpenter object at all
    # display paths of the files a kustomization applies as patches (karplint/readers/kustomize.py): found from the
    # run's files before the check (None: not looked for yet)
    kustomize_patches: frozenset | None = None
    # Karpenter release evidence of the project's files that are not YAML (karplint/model/repo_version.py: Terraform,
    # scripts, documents), read by the project stage before the check (karplint/project/)
    release_evidence: tuple = ()
    # the releases the repository pins when none of them clearly applies to a file (the engine sets it for those
    # files: an apiVersion none of them serves is certainly not served)
    release_candidates: tuple = ()
    # each Helm chart's values.yaml scalars and helm's rendering (`chart_context` in
    # karplint/readers/helm_charts.py), what its templates are read with: found before the check (None: not yet)
    charts: dict | None = None
    # the display paths whose findings are wanted (an editor's open documents), None: every file's. The cross-file
    # rules then judge only the resources of these files (`Context.in_focus`), with every file still read as
    # context: a keystroke's check is not the cost of judging the whole workspace. Not part of the fingerprint
    # (the per-file stage does not depend on it); the run-stage verdicts are kept per focus (`engine.evaluate`).
    focus: frozenset | None = None
    # `karplint diff`'s nodes per NodePool for the rollout pace: one count, or pool name -> count ("*": the others)
    diff_nodes: int | dict[str, int] | None = None
    path: str | None = None  # the file it came from
    root: str | None = None  # directory of that file (per-file-ignores and exclude are relative to it)


def _str_list(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{where}: `{key}` must be a list of strings", tuple(key.split(".", 1)))


# Keys of [cluster] that rules read: name -> (type, description)
CLUSTER_KEYS: dict[str, tuple[type, str]] = {
    "cni": (str, "the CNI plugin, e.g. \"cilium\", \"aws-vpc-cni\", \"calico\""),
    "node-repair": (bool, "whether Karpenter's NodeRepair feature gate is enabled"),
    "kubernetes-version": (str, "the cluster's Kubernetes minor version, e.g. \"1.31\""),
    "nodeclasses": (list, "EC2NodeClasses defined outside the checked files (Terraform, another repository)"),
    "karpenter-only": (bool, "all nodes come from the checked NodePools (no managed node groups, Fargate or "
                             "NodePools defined elsewhere): KPL910 judges every workload"),
}


def _check_severity(value: Any, key: str, where: str) -> str:
    if value not in SEVERITIES:
        import difflib

        near = difflib.get_close_matches(str(value), SEVERITIES, n=1)
        raise ConfigError(f"{where}: `{key}` must be one of {', '.join(SEVERITIES)} (got {value!r})"
                          + (f"; did you mean `{near[0]}`?" if near else ""), tuple(key.split(".", 1)))
    return value


def from_mapping(raw: dict, where: str, base: Config | None = None) -> Config:
    """Build a Config from a `[tool.karplint]`-shaped mapping."""
    cfg = base or Config()
    for key, value in raw.items():
        if key == "select":
            cfg.select = _str_list(value, key, where)
        elif key == "ignore":
            cfg.ignore = _str_list(value, key, where)
        elif key == "extend-select":
            cfg.extend_select = _str_list(value, key, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]", (key,))
            cfg.per_file_ignores = {g: _str_list(v, f"per-file-ignores.{g}", where) for g, v in value.items()}
        elif key == "severity":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: `severity` must be a table of CODE = \"error|warning|info\"", (key,))
            cfg.severity = {c.upper(): _check_severity(v, f"severity.{c}", where) for c, v in value.items()}
        elif key == "fail-on":
            cfg.fail_on = _check_severity(value, key, where)
        elif key == "exclude":
            cfg.exclude = _str_list(value, key, where)
        elif key == "karpenter-version":
            try:
                cfg.karpenter_version = Version.parse(str(value))
            except ValueError as exc:
                raise ConfigError(f"{where}: `karpenter-version`: {exc}", (key,)) from None
            from karplint.model.versions import implausible

            why = implausible(cfg.karpenter_version)
            if why:
                raise ConfigError(f"{where}: `karpenter-version`: {why}", (key,))
            cfg.karpenter_version_source = where
        elif key == "clusters":
            cfg.clusters = _str_list(value, key, where)
        elif key == "project-context":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: `project-context` must be true or false", (key,))
            cfg.project_context = value
        elif key == "fail-on-nothing-checked":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: `fail-on-nothing-checked` must be true or false", (key,))
            cfg.fail_on_nothing_checked = value
        elif key == "max-file-size":
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"{where}: `max-file-size` must be a positive number of bytes", (key,))
            cfg.max_file_size = value
        elif key == "diff-nodes":
            from karplint.config_values import diff_nodes_problem

            problem = diff_nodes_problem(value)
            if problem:
                raise ConfigError(f"{where}: {problem[0]}", (key, *problem[1]))
            cfg.diff_nodes = dict(value) if isinstance(value, dict) else value
        elif key == "cluster":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: `cluster` must be a table", (key,))
            from karplint.config_values import cluster_value_problem

            for ck, cv in value.items():
                if ck not in CLUSTER_KEYS:
                    raise ConfigError(f"{where}: unknown key `cluster.{ck}`{_near(ck, CLUSTER_KEYS)}", (key, ck))
                typ, _ = CLUSTER_KEYS[ck]
                if not isinstance(cv, typ):
                    raise ConfigError(f"{where}: `cluster.{ck}` must be a {typ.__name__}", (key, ck))
                problem = cluster_value_problem(ck, cv)
                if problem:
                    raise ConfigError(f"{where}: {problem}", (key, ck))
                cfg.cluster[ck] = cv
        elif key == "options":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: `options` must be a table", (key,))
            from karplint.config_values import option_value_problem
            from karplint.rules import option_defaults  # (the rules' code only when options are set)

            known_options = option_defaults()
            for ok, ov in value.items():
                if ok not in known_options:
                    raise ConfigError(f"{where}: unknown key `options.{ok}`{_near(ok, known_options)}", (key, ok))
                if type(ov) is not type(known_options[ok]):
                    raise ConfigError(
                        f"{where}: `options.{ok}` must be a {type(known_options[ok]).__name__}", (key, ok))
                problem = option_value_problem(ok, ov)
                if problem:
                    raise ConfigError(f"{where}: {problem[0]}", (key, ok, *problem[1]))
                cfg.options[ok] = ov
            if cfg.options.get("instance-types-mode") == "replace" and not cfg.options.get("instance-types"):
                # (the whole catalog would be empty: every NodePool would launch nothing)
                raise ConfigError(f"{where}: `options.instance-types-mode = \"replace\"` needs the instance types "
                                  "that replace the bundled catalog in `options.instance-types`",
                                  (key, "instance-types-mode"))
        else:
            raise ConfigError(f"{where}: unknown configuration key `{key}`{_near(str(key), CONFIG_KEYS)}", (key,))
    return cfg


def _near(word: str, known) -> str:
    """"; did you mean `x`?" for a misspelt key, else the known keys."""
    import difflib

    known = sorted(known)
    near = difflib.get_close_matches(word, known, n=1)
    return f"; did you mean `{near[0]}`?" if near else f" (known: {', '.join(known) or 'none'})"


CONFIG_KEYS = ("select", "ignore", "extend-select", "per-file-ignores", "severity", "fail-on", "exclude",
               "karpenter-version", "max-file-size", "project-context", "clusters", "cluster", "options",
               "fail-on-nothing-checked", "diff-nodes")


MAX_CONFIG_BYTES = 1024 * 1024  # a pyproject.toml of a large monorepo is a few KB


def read_file(path: Path) -> dict | None:
    """The `[tool.karplint]` table of a pyproject.toml, or a whole .karplint.toml; None if absent."""
    if sys.version_info >= (3, 11):  # imported here: a run without a configuration file does without it
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from karplint.readers.toml_limits import MAX_KEY_PARTS, long_number_line, out_of_range_integer, too_complex

    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: over {MAX_CONFIG_BYTES:,} bytes; not a configuration file karplint reads")
        text = raw.decode("utf-8")
        line = too_complex(text)
        if line is not None:
            raise ConfigError(f"{path}:{line}: a key with more than {MAX_KEY_PARTS} dotted parts; not read")
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except ValueError:  # tomllib's int() of a decimal number past Python's 4,300 digits
        raise ConfigError(f"{path}:{long_number_line(text)}: invalid TOML: an integer outside 64 bits") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    if out_of_range_integer(data):
        raise ConfigError(f"{path}:{long_number_line(text)}: invalid TOML: an integer outside 64 bits")
    if path.name == "pyproject.toml":
        return data.get("tool", {}).get("karplint")
    if set(data) == {"tool"} and isinstance(data["tool"], dict) and set(data["tool"]) == {"karplint"}:
        return data["tool"]["karplint"]  # the README's `[tool.karplint]` shape, pasted into .karplint.toml
    return data


def find_config(start: Path) -> Path | None:
    """The nearest config file from `start` upwards: from a directory's real path, from a file's directory as
    named (a named file may be a link out of the tree, which must not choose the configuration:
    karplint/discover/boundary.py finds the project the same way)."""
    start = Path(os.path.abspath(start))
    start = start.resolve() if start.is_dir() else start.parent.resolve()
    for directory in (start, *start.parents):
        for name in CONFIG_FILES:
            candidate = directory / name
            if candidate.is_file():
                if name != "pyproject.toml" or read_file(candidate) is not None:
                    return candidate
    return None


def load_config(explicit: str | None, search_from: Path | None) -> Config:
    path: Path | None
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"{explicit}: configuration file not found")
    else:
        path = find_config(search_from or Path.cwd())
    if path is None:
        return from_mapping({}, "defaults")
    raw = read_file(path)
    if raw is None:
        if explicit:
            raise ConfigError(f"{path}: no [tool.karplint] table")
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: configuration must be a table")
    try:
        cfg = from_mapping(raw, str(path))
    except ConfigError as exc:
        raise _on_its_line(exc, path) from None
    cfg.path = str(path)
    cfg.root = str(path.resolve().parent)
    return cfg


def _on_its_line(exc: ConfigError, path: Path) -> ConfigError:
    """`exc` with the line of the key it is about after the file's name (`file:line: ...`), when found."""
    prefix = f"{path}: "
    message = str(exc)
    if not exc.key or not message.startswith(prefix):
        return exc
    from karplint.config_values import line_of

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return exc
    keys = exc.key
    if path.name == "pyproject.toml" or re.search(r"^\s*\[\s*tool\.karplint", text, re.M):
        keys = ("karplint", *keys)  # ([tool.karplint] comes first: a key of another tool's table is not ours)
    line = line_of(text, keys)
    return exc if line is None else ConfigError(f"{path}:{line}: {message[len(prefix):]}", exc.key)


def env_disabled_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))  # (no-color.org: an empty NO_COLOR counts as unset)
