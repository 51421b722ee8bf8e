"""`karplint diff`'s two sides (karplint/diff/sides.py): which two trees, both read as `check` reads them, with
the same display paths, without touching the user's working tree, index or temporary directory. Every repository
is built here with git (no user or system configuration)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from karplint.diff.sides import DiffUsageError, load_sides

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: []
"""
NODECLASS = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
"""
HELM_RELEASE = """resource "helm_release" "karpenter" {{
  name       = "karpenter"
  repository = "oci://public.ecr.aws/karpenter"
  chart      = "karpenter"
  version    = "{version}"
}}
"""


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch, tmp_path):
    """git in these tests and in load_sides reads no user or system configuration, and temporary directories go
    below tmp_path (so that none left behind can be seen)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main",
                           "-c", "protocol.file.allow=always", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def commit(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_repo(path: Path, branch: str = "main", files: dict | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    for rel, text in (files or {"k8s/nodepool.yaml": NODEPOOL.format(name="general")}).items():
        write(path, rel, text)
    commit(path, "initial")
    return path


def pools(side) -> list[tuple[str, str]]:
    """(display path, name) of the side's NodePools in the named files (the context is read, not shown)."""
    return sorted((str(r.doc.path), r.name) for r in side.loaded.model.nodepools() if side.loaded.shows(r))


def test_default_branch_from_origin_head(tmp_path):
    """origin/HEAD names the default branch (here `trunk`); the base is the merge base of HEAD with it."""
    up = make_repo(tmp_path / "up", branch="trunk")
    fork = git(up, "rev-parse", "HEAD")
    git(tmp_path, "clone", "-q", str(up), "clone")
    clone = tmp_path / "clone"
    git(clone, "checkout", "-q", "-b", "feature")
    write(clone, "k8s/nodepool.yaml", NODEPOOL.format(name="renamed"))
    commit(clone)
    base, head = load_sides(base=None, paths=[], cwd=str(clone))
    assert (base.label, base.commit) == (f"origin/trunk (merge base {fork[:7]})", fork)
    assert pools(base) == [("k8s/nodepool.yaml", "general")]
    assert (head.label, head.commit) == ("working tree", None)
    assert pools(head) == [("k8s/nodepool.yaml", "renamed")]


@pytest.mark.parametrize("branch", ["main", "master"])
def test_default_branch_without_remote_is_main_or_master(tmp_path, branch):
    repo = make_repo(tmp_path / "r", branch=branch)
    fork = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="renamed"))
    commit(repo)
    base, head = load_sides(base=None, paths=[], cwd=str(repo))
    assert (base.label, base.commit) == (f"{branch} (merge base {fork[:7]})", fork)
    assert pools(base) == [("k8s/nodepool.yaml", "general")]
    assert pools(head) == [("k8s/nodepool.yaml", "renamed")]


def test_origin_main_comes_before_a_local_main(tmp_path):
    """Without origin/HEAD (a remote added by hand), origin/main is preferred to a stale local main."""
    up = make_repo(tmp_path / "up")
    write(up, "k8s/nodepool.yaml", NODEPOOL.format(name="upstream"))
    upstream = commit(up)
    repo = tmp_path / "r"
    git(tmp_path, "clone", "-q", str(up), "r")
    git(repo, "remote", "set-head", "origin", "--delete")
    git(repo, "reset", "-q", "--hard", "HEAD~1")  # local main behind origin/main
    git(repo, "checkout", "-q", "-b", "feature", "origin/main")
    base, _head = load_sides(base=None, paths=[], cwd=str(repo))
    assert (base.label, base.commit) == (f"origin/main (merge base {upstream[:7]})", upstream)


def test_merge_base_not_the_default_branchs_tip(tmp_path):
    """main moved on after the feature branch forked: the base is the fork point, not main's new commit."""
    repo = make_repo(tmp_path / "r")
    fork = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "k8s/other.yaml", NODEPOOL.format(name="feature-pool"))
    commit(repo)
    git(repo, "checkout", "-q", "main")
    write(repo, "k8s/main-only.yaml", NODEPOOL.format(name="main-pool"))
    commit(repo)
    git(repo, "checkout", "-q", "feature")
    base, head = load_sides(base=None, paths=[], cwd=str(repo))
    assert base.commit == fork
    assert pools(base) == [("k8s/nodepool.yaml", "general")]
    assert pools(head) == [("k8s/nodepool.yaml", "general"), ("k8s/other.yaml", "feature-pool")]


def test_base_head_tilde_and_uncommitted_edits(tmp_path):
    """`--base HEAD~1`: the commit before HEAD; the head side is the working tree with its uncommitted edit and
    its untracked file, not the ignored one."""
    repo = make_repo(tmp_path / "r", files={"k8s/nodepool.yaml": NODEPOOL.format(name="first"),
                                            ".gitignore": "ignored/\n"})
    first = git(repo, "rev-parse", "HEAD")
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="second"))
    commit(repo)
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="edited"))  # not committed
    write(repo, "k8s/untracked.yaml", NODEPOOL.format(name="untracked"))
    write(repo, "ignored/pool.yaml", NODEPOOL.format(name="ignored"))
    base, head = load_sides(base="HEAD~1", paths=[], cwd=str(repo))
    assert (base.label, base.commit) == (f"HEAD~1 ({first[:7]})", first)
    assert pools(base) == [("k8s/nodepool.yaml", "first")]
    assert pools(head) == [("k8s/nodepool.yaml", "edited"), ("k8s/untracked.yaml", "untracked")]


def test_base_by_sha_branch_and_tag(tmp_path):
    repo = make_repo(tmp_path / "r")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "v1")
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="later"))
    commit(repo)
    for rev, label in ((sha, sha[:7]), (sha[:10], sha[:7]), ("v1", f"v1 ({sha[:7]})")):
        base, _head = load_sides(base=rev, paths=[], cwd=str(repo))
        assert (base.label, base.commit, pools(base)) == (label, sha, [("k8s/nodepool.yaml", "general")])


def test_base_read_from_git_after_delete_and_rename(tmp_path):
    """A file deleted or renamed in the working tree (not committed) is still read on the base side, from git."""
    repo = make_repo(tmp_path / "r", files={"k8s/a.yaml": NODEPOOL.format(name="a"),
                                            "k8s/b.yaml": NODEPOOL.format(name="b")})
    (repo / "k8s/a.yaml").unlink()
    git(repo, "mv", "k8s/b.yaml", "k8s/c.yaml")
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert pools(base) == [("k8s/a.yaml", "a"), ("k8s/b.yaml", "b")]
    assert pools(head) == [("k8s/c.yaml", "b")]


def test_scope_paths_and_a_scope_only_on_one_side(tmp_path):
    """Scope paths are read on both sides; one that exists on one side only (a directory deleted) makes the other
    side empty there, not an error."""
    repo = make_repo(tmp_path / "r", files={"k8s/a.yaml": NODEPOOL.format(name="a"),
                                            "other/b.yaml": NODEPOOL.format(name="b"),
                                            "old/c.yaml": NODEPOOL.format(name="c")})
    (repo / "old/c.yaml").unlink()
    (repo / "old").rmdir()
    write(repo, "new/d.yaml", NODEPOOL.format(name="d"))
    base, head = load_sides(base="HEAD", paths=["k8s", "old", "new"], cwd=str(repo))
    assert pools(base) == [("k8s/a.yaml", "a"), ("old/c.yaml", "c")]
    assert pools(head) == [("k8s/a.yaml", "a"), ("new/d.yaml", "d")]
    assert base.loaded.named == {"k8s/a.yaml", "old/c.yaml"}
    assert ("other/b.yaml", "b") in {(str(r.doc.path), r.name) for r in base.loaded.model.nodepools()}  # context
    base, head = load_sides(base="HEAD", paths=["old"], cwd=str(repo))
    assert pools(base) == [("old/c.yaml", "c")]
    assert (pools(head), head.loaded.named, head.loaded.problems) == ([], set(), [])
    assert head.loaded.karpenter_version("old/c.yaml") is None  # (an empty side still answers)


def test_working_directory_in_a_subdirectory(tmp_path):
    """From a subdirectory, both sides name files relative to it (as `check` does), also an absolute scope."""
    repo = make_repo(tmp_path / "r", files={"deploy/k8s/a.yaml": NODEPOOL.format(name="a")})
    write(repo, "deploy/k8s/a.yaml", NODEPOOL.format(name="a2"))
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo / "deploy"))
    assert pools(base) == [("k8s/a.yaml", "a")]
    assert pools(head) == [("k8s/a.yaml", "a2")]
    assert base.display_root == head.display_root == os.path.realpath(repo / "deploy")
    base, head = load_sides(base="HEAD", paths=[str(repo / "deploy" / "k8s")], cwd=str(repo / "deploy"))
    assert (pools(base), pools(head)) == ([("k8s/a.yaml", "a")], [("k8s/a.yaml", "a2")])


def test_each_side_has_its_own_release_pin(tmp_path):
    """The release each side deploys comes from that side's project (here a Terraform helm_release, context of
    the scope `k8s`)."""
    repo = make_repo(tmp_path / "r", files={"k8s/nodepool.yaml": NODEPOOL.format(name="general"),
                                            "infra/main.tf": HELM_RELEASE.format(version="1.0.6")})
    write(repo, "infra/main.tf", HELM_RELEASE.format(version="1.5.0"))
    base, head = load_sides(base="HEAD", paths=["k8s"], cwd=str(repo))
    assert str(base.loaded.karpenter_version("k8s/nodepool.yaml")) == "1.0.6"
    assert str(head.loaded.karpenter_version("k8s/nodepool.yaml")) == "1.5.0"
    base, head = load_sides(base="HEAD", paths=["k8s"], cwd=str(repo), karpenter_version="1.2.0")
    assert [str(s.loaded.karpenter_version("k8s/nodepool.yaml")) for s in (base, head)] == ["1.2.0", "1.2.0"]


def test_each_side_has_its_own_configuration(tmp_path):
    """A configuration file is found on each side (the base's from git, never from above the temporary tree); one
    above the repository applies to both."""
    outer = tmp_path / "outer"
    outer.mkdir()
    (outer / ".karplint.toml").write_text('karpenter-version = "1.1.0"\n')
    repo = make_repo(outer / "r")
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert [str(s.loaded.project.config.karpenter_version) for s in (base, head)] == ["1.1.0", "1.1.0"]
    write(repo, ".karplint.toml", 'karpenter-version = "1.3.0"\n')
    commit(repo)
    write(repo, ".karplint.toml", 'karpenter-version = "1.4.0"\n')
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert [str(s.loaded.project.config.karpenter_version) for s in (base, head)] == ["1.3.0", "1.4.0"]


def test_unchanged_files_parsed_once(tmp_path):
    """A file with the same bytes on both sides is parsed once (its documents shared); a changed one twice."""
    repo = make_repo(tmp_path / "r", files={"k8s/same.yaml": NODEPOOL.format(name="same"),
                                            "k8s/changed.yaml": NODEPOOL.format(name="before")})
    write(repo, "k8s/changed.yaml", NODEPOOL.format(name="after"))
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    docs = {s.label: {str(r.doc.path): r.doc for r in s.loaded.model.nodepools()} for s in (base, head)}
    old, new = docs[base.label], docs["working tree"]
    assert old["k8s/same.yaml"] is new["k8s/same.yaml"]
    assert old["k8s/changed.yaml"] is not new["k8s/changed.yaml"]


def test_spaces_and_non_utf8_names(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    name = os.fsdecode(b"team one/pool-\xff\xc3\xa9.yaml")
    write(repo, name, NODEPOOL.format(name="odd"))
    commit(repo)
    write(repo, name, NODEPOOL.format(name="odd2"))
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert (pools(base), pools(head)) == ([(name, "odd")], [(name, "odd2")])


def test_two_directories_and_two_files(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    write(old, "np.yaml", NODEPOOL.format(name="a"))
    write(new, "np.yaml", NODEPOOL.format(name="b"))
    base, head = load_sides(base=None, paths=[], two_paths=("old", "new"), cwd=str(tmp_path))
    assert (base.label, base.commit, base.display_root) == ("old", None, str(old))
    assert (head.label, head.commit, head.display_root) == ("new", None, str(new))
    assert (pools(base), pools(head)) == ([("np.yaml", "a")], [("np.yaml", "b")])
    base, head = load_sides(base=None, paths=[], two_paths=(str(old / "np.yaml"), "new/np.yaml"),
                            cwd=str(tmp_path))
    assert (pools(base), pools(head)) == ([("np.yaml", "a")], [("np.yaml", "b")])
    assert (base.label, head.label) == (str(old / "np.yaml"), "new/np.yaml")


def test_problems_of_either_side_are_listed(tmp_path):
    repo = make_repo(tmp_path / "r", files={"k8s/np.yaml": NODEPOOL.format(name="a"),
                                            "k8s/bad.yaml": "a: [unclosed\n"})
    write(repo, "k8s/bad.yaml", "fine: yes\n")
    write(repo, "k8s/worse.yaml", "b: {unclosed\n")
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert [p.split(":")[0] for p in base.loaded.problems] == ["k8s/bad.yaml"]
    assert [p.split(":")[0] for p in head.loaded.problems] == ["k8s/worse.yaml"]


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "r")


def usage_error(**kwargs) -> str:
    with pytest.raises(DiffUsageError) as info:
        load_sides(**{"base": None, "paths": [], **kwargs})
    return str(info.value)


def test_usage_error_not_a_repository(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    message = usage_error(cwd=str(plain))
    assert message.startswith(f"{plain}: not a git repository")
    assert "--old OLD --new NEW" in message


def test_usage_error_unknown_revision(repo):
    assert usage_error(base="no-such-branch", cwd=str(repo)) == (
        f"unknown revision 'no-such-branch': not a commit of {os.path.realpath(repo)}")
    assert usage_error(base="--output=x", cwd=str(repo)) == "'--output=x': not a revision"


def test_usage_error_no_default_branch(tmp_path):
    repo = make_repo(tmp_path / "r", branch="develop")
    assert usage_error(cwd=str(repo)) == (
        "no default branch found (no origin/HEAD, origin/main, origin/master, main or master): name the base "
        "revision, e.g. `karplint diff --base origin/develop`")


def test_usage_error_scope_path_on_neither_side(repo):
    assert usage_error(base="HEAD", paths=["k8s", "nowhere"], cwd=str(repo)) == (
        f"nowhere: no such file or directory in the working tree or at HEAD ({git(repo, 'rev-parse', 'HEAD')[:7]})")
    assert usage_error(base="HEAD", paths=["../elsewhere"], cwd=str(repo)).startswith(
        "../elsewhere: outside the repository ")
    assert usage_error(base="HEAD", paths=["-"], cwd=str(repo)).startswith("`-` (standard input) cannot be")


def test_usage_error_two_paths(tmp_path):
    write(tmp_path, "old/np.yaml", NODEPOOL.format(name="a"))
    assert usage_error(two_paths=("old", "missing"), cwd=str(tmp_path)) == "missing: no such file or directory"
    assert usage_error(two_paths=("old", "old/np.yaml"), cwd=str(tmp_path)) == (
        "old and old/np.yaml: compare two directories or two files, not one of each")


def test_usage_error_shallow_clone_without_merge_base(tmp_path):
    """CI's default checkout is shallow: the merge base is missing, and the message says how to fetch it."""
    up = make_repo(tmp_path / "up")
    git(up, "checkout", "-q", "-b", "feature")
    write(up, "k8s/nodepool.yaml", NODEPOOL.format(name="feature"))
    commit(up)
    git(up, "checkout", "-q", "main")
    write(up, "k8s/other.yaml", NODEPOOL.format(name="main"))
    commit(up)
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{up}", "clone")
    clone = tmp_path / "clone"
    git(clone, "checkout", "-q", "feature")
    message = usage_error(cwd=str(clone))
    assert message == ("the merge base of HEAD and origin/main is not in this shallow clone: run `git fetch "
                       "--unshallow` (in GitHub Actions: `fetch-depth: 0` on actions/checkout), or name the base "
                       "revision with --base")
    assert "shallow clone" in usage_error(base="HEAD~3", cwd=str(clone))


def test_usage_error_bad_configuration_on_the_base_side(repo):
    write(repo, ".karplint.toml", "severity = 3\n")
    commit(repo)
    write(repo, ".karplint.toml", "")
    message = usage_error(base="HEAD", cwd=str(repo))
    assert message.startswith(".karplint.toml")  # (named as in the repository, not in the temporary tree)
    assert "karplint-diff-" not in message


def test_working_tree_index_and_temporary_directory_untouched(tmp_path, repo):
    """The base is read without touching the user's working tree, index or worktree list, and no temporary
    directory is left behind, also when loading fails."""
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="edited"))
    git(repo, "add", "k8s/nodepool.yaml")
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="edited again"))
    write(repo, "k8s/new.yaml", NODEPOOL.format(name="new"))
    index = (repo / ".git" / "index").read_bytes()
    before = (git(repo, "status", "--porcelain"), git(repo, "worktree", "list", "--porcelain"),
              git(repo, "stash", "list"))
    load_sides(base="HEAD", paths=[], cwd=str(repo))
    with pytest.raises(DiffUsageError):
        load_sides(base="HEAD", paths=["nowhere"], cwd=str(repo))
    assert (repo / ".git" / "index").read_bytes() == index
    assert (git(repo, "status", "--porcelain"), git(repo, "worktree", "list", "--porcelain"),
            git(repo, "stash", "list")) == before
    assert os.listdir(tmp_path / "scratch") == []


def test_git_environment_of_a_hook_is_ignored(tmp_path, repo, monkeypatch):
    """GIT_DIR / GIT_WORK_TREE / GIT_INDEX_FILE set by an outer git command (a hook) do not point load_sides at
    another repository or index."""
    other = make_repo(tmp_path / "other", files={"k8s/nodepool.yaml": NODEPOOL.format(name="other")})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    index = (other / ".git" / "index").read_bytes()
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="edited"))
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert (pools(base), pools(head)) == ([("k8s/nodepool.yaml", "general")], [("k8s/nodepool.yaml", "edited")])
    assert (other / ".git" / "index").read_bytes() == index


def test_submodule_read_on_the_base_side(tmp_path):
    """An initialised submodule's files are read on both sides (the base from the submodule's commit at the
    base); one whose base commit is not in its repository is a listed problem, not pools silently added."""
    sub = make_repo(tmp_path / "sub", files={"np.yaml": NODEPOOL.format(name="in-sub")})
    repo = make_repo(tmp_path / "r")
    git(repo, "submodule", "add", "-q", str(sub), "vendor/sub")
    commit(repo, "submodule")
    write(repo / "vendor" / "sub", "np.yaml", NODEPOOL.format(name="in-sub-edited"))
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert pools(base) == [("k8s/nodepool.yaml", "general"), ("vendor/sub/np.yaml", "in-sub")]
    assert pools(head) == [("k8s/nodepool.yaml", "general"), ("vendor/sub/np.yaml", "in-sub-edited")]
    assert base.loaded.problems == []
    git(repo / "vendor" / "sub", "commit", "-q", "-am", "in the submodule only")
    git(repo, "add", "vendor/sub")
    commit(repo, "moved the submodule")
    git(repo / "vendor" / "sub", "reset", "-q", "--hard", "HEAD~1")
    git(repo / "vendor" / "sub", "reflog", "expire", "--expire=now", "--all")
    git(repo / "vendor" / "sub", "gc", "-q", "--prune=now")
    moved = git(repo, "rev-parse", "HEAD:vendor/sub")
    base, _head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert base.loaded.problems == [
        f"vendor/sub:1:1: submodule commit {moved[:7]} is not in its local repository (`git submodule update "
        "--init`); its files are not read on this side"]


def test_only_files_a_check_may_read_are_written_for_the_base():
    """The base revision's program code and binaries are not written out; what discovery takes by name, the
    .gitignore and configuration files, a Helm chart's every file and symbolic links are."""
    from karplint.diff.sides import _wanted

    entries = [(b"100644", p) for p in (
        b"src/main.c", b"src/app.py", b"img/logo.png", b"README", b"k8s/np.yaml", b"k8s/NP.YML", b"infra/main.tf",
        b"docs/setup.md", b".gitignore", b"sub/.gitignore", b".karplint.toml", b"pyproject.toml", b"Makefile",
        b"charts/karpenter/Chart.yaml", b"charts/karpenter/charts/dep-1.0.0.tgz", b"charts/karpenter/.helmignore",
        b"charts/karpenter/templates/_helpers.tpl", b"charts/karpenter/files/x.bin", b"chartsy/other.bin")]
    entries += [(b"120000", b"k8s/link"), (b"160000", b"vendor/sub")]
    assert _wanted(entries) == [
        b"src/app.py", b"k8s/np.yaml", b"k8s/NP.YML", b"infra/main.tf", b"docs/setup.md", b".gitignore",
        b"sub/.gitignore", b".karplint.toml", b"pyproject.toml", b"Makefile", b"charts/karpenter/Chart.yaml",
        b"charts/karpenter/charts/dep-1.0.0.tgz", b"charts/karpenter/.helmignore",
        b"charts/karpenter/templates/_helpers.tpl", b"charts/karpenter/files/x.bin", b"k8s/link"]


def test_symbolic_link_in_the_base_tree(tmp_path):
    """A link inside the repository reads the same on both sides (no dangling link on the base: its target is
    written too)."""
    repo = make_repo(tmp_path / "r", files={"pools/general.yaml": NODEPOOL.format(name="general")})
    (repo / "k8s").mkdir()
    os.symlink("../pools", repo / "k8s" / "pools")
    commit(repo)
    base, head = load_sides(base="HEAD", paths=["k8s"], cwd=str(repo))
    assert pools(base) == pools(head) == [("k8s/pools/general.yaml", "general")]
    assert base.loaded.problems == head.loaded.problems == []


@pytest.fixture
def ram(tmp_path, monkeypatch):
    """A stand-in RAM directory, chosen because the user set no temporary directory; [the directories given to
    mkdtemp]."""
    import karplint.diff.sides as sides

    directory = tmp_path / "ram"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sides, "RAM_DIRECTORY", str(directory))
    monkeypatch.setattr(sides, "RAM_MIN_FREE", 0)
    asked = []
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp(prefix=None, dir=None):
        asked.append(dir)
        return real_mkdtemp(prefix=prefix, dir=dir if dir is not None else str(tmp_path / "scratch"))

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    return directory, asked


def test_base_tree_written_in_ram_when_no_temporary_directory_is_chosen(repo, ram, monkeypatch):
    directory, asked = ram
    write(repo, "k8s/nodepool.yaml", NODEPOOL.format(name="edited"))
    base, head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert (pools(base), pools(head)) == ([("k8s/nodepool.yaml", "general")], [("k8s/nodepool.yaml", "edited")])
    assert asked == [str(directory)] and os.listdir(directory) == []
    monkeypatch.setenv("TMPDIR", str(directory.parent / "scratch"))  # the user's choice wins
    asked.clear()
    load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert asked == [None]


def test_base_tree_falls_back_to_the_temporary_directory(repo, ram, monkeypatch, tmp_path):
    """The RAM directory full (writing fails) or unusable: the ordinary temporary directory is used instead."""
    import karplint.diff.sides as sides

    directory, asked = ram
    real_wait = sides._CheckOut.wait
    failures = []

    def wait(self):
        if not failures:
            failures.append(self.tree)
            raise sides._WriteFailed("no space left")
        return real_wait(self)

    monkeypatch.setattr(sides._CheckOut, "wait", wait)
    base, _head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert pools(base) == [("k8s/nodepool.yaml", "general")]
    assert asked == [str(directory), None] and failures[0].startswith(str(directory))
    assert os.listdir(directory) == os.listdir(tmp_path / "scratch") == []
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    not_a_directory.chmod(0o755)
    monkeypatch.setattr(sides, "RAM_DIRECTORY", str(not_a_directory))
    asked.clear()
    base, _head = load_sides(base="HEAD", paths=[], cwd=str(repo))
    assert pools(base) == [("k8s/nodepool.yaml", "general")]
    assert asked == [str(not_a_directory), None]


def test_bench_diff_smoke(tmp_path, capsys, monkeypatch):
    """bench/diff.py in CI size: it builds the repository, finds the one edited NodePool, and reports the ratios."""
    import importlib.util

    bench = Path(__file__).resolve().parents[1] / "bench"
    monkeypatch.syspath_prepend(str(bench))
    spec = importlib.util.spec_from_file_location("bench_diff", bench / "diff.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["-n", "120", "--reps", "1", "--workdir", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "diff / cold check: wall " in out
    if "diff timed: load_sides" in out:  # (once `karplint diff` is merged, the command is timed instead)
        assert "(pairing: NodePool/" in out and "changed)" in out
