"""Headline lengths of findings (ruff's shape: the first line of a message), per rule.

    python scripts/message_lengths.py [-v] [PATH ...]

Runs every rule on the bad examples of its documentation and `karplint check` on PATHs (default: ../shared/corpus,
../shared/karpenter/examples/v1 and examples/), then prints the median and longest headlines; -v lists each rule's
longest one. tests/test_output_shape.py holds the bound."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from karplint.findings import split_message  # noqa: E402
from karplint.testing import SHARED  # noqa: E402


def documented() -> list[tuple[str, str]]:
    from karplint.testing import documented_findings

    return [(f.code, f.parts[0]) for f in documented_findings()]


def checked(paths: list[str]) -> list[tuple[str, str]]:
    proc = subprocess.run([sys.executable, "-m", "karplint", "check", *paths, "--no-cache", "-f", "json",
                           "--exit-zero"], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    return [(f["code"], split_message(f["message"])[0]) for f in json.loads(proc.stdout)["findings"]]


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"] or [
        p for p in (str(SHARED / "corpus"), str(SHARED / "karpenter" / "examples" / "v1"),
                    str(REPO / "examples")) if Path(p).exists()]
    for name, items in (("rule docs", documented()), ("checked paths", checked(paths))):
        if not items:
            continue
        lengths = [len(h) for _, h in items]
        print(f"{name}: {len(items)} findings, headline median {statistics.median(lengths)}, max {max(lengths)}, "
              f"{sum(n >= 90 for n in lengths)} at 90 or more")
        if verbose:
            longest: dict[str, str] = {}
            for code, head in items:
                if len(head) > len(longest.get(code, "")):
                    longest[code] = head
            for code in sorted(longest):
                print(f"  {code} {len(longest[code]):3d} {longest[code]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
