"""Test-suite wide settings. Helpers for tests live in `karplint.testing` (importable from any test directory)."""

import os
import tempfile

# The suite writes nowhere but temporary directories: karplint's user-level cache (and its key) included, for
# this process and every `karplint` it spawns.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="karplint-test-cache-")


# ...and this holds it: files that appear in the repository during the run (a report written to `-o` in the
# working directory, a `.karplint_cache/`) fail the session.
def _new_in_repo() -> set[str] | None:
    import subprocess
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    try:
        proc = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all", "--ignored"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return {ln[3:] for ln in proc.stdout.splitlines()
            if ln[:2] in ("??", "!!") and not ln[3:].startswith((".hypothesis", ".pytest_cache")) and "__pycache__"
            not in ln}


def pytest_sessionstart(session):
    session.config._karplint_repo_before = _new_in_repo()


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "_karplint_repo_before", None)
    after = _new_in_repo()
    if before is None or after is None or hasattr(session.config, "workerinput"):
        return  # not a git checkout, or an xdist worker (the controller checks once, at the end)
    appeared = sorted(after - before)
    if appeared:
        session.config.get_terminal_writer().line(
            f"tests wrote into the repository (they must write only to temporary directories): {appeared}", red=True)
        session.exitstatus = 1
