"""karplint/safe_write.py on its own: Ctrl-C deferred to the end of a write, a replaced file's temporary file
removed whatever stops the write, and which report targets are refused."""

from __future__ import annotations

import os
import signal

import pytest

from karplint.safe_write import interrupts_deferred, output_refusal, replace_file


def test_ctrl_c_inside_the_block_is_raised_when_it_ends():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            signal.raise_signal(signal.SIGINT)
            steps.append("finished")
    assert steps == ["finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_interrupted_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def write(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        replace_file(target, write, defer_interrupts=False)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f"]


def test_replacing_a_link_replaces_the_link_not_its_target(tmp_path):
    (tmp_path / "victim").write_bytes(b"precious")
    (tmp_path / "f").symlink_to("victim")
    replace_file(tmp_path / "f", lambda fh: fh.write(b"new"))
    assert (tmp_path / "victim").read_bytes() == b"precious"
    assert not (tmp_path / "f").is_symlink() and (tmp_path / "f").read_bytes() == b"new"


@pytest.mark.parametrize("name, why", [
    ("/dev/stdout", None), ("/dev/stderr", None), ("/dev/fd/1", None), ("/proc/self/fd/2", None),
    ("/dev/null", None), ("new.txt", None), ("link", "is a symbolic link"), ("dir", "is a directory"),
    ("dir/../link", "is a symbolic link"), ("linkdir/x", "is a symbolic link"),
    ("missing/x", "directory 'missing' does not exist"),
])
def test_output_refusal(tmp_path, monkeypatch, name, why):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to("elsewhere")
    (tmp_path / "linkdir").symlink_to("dir")
    got = output_refusal(name, ["."])
    assert (got if got is None else got.split(" (")[0]) == why
