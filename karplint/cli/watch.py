"""`karplint check --watch`: check, then check again whenever a file under the checked paths changes, for a
terminal without an editor. Changes are seen by polling (stdlib only): every half second, the size, mtime and
inode of every file under the paths and the mtime of every directory (a file added, removed or renamed). The
cache makes the re-check cost what changed. Ctrl-C ends it with exit 0."""

from __future__ import annotations

import os
import sys
import time
from typing import Callable

POLL_SECONDS = 0.5
# Written by karplint itself or by git: a change there is not the user's.
SKIPPED_DIRECTORIES = frozenset({".git", ".karplint_cache", "__pycache__"})


def snapshot(paths: list[str], ignored: frozenset[str] = frozenset()) -> dict[str, tuple]:
    """path -> (size, mtime_ns, inode) of each file under `paths` (and the paths themselves), mtime_ns of each
    directory; `ignored`: absolute paths left out (the report file of `--output`)."""
    seen: dict[str, tuple] = {}

    def visit(path: str) -> None:
        try:
            st = os.stat(path)
        except OSError:
            seen[path] = ()  # (missing or unreadable: its appearing is a change)
            return
        if os.path.isdir(path):
            seen[path] = (st.st_mtime_ns,)
            try:
                entries = list(os.scandir(path))
            except OSError:
                return
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRECTORIES:
                        visit(entry.path)
                elif os.path.abspath(entry.path) not in ignored:
                    try:
                        est = entry.stat()
                    except OSError:
                        seen[entry.path] = ()
                        continue
                    seen[entry.path] = (est.st_size, est.st_mtime_ns, est.st_ino)
        else:
            seen[path] = (st.st_size, st.st_mtime_ns, st.st_ino)

    for p in paths:
        visit(p)
    return seen


def watch(paths: list[str], check_once: Callable[[], None], ignored: frozenset[str] = frozenset()) -> None:
    """Run `check_once` (a whole `karplint check`, which exits through SystemExit), then again after each change
    under `paths`, until Ctrl-C; exits 0 then."""
    try:
        while True:
            before = snapshot(paths, ignored)  # (taken first: a change made during the run starts another)
            if sys.stdout.isatty():
                sys.stdout.write("\x1b[H\x1b[2J")  # a clear screen for each report
            try:
                check_once()
            except SystemExit:  # (each run's status; a configuration error was shown, and its fix is watched for)
                pass
            files = sum(1 for v in before.values() if len(v) == 3)
            sys.stdout.flush()
            sys.stderr.write(f"karplint: watching {files:,} file{'s' if files != 1 else ''}… (Ctrl-C to stop)\n")
            sys.stderr.flush()
            while snapshot(paths, ignored) == before:
                time.sleep(POLL_SECONDS)
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # (a second Ctrl-C while leaving)
        sys.stderr.write("\n")
        raise SystemExit(0)
