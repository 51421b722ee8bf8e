"""The clusters of a project: the `clusters` setting's globs name directories that each hold one cluster; a file
belongs to the deepest of them that holds it, or to none (shared by all: bases, common add-ons).

Test data is a world of its own too: the files under a test directory (`tests/`, `fixtures/`, ... : its scope) are
judged with the project's other files, but the project's other files never with them. A Cilium install, a
NodePool or a release pin among the fixtures is not what the project deploys."""

from __future__ import annotations

import os

from karplint.discover.testdirs import test_scope  # noqa: F401 - (the scope test data is judged in)

def cluster_dirs(config) -> list[str]:
    """The real paths of the directories the `clusters` globs match (relative to the configuration root, else the
    working directory, where the globs were written), sorted; empty without the setting."""
    if not config.clusters:
        return []
    import glob

    root = config.root or os.getcwd()
    return sorted({os.path.realpath(d) for pattern in config.clusters
                   for d in glob.glob(os.path.join(root, pattern)) if os.path.isdir(d)})


def cluster_of(display: str, clusters: list[str]) -> str | None:
    """The cluster directory (a real path among `clusters`) holding the file `display`, the deepest one; None
    for files outside every cluster (shared by all: bases, common add-ons)."""
    real = os.path.realpath(display)
    best = None
    for c in clusters:
        if (real == c or real.startswith(c + os.sep)) and (best is None or len(c) > len(best)):
            best = c
    return best


def cluster_resolver(config):
    """`resource -> its cluster directory (None: shared by all)` when the `clusters` setting names several, else
    None: for a front end that judges a whole project at once (`karplint simulate`; `check` runs once per cluster)."""
    dirs = cluster_dirs(config)
    if not dirs:
        return None
    return lambda res: cluster_of(str(res.doc.path), dirs)
