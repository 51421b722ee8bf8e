"""What `--fix` keeps of the file it replaces: owner, group and mode bits (setuid and setgid included), and the
names of a file with several hard links (refused with a note: a new file would leave the other names with the
old text)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fixsupport import NP, run_fix_cli  # noqa: F401 - pytest fixtures

import fixrules  # noqa: E402 - (on the path once fixsupport is imported)

from karplint.testing import UNPRIVILEGED

SEL = ("--select", "KPL991,KPL994", "--no-respect-gitignore", "--no-cache")


def _fixed(text: str) -> bool:
    return "WhenEmptyOrUnderutilized" in text


@pytest.mark.parametrize("unprivileged", [False, True])
def test_setuid_setgid_mode_kept(tmp_path, run_fix_cli, unprivileged):
    """As the file's owner, with root's capabilities dropped too (karplint.testing.UNPRIVILEGED)."""
    p = tmp_path / "np.yaml"
    p.write_text(NP.format(name="a"))
    p.chmod(0o6750)
    if unprivileged and os.geteuid() == 0:
        r = subprocess.run([*UNPRIVILEGED, sys.executable, str(Path(fixrules.__file__)), "check", *SEL, "--fix",
                            "np.yaml"], cwd=tmp_path, capture_output=True, timeout=60)
    else:
        r = run_fix_cli("check", *SEL, "--fix", "np.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _fixed(p.read_text())
    assert stat.S_IMODE(p.stat().st_mode) == 0o6750


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_owner_group_and_setuid_setgid_kept_as_root(tmp_path, run_fix_cli):
    p = tmp_path / "np.yaml"
    p.write_text(NP.format(name="a"))
    os.chown(p, 1234, 2345)
    p.chmod(0o6754)
    r = run_fix_cli("check", *SEL, "--fix", "np.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    st = p.stat()
    assert _fixed(p.read_text())
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 2345, 0o6754)


def test_hard_linked_file_is_left_unchanged_with_a_note(tmp_path, run_fix_cli):
    p = tmp_path / "np.yaml"
    p.write_text(NP.format(name="a"))
    os.link(p, tmp_path / "other-name.yml.bak")
    before = p.read_bytes()
    r = run_fix_cli("check", *SEL, "--fix", "np.yaml", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert (b"karplint: error: np.yaml: 2 fix(es) not applied, file left unchanged: it has 2 hard links, and a new "
            b"file would leave the other names with the old text; apply the fixes by hand (see --diff)\n") in r.stderr
    assert p.read_bytes() == before and (tmp_path / "other-name.yml.bak").read_bytes() == before
    assert os.stat(p).st_ino == os.stat(tmp_path / "other-name.yml.bak").st_ino
    assert b"KPL991" in r.stdout and b"KPL994" in r.stdout  # the findings stay
    assert sorted(os.listdir(tmp_path)) == ["np.yaml", "other-name.yml.bak"]
