"""The progress line a long run shows on a terminal: "checking… 1,234/3,000 files", redrawn in place on stderr
and cleared before the report. The per-file stage (engine/parallel.run_files) counts the files it finishes; what
shows them is set by the command line (`showing`), only for a person at a terminal (karplint/cli/check_command.py),
so pipes, files and CI logs never get it. No thread: a thread would stop the run stage from forking
(parallel._can_fork), and the count is a clock read per file in a loop that exists anyway."""

from __future__ import annotations

import contextlib
import os
import time

REDRAW_EVERY = 0.1  # seconds


class ProgressLine:
    def __init__(self, stream, after: float = 1.0):
        self.stream = stream
        self.show_at = time.monotonic() + after  # quiet for short runs: most runs end before this
        self.next_draw = self.show_at
        self.done = 0
        self.total = 0
        self.drawn = False

    def begin(self, total: int) -> None:
        """A pass over `total` files starts (a run may make more than one: a few files re-checked)."""
        self.done, self.total = 0, total

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now >= self.next_draw:
            self.next_draw = now + REDRAW_EVERY
            self._write(f"\rchecking… {min(self.done, self.total):,}/{self.total:,} files\x1b[K")
            self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self._write("\r\x1b[K")
            self.drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # (the terminal went away: the run goes on)
            pass


_SHOWN: ProgressLine | None = None


def current() -> ProgressLine | None:
    """The progress line to advance, or None (most runs)."""
    return _SHOWN


@contextlib.contextmanager
def showing(line: ProgressLine | None):
    """Runs inside advance `line`; it is cleared when they end, however they end."""
    global _SHOWN
    _SHOWN = line
    try:
        yield line
    finally:
        _SHOWN = None
        if line is not None:
            line.clear()


def for_terminal(stream, quiet: bool = False) -> ProgressLine | None:
    """A progress line on `stream` when a person watches it: a terminal, not `--quiet`, not CI (`CI` set by
    GitHub, GitLab and the others), not a dumb terminal. KARPLINT_PROGRESS_AFTER: seconds before it shows
    (default 1; for tests)."""
    if quiet or os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return None
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    try:
        after = float(os.environ.get("KARPLINT_PROGRESS_AFTER", "1"))
    except ValueError:
        after = 1.0
    return ProgressLine(stream, after)
