"""Reading one file safely: regular files only, at most a bounded number of bytes, and, for a file that something
karplint read names (a `# Source:` template), only inside the project boundary (karplint/discover/boundary.py)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from karplint.discover.boundary import Boundary


@dataclass
class InputFile:
    """A file of a run: its display path, and where its bytes are (a path, or the bytes themselves)."""

    display: str
    abspath: str | None = None  # None: `data` is given (stdin, tests)
    data: bytes | None = None
    stat: tuple | None = None  # (size, mtime_ns, ctime_ns, inode) seen by discovery: lets the cache skip reading


def read_regular(path: str, limit: int | None = None) -> bytes:
    """At most `limit` + 1 bytes (None: all) of the regular file at `path`. Opened without blocking and checked on the
    descriptor: a file replaced by a FIFO or a device after discovery raises OSError instead of hanging."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"not a regular file ({'FIFO' if stat.S_ISFIFO(st.st_mode) else 'special file'}); not read")
        # read() sizes its buffer from fstat; read(limit + 1) would allocate the whole limit (5 MiB: a mapping of
        # its own) for every file and shrink it, leaving one memory map per file: 65,530 files exhaust them.
        if limit is None or st.st_size <= limit:
            return fh.read()
        return fh.read(limit + 1)


def read_inside(path: str, boundary: Boundary, limit: int | None = None) -> bytes:
    """`read_regular` of a file named by untrusted content: OSError unless `path`, links resolved, lies inside
    `boundary`."""
    if not boundary.contains(path):
        raise OSError(f"{path}: outside the checked project; not read")
    return read_regular(path, limit)
