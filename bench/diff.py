"""`karplint diff` against a cold `check` on the same generated tree (see bench/README.md). Issue #28 asks for
"runs on a 10,000-file tree within twice a cold `check`".

    python bench/diff.py                  # 10,000 files, 3 repetitions
    python bench/diff.py -n 500 --reps 1  # a quick run

Builds `bench/gen.py`'s tree in a git repository, commits it, edits one NodePool (its weight, not a comment), then
times, each in a fresh process: `karplint check . --no-cache --output-format json --exit-zero` (the cold check)
and `karplint diff HEAD . --output-format json` (both sides read: the base from git, the head from the working
tree). Where the `diff` command is not installed (the sides stream's branch alone), the diff run is
`karplint.diff.sides.load_sides` plus a pairing of the NodePools and EC2NodeClasses by name and a comparison of
their specs: the reading of both sides, without drift, rollout or capacity. The output says which was timed.
Reports wall and CPU (user + sys, children included) and their ratios diff / cold check.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import machine, measure  # noqa: E402
from gen import generate  # noqa: E402

# load_sides and a trivial pairing: what is timed when `karplint diff` is not there yet
SIDES_ONLY = r"""
import json
from karplint.diff.sides import load_sides
base, head = load_sides(base="HEAD", paths=["."])
def objects(side):
    return {(r.kind, r.name): r.doc for r in (*side.loaded.model.nodepools(), *side.loaded.model.nodeclasses())}
old, new = objects(base), objects(head)
changed = sorted(f"{k}/{n}" for (k, n) in old.keys() | new.keys()
                 if (k, n) not in old or (k, n) not in new or old[k, n] is not new[k, n]
                 and old[k, n].data != new[k, n].data)
print(json.dumps({"changed": changed, "problems": len(base.loaded.problems) + len(head.loaded.problems)}))
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args], cwd=repo,
                   check=True, capture_output=True)


def build_repo(root: Path, n: int) -> Path:
    """The generated tree, committed, with one NodePool's weight edited in the working tree."""
    generate(root, n)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated tree")
    target = sorted(root.glob("platform/**/nodepool-*.yaml"))[0]
    text = target.read_text(encoding="utf-8")
    edited, count = re.subn(r"(?m)^(\s*weight:\s*)(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", text, 1)
    if not count:  # (a pool without a weight: add one under spec)
        edited = re.sub(r"(?m)^spec:\n", "spec:\n  weight: 7\n", text, 1)
    target.write_text(edited, encoding="utf-8")
    return target


def diff_cmd(python: str) -> tuple[list[str], str]:
    """The diff command and what it is: `karplint diff` when the command exists, else load_sides alone."""
    probe = subprocess.run([python, "-m", "karplint", "diff", "--help"], capture_output=True)
    if probe.returncode == 0:
        return [python, "-m", "karplint", "diff", "HEAD", ".", "--output-format", "json"], "karplint diff"
    return [python, "-c", SIDES_ONLY], "load_sides + pairing (no `karplint diff` command on this branch)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--files", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workdir", type=Path, help="keep the generated repository here")
    ap.add_argument("--json", type=Path, help="write the raw numbers here")
    args = ap.parse_args(argv)
    python = sys.executable
    subprocess.run([python, "-m", "compileall", "-q", str(HERE.parent / "karplint")], check=True)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="karplint-bench-diff-"))
    repo = work / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    try:
        edited = build_repo(repo, args.files)
        env = dict(os.environ)
        env.pop("KARPLINT_CACHE_DIR", None)
        check = [python, "-m", "karplint", "check", ".", "--no-cache", "--output-format", "json", "--exit-zero"]
        diff, what = diff_cmd(python)
        runs: dict[str, list] = {"cold check": [], "diff": []}
        for _ in range(args.reps):
            for name, cmd in (("cold check", check), ("diff", diff)):
                run = measure(cmd, repo, env)
                if run.rc not in (0, 1):
                    raise SystemExit(f"{name} failed (exit {run.rc})")
                runs[name].append(run)
        last = json.loads(runs["diff"][-1].out)
        result = {
            "files": args.files, "edited": str(edited.relative_to(repo)), "diff_timed": what,
            "machine": machine(),
            **{name: {"wall": statistics.median(r.wall for r in rs), "cpu": statistics.median(r.cpu for r in rs),
                      "rss_mb": max(r.rss_mb for r in rs), "n": len(rs)} for name, rs in runs.items()},
        }
        result["ratio_wall"] = result["diff"]["wall"] / result["cold check"]["wall"]
        result["ratio_cpu"] = result["diff"]["cpu"] / result["cold check"]["cpu"]
        print(f"{args.files:,} files, one NodePool edited ({result['edited']}); diff timed: {what}")
        print("| run | wall (median) | CPU (median) | peak RSS |")
        print("|---|---:|---:|---:|")
        for name in ("cold check", "diff"):
            r = result[name]
            print(f"| {name} | {r['wall']:.2f} s | {r['cpu']:.2f} s | {r['rss_mb']:.0f} MB |")
        print(f"diff / cold check: wall {result['ratio_wall']:.2f}x, CPU {result['ratio_cpu']:.2f}x "
              f"(the issue's bound: 2x)")
        if "changed" in last:
            print(f"(pairing: {', '.join(last['changed']) or 'nothing'} changed)")
        if args.json:
            args.json.write_text(json.dumps(result, indent=2))
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
