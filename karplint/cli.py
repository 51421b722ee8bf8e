"""The command line: `karplint check`, `karplint rules`, `karplint explain`.

Exit codes: 0 no finding at or above `fail-on`; 1 at least one; 2 usage, configuration or internal error.
"""

from __future__ import annotations

import os
import sys
import time
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from karplint import __version__

app = typer.Typer(
    name="karplint",
    help="Lint Karpenter NodePools, EC2NodeClasses (userData included) and the workloads that meet them.",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class Level(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


def _die(message: str, code: int = 2) -> None:
    sys.stderr.write(f"karplint: error: {message}\n")
    raise typer.Exit(code)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"karplint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """karplint: catch Karpenter misconfigurations before they reach a cluster."""


def _split(values: Optional[List[str]]) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


@app.command()
def check(
    paths: List[str] = typer.Argument(None, help="Files or directories to check (default: .). Use - for stdin."),
    output_format: Optional[OutputFormat] = typer.Option(
        None, "--output-format", "-f",
        help="Report format. Default: text, or github when GITHUB_ACTIONS=true."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    select: Optional[List[str]] = typer.Option(None, "--select",
                                               help="Rules to run: codes, code prefixes, slugs or categories."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", help="Rules to add to the selection."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Rules to skip (codes, prefixes, slugs, categories)."),
    fail_on: Optional[Level] = typer.Option(None, "--fail-on",
                                            help="Lowest severity that makes the exit code 1 (default: warning)."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when findings are reported."),
    karpenter_version: Optional[str] = typer.Option(
        None, "--karpenter-version", help="Karpenter release the manifests target (default: 1.14.1)."),
    config: Optional[str] = typer.Option(None, "--config", help="Configuration file (.karplint.toml or pyproject.toml)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Glob of paths to skip (repeatable)."),
    no_respect_gitignore: bool = typer.Option(False, "--no-respect-gitignore", help="Also check files ignored by git."),
    force_exclude: bool = typer.Option(False, "--force-exclude",
                                       help="Apply excludes to files named on the command line too (for pre-commit)."),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", help="Name to report for stdin input."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Text format: print findings only, no summary."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1,
                                       help="Worker processes for parsing and per-file rules (default: CPU cores)."),
    no_cache: bool = typer.Option(False, "--no-cache",
                                  help="Neither read nor write the cache (.karplint_cache/ or the user cache dir)."),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes in place, then report what remains. "
                             "With `-`, the fixed document goes to stdout and the report to stderr."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes",
                                      help="With --fix or --diff, apply unsafe fixes too (they change behaviour)."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff of the fixes (apply with `patch -p1` "
                              "or `git apply`) and write nothing; exit 1 when there is something to fix."),
    show_fixes: bool = typer.Option(False, "--show-fixes", help="With --fix or --diff, list the fixes applied."),
) -> None:
    """Check Kubernetes manifests for Karpenter misconfigurations."""
    from karplint.config import ConfigError, load_config
    from karplint.discover import MissingPath, discover
    from karplint.engine import InputFile, check as run_check
    from karplint.loader import Problem
    from karplint.report import render
    from karplint.rules import get_rule
    from karplint.source import Span
    from karplint.versions import Version

    paths = list(paths or ["."])
    if paths.count("-") > 1:
        _die("`-` (stdin) can be given only once")
    first = next((p for p in paths if p != "-"), None)
    search_from = Path(first) if first else (Path(stdin_filename).parent if stdin_filename else Path.cwd())
    try:
        cfg = load_config(config, search_from)
    except ConfigError as exc:
        _die(str(exc))
    if select:
        cfg.select = _split(select)
    if extend_select:
        cfg.extend_select += _split(extend_select)
    if ignore:
        cfg.ignore += _split(ignore)
    for sel in cfg.select + cfg.extend_select + cfg.ignore:
        if sel.upper() != "ALL" and get_rule(sel) is None and not _is_prefix_or_category(sel):
            sys.stderr.write(f"karplint: warning: `{sel}` matches no rule\n")
    if fail_on:
        cfg.fail_on = fail_on.value
    if karpenter_version:
        try:
            cfg.karpenter_version = Version.parse(karpenter_version)
            cfg.karpenter_version_source = "--karpenter-version"
        except ValueError as exc:
            _die(f"--karpenter-version: {exc}")
    if exclude:
        cfg.exclude += list(exclude)

    started_ns = time.time_ns()  # before discovery stat()s the files: the cache's racy-check reference
    try:
        found = discover([p for p in paths if p != "-"], exclude=cfg.exclude,
                         respect_gitignore=not no_respect_gitignore, force_exclude=force_exclude,
                         exclude_root=cfg.root)
    except MissingPath as exc:
        _die(f"{exc.args[0]}: no such file or directory")
    inputs = [InputFile(c.display, c.abspath, stat=getattr(c, "stat", None)) for c in found.files]
    if "-" in paths:
        inputs.append(InputFile(stdin_filename or "-", None, sys.stdin.buffer.read()))
    extra = [(p.display, Problem("KPL003", p.message, Span.point(1, 1))) for p in found.problems]
    for first_template, templates in found.helm_charts.items():
        chart = first_template.split("/templates/")[0] if "/templates/" in first_template else os.path.dirname(first_template)
        extra.append((first_template, Problem(
            "KPL005",
            f"{len(templates)} Helm template file(s) in chart `{chart}` skipped: templates are not YAML until "
            f"rendered; check the rendered chart with `helm template {chart} | karplint check --stdin-filename "
            f"{chart}/rendered.yaml -`", Span.point(1, 1))))

    report_out = sys.stdout
    from karplint.parallel import default_jobs

    cache = None
    if not no_cache and os.environ.get("KARPLINT_NO_CACHE", "") in ("", "0"):
        from karplint.cache import Cache
        from karplint.engine import selected_rules

        cache = Cache.for_run(cfg, selected_rules(cfg))
    if fix or diff:  # autofix: the logic lives in karplint/fix.py
        from karplint.fix import run_fixes

        report, code = run_fixes(inputs, cfg, extra, unsafe=unsafe_fixes, diff=diff, show=show_fixes,
                                 jobs=jobs or default_jobs(), cache=cache)
        if report is None:
            raise typer.Exit(code)
        if "-" in paths:
            report_out = sys.stderr  # stdout carries the fixed document
    else:
        report = run_check(inputs, cfg, extra_problems=extra, jobs=jobs or default_jobs(), cache=cache,
                           started_ns=started_ns)

    fmt = output_format.value if output_format else (
        "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    color = (output is None and fmt == "text" and report_out.isatty() and "NO_COLOR" not in os.environ)
    try:
        if output is not None:
            with open(output, "w", encoding="utf-8") as fh:
                render(report, fmt, fh, color=False)
        else:
            render(report, fmt, report_out, color=color)
    except OSError as exc:
        _die(f"cannot write the report: {exc.strerror}")
    if not inputs and not found.problems:
        sys.stderr.write("karplint: warning: no YAML or JSON files found to check\n")
    raise typer.Exit(0 if exit_zero or not report.failed() else 1)


def _is_prefix_or_category(sel: str) -> bool:
    from karplint.rules import all_rules

    s = sel.strip()
    return any(r.code.startswith(s.upper()) or s.lower() == r.category for r in all_rules())


@app.command("rules")
def rules_cmd(
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--output-format", "-f",
                                               help="text (a table) or json."),
    cel_coverage: bool = typer.Option(False, "--cel-coverage",
                                      help="Instead: the CRDs' CEL rules per release and kind, and which ones "
                                           "karplint evaluates (KPL130)."),
    release: Optional[str] = typer.Option(None, "--release",
                                          help="With --cel-coverage: only this bundled release (e.g. 1.14.1)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="With --cel-coverage: list every rule."),
) -> None:
    """List every rule: code, slug, category, default severity, fix and summary."""
    import json

    from karplint.rules import all_rules

    if cel_coverage:
        from karplint.schema.cel import cel_coverage as coverage, print_coverage

        try:
            data = coverage(release)
        except ValueError as exc:
            _die(str(exc))
        if output_format == OutputFormat.json:
            typer.echo(json.dumps(data, indent=2))
        else:
            print_coverage(data, sys.stdout, verbose=verbose)
        return

    rules = all_rules()
    if output_format == OutputFormat.json:
        typer.echo(json.dumps([{"code": r.code, "slug": r.slug, "category": r.category, "severity": r.severity,
                                "fix": r.fix, "summary": r.summary} for r in rules], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("code", "slug", "category", "severity", "fix", "summary"):
        table.add_column(col, overflow="fold")
    for r in rules:
        table.add_row(r.code, r.slug, r.category, r.severity, r.fix or "", r.summary)
    tty = sys.stdout.isatty()
    Console(no_color="NO_COLOR" in os.environ or not tty, width=None if tty else 200).print(table)


@app.command()
def explain(code: str = typer.Argument(..., help="A rule code (KPL201) or slug.")) -> None:
    """Print a rule's documentation."""
    from karplint.docs import rule_doc
    from karplint.rules import get_rule

    r = get_rule(code)
    if r is None:
        _die(f"no rule {code!r}; `karplint rules` lists them")
    doc = rule_doc(r.code)
    typer.echo(f"{r.code} ({r.slug}) - category: {r.category}, default severity: {r.severity}"
               + (f", fix: {r.fix}" if r.fix else "") + "\n")
    typer.echo(doc.text if doc else r.summary)


@app.command()
def render(
    paths: List[str] = typer.Argument(..., help="Files or directories holding EC2NodeClasses (and NodePools); - for stdin."),
    nodeclass: Optional[str] = typer.Option(None, "--nodeclass", help="Only this EC2NodeClass (by name)."),
    nodepool: Optional[str] = typer.Option(None, "--nodepool", help="Only this NodePool (by name)."),
    karpenter_version: Optional[str] = typer.Option(None, "--karpenter-version",
                                                    help="Karpenter release to render for (default: latest)."),
) -> None:
    """Show the userData Karpenter renders per EC2NodeClass, the kubelet argv, and the taints and labels the node
    registers with."""
    from karplint.render_cli import render_command

    raise typer.Exit(render_command(list(paths), nodeclass=nodeclass, nodepool=nodepool,
                                    karpenter_version=karpenter_version))


# `karplint check ...` without typer's argument handling, which imports pydantic and builds type adapters
# (about half the start-up of a small check). Only the options below are recognised; anything else (--help,
# an option added to `check` but not here, a bad value) goes through typer as before, with the same result.
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
    "stdin_filename": (("--stdin-filename",), "str"),
    "quiet": (("--quiet", "-q"), "flag"),
    "jobs": (("--jobs", "-j"), "int"),
    "no_cache": (("--no-cache",), "flag"),
    "fix": (("--fix",), "flag"),
    "unsafe_fixes": (("--unsafe-fixes",), "flag"),
    "diff": (("--diff",), "flag"),
    "show_fixes": (("--show-fixes",), "flag"),
}


def _fast_check(argv: list[str]) -> int | None:
    """Run `check` with `argv` parsed by argparse; None when typer must handle the command line."""
    import argparse
    import inspect

    if any(a in ("-h", "--help") for a in argv):
        return None
    params = inspect.signature(check).parameters
    if set(params) != set(_FAST_CHECK_OPTIONS) | {"paths"}:  # `check` changed: let typer parse
        return None
    parser = argparse.ArgumentParser(prog="karplint check", add_help=False, exit_on_error=False)
    parser.add_argument("paths", nargs="*")
    for dest, (flags, kind) in _FAST_CHECK_OPTIONS.items():
        if kind == "flag":
            parser.add_argument(*flags, dest=dest, action="store_true")
        elif kind == "list":
            parser.add_argument(*flags, dest=dest, action="append")
        else:
            parser.add_argument(*flags, dest=dest)
    parser.error = lambda message: (_ for _ in ()).throw(ValueError(message))  # type: ignore[method-assign]
    try:
        ns = parser.parse_intermixed_args(argv)
        kwargs = vars(ns)
        for dest, (_flags, kind) in _FAST_CHECK_OPTIONS.items():
            value = kwargs[dest]
            if value is None:
                continue
            if kind == "OutputFormat":
                kwargs[dest] = OutputFormat(value)
            elif kind == "Level":
                kwargs[dest] = Level(value)
            elif kind == "int":
                kwargs[dest] = int(value)
                if kwargs[dest] < 1:
                    return None
            elif kind == "path":
                kwargs[dest] = Path(value)
        kwargs["paths"] = kwargs["paths"] or None
    except (ValueError, argparse.ArgumentError, SystemExit):
        return None
    try:
        check(**kwargs)
    except typer.Exit as exc:
        return exc.exit_code
    return 0


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # fast path: no imports beyond the version
        sys.stdout.write(f"karplint {__version__}\n")
        return
    try:
        if sys.argv[1:2] == ["check"]:
            code = _fast_check(sys.argv[2:])
            if code is not None:
                sys.exit(code)
        app(prog_name="karplint")
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("karplint: interrupted\n")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: exit 2 with one line, no traceback
        sys.stderr.write(f"karplint: internal error: {type(exc).__name__}: {exc}\n")
        if os.environ.get("KARPLINT_DEBUG"):
            raise
        sys.exit(2)
