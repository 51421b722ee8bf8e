"""The command line: `karplint check`, `karplint rules`, `karplint explain`.

Exit codes: 0 no finding at or above `fail-on`; 1 at least one; 2 usage, configuration or internal error.

`check` and the names the commands share are in karplint/cli/check_command.py. Start-up: this module imports no
third-party package. `karplint --version` and `karplint check` parsed by the
argparse fast path (`_fast_check`) run without typer; the typer application (`app`: every command, its options
and help) lives in karplint/cli/typer_app.py and is imported for the other commands, `--help` and any command line
the fast path leaves to typer.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from karplint import __version__
# `check` itself and what the command line shares live in karplint/cli/check_command.py (typer_app imports it
# from there: no import cycle); karplint.cli.check stays the command's name.
from karplint.cli.check_command import _FAST_CHECK_OPTIONS, ColorChoice, Level, OutputFormat, _warn, check


def _fast_check(argv: list[str]) -> int | None:
    """Run `check` with `argv` parsed by argparse; None when typer must handle the command line."""
    import argparse

    if any(a in ("-h", "--help") for a in argv):
        return None
    code = check.__code__  # (its parameters, without importing inspect)
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
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
            elif kind == "ColorChoice":
                kwargs[dest] = ColorChoice(value)
            elif kind == "int":
                kwargs[dest] = int(value)
                if kwargs[dest] < 1:
                    return None
            elif kind == "path":
                kwargs[dest] = Path(value)
        kwargs["paths"] = kwargs["paths"] or None
    except (ValueError, argparse.ArgumentError, SystemExit):
        return None
    check(**kwargs)  # exits through SystemExit
    return 0


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # fast path: no imports beyond the version
        sys.stdout.write(f"karplint {__version__}\n")
        return
    import gc

    # A run allocates many long-lived containers (documents' data, cached summaries) and creates few cycles; the
    # default thresholds (700, 10, 10) make the collector walk them over and over (a quarter of a run that
    # re-reads cached documents). Worker processes are forked and inherit this.
    gc.set_threshold(50_000, 20, 20)
    try:
        if sys.argv[1:2] == ["check"]:
            code = _fast_check(sys.argv[2:])
            if code is not None:
                sys.exit(code)
        from karplint.cli.typer_app import run

        run()
    except SystemExit:
        raise
    except BrokenPipeError:  # another command's output piped into a reader that stopped (`| head`): quiet
        from karplint.cli.check_command import reader_gone

        reader_gone(sys.stdout)
        sys.exit(1)
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C while exiting: no traceback, still 130
        sys.stderr.write("karplint: interrupted\n")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: exit 2 with one line, no traceback
        _warn(f"internal error: {type(exc).__name__}: {exc}")
        if os.environ.get("KARPLINT_DEBUG"):
            raise
        sys.exit(2)


def __getattr__(name: str):
    """`karplint.cli.app`, the typer application, imported on first use."""
    if name == "app":
        from karplint.cli.typer_app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
