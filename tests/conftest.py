"""Test-suite wide settings. Helpers for tests live in `karplint.testing` (importable from any test directory)."""

import os
import tempfile

# The suite writes nowhere but temporary directories: karplint's user-level cache (and its key) included, for
# this process and every `karplint` it spawns.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="karplint-test-cache-")
