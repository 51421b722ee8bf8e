"""`karplint check` (the command the fast path and typer's `check` both call) and what the command line shares:
the output formats, levels and colour choices, and the one way to warn and to exit with a usage error. It imports
no third-party package (karplint/cli/__init__.py: start-up) and nothing from karplint.cli's other modules."""

from __future__ import annotations

import os
import sys
import time
from enum import Enum
from pathlib import Path
from typing import List, NoReturn, Optional


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    concise = "concise"
    gitlab = "gitlab"
    junit = "junit"


class ColorChoice(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


def use_color(choice: "ColorChoice | None", stream) -> bool:
    """--color always/never decides; else NO_COLOR turns colour off (when not empty: no-color.org counts an empty
    one as unset), FORCE_COLOR (non-empty) on (CI logs that render ANSI), and otherwise colour only on a terminal
    (pre-commit runs hooks in a pseudo-terminal when its own output is coloured, so the hook's colour follows
    pre-commit's)."""
    if choice is not None and choice != ColorChoice.auto:
        return choice == ColorChoice.always
    from karplint.config import env_disabled_color

    if env_disabled_color():
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Level(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


def _warn(message: str) -> None:
    """A message on stderr; it may quote untrusted text (file names, config values): escaped for a terminal and
    for the GitHub Actions log (karplint/report/escape.py)."""
    from karplint.report import escape

    sys.stderr.write(escape.no_commands(escape.text(f"karplint: {message}")) + "\n")


def _die(message: str, code: int = 2) -> NoReturn:
    _warn(f"error: {message}")
    raise SystemExit(code)


def reader_gone(stream) -> None:
    """After EPIPE on `stream`: point its descriptor at /dev/null, so that what is still buffered (flushed at
    exit) goes nowhere instead of ending in Python's "Exception ignored ... BrokenPipeError" (the Python docs'
    advice, library/signal.html "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


def _split(values: Optional[List[str]]) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def check(
    paths: Optional[List[str]] = None,
    output_format: Optional[OutputFormat] = None,
    output: Optional[Path] = None,
    select: Optional[List[str]] = None,
    extend_select: Optional[List[str]] = None,
    ignore: Optional[List[str]] = None,
    fail_on: Optional[Level] = None,
    exit_zero: bool = False,
    karpenter_version: Optional[str] = None,
    config: Optional[str] = None,
    exclude: Optional[List[str]] = None,
    no_respect_gitignore: bool = False,
    force_exclude: bool = False,
    follow_links: bool = False,
    stdin_filename: Optional[str] = None,
    quiet: bool = False,
    statistics: bool = False,
    color: Optional[ColorChoice] = None,
    show_settings: bool = False,
    jobs: Optional[int] = None,
    no_cache: bool = False,
    fix: bool = False,
    unsafe_fixes: bool = False,
    diff: bool = False,
    show_fixes: bool = False,
    watch: bool = False,
) -> None:
    """`karplint check` (options and their help: `check` in karplint/cli/typer_app.py). Exits through SystemExit."""
    if watch:
        # Not with fixes: a fix written while the user edits the same file could lose the edit.
        if fix or diff or "-" in (paths or []):
            _die("--watch cannot be combined with --fix, --diff or stdin (`-`)")
        from karplint.cli.watch import watch as watch_paths

        once = {**{k: v for k, v in locals().items() if k in _FAST_CHECK_OPTIONS or k == "paths"}, "watch": False}
        watched = list(paths or ["."])
        from karplint.config import ConfigError
        from karplint.project import configure

        try:  # (the configuration file may live above the paths: a change to it counts too)
            cfg_path = configure(config, watched, stdin_filename).path
        except ConfigError:
            cfg_path = None  # (each run reports it)
        watch_paths(watched + ([cfg_path] if cfg_path else []), lambda: check(**once),
                    ignored=frozenset({os.path.abspath(output)} if output is not None else ()))
    from karplint.config import ConfigError
    from karplint.discover import MissingPath
    from karplint.engine import check as run_check
    from karplint.project import build, configure
    from karplint.report import render
    from karplint.rules import get_rule
    from karplint.model.versions import Version

    paths = list(paths or ["."])
    if paths.count("-") > 1:
        _die("`-` (stdin) can be given only once")
    try:
        cfg = configure(config, paths, stdin_filename)
    except ConfigError as exc:
        _die(str(exc))
    if select:
        cfg.select = _split(select)
    if extend_select:
        cfg.extend_select += _split(extend_select)
    if ignore:
        cfg.ignore += _split(ignore)
    # A misspelt selector would silently switch rules off (or select nothing): an error, as in ruff.
    cli_given = {"select": select or [], "extend-select": extend_select or [], "ignore": ignore or []}
    for key, values in (("select", cfg.select), ("extend-select", cfg.extend_select), ("ignore", cfg.ignore)):
        for sel in values:
            hint = _unknown_selector(sel)
            if hint is not None:
                where = f"--{key}" if sel in _split(cli_given[key]) else f"{cfg.path or 'configuration'}: `{key}`"
                _die(f"{where}: `{sel}` matches no rule{hint}")
    for glob, codes in cfg.per_file_ignores.items():
        for sel in codes:
            hint = _unknown_selector(sel)
            if hint is not None:
                _die(f"{cfg.path or 'configuration'}: `per-file-ignores.\"{glob}\"`: `{sel}` matches no rule{hint}")
    for code in cfg.severity:
        if get_rule(code) is None or get_rule(code).code != code:
            _die(f"{cfg.path or 'configuration'}: `severity.{code}`: not a rule code{_unknown_selector(code) or ''}")
    if fail_on:
        cfg.fail_on = fail_on.value
    if karpenter_version:
        try:
            cfg.karpenter_version = Version.parse(karpenter_version)
            cfg.karpenter_version_source = "--karpenter-version"
        except ValueError as exc:
            _die(f"--karpenter-version: {exc}")
        from karplint.model.versions import implausible

        why = implausible(cfg.karpenter_version)
        if why:
            _die(f"--karpenter-version: {why}")
    if exclude:
        cfg.exclude += list(exclude)
    if show_settings:
        _show_settings(cfg, no_cache, [p for p in paths if p != "-"], not no_respect_gitignore, follow_links)
        raise SystemExit(0)
    if output is not None:  # refused before the run, not after it
        from karplint.safe_write import output_refusal

        guarded = [".", *(p if os.path.isdir(p) else os.path.dirname(p) or "." for p in paths if p != "-"),
                   *([cfg.root] if cfg.root else [])]
        why = output_refusal(output, guarded)
        if why:
            _die(f"--output {output}: {why}")

    started_ns = time.time_ns()  # before discovery stat()s the files: the cache's racy-check reference
    try:
        project = build(paths, cfg, respect_gitignore=not no_respect_gitignore, follow_links=follow_links,
                        force_exclude=force_exclude, stdin_filename=stdin_filename)
    except MissingPath as exc:
        _die(f"{exc.args[0]}: no such file or directory")
    cfg, inputs, extra = project.config, project.inputs, project.notices

    report_out = sys.stdout
    from karplint.engine.parallel import default_jobs

    cache = None
    if not no_cache and os.environ.get("KARPLINT_NO_CACHE", "") in ("", "0"):
        from karplint.engine.cache import Cache

        cache = Cache.for_run(cfg)
        if cache.refused:
            _warn(f"warning: running without the cache: {cache.refused}")
    from karplint.engine import progress

    if fix or diff:  # autofix: the logic lives in karplint/fix/__init__.py
        from karplint.fix import run_fixes

        with progress.showing(progress.for_terminal(sys.stderr, quiet)):
            report, code = run_fixes(inputs, cfg, extra, unsafe=unsafe_fixes, diff=diff, show=show_fixes,
                                     jobs=jobs or default_jobs(), cache=cache, context=project.context)
        if report is None:
            raise SystemExit(code)
        if "-" in paths:
            report_out = sys.stderr  # stdout carries the fixed document
    else:
        with progress.showing(progress.for_terminal(sys.stderr, quiet)):  # (a long run on a terminal)
            report = run_check(inputs, cfg, extra_problems=extra, jobs=jobs or default_jobs(), cache=cache,
                               started_ns=started_ns, context=project.context)
        if report.helm_rendered and report.findings:  # rendered Helm output: findings on the chart's templates
            from karplint.readers.helm_rendered import remap

            report = remap(report, stdin_filename, cfg.root, tuple(p for p in paths if p != "-"))

    fmt = output_format.value if output_format else (
        "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    color = output is None and fmt == "text" and use_color(color, report_out)
    try:
        if output is not None:
            import io

            from karplint.safe_write import write_output

            def write(binary) -> None:
                text = io.TextIOWrapper(binary, encoding="utf-8", newline="")
                render(report, fmt, text, color=False, quiet=quiet, statistics=statistics)
                text.flush()
                text.detach()  # (the binary file is closed by its owner)

            write_output(output, write)
        else:
            render(report, fmt, report_out, color=color, quiet=quiet, statistics=statistics)
            report_out.flush()  # (here, not at exit: a closed pipe is answered below)
    except BrokenPipeError:
        # The reader stopped reading (`karplint check . | head`): quiet, as Unix tools are; the exit status stays
        # the check's (README "Exit codes").
        reader_gone(report_out)
    except OSError as exc:
        _die(f"cannot write the report{f' to {output}' if output is not None else ''}: {exc.strerror or exc}")
    if not inputs and not project.found.problems:
        _warn(f"warning: {_nothing_to_check(paths, project.found)}")
    if len(report.karpenter_versions) > 1 and not quiet:
        from karplint.model.repo_version import MAX_VERSIONS_LISTED

        listed, rest = report.karpenter_versions[:MAX_VERSIONS_LISTED], report.karpenter_versions[MAX_VERSIONS_LISTED:]
        from karplint.wording import counted

        unclear = report.files - sum(n for *_x, n in report.karpenter_versions)
        _warn("warning: several Karpenter versions are deployed by the checked files: " + "; ".join(
            f"{v} ({where}, {counted(n, 'file')})" for v, where, n in listed)
            + (f"; {counted(len(rest), 'more version')} ({counted(sum(n for *_x, n in rest), 'file')}) in the JSON "
               "report" if rest else "")
            + f"; each file is checked against the one nearest to it, {counted(unclear, 'file')} "
            f"with no clear one against {cfg.karpenter_version} (set `karpenter-version` or `clusters` to decide)")
    raise SystemExit(0 if exit_zero or not report.failed() else 1)


def _nothing_to_check(paths: list[str], found) -> str:
    """What a run that found no file to check says: which kinds it checks, and what it read instead (program code
    scanned for Karpenter objects, files read only for the Karpenter release)."""
    from karplint.wording import counted

    read = [counted(len(found.code_files), "program-code file") + " scanned for Karpenter objects (KPL016)"
            if found.code_files else "",
            counted(len(found.pin_files), "other file") + " read only for the Karpenter release they pin"
            if found.pin_files else ""]
    read = [r for r in read if r]
    where = ", ".join(paths) if len(paths) <= 3 else counted(len(paths), "path")  # (pre-commit names every file)
    return (f"no file to check in {where}: karplint checks YAML and JSON files, Go templates, and the "
            "manifests inside Terraform, shell, Markdown and AsciiDoc files"
            + (f"; {' and '.join(read)}" if read else ""))


def _show_settings(cfg, no_cache: bool, paths: list[str] = (), respect_gitignore: bool = True,
                   follow_links: bool = False) -> None:
    """What a check would use, and where each setting came from (ruff's --show-settings)."""
    from karplint.engine import selected_rules
    from karplint.engine.cache import default_directory

    rules = selected_rules(cfg)
    source = {"default": "karplint's default (the newest bundled release)"}.get(
        cfg.karpenter_version_source, cfg.karpenter_version_source)
    version_line = f"karpenter version: {cfg.karpenter_version} (from {source})"
    if cfg.karpenter_version_source == "default":  # what the project deploys: read as a check reads it
        from karplint.discover import MissingPath
        from karplint.project import build

        try:
            found = build(list(paths) or ["."], cfg, respect_gitignore=respect_gitignore,
                          follow_links=follow_links).version_lines()
        except MissingPath:
            found = None
        if found:
            version_line = "karpenter version: " + "; ".join(found) + (
                " (several: each file is checked against the one nearest to it)" if len(found) > 1 else "")
    lines = [
        f"configuration file: {cfg.path or '(none: defaults)'}",
        version_line,
        f"fail-on: {cfg.fail_on}",
        f"select: {', '.join(cfg.select)}; extend-select: {', '.join(cfg.extend_select) or '-'}; "
        f"ignore: {', '.join(cfg.ignore) or '-'}",
        f"rules on: {len(rules)}: {' '.join(r.code for r in rules)}",
        f"severity overrides: {', '.join(f'{k}={v}' for k, v in sorted(cfg.severity.items())) or '-'}",
        f"per-file-ignores: {'; '.join(f'{g}: {chr(44).join(c)}' for g, c in cfg.per_file_ignores.items()) or '-'}",
        f"cluster: {', '.join(f'{k}={v}' for k, v in sorted(cfg.cluster.items())) or '-'}",
        f"options: {', '.join(f'{k}={v}' for k, v in sorted(cfg.options.items())) or '(rule defaults)'}",
        f"exclude: {', '.join(cfg.exclude) or '-'}",
        f"project context for named files and directories: {'on' if cfg.project_context else 'off'}",
        f"max-file-size: {cfg.max_file_size:,} bytes",
        "cache: " + ("off (--no-cache)" if no_cache else str(default_directory(cfg))),
    ]
    from karplint.report import escape

    sys.stdout.write("".join(escape.name(line) + "\n" for line in lines))


def _unknown_selector(sel: str) -> str | None:
    """None when `sel` selects something (ALL, a code or code prefix, a slug, a category); else a hint."""
    import difflib

    from karplint.rules import all_rules

    s = sel.strip()
    rules = list(all_rules())
    if s.upper() == "ALL" or any(r.code.startswith(s.upper()) or s.lower() in (r.category, r.slug) for r in rules):
        return None
    known = [r.code for r in rules] + [r.slug for r in rules] + sorted({r.category for r in rules})
    lookalike = "KPL" + s.upper()[3:].translate(str.maketrans("OIL", "011")) if s.upper().startswith("KPL") else s
    if lookalike in known:  # a letter O for a zero, an I or l for a one
        return f"; did you mean `{lookalike}`?"
    near = difflib.get_close_matches(s.upper() if s.upper().startswith("KPL") else s.lower(), known, n=3)
    return f"; did you mean {', '.join(f'`{n}`' for n in near)}?" if near else " (`karplint rules` lists them)"


# `karplint check ...` without typer's argument handling, which imports pydantic and builds type adapters
# (about half the start-up of a small check), and without importing typer at all. Only the options below are
# recognised; anything else (--help, an option added to `check` but not here, a bad value) goes through typer
# (karplint/cli/typer_app.py, whose `check` declares the same options) as before, with the same result.
_FAST_CHECK_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    # parameter: (flags, kind) - kind: flag, str, list, int, or an Enum's name
    "output_format": (("--output-format", "-f"), "OutputFormat"),
    "output": (("--output", "-o"), "path"),
    "select": (("--select",), "list"),
    "extend_select": (("--extend-select",), "list"),
    "ignore": (("--ignore",), "list"),
    "fail_on": (("--fail-on",), "Level"),
    "exit_zero": (("--exit-zero",), "flag"),
    "karpenter_version": (("--karpenter-version",), "str"),
    "config": (("--config",), "str"),
    "exclude": (("--exclude",), "list"),
    "no_respect_gitignore": (("--no-respect-gitignore",), "flag"),
    "force_exclude": (("--force-exclude",), "flag"),
    "follow_links": (("--follow-links",), "flag"),
    "stdin_filename": (("--stdin-filename",), "str"),
    "quiet": (("--quiet", "-q"), "flag"),
    "statistics": (("--statistics",), "flag"),
    "color": (("--color",), "ColorChoice"),
    "show_settings": (("--show-settings",), "flag"),
    "jobs": (("--jobs", "-j"), "int"),
    "no_cache": (("--no-cache",), "flag"),
    "fix": (("--fix",), "flag"),
    "unsafe_fixes": (("--unsafe-fixes",), "flag"),
    "diff": (("--diff",), "flag"),
    "show_fixes": (("--show-fixes",), "flag"),
    "watch": (("--watch",), "flag"),
}
