"""karplint's .gitignore matcher against git itself (`git check-ignore`), and its cost on hostile patterns."""

from __future__ import annotations

import random
import shutil
import subprocess
import time

import pytest

from karplint.discover.gitignore import GitIgnore, segment_match

GIT = shutil.which("git")

_PIECES = ["a", "b", "ab", "x.yaml", "*", "?", "[ab]", "[!a]", "*.yaml", "b*", "**"]


def _pattern(rng: random.Random) -> str:
    segs = [rng.choice(_PIECES) for _ in range(rng.randint(1, 3))]
    p = "/".join(segs)
    if rng.random() < 0.2:
        p = "/" + p
    if rng.random() < 0.2:
        p += "/"
    if rng.random() < 0.15:
        p = "!" + p
    return p


def _path(rng: random.Random) -> str:
    names = ["a", "b", "ab", "ba", "x.yaml", "b.yaml", "abc"]
    return "/".join(rng.choice(names) for _ in range(rng.randint(1, 4)))


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_agrees_with_git_check_ignore(tmp_path):
    rng = random.Random(20261124)
    disagreements = []
    total = 0
    for case in range(40):
        repo = tmp_path / f"r{case}"
        repo.mkdir()
        subprocess.run([GIT, "init", "-q", str(repo)], check=True)
        lines = [_pattern(rng) for _ in range(rng.randint(1, 6))]
        (repo / ".gitignore").write_text("\n".join(lines) + "\n")
        paths = sorted({_path(rng) for _ in range(30)})
        # every path is a file; its parents are directories (a name used both ways is dropped)
        dirs = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, len(p.split("/")))}
        files = [p for p in paths if p not in dirs]
        for f in files:
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            (repo / f).write_text("")
        queries = [(f, False) for f in files] + [(d, True) for d in sorted(dirs)]
        proc = subprocess.run([GIT, "-C", str(repo), "check-ignore", "--no-index", "--stdin", "-z", "-n", "-v"],
                              input="\0".join(q for q, _ in queries) + "\0", capture_output=True, text=True)
        fields = proc.stdout.split("\0")
        git_says = {}
        for i in range(0, len(fields) - 1, 4):
            source, _, pattern, path = fields[i:i + 4]
            git_says[path] = bool(source) and not pattern.startswith("!")
        ours = GitIgnore(lines)
        for q, is_dir in queries:
            total += 1
            mine = ours.decide(q, is_dir, parents=True) is True
            if mine != git_says.get(q, False):
                disagreements.append((lines, q, is_dir, git_says.get(q), mine))
    assert not disagreements, f"{len(disagreements)} of {total}: {disagreements[:5]}"


def test_hostile_patterns_take_linear_time():
    started = time.monotonic()
    gi = GitIgnore(["*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c/**"])
    for n in (30, 300, 3000):
        assert gi.decide("a" * n, False) is None
        assert gi.decide("/".join(["a" * 40] * 50), True, parents=True) is None
    assert time.monotonic() - started < 2  # a backtracking regex takes minutes on the first pattern alone


def test_many_patterns_are_cheap():
    lines = [f"pattern{i}/**/x{i}*.yaml" for i in range(100_000)] + [f"name{i}" for i in range(50_000)]
    started = time.monotonic()
    gi = GitIgnore(lines)
    for i in range(200):
        gi.decide(f"d{i}/file{i}.yaml", False, parents=True)
    assert gi.decide("pattern7/q/x7b.yaml", False) is True
    assert gi.decide("deep/name49999", True) is True
    assert time.monotonic() - started < 5  # pathspec took 11 s to compile the first 100,000 alone


@pytest.mark.parametrize("seg,name,hit", [
    ("*.yaml", "x.yaml", True), ("*.yaml", "x.yml", False), ("a?c", "abc", True), ("[a-c]x", "bx", True),
    ("[!a-c]x", "bx", False), ("\\*", "*", True), ("\\*", "a", False), ("[", "[", True), ("a*b*c", "aXbYc", True),
])
def test_segments(seg, name, hit):
    assert segment_match(seg, name) is hit
