"""Loading the files a display command (`render`, `budgets`, `simulate`) shows: the same discovery and readers as
`check`, without rules, cache or workers."""

from __future__ import annotations

import sys

from karplint.model import Model


def read_model(paths: list[str], config=None, *, exclude_root: str | None = None,
               cluster_state: bool = False) -> tuple[Model, list[str]]:
    """The documents of `paths` (files, directories, `-` for stdin) as one Model, and every input problem as
    `file:line:col: message` (first line). `cluster_state`: without documentation examples (YAML blocks of
    Markdown files), which `check` does not count as the cluster's objects either. Raises
    `karplint.discover.MissingPath`."""
    from karplint.config import Config
    from karplint.discover import discover
    from karplint.engine import InputFile, load_input

    found = discover([p for p in paths if p != "-"], exclude_root=exclude_root)
    inputs = [InputFile(c.display, c.abspath) for c in found.files]
    if "-" in paths:
        inputs.append(InputFile("-", None, sys.stdin.buffer.read()))
    config = config or Config()
    model = Model()
    problems: list[str] = []
    for item in inputs:
        result = load_input(item, config)
        problems.extend(f"{item.display}:{p.span.line}:{p.span.column}: {p.message.splitlines()[0]}"
                        for p in result.problems)
        docs = result.documents
        if cluster_state:
            docs = [d for d in docs if not d.documentation_example]
        model.add(docs)
    return model, problems


def load_model(paths: list[str], err, command: str) -> Model | None:
    """`read_model` for a display command: input problems are printed to `err` (a rich Console); None, after
    saying so, when a path does not exist."""
    from karplint.discover import MissingPath
    from karplint.report import escape

    try:
        model, problems = read_model(paths)
    except MissingPath as exc:
        err.print(f"karplint {command}: {escape.name(str(exc.args[0]))}: no such file or directory", markup=False)
        return None
    for problem in problems:
        err.print(escape.name(problem), markup=False)
    return model
