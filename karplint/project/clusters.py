"""The clusters of a project: the `clusters` setting's globs name directories that each hold one cluster; a file
belongs to the deepest of them that holds it, or to none (shared by all: bases, common add-ons).

Test data is a world of its own too: the files under a test directory (`tests/`, `fixtures/`, ... : its scope) are
judged with the project's other files, but the project's other files never with them. A Cilium install, a
NodePool or a release pin among the fixtures is not what the project deploys."""

from __future__ import annotations

import os

# Directory names that hold tests and their data (also the program-code notice's, karplint/readers/foreign.py).
TEST_DIRS = frozenset({"test", "tests", "__tests__", "testdata", "fixtures", "spec", "e2e"})


def test_scope(path: str) -> str | None:
    """The test directory a file lies in (the path up to the first part named as one, `/`-separated), or None.
    `path`: relative to the project root, or a display path (relative to where the run started)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    for i, part in enumerate(parts[:-1]):
        if part in TEST_DIRS:
            return "/".join(parts[:i + 1])
    return None


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
