"""A checked tree is untrusted input (a pull request chooses every byte of it, its file names and its
`.karplint_cache/`): no code execution, no reads or writes outside the tree, no injection into terminals or CI
logs, valid output for any file name. Each test drives the real command line and fails on the code before the
defence it names."""

from __future__ import annotations

import json
import os
import pickle
import re
import stat
import sys
from pathlib import Path

import pytest

from karplint.testing import no_escape_or_command as _no_escape_or_command, run_cli

FIXABLE = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: "karpenter.k8s.aws/v1"
        kind: EC2NodeClass
        name: default
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
"""

SECRET = "TOP-SECRET-a8f3e1"


class _Boom:
    """Unpickling this runs a command: what a committed `.karplint_cache/` could carry."""

    def __init__(self, sentinel: Path):
        self.sentinel = sentinel

    def __reduce__(self):
        return (os.system, (f"touch {self.sentinel}",))


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".karplint.toml").write_text("")  # the project root: its cache is proj/.karplint_cache
    (proj / "np.yaml").write_text(FIXABLE)
    return proj




# ------------------------------------------------------------------------------------------------ the cache

def test_a_committed_cache_never_runs_code(tmp_path):
    proj = _project(tmp_path)
    first = run_cli("check", ".", "--output-format", "json", cwd=proj)
    cache = proj / ".karplint_cache"
    files = [p for p in cache.iterdir() if p.suffix in (".index", ".pack", ".docs")]
    assert files, "the first run wrote a cache"
    sentinel = tmp_path / "pwned"
    evil = pickle.dumps({"format": 3, "files": _Boom(sentinel), "report": ()})
    for p in files:  # raw pickles, and pickles behind the right magic with a forged MAC
        p.write_bytes(evil if p.suffix == ".index" else b"KPLCACHE3\n" + b"\0" * 32 + evil)
    again = run_cli("check", ".", "--output-format", "json", cwd=proj)
    assert not sentinel.exists()
    assert again.returncode == first.returncode == 1
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]


def test_cache_of_another_project_is_not_trusted(tmp_path):
    """A cache copied from another checkout of the same user is authenticated for that checkout only."""
    proj = _project(tmp_path)
    run_cli("check", ".", cwd=proj)
    other = tmp_path / "other"
    other.mkdir()
    (other / ".karplint.toml").write_text("")
    (other / "np.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    import shutil

    shutil.copytree(proj / ".karplint_cache", other / ".karplint_cache")
    from karplint.engine.cache import MAGIC

    # Even a valid-looking report memo would be ignored: the MAC covers the cache directory's real path.
    for p in (other / ".karplint_cache").glob("*.index"):
        assert p.read_bytes().startswith(MAGIC)
    out = run_cli("check", ".", "--output-format", "json", cwd=other)
    assert out.returncode == 0 and json.loads(out.stdout)["findings"] == []


def test_cache_key_readable_by_others_disables_the_cache(tmp_path):
    proj = _project(tmp_path)
    xdg = tmp_path / "xdg"
    env = {"XDG_CACHE_HOME": str(xdg)}
    run_cli("check", ".", cwd=proj, env=env)
    key = xdg / "karplint" / "cache-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    key.chmod(0o644)
    out = run_cli("check", ".", cwd=proj, env=env)
    assert out.returncode == 1 and "running without the cache" in out.stderr


@pytest.mark.parametrize("link", ["dir", "gitignore", "cachedir_tag", "store"])
def test_cache_never_writes_through_links(tmp_path, link):
    proj = _project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim"
    victim.write_text("precious\n")
    cache = proj / ".karplint_cache"
    if link == "dir":
        cache.symlink_to(outside, target_is_directory=True)
    else:
        cache.mkdir()
        if link == "store":
            run_cli("check", ".", cwd=proj)
            for p in list(cache.iterdir()):
                if p.suffix in (".index", ".pack", ".docs"):
                    p.unlink()
                    p.symlink_to(victim)
            (proj / "np.yaml").write_text(FIXABLE + "# changed\n")  # every store must be written again
        else:  # a dangling link: writing "if it does not exist" would create the file it points to
            (cache / (".gitignore" if link == "gitignore" else "CACHEDIR.TAG")).symlink_to(outside / "created")
    before = sorted(os.listdir(outside))
    out = run_cli("check", ".", cwd=proj)
    assert out.returncode == 1, out.stderr
    assert victim.read_text() == "precious\n"
    assert sorted(os.listdir(outside)) == before
    if link == "dir":
        assert "running without the cache" in out.stderr and "symbolic link" in out.stderr


def test_fifo_in_the_cache_does_not_hang(tmp_path):
    proj = _project(tmp_path)
    run_cli("check", ".", cwd=proj)
    for p in list((proj / ".karplint_cache").iterdir()):
        if p.suffix in (".index", ".pack"):
            p.unlink()
            os.mkfifo(p)
    out = run_cli("check", ".", cwd=proj, timeout=20)
    assert out.returncode == 1 and "Traceback" not in out.stderr


# ------------------------------------------------------------------------------------ reads outside the tree

def test_links_leaving_the_tree_are_reported_not_followed(tmp_path):
    secret_dir = tmp_path / "ci-secrets"
    secret_dir.mkdir()
    (secret_dir / "token.yaml").write_text(f"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {SECRET}\n"
                                           f"spec: {{template: {{spec: {{nodeClassRef: {{name: {SECRET}}}}}}}}}\n")
    proj = _project(tmp_path)
    (proj / "leak.yaml").symlink_to(secret_dir / "token.yaml")
    (proj / "secrets").symlink_to(secret_dir, target_is_directory=True)
    (proj / "root").symlink_to("/", target_is_directory=True)
    (proj / "inside.yaml").symlink_to(proj / "np.yaml")  # stays in the tree: fine (checked once)
    for fmt in ("text", "json", "sarif", "github"):
        out = run_cli("check", ".", "--output-format", fmt, "--no-cache", cwd=proj, timeout=30)
        assert SECRET not in out.stdout + out.stderr, fmt
        assert out.returncode == 1
    out = run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=proj)
    found = {(f["file"], f["code"]) for f in json.loads(out.stdout)["findings"]}
    assert {("leak.yaml", "KPL003"), ("secrets", "KPL003"), ("root", "KPL003")} <= found
    # Named on the command line, a link out of the project is refused too.
    out = run_cli("check", "leak.yaml", "--output-format", "json", "--no-cache", cwd=proj)
    assert SECRET not in out.stdout and [f["code"] for f in json.loads(out.stdout)["findings"]] == ["KPL003"]
    # Asked for explicitly, it is followed.
    out = run_cli("check", "leak.yaml", "--follow-links", "--output-format", "json", "--no-cache", cwd=proj)
    assert SECRET in out.stdout


def test_unreadable_directory_is_reported(tmp_path):
    proj = _project(tmp_path)
    locked = proj / "locked"
    locked.mkdir()
    (locked / "np.yaml").write_text(FIXABLE)
    locked.chmod(0)
    try:
        out = run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=proj, unprivileged=True)
    finally:
        locked.chmod(0o755)
    assert ("locked", "KPL003") in {(f["file"], f["code"]) for f in json.loads(out.stdout)["findings"]}


# ------------------------------------------------------------------------------------------- injection

HOSTILE_NAMES = [
    "::error file=x.yaml,line=1::forged.yaml",
    "\x1b]52;c;ZWNobyBwd25lZA==\x07clip.yaml",
    "\x1b]0;title\x07\x1b[2J\x1b]8;;http:\\evil\x07link.yaml",
    "a\n::add-mask::b.yaml",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_file_names_reach_no_output_raw(tmp_path, name):
    proj = _project(tmp_path)
    (proj / name).write_text(FIXABLE)
    for fmt in ("text", "json", "sarif", "github"):
        out = run_cli("check", ".", "--output-format", fmt, "--no-cache", cwd=proj)
        assert out.returncode == 1, (fmt, out.stderr)
        _no_escape_or_command(out.stdout, out.stderr, github=fmt == "github")
        if fmt in ("json", "sarif"):
            json.loads(out.stdout)
    diff = run_cli("check", ".", "--diff", "--no-cache", cwd=proj)
    _no_escape_or_command(diff.stdout, diff.stderr)
    headers = [ln for ln in diff.stdout.splitlines() if ln.startswith(("--- ", "+++ "))]
    assert len(headers) == 4  # two files, two headers each: the name forged none


def test_escape_sequences_in_values_and_frames(tmp_path):
    proj = _project(tmp_path)
    (proj / "np.yaml").write_text(FIXABLE.replace("name: default\nspec", 'name: "x\\e]52;c;cHduZWQ=\\a\\e[2J"\nspec')
                                  .replace("kind: EC2NodeClass", 'kind: "\\e[31mEC2NodeClass\\u009b"'))
    for fmt in ("text", "json", "sarif", "github"):
        out = run_cli("check", ".", "--output-format", fmt, "--no-cache", cwd=proj)
        _no_escape_or_command(out.stdout, out.stderr, github=fmt == "github")


@pytest.mark.skipif(sys.platform == "darwin", reason="APFS refuses non-UTF-8 names")
def test_non_utf8_file_names_keep_every_format_valid(tmp_path):
    import jsonschema

    from karplint.testing import need_shared

    proj = _project(tmp_path)
    raw = os.path.join(os.fsencode(proj), b"np-\xff\xfe.yaml")
    with open(raw, "w") as fh:
        fh.write(FIXABLE)
    for fmt in ("text", "json", "sarif", "github"):
        out = run_cli("check", ".", "--output-format", fmt, "--no-cache", cwd=proj)
        assert out.returncode == 1 and "internal error" not in out.stderr, (fmt, out.stderr)
    sarif_file = tmp_path / "out.sarif"
    out = run_cli("check", ".", "--output-format", "sarif", "--output", str(sarif_file), "--no-cache", cwd=proj)
    sarif = json.loads(sarif_file.read_bytes().decode("utf-8"))  # strict UTF-8
    schema = json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "np-%FF%FE.yaml" in uris
    assert all(re.fullmatch(r"[A-Za-z0-9/._~%-]+", u) for u in uris)
    report = json.loads(run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=proj).stdout)
    assert "np-\\xff\\xfe.yaml" in {f["file"] for f in report["findings"]}


def test_unreadable_directory_is_reported_in_process(tmp_path, monkeypatch):
    """The same as above where the suite runs as root (which reads everything): scandir made to fail."""
    import karplint.discover as disc

    proj = _project(tmp_path)
    (proj / "locked").mkdir()
    (proj / "locked" / "np.yaml").write_text(FIXABLE)
    real_scandir = os.scandir

    def scandir(path):
        if os.path.basename(os.path.normpath(path)) == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(disc.os, "scandir", scandir)
    found = disc.discover([str(proj)])
    assert [p.display for p in found.problems] == [f"{proj}/locked"]
    assert "cannot read directory: Permission denied" in found.problems[0].message
    assert [c.display for c in found.files] == [f"{proj}/np.yaml"]


def test_cache_is_pruned_to_the_most_recent_sets(tmp_path):
    """Each configuration makes a set of cache files; old sets go, so the cache has a bound."""
    from karplint.engine.cache import MAX_NAMESPACES

    proj = _project(tmp_path)
    cache = proj / ".karplint_cache"
    outside = tmp_path / "keep-me"
    outside.write_text("x")
    from karplint.rules import all_rules

    codes = [r.code for r in all_rules()]
    for n in range(MAX_NAMESPACES + 3):  # a new rule selection: a new set of files
        assert run_cli("check", ".", "--ignore", codes[n], cwd=proj).returncode == 1
        if n == 0:  # a planted link with a cache file's name: never followed, never its target removed
            (cache / ("f" * 32 + ".pack")).symlink_to(outside)
    stems = {p.name.rpartition(".")[0] for p in cache.iterdir()
             if p.suffix in (".index", ".pack", ".docs") and not p.is_symlink()}
    assert len(stems) == MAX_NAMESPACES
    assert outside.read_text() == "x"


def test_hostile_gitignore_through_the_cli(tmp_path):
    import time

    proj = _project(tmp_path)
    (proj / ".gitignore").write_text("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n"
                                     + "".join(f"p{i}/**/x{i}*.yaml\n" for i in range(100_000)))
    (proj / ("a" * 60 + ".yaml")).write_text(FIXABLE)
    started = time.monotonic()
    out = run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=proj, timeout=60)
    assert time.monotonic() - started < 10
    assert out.returncode == 1 and {f["file"] for f in json.loads(out.stdout)["findings"]} == {"np.yaml", "a" * 60 + ".yaml"}


def test_escape_sequences_in_userdata_and_configuration(tmp_path):
    proj = _project(tmp_path)
    (proj / ".karplint.toml").write_text('select = ["\\u001b]52;c;cHduZWQ=\\u0007", "ALL"]\n')
    (proj / "nc.yaml").write_text(
        "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: c\nspec:\n  amiFamily: AL2\n"
        "  role: r\n  amiSelectorTerms: [{alias: al2@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n"
        "  securityGroupSelectorTerms: [{tags: {a: b}}]\n"
        '  userData: "#!/bin/bash\\n/etc/eks/bootstrap.sh c --kubelet-extra-args \'--register-with-taints='
        '\\e]0;t\\a=b:NoSchedule --node-labels=\\n::error::x=y\'\\n"\n')
    for fmt in ("text", "json", "sarif", "github"):
        out = run_cli("check", ".", "--output-format", fmt, "--no-cache", cwd=proj)
        assert "Traceback" not in out.stderr
        _no_escape_or_command(out.stdout, out.stderr, github=fmt == "github")
    out = run_cli("render", "nc.yaml", cwd=proj)
    assert out.returncode == 0 and "register-with-taints" in out.stdout
    _no_escape_or_command(out.stdout, out.stderr)


def test_clean_removes_the_cache_and_nothing_else(tmp_path):
    proj = _project(tmp_path)
    run_cli("check", ".", cwd=proj)
    cache = proj / ".karplint_cache"
    (cache / "mine.txt").write_text("not karplint's")
    out = run_cli("clean", cwd=proj)
    assert out.returncode == 0 and "removed " in out.stdout and " cache file" in out.stdout
    assert [p.name for p in cache.iterdir()] == ["mine.txt"]
    (cache / "mine.txt").unlink()
    cache.rmdir()
    cache.symlink_to(tmp_path, target_is_directory=True)
    out = run_cli("clean", cwd=proj)
    assert out.returncode == 2 and "symbolic link" in out.stderr and (tmp_path / "proj").is_dir()
