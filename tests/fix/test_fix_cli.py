"""`karplint check --fix / --unsafe-fixes / --diff` end to end (subprocess, test rules registered)."""

from __future__ import annotations

import codecs
import os
import shutil
import stat
import subprocess

from fixsupport import NP, run_fix_cli  # noqa: F401 - pytest fixtures



def make_tree(root):
    """Several files covering the layouts the fixes must survive."""
    (root / "sub").mkdir()
    files = {
        "np.yaml": NP.format(name="a").encode(),
        "sub/crlf.yaml": NP.format(name="b").replace("\n", "\r\n").encode(),
        "sub/nofinal.yaml": ("other: doc\n---\n" + NP.format(name="c")).rstrip("\n").encode(),
        "bom.yaml": codecs.BOM_UTF8 + NP.format(name="d").encode(),
        "clean.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    return files


def snapshot(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


SEL = ("--select", "KPL991,KPL992,KPL994", "--no-respect-gitignore")


def test_fix_then_idempotent(tmp_path, run_fix_cli):
    make_tree(tmp_path)
    p = run_fix_cli("check", *SEL, "--fix", ".", cwd=tmp_path)
    assert p.returncode == 1, p.stderr  # the unsafe KPL992 findings remain
    assert b"8 findings fixed in 4 files (KPL991 x4, KPL994 x4), 4 remaining" in p.stderr
    assert p.stdout.count(b"KPL992") == 4 and b"KPL991" not in p.stdout
    after = snapshot(tmp_path)
    assert b"WhenEmptyOrUnderutilized   # old name\r\n  template:" in after["sub/crlf.yaml"]
    assert after["bom.yaml"].startswith(codecs.BOM_UTF8)
    assert after["sub/nofinal.yaml"].endswith(b"      expireAfter: 720h")
    assert after["clean.yaml"] == b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    p2 = run_fix_cli("check", *SEL, "--fix", ".", cwd=tmp_path)
    assert snapshot(tmp_path) == after
    assert p2.returncode == 1 and b"fixed" not in p2.stderr
    p3 = run_fix_cli("check", *SEL, "--fix", "--unsafe-fixes", ".", cwd=tmp_path)
    assert p3.returncode == 0, p3.stdout
    assert b"All checks passed" in p3.stdout


def test_unsafe_fixes_flag_exit_zero(tmp_path, run_fix_cli):
    (tmp_path / "np.yaml").write_text(NP.format(name="a"))
    p = run_fix_cli("check", *SEL, "--fix", "--unsafe-fixes", "--show-fixes", "np.yaml", cwd=tmp_path)
    assert p.returncode == 0
    assert b"np.yaml: KPL992 add consolidateAfter: 0s" in p.stderr


def test_diff_writes_nothing_and_applies_like_fix(tmp_path, run_fix_cli):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (a, b, c):
        d.mkdir()
        make_tree(d)
    before = snapshot(a)
    mtimes = {p: p.stat().st_mtime_ns for p in a.rglob("*")}
    d = run_fix_cli("check", *SEL, "--diff", "--unsafe-fixes", ".", cwd=a)
    assert d.returncode == 1, d.stderr
    assert snapshot(a) == before and {p: p.stat().st_mtime_ns for p in a.rglob("*")} == mtimes
    assert d.stdout.startswith(b"--- a/")
    assert b"\\ No newline at end of file" in d.stdout
    f = run_fix_cli("check", *SEL, "--fix", "--unsafe-fixes", ".", cwd=b)
    assert f.returncode == 0
    fixed = snapshot(b)
    assert fixed != before
    (tmp_path / "fix.patch").write_bytes(d.stdout)
    r = subprocess.run(["patch", "-p1", "--no-backup-if-mismatch", "-i", str(tmp_path / "fix.patch")], cwd=a,
                       capture_output=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert snapshot(a) == fixed
    if shutil.which("git"):
        r = subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=c, capture_output=True)
        assert r.returncode == 0, r.stdout + r.stderr
        assert snapshot(c) == fixed
    # nothing left to do: --diff prints nothing and exits 0
    d2 = run_fix_cli("check", *SEL, "--diff", "--unsafe-fixes", ".", cwd=a)
    assert d2.returncode == 0 and d2.stdout == b""


def test_read_only_file_reported_not_skipped(tmp_path, run_fix_cli):
    p = tmp_path / "np.yaml"
    p.write_text(NP.format(name="a"))
    p.chmod(0o444)
    before = p.read_bytes()
    r = run_fix_cli("check", *SEL, "--fix", "np.yaml", cwd=tmp_path)
    assert r.returncode == 1
    assert p.read_bytes() == before
    assert b"np.yaml: 2 fix(es) not applied, file left unchanged: file is read-only" in r.stderr
    assert b"KPL991" in r.stdout and b"KPL994" in r.stdout  # the findings stay


def test_mode_kept_and_symlink_followed(tmp_path, run_fix_cli):
    real = tmp_path / "real.yaml"
    real.write_text(NP.format(name="a"))
    real.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to("real.yaml")
    r = run_fix_cli("check", *SEL, "--fix", "link.yaml", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert link.is_symlink() and "WhenEmptyOrUnderutilized" in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert not [p for p in os.listdir(tmp_path) if p.endswith("karplint~")]


def test_fix_that_would_not_parse_leaves_file_untouched(tmp_path, run_fix_cli):
    p = tmp_path / "np.yaml"
    p.write_text(NP.format(name="break-me"))
    before = p.read_bytes()
    r = run_fix_cli("check", "--select", "KPL99", "--fix", "np.yaml", cwd=tmp_path)
    assert r.returncode == 1
    assert p.read_bytes() == before
    assert b"np.yaml: fixes not applied, file left unchanged: the fixed text would not parse as YAML" in r.stderr
    for code in (b"KPL991", b"KPL993", b"KPL994"):
        assert code in r.stdout


def test_stdin_fixed_document_on_stdout_report_on_stderr(tmp_path, run_fix_cli):
    text = NP.format(name="a").replace("\n", "\r\n").encode()
    r = run_fix_cli("check", *SEL, "--fix", "-", cwd=tmp_path, stdin=text)
    assert r.returncode == 1
    assert r.stdout.startswith(b"# a nodepool\r\n") and b"WhenEmptyOrUnderutilized" in r.stdout
    assert b"KPL991" not in r.stdout and b"KPL992" in r.stderr
    # nothing to fix: the document is echoed unchanged
    r2 = run_fix_cli("check", *SEL, "--fix", "-", cwd=tmp_path, stdin=r.stdout)
    assert r2.stdout == r.stdout
    # --diff on stdin
    r3 = run_fix_cli("check", *SEL, "--diff", "--stdin-filename", "x/np.yaml", "-", cwd=tmp_path, stdin=text)
    assert r3.returncode == 1 and r3.stdout.startswith(b"--- a/x/np.yaml\n+++ b/x/np.yaml\n")


def test_json_report_after_fix(tmp_path, run_fix_cli):
    import json

    (tmp_path / "np.yaml").write_text(NP.format(name="a"))
    r = run_fix_cli("check", *SEL, "--fix", "-f", "json", "np.yaml", cwd=tmp_path)
    report = json.loads(r.stdout)
    [f] = report["findings"]
    assert f["code"] == "KPL992" and f["fix"]["applicability"] == "unsafe"
    assert f["fix"]["edits"][0]["replacement"] == "    consolidateAfter: 0s\n"


def test_fix_summary_names_what_was_fixed_and_what_the_fixes_uncovered(tmp_path):
    import shutil

    from karplint.testing import REPO, run_cli

    for f in (REPO / "examples" / "quickstart").glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    proc = run_cli("check", ".", "--fix", "--unsafe-fixes", "--no-cache", cwd=tmp_path)
    summary = proc.stderr.strip().splitlines()[-1]
    assert summary.startswith("karplint: 5 findings fixed in 3 files (KPL201, KPL301 x2, KPL401, KPL811), ")
    assert "the fixes uncovered 2 new findings: nodepools.yaml:17 KPL411, workloads.yaml:13 KPL410" in summary
