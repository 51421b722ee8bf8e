"""Writing files when a checked tree is untrusted: never through a symbolic link, never a torn file, never a
temporary file left behind by Ctrl-C. The cache, `--fix` and `--output` write through here.

    replace_file(path, write, like=stat)   a fresh file (O_CREAT | O_EXCL | O_NOFOLLOW) in the target's directory,
                                           renamed over `path`: a link there is replaced, never written through
    interrupts_deferred()                  Ctrl-C during the block takes effect when it ends
    output_refusal(path, guarded)          why a report must not be written to a path the user named, or None
    write_output(path, write)              write a report there (regular file: replaced; FIFO or character
                                           device: written in place; /dev/stdout and /dev/fd/N: that descriptor)

This module imports only karplint/discover/boundary.py (which imports nothing from karplint): every stage may use it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import threading
from typing import BinaryIO, Callable, Iterable, Iterator

from karplint.discover.boundary import Boundary

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT (Ctrl-C) received during the block is delivered when it ends, so the block is never cut short: a
    file is then either its old or its new content and no temporary file is left. Only the main thread can
    handle signals; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield  # (None: a handler not set from Python, which could not be put back)
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)  # now, to the handler that was there (KeyboardInterrupt)


def _keep_owner_and_mode(fd: int, like: os.stat_result) -> None:
    """Give the new file `like`'s owner and group where permitted, then its mode bits. In this order: changing
    the owner clears setuid and setgid. Another user's file gets our ownership (only root may give files
    away), and a group we are not in stays ours: a refusal (EPERM, or a filesystem without owners) is not an
    error here."""
    for uid, gid in ((like.st_uid, like.st_gid), (-1, like.st_gid)):
        try:
            os.fchown(fd, uid, gid)
            break
        except OSError:
            continue
    os.fchmod(fd, stat.S_IMODE(like.st_mode))


def replace_file(path: str | os.PathLike, write: Callable[[BinaryIO], object], *, mode: int = 0o600,
                 like: os.stat_result | None = None, durable: bool = False, prefix: str = ".tmp-",
                 suffix: str = "", defer_interrupts: bool = True) -> None:
    """Make `path` hold what `write(file)` writes, atomically: a new file created exclusively, without following
    a link, in `path`'s directory, then renamed over `path` (readers see the old file or the new one; a link at
    `path` is replaced, not followed). `mode`: the new file's permission bits (the umask applies); `like`: the
    stat of the file it replaces, whose owner, group and mode bits (setuid, setgid and sticky included) it
    keeps. `durable`: fsync the file and the directory. `defer_interrupts`: Ctrl-C waits until the file is in
    place (a writer that streams a large file may rather be cut short: its temporary file is removed either
    way). OSError when it cannot be done; `path` is then unchanged."""
    directory = os.path.dirname(os.fspath(path)) or "."
    tmp = os.path.join(directory, f"{prefix}{os.getpid()}-{os.urandom(6).hex()}{suffix}")
    with interrupts_deferred() if defer_interrupts else contextlib.nullcontext():
        fd = os.open(tmp, _CREATE, mode)
        try:
            with os.fdopen(fd, "wb") as fh:
                write(fh)
                fh.flush()
                if like is not None:
                    _keep_owner_and_mode(fh.fileno(), like)
                if durable:
                    os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        if durable:
            with contextlib.suppress(OSError):
                dfd = os.open(directory, os.O_RDONLY)
                try:
                    os.fsync(dfd)
                finally:
                    os.close(dfd)


# ---------------------------------------------------------------------------------------------- reports

# Names of a descriptor this process already has, which the user can only have typed (a link in a checked tree
# cannot make them type it): `-o /dev/stdout` is a common idiom. They are links (to /proc/self/fd/N), so they
# are recognised by name and written through the descriptor.
_DESCRIPTOR_NAME = re.compile(r"/dev/(stdout|stderr)|/dev/fd/(\d+)|/proc/self/fd/(\d+)")


def _descriptor(path: str) -> int | None:
    m = _DESCRIPTOR_NAME.fullmatch(path)
    if m is None:
        return None
    return {"stdout": 1, "stderr": 2}[m.group(1)] if m.group(1) else int(m.group(2) or m.group(3))


def output_refusal(path: str | os.PathLike, guarded: Iterable[str | os.PathLike] = ()) -> str | None:
    """Why a report must not be written to `path`, or None. Refused: a symbolic link (dangling or not: the
    checked tree may have committed it, e.g. `karplint.sarif -> ../victim`); a directory on the way that is a
    link lying inside one of the `guarded` directories (the working directory and the checked trees: a
    committed `reports -> /elsewhere`); anything but a regular file, a FIFO or a character device (which the
    user named, and git cannot commit); a directory that does not exist. Links above the guarded directories
    (the system's own, such as /var -> /private/var) are the user's, and followed."""
    text = os.fspath(path)
    if _descriptor(text) is not None:
        return None
    guarded_dirs = Boundary(os.path.realpath(g) for g in guarded)
    parts = text.split(os.sep)
    prefix = os.sep if text.startswith(os.sep) else ""
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        prefix = os.path.join(prefix, part)
        try:
            st = os.lstat(prefix)
        except FileNotFoundError:
            if i == len(parts) - 1:
                return None  # a new file
            return f"directory {prefix!r} does not exist"
        except OSError as exc:
            return exc.strerror or str(exc)
        last = i == len(parts) - 1
        if stat.S_ISLNK(st.st_mode) and part != ".." and (last or guarded_dirs.contains(os.path.dirname(prefix) or ".")):
            return "is a symbolic link (a checked tree could have placed it there); name the real path"
        if last:
            if stat.S_ISDIR(st.st_mode):
                return "is a directory"
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
                return "is not a regular file, a FIFO or a character device"
    return None


def write_output(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> None:
    """Write a report to `path`, which `output_refusal` accepted, with `write(binary file)` (streamed: a report
    is never held whole in memory): a descriptor's name writes to that descriptor, an existing FIFO or character
    device is written in place (opened without following a link and without creating anything), anything else
    is replaced atomically (`replace_file`). OSError when it cannot be."""
    text = os.fspath(path)
    fd = _descriptor(text)
    if fd is not None:
        with os.fdopen(os.dup(fd), "wb") as fh:
            write(fh)
        return
    try:
        st = os.lstat(text)
    except FileNotFoundError:
        st = None
    if st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
        with os.fdopen(os.open(text, os.O_WRONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)), "wb") as fh:
            write(fh)
        return
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    replace_file(text, write, mode=0o666, prefix=f".{os.path.basename(text)}.", suffix=".karplint~")
