"""The action's `args` input made into `karplint check` arguments, and refused where it would change the report
the action reads.

One rule, so that both ways of writing an option and its value work:
- a line that starts with `-` or holds a quote is split like a POSIX shell line (`shlex`: quotes and backslashes
  honoured, nothing expanded or run): `--exclude "blue prints/**"` is two arguments;
- any other line is ONE argument, spaces kept (the value of the option on the line before):
  `--exclude` then `blue prints/**` on the next line is the same two arguments.
Blank lines are skipped. Nothing here imports karplint: it runs before anything is known about the install.
"""

from __future__ import annotations

import shlex

# `karplint check` options that take a value (the next argument, or `=value`, or the rest of `-fVALUE`);
# tests/test_action.py checks this against the command's own definition.
VALUE_OPTIONS = frozenset({
    "-f", "--output-format", "-o", "--output", "--select", "--extend-select", "--ignore", "--fail-on",
    "--karpenter-version", "--config", "--exclude", "--stdin-filename", "--color", "-j", "--jobs",
})

# The action runs karplint once with `--output-format json --output FILE` and renders the annotations, the SARIF
# file and the summary from that JSON: these would change or replace it.
_WHY = {
    "report": "the action runs karplint once with --output-format json and renders the annotations, the SARIF "
              "file and the summary from that report (use the sarif-file and summary inputs)",
    "writes": "the action only checks: it writes nothing in the checkout",
    "paths": "paths go in the `paths` input, one per line",
}
REFUSED = {
    "-f": "report", "--output-format": "report", "-o": "report", "--output": "report", "--statistics": "report",
    "--show-settings": "report", "-h": "report", "--help": "report", "--watch": "report",
    "--fix": "writes", "--diff": "writes", "--": "paths",
}


class ArgsError(ValueError):
    """The `args` input cannot be used; the message says which line or argument and why."""


def split_lines(text: str) -> list[str]:
    """The arguments that the `args` input spells (the rule in this module's docstring)."""
    argv: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("-") or '"' in line or "'" in line:
            try:
                argv += shlex.split(line, posix=True)
            except ValueError as exc:  # "No closing quotation", "No escaped character"
                raise ArgsError(f"args line {number}: {exc}: {line}") from None
        else:
            argv.append(line)
    return argv


def refusal(argv: list[str]) -> str | None:
    """Why `argv` cannot be passed to the action's check, or None."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--" or arg.startswith("--"):
            name, has_value, _ = arg.partition("=")
            if name in REFUSED:
                return f"args: {name} is not accepted here: {_WHY[REFUSED[name]]}"
            if name in VALUE_OPTIONS and not has_value:
                i += 1  # its value, whatever it looks like
        elif arg.startswith("-") and arg != "-":  # short options, possibly grouped: -qf json, -fjson, -j2
            for k, letter in enumerate(arg[1:], 1):
                name = "-" + letter
                if name in REFUSED:
                    return f"args: {name} (in {arg}) is not accepted here: {_WHY[REFUSED[name]]}"
                if name in VALUE_OPTIONS:
                    if k == len(arg) - 1:
                        i += 1
                    break
    return None


def parse(text: str) -> list[str]:
    """`karplint check` arguments from the `args` input; ArgsError when they cannot be used."""
    argv = split_lines(text)
    why = refusal(argv)
    if why:
        raise ArgsError(why)
    return argv
