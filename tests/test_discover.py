"""karplint.discover called directly: what the scandir walk derives per directory instead of per file."""

from __future__ import annotations

import os
from pathlib import Path

from karplint.discover import _Matcher, discover


def _write(path: Path, text: str = "a: 1\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_candidate_stat_is_the_stat_of_the_file_read(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # the project, which d/z.yml's target must be in (not merely the cwd)
    _write(tmp_path / "d" / "plain.yaml", "a: 12345\n")  # walked, not a link: the lstat is the stat
    _write(tmp_path / "target.yaml", "b: 1\n")
    os.symlink("../target.yaml", tmp_path / "d" / "z.yml")  # walked link: the stat of the target
    _write(tmp_path / "explicit.json", "{}")
    os.symlink("d/plain.yaml", tmp_path / "again.yaml")  # explicit, the same real file as d/plain.yaml
    found = discover(["d", "explicit.json", "again.yaml"])
    assert [c.display for c in found.files] == ["d/plain.yaml", "d/z.yml", "explicit.json"]
    for c in found.files:
        st = os.stat(c.abspath)
        assert c.stat == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    assert found.files[1].stat[0] == len("b: 1\n")


def test_order_and_display_follow_the_given_path(tmp_path: Path, monkeypatch):
    for rel in ("b.yaml", "a/z.yaml", "a/b/c.yml", "a.yaml/x.json", "B/y.YAML", "a/notes.txt"):
        _write(tmp_path / "t" / rel)
    monkeypatch.chdir(tmp_path)
    walked = ["b.yaml", "B/y.YAML", "a/z.yaml", "a/b/c.yml", "a.yaml/x.json"]  # os.walk order, names sorted
    cases = (("t", "t/"), ("./t/", "t/"), ("t/a/..", "t/"), (str(tmp_path / "t"), f"{tmp_path}/t/"))
    for given, prefix in cases:
        assert [c.display for c in discover([given]).files] == [prefix + r for r in walked], given
    monkeypatch.chdir(tmp_path / "t")
    assert [c.display for c in discover(["."]).files] == walked
    assert [c.display for c in discover(["a/b/.."]).files] == ["a/z.yaml", "a/b/c.yml"]


def test_excludes_are_relative_to_the_root_even_above_it(tmp_path: Path, monkeypatch):
    """Walking a directory above the exclude root (`karplint ..`): paths are still relative to the root."""
    _write(tmp_path / "a" / "b" / "sub" / "y.yaml")
    _write(tmp_path / "a" / "b" / "sub" / "keep.yaml")
    _write(tmp_path / "a" / "other" / "y.yaml")
    monkeypatch.chdir(tmp_path / "a" / "b")
    found = discover([".."], exclude=["sub/y.yaml", "../other"])
    assert [c.display for c in found.files] == ["../b/sub/keep.yaml"]


def test_gitignore_chain_stops_at_the_repository_root(tmp_path: Path, monkeypatch):
    _write(tmp_path / ".gitignore", "outer.yaml\n")  # above the repository: not applied inside it
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    _write(tmp_path / "repo" / ".gitignore", "top.yaml\nbuild/\n")
    _write(tmp_path / "repo" / "x" / "y" / ".gitignore", "deep.yaml\n")
    for rel in ("outer.yaml", "top.yaml", "build/a.yaml", "x/top.yaml", "x/deep.yaml", "x/y/deep.yaml",
                "x/y/z/deep.yaml", "x/y/z/top.yaml", "x/y/z/ok.yaml"):
        _write(tmp_path / "repo" / rel)
    monkeypatch.chdir(tmp_path / "repo")
    assert [c.display for c in discover(["."]).files] == ["outer.yaml", "x/deep.yaml", "x/y/z/ok.yaml"]
    assert len(discover(["."], respect_gitignore=False).files) == 9


def test_child_matcher_agrees_with_matches():
    pattern_sets = [[], [".git", "node_modules"], ["*.json", "gen/"], ["a/b/c.yaml", "a/b", "x/*.yaml"],
                    ["a[b]", "a?c", "**/deep", "te*s/"], ["b/", "a/b/c.yaml/", "c.yaml"]]
    rel_bases = ["", "a/", "a/b/", "x/", "te/s/", "../", "../../a/", "a[b]/", "node_modules/y/"]
    names = ["c.yaml", "b", "x.json", "deep", "a[b]", "abc", "node_modules", "..x.yaml", "tests"]
    for patterns in pattern_sets:
        m = _Matcher(patterns)
        for rel_base in rel_bases:
            child = m.child_matcher(rel_base)
            for name in names:
                assert child(name) == m.matches(rel_base + name), (patterns, rel_base, name)


def test_symlinked_directory_is_walked_once(tmp_path: Path, monkeypatch):
    _write(tmp_path / "real" / "r.yaml")
    os.symlink("real", tmp_path / "alias")  # walked first ('a' < 'r'): the real directory is then the repeat
    os.symlink("..", tmp_path / "real" / "up")
    monkeypatch.chdir(tmp_path)
    found = discover(["."])
    assert [c.display for c in found.files] == ["alias/r.yaml"]
    assert sorted((p.display, p.message) for p in found.problems) == [
        ("alias/up", "symbolic link loop; not followed"), ("real", "symbolic link loop; not followed")]

