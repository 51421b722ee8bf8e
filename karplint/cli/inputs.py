"""Loading the files a display command (`render`, `budgets`, `simulate`) shows, with its problems printed: the
loading itself is karplint/engine/load.py's (the same project as `check`)."""

from __future__ import annotations

from karplint.engine.load import Loaded, load


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
