#!/usr/bin/env python3
"""Write tests/upstream/<suite>.tsv: one row per test of Karpenter's own scheduler test files (the contract of
tests/upstream/, see tests/upstream/harness.py), read offline from the git mirrors at the tag.

A row is an `It(` call (also `FIt`/`PIt`/`XIt`) or a `DescribeTable(` (its `Entry` lines are cases of that row):
`line  test  status  reason`, `test` being the Describe/Context/When path and the It text joined with ` / `.
Rows already in the file keep their `status` and `reason` (matched by line and test text; a test whose text moved
to another line keeps them too); new rows are `left-out` / `not yet triaged`. `--check` exits 1 when the files'
line and test columns differ from the upstream files (statuses are not compared).

Usage: gen_upstream_index.py [--check]
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "upstream"
CORE = ("kubernetes-sigs/karpenter", Path("/work/.mirror/kubernetes-sigs+karpenter/repo"))
AWS = ("aws/karpenter-provider-aws", Path("/work/.mirror/aws+karpenter-provider-aws/repo"))
TAG = "v1.14.1"
SUITES = {
    "core-scheduling": (CORE, "pkg/controllers/provisioning/scheduling/suite_test.go"),
    "core-provisioning": (CORE, "pkg/controllers/provisioning/suite_test.go"),
    "aws-instancetype": (AWS, "pkg/providers/instancetype/suite_test.go"),
    "aws-cloudprovider": (AWS, "pkg/cloudprovider/suite_test.go"),
}
HEADER = ["line", "test", "status", "reason"]
CONTAINERS = ("Describe", "Context", "When", "FDescribe", "FContext", "PDescribe", "PContext", "XDescribe",
              "XContext", "FWhen", "PWhen")
TESTS = ("It", "FIt", "PIt", "XIt", "DescribeTable", "FDescribeTable", "PDescribeTable")


def tokens(src: str):
    """(kind, text, line) of a Go source: `ident`, `string` (its value), `{`, `}`, `(`, `)`; comments skipped."""
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i == -1 else i
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j == -1 else j + 2
            line += src.count("\n", i, j)
            i = j
        elif c == '"':
            j, out = i + 1, []
            while j < n and src[j] != '"':
                if src[j] == "\\":
                    out.append(src[j:j + 2])
                    j += 2
                    continue
                out.append(src[j])
                j += 1
            yield "string", "".join(out).replace('\\"', '"').replace("\\\\", "\\"), line
            i = j + 1
        elif c == "`":
            j = src.find("`", i + 1)
            yield "string", src[i + 1:j], line
            line += src.count("\n", i, j)
            i = j + 1
        elif c == "'":
            j = i + 1
            while src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            yield "ident", src[i:j], line
            i = j
        elif c in "{}()":
            yield c, c, line
            i += 1
        else:
            i += 1


def tests_of(src: str) -> list[tuple[int, str]]:
    """(line, path) of every It / DescribeTable call, the path being its containers' titles and its own."""
    out = []
    stack: list[tuple[int, str]] = []  # (brace depth of the container's body, title)
    depth = 0
    pending: str | None = None  # a container's title, waiting for its body's `{`
    toks = list(tokens(src))
    for i, (kind, text, line) in enumerate(toks):
        if kind == "ident" and i + 2 < len(toks) and toks[i + 1][0] == "(" and toks[i + 2][0] == "string":
            prev = toks[i - 1] if i else None
            if prev is not None and prev[1] == ".":
                continue
            if text in CONTAINERS:
                pending = toks[i + 2][1]
            elif text in TESTS:
                out.append((line, " / ".join([t for _d, t in stack] + [toks[i + 2][1]])))
        elif kind == "{":
            depth += 1
            if pending is not None:
                stack.append((depth, pending))
                pending = None
        elif kind == "}":
            while stack and stack[-1][0] == depth:
                stack.pop()
            depth -= 1
    return out


def clean(text: str) -> str:
    return " ".join(text.split())


def upstream_rows(suite: str) -> list[tuple[int, str]]:
    (_repo, mirror), path = SUITES[suite]
    src = subprocess.run(["git", "-C", str(mirror), "show", f"{TAG}:{path}"], capture_output=True, text=True,
                         check=True).stdout
    return [(line, clean(test)) for line, test in tests_of(src)]


def read_index(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def write_index(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, HEADER, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    bad = 0
    for suite in SUITES:
        path = OUT / f"{suite}.tsv"
        old = read_index(path)
        rows = upstream_rows(suite)
        if args.check:
            if [(int(r["line"]), r["test"]) for r in old] != rows:
                print(f"{path.relative_to(REPO)}: the line/test columns differ from {SUITES[suite][1]}@{TAG}")
                bad = 1
            continue
        by_line = {(r["line"], r["test"]): r for r in old}
        by_test = {r["test"]: r for r in old}
        out = []
        for line, test in rows:
            prev = by_line.get((str(line), test)) or by_test.get(test)
            out.append({"line": line, "test": test, "status": prev["status"] if prev else "left-out",
                        "reason": prev["reason"] if prev else "not yet triaged"})
        write_index(path, out)
    return bad


if __name__ == "__main__":
    sys.exit(main())
