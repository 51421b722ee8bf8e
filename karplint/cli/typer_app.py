"""The typer application behind `karplint`: every command with its options and help.

karplint/cli/__init__.py holds the entry point (`main`), karplint/cli/check_command.py `check` itself; this
module (and typer, which it imports) is loaded only for command lines that the entry point's fast paths do not handle.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from karplint import __version__
from karplint.cli import check_command
from karplint.cli.check_command import ColorChoice, Level, OutputFormat, _die, use_color
from karplint.model.versions import LATEST

class InstanceTypesMode(str, Enum):
    """`simulate --instance-types-mode`: the configuration's `instance-types-mode` values."""
    add = "add"
    replace = "replace"


class DisplayFormat(str, Enum):
    """The formats of `simulate` and `rules` (check's OutputFormat has report formats they do not write): their
    --help lists these only, and typer refuses any other."""
    text = "text"
    json = "json"


app = typer.Typer(
    name="karplint",
    help="Lint Karpenter NodePools, EC2NodeClasses (userData included) and the workloads that meet them.",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def run() -> None:
    """`app` as the entry point runs it, with typer's usage errors written through karplint's escaping: they quote
    the command line (a misspelt option, a bad value), which may hold a file name a pull request chose. Exits
    through SystemExit."""
    from karplint.report import escape

    # (click's, or typer's copy of click: the base of the public typer.BadParameter either way)
    click_exception = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    try:
        code = app(prog_name="karplint", standalone_mode=False)
    except click_exception as exc:
        exc.show(file=escape.Escaped(sys.stderr))
        code = exc.exit_code
    except typer.Abort:
        sys.stderr.write("Aborted!\n")
        code = 1
    sys.exit(code if isinstance(code, int) else 0)


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


@app.command()
def check(
    paths: List[str] = typer.Argument(None, help="Files or directories to check (default: .). Use - for stdin."),
    output_format: Optional[OutputFormat] = typer.Option(
        None, "--output-format", "-f",
        help="Report format. Default: text, or github when GITHUB_ACTIONS=true."),
    output: Optional[Path] = typer.Option(
        None, "--output", "-o",
        help="Write the report to this file: a new file renamed into place, never written through a symbolic "
        "link (refused, as is a linked directory inside the working directory or the checked paths). A FIFO or "
        "character device you name is written in place; /dev/stdout, /dev/stderr and /dev/fd/N write to that "
        "descriptor."),
    select: Optional[List[str]] = typer.Option(None, "--select",
                                               help="Rules to run: codes, code prefixes, slugs or categories."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", help="Rules to add to the selection."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Rules to skip (codes, prefixes, slugs, categories)."),
    fail_on: Optional[Level] = typer.Option(None, "--fail-on",
                                            help="Lowest severity that makes the exit code 1 (default: warning)."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when findings are reported."),
    karpenter_version: Optional[str] = typer.Option(
        None, "--karpenter-version", help="Karpenter release the manifests target. Default: `karpenter-version` "
        "of the configuration; else the release the repository deploys (its Helm chart, Terraform or GitOps pin), "
        f"file by file; else the newest bundled release ({LATEST})."),
    config: Optional[str] = typer.Option(None, "--config", help="Configuration file (.karplint.toml or pyproject.toml)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Glob of paths to skip (repeatable)."),
    no_respect_gitignore: bool = typer.Option(False, "--no-respect-gitignore", help="Also check files ignored by git."),
    force_exclude: bool = typer.Option(False, "--force-exclude",
                                       help="Apply excludes to files named on the command line too (for pre-commit)."),
    follow_links: bool = typer.Option(False, "--follow-links",
                                      help="Follow symbolic links that leave the checked project (its "
                                      "configuration root or git work tree, else the named directory; reported, "
                                      "not followed, by default)."),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", help="Name to report for stdin input."),
    quiet: bool = typer.Option(False, "--quiet", "-q",
                               help="text and concise formats: the findings only, no summary line."),
    statistics: bool = typer.Option(False, "--statistics",
                                    help="Instead of the findings, their number per rule, most frequent first."),
    color: Optional[ColorChoice] = typer.Option(
        None, "--color", help="Colour the text report: auto (a terminal; NO_COLOR and FORCE_COLOR are honoured), "
        "always or never."),
    show_settings: bool = typer.Option(False, "--show-settings",
                                       help="Print the settings a check would use (configuration file, release and "
                                       "where it came from, rules on) and exit."),
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
    watch: bool = typer.Option(False, "--watch", help="Check again whenever a file under the paths changes "
                               "(polled every half second), until Ctrl-C. Not with --fix, --diff or stdin."),
) -> None:
    """Check Kubernetes manifests for Karpenter misconfigurations."""
    check_command.check(paths=paths, output_format=output_format, output=output, select=select, extend_select=extend_select,
              ignore=ignore, fail_on=fail_on, exit_zero=exit_zero, karpenter_version=karpenter_version,
              config=config, exclude=exclude, no_respect_gitignore=no_respect_gitignore,
              force_exclude=force_exclude, follow_links=follow_links, stdin_filename=stdin_filename, quiet=quiet,
              statistics=statistics, color=color, show_settings=show_settings,
              jobs=jobs, no_cache=no_cache,
              fix=fix, unsafe_fixes=unsafe_fixes, diff=diff, show_fixes=show_fixes, watch=watch)


@app.command("simulate")
def simulate_cmd(
    paths: List[str] = typer.Argument(None, help="Files or directories to simulate (default: .)."),
    output_format: DisplayFormat = typer.Option(DisplayFormat.text, "--output-format", "-f",
                                                help="text (tables on a terminal) or json."),
    instance_types: Optional[str] = typer.Option(
        None, "--instance-types", help="JSON file of instance types to add to the bundled catalog "
                                       "({name: {labels: {...}, allocatable: {...}}}), or to replace it with "
                                       "(--instance-types-mode replace)."),
    instance_types_mode: Optional[InstanceTypesMode] = typer.Option(
        None, "--instance-types-mode", help="add (default: the bundled catalog plus the given types) or replace "
                                            "(the given types are the whole catalog); default: the configuration's "
                                            "`instance-types-mode`."),
    config: Optional[str] = typer.Option(None, "--config", help="Configuration file (.karplint.toml or pyproject.toml)."),
    color: Optional[ColorChoice] = typer.Option(None, "--color", help="Colour: auto, always or never."),
) -> None:
    """Simulate Karpenter offline: the instance types each NodePool can launch, the NodePools each workload can
    run on (or why none can)."""
    from karplint.cli.simulate import main as simulate_main

    raise typer.Exit(simulate_main(list(paths or []), output_format.value, instance_types, config,
                                   use_color(color, sys.stdout),
                                   instance_types_mode.value if instance_types_mode else None))


@app.command("rules")
def rules_cmd(
    output_format: DisplayFormat = typer.Option(DisplayFormat.text, "--output-format", "-f",
                                                help="text (a table) or json."),
    cel_coverage: bool = typer.Option(False, "--cel-coverage",
                                      help="Instead: the CRDs' CEL rules per release and kind, and which ones "
                                           "karplint evaluates (KPL130)."),
    release: Optional[str] = typer.Option(None, "--release",
                                          help="With --cel-coverage: only this bundled release (e.g. 1.14.1); "
                                               "a usage error without it."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Also each rule's scope (resource, file or run), the kinds it reads and its "
                                      "options with their defaults; with --cel-coverage: every CEL rule."),
) -> None:
    """List every rule: code, slug, category, default severity, fix and summary (-v: scope, kinds, options)."""
    import json

    from karplint.rules import all_rules

    if cel_coverage:
        from karplint.schema.cel import cel_coverage as coverage, print_coverage

        try:
            data = coverage(release)
        except ValueError as exc:
            _die(str(exc))
        if output_format == DisplayFormat.json:
            typer.echo(json.dumps(data, indent=2))
        else:
            print_coverage(data, sys.stdout, verbose=verbose)
        return

    if release is not None:  # the rules themselves are not per release: the flag would be silently ignored
        _die("--release needs --cel-coverage (the rules run at every release; `check "
             "--karpenter-version` chooses the one they judge against)")
    rules = all_rules()
    if output_format == DisplayFormat.json:
        typer.echo(json.dumps([{"code": r.code, "slug": r.slug, "category": r.category, "severity": r.severity,
                                "fix": r.fix, "summary": r.summary,
                                **({"scope": _scope(r), "kinds": list(r.kinds), "options": dict(r.options)}
                                   if verbose else {})} for r in rules], indent=2))
        return

    def row(r) -> tuple[str, ...]:
        base = (r.code, r.slug, r.category, r.severity, r.fix or "")
        if verbose:
            base += (_scope(r), ",".join(r.kinds), ",".join(f"{k}={json.dumps(v)}" for k, v in r.options.items()))
        return (*base, r.summary)

    if not sys.stdout.isatty():  # for grep and cut: one tab-separated line per rule, no wrapping, no padding
        for r in rules:
            typer.echo("\t".join(row(r)))
        return
    from rich.table import Table

    from karplint.report import escape

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("code", "slug", "category", "severity", "fix", *(("scope", "kinds", "options") if verbose else ()),
                "summary"):
        table.add_column(col, overflow="fold")
    for r in rules:
        table.add_row(*row(r))
    from karplint.config import env_disabled_color

    escape.console(no_color=env_disabled_color()).print(table)


def _scope(rule) -> str:
    """What a rule judges at once: a resource, a file, the run; `engine` for the findings the reader or the engine
    emits (no check of its own)."""
    return rule.scope if rule.check is not None else "engine"


@app.command()
def clean(
    path: str = typer.Argument(".", help="A file or directory of the project whose cache to remove."),
    config: Optional[str] = typer.Option(None, "--config", help="Configuration file (its directory's cache)."),
    all_projects: bool = typer.Option(False, "--all",
                                      help="Remove every project's entries from the cache directory the project "
                                           "uses (the user cache or KARPLINT_CACHE_DIR are shared)."),
) -> None:
    """Remove karplint's cache for this project (the directory `check` would use; see README "Performance"): its
    .karplint_cache/, or in a shared cache directory the entries of runs with its configuration or in it."""
    from karplint.config import ConfigError, load_config
    from karplint.engine.cache import clear, default_directory, project_of
    from karplint.report import escape
    from karplint.wording import counted

    if not os.path.lexists(path):  # a typo must not clean the user cache (no configuration found: defaults)
        _die(f"{path}: no such file or directory")
    try:
        cfg = load_config(config, Path(path))
    except ConfigError as exc:
        _die(str(exc))
    directory = default_directory(cfg)
    own = cfg.root is not None and not os.environ.get("KARPLINT_CACHE_DIR")  # the project's .karplint_cache/
    if all_projects or own:
        project = None
    elif cfg.root is not None:
        project = project_of(cfg)
    else:  # runs without a configuration file belong to their working directory
        project = os.path.realpath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
    removed, refused = clear(directory, project)
    if refused:
        _die(f"{directory}: {refused}; nothing removed")
    whose = f" of {project}" if project else ""
    typer.echo(escape.name(f"removed {counted(removed, 'cache file')}{whose} from {directory}" if removed
                           else f"no cache{whose} at {directory}"))


@app.command()
def explain(
    code: str = typer.Argument(..., help="A rule code (KPL201) or slug."),
    color: Optional[ColorChoice] = typer.Option(None, "--color", help="auto (a terminal), always or never."),
    pager: bool = typer.Option(True, "--pager/--no-pager", help="On a terminal, page documents taller than it."),
) -> None:
    """Print a rule's documentation: rendered on a terminal (paged when long), plain Markdown when piped."""
    import sys

    from karplint.docs import rule_doc
    from karplint.rules import get_rule

    r = get_rule(code)
    if r is None:
        import difflib

        from karplint.rules import all_rules

        near = difflib.get_close_matches(code, [x.code for x in all_rules()] + [x.slug for x in all_rules()], n=3)
        _die(f"no rule {code!r}" + (f"; did you mean {', '.join(near)}?" if near else "; `karplint rules` lists them"))
    doc = rule_doc(r.code)
    header = (f"{r.code} ({r.slug}) - category: {r.category}, default severity: {r.severity}"
              + (f", fix: {r.fix}" if r.fix else ""))
    text = doc.text if doc else r.summary
    from karplint.report import escape

    if not use_color(color, sys.stdout):
        typer.echo(escape.no_commands(escape.text(header + "\n\n" + text)))
        return
    from rich.markdown import Markdown

    console = escape.console(force_terminal=True)
    body = Markdown(text, code_theme="ansi_dark")
    if pager and sys.stdout.isatty() and text.count("\n") + 2 > console.height:
        os.environ["LESS"] = less_with_colour(os.environ.get("LESS"))
        with console.pager(styles=True):
            console.print(header, style="bold", markup=False)
            console.print(body)
    else:
        console.print(header, style="bold", markup=False)
        console.print(body)


def less_with_colour(value: str | None) -> str:
    """The LESS options for a coloured page: less shows colour codes raw without -R. Unset: git's default, FRX
    (quit when one screen, colour, leave the screen); set without -R (or -r): the user's options and -R."""
    if value is None:
        return "FRX"
    for word in value.split():
        if word.lstrip("-").lower() == "raw-control-chars" or (
                not word.startswith("--") and ("R" in word or "r" in word) and not word.lstrip("-")[:1] in "PjxyzbhkoOT#"):
            return value
    return f"{value} -R".strip()


@app.command()
def render(
    paths: List[str] = typer.Argument(..., help="Files or directories holding EC2NodeClasses (and NodePools); - for stdin."),
    nodeclass: Optional[str] = typer.Option(None, "--nodeclass", help="Only this EC2NodeClass (by name)."),
    nodepool: Optional[str] = typer.Option(None, "--nodepool", help="Only this NodePool (by name)."),
    karpenter_version: Optional[str] = typer.Option(None, "--karpenter-version",
                                                    help="Karpenter release to render for (default: the one the "
                                                    "project pins, as for check; else the newest bundled)."),
) -> None:
    """Show the userData Karpenter renders per EC2NodeClass, the kubelet argv, and the taints and labels the node
    registers with."""
    from karplint.cli.render import render_command

    raise typer.Exit(render_command(list(paths), nodeclass=nodeclass, nodepool=nodepool,
                                    karpenter_version=karpenter_version))



@app.command()
def server(
    stdio: bool = typer.Option(False, "--stdio", help="Speak LSP on stdin and stdout, as the server always does "
                               "(accepted because clients pass it)."),
    config: Optional[str] = typer.Option(None, "--config",
                                         help="Configuration file for every workspace (default: each workspace's "
                                         ".karplint.toml or pyproject.toml, as `check` finds it)."),
) -> None:
    """Run the language server (LSP over stdio) for editors: findings as you type, fixes and suppressions as code
    actions, rule documentation and simulations on hover. See README "Editor"."""
    if config is not None:
        from karplint.config import ConfigError, load_config

        try:
            load_config(config, Path("."))
        except ConfigError as exc:
            _die(str(exc))
    from karplint.server.lsp import serve

    serve(config_path=config)


@app.command("diff")
def diff(
    args: Optional[List[str]] = typer.Argument(
        None, metavar="[BASE] [PATHS]...",
        help="BASE: a git revision to compare the working tree with (a branch, tag, sha, HEAD~1); default: the merge "
             "base of HEAD with the default branch. The first argument is the base when it names a commit and no "
             "file; every other argument is a path in the repository to compare (default: the current directory)."),
    base: Optional[str] = typer.Option(None, "--base", help="The git revision to compare with (instead of a "
                                       "positional BASE)."),
    old: Optional[str] = typer.Option(None, "--old", help="Compare two trees without git: the old directory or "
                                      "file (with --new)."),
    new: Optional[str] = typer.Option(None, "--new", help="The new directory or file (with --old)."),
    nodes: Optional[int] = typer.Option(None, "--nodes", help="Nodes per NodePool the rollout pace assumes (else "
                                        "the configuration's, else a static pool's replicas)."),
    output_format: str = typer.Option("text", "--output-format", "-f", help="text, json or markdown."),
    exit_code: bool = typer.Option(False, "--exit-code", help="Exit 1 when merging would replace running nodes "
                                   "(drift)."),
    config: Optional[str] = typer.Option(None, "--config", help="Configuration file for both sides (default: "
                                         "each side's own, found as `check` finds it)."),
    karpenter_version: Optional[str] = typer.Option(None, "--karpenter-version", help="The Karpenter release of "
                                                    "both sides (default: what each side deploys, as `check` "
                                                    "finds it)."),
) -> None:
    """What merging a change makes Karpenter do: per NodePool, whether running nodes drift and why, the rollout
    under its disruption budgets, instance types and workloads gained and lost, behaviour changes. See
    docs/diff.md."""
    from karplint.cli.diff import diff_command

    raise typer.Exit(diff_command(list(args or []), base=base, old=old, new=new, nodes=nodes,
                                  output_format=output_format, exit_code=exit_code, config=config,
                                  karpenter_version=karpenter_version))


@app.command()
def budgets(
    paths: List[str] = typer.Argument(..., help="Files or directories holding NodePools; - for stdin."),
    nodepool: Optional[str] = typer.Option(None, "--nodepool", help="Only this NodePool (by name)."),
    nodes: Optional[int] = typer.Option(None, "--nodes", min=0, help="Pool size: also show how many nodes may go."),
    week: Optional[str] = typer.Option(None, "--week", help="A date (YYYY-MM-DD) in the week to show (default: a "
                                                          "reference week; weekly schedules look the same)."),
    output_format: str = typer.Option("text", "--output-format", "-f", help="text or json."),
) -> None:
    """Show each NodePool's effective disruption budget per reason over a week (UTC): what may be disrupted when."""
    from karplint.cli.budgets import budgets_command

    if output_format not in ("text", "json"):
        _die(f"--output-format: {output_format!r} is not one of text, json")
    raise typer.Exit(budgets_command(list(paths), nodepool=nodepool, nodes=nodes, week=week,
                                     output_format=output_format))
