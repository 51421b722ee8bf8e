"""Test data: files under a directory named as tests hold (`tests/`, `fixtures/`, ...) are fixtures, not what a
project deploys. Read by the project stage and the run stage (karplint/project/clusters.py: test data is context
only for itself) and by the program-code notice (karplint/readers/foreign.py: no KPL016 on test code)."""

from __future__ import annotations

# Directory names that hold tests and their data.
TEST_DIRS = frozenset({"test", "tests", "__tests__", "testdata", "fixtures", "spec", "e2e"})


def test_scope(path: str) -> str | None:
    """The test directory a file lies in (the path up to the first part named as one, `/`-separated), or None.
    `path`: relative to the project root, or a display path (relative to where the run started)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    for i, part in enumerate(parts[:-1]):
        if part in TEST_DIRS:
            return "/".join(parts[:i + 1])
    return None
