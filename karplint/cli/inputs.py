"""Loading the files a display command (`render`, `budgets`, `simulate`) shows: the same discovery and readers as
`check`, without rules, cache or workers."""

from __future__ import annotations

import sys

from karplint.model import Model


def load_model(paths: list[str], err, command: str) -> Model | None:
    """The documents of `paths` (files, directories, `-` for stdin) as one Model. Input problems are printed to
    `err` (a rich Console) as `file:line:col: message`, first line only; None, after saying so, when a path does
    not exist."""
    from karplint.config import Config
    from karplint.discover import MissingPath, discover
    from karplint.engine import InputFile, load_input
    from karplint.report import escape

    try:
        found = discover([p for p in paths if p != "-"])
    except MissingPath as exc:
        err.print(f"karplint {command}: {escape.name(str(exc.args[0]))}: no such file or directory", markup=False)
        return None
    inputs = [InputFile(c.display, c.abspath) for c in found.files]
    if "-" in paths:
        inputs.append(InputFile("-", None, sys.stdin.buffer.read()))
    config = Config()
    model = Model()
    for item in inputs:
        result = load_input(item, config)
        for problem in result.problems:
            err.print(escape.name(f"{item.display}:{problem.span.line}:{problem.span.column}: "
                                  f"{problem.message.splitlines()[0]}"), markup=False)
        model.add(result.documents)
    return model
