"""The index of Karpenter's tests (tests/upstream/<suite>.tsv) and the case files agree; the index is what
scripts/gen_upstream_index.py reads from the upstream files, and the fake catalog what scripts/gen_fake_catalog.py
reads from Karpenter's fake cloud provider (both checked when the mirrors are on this machine)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from harness import CASES, HERE, SUITES, CaseError, case_line, read_case, upstream_ref

REPO = HERE.parent.parent
STATUSES = ("translated", "left-out", "xfail")
MIRRORS = (Path("/work/.mirror/kubernetes-sigs+karpenter/repo"), Path("/work/.mirror/aws+karpenter-provider-aws/repo"))


def rows(suite: str) -> list[dict]:
    with (HERE / f"{suite}.tsv").open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert reader.fieldnames == ["line", "test", "status", "reason"], suite
        return list(reader)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_index_and_cases_agree(suite):
    problems = []
    index = rows(suite)
    by_line = {}
    for r in index:
        if r["status"] not in STATUSES:
            problems.append(f"{suite}.tsv line {r['line']}: status `{r['status']}` is not one of {STATUSES}")
        if r["status"] != "translated" and not r["reason"].strip():
            problems.append(f"{suite}.tsv line {r['line']}: a {r['status']} row needs a reason")
        by_line[int(r["line"])] = r
    files: dict[int, list[Path]] = {}
    for path in sorted((CASES / suite).glob("*.yaml")):
        try:
            line = case_line(path)
            header, _ = read_case(path)
        except CaseError as exc:
            problems.append(str(exc))
            continue
        files.setdefault(line, []).append(path)
        row = by_line.get(line)
        if row is None or row["status"] == "left-out":
            problems.append(f"{suite}/{path.name}: line {line} is not a translated or xfail row of {suite}.tsv")
            continue
        if header["upstream"] != upstream_ref(suite, line):
            problems.append(f"{suite}/{path.name}: upstream `{header['upstream']}`, expected "
                            f"`{upstream_ref(suite, line)}`")
        if " ".join(str(header["test"]).split()) != row["test"]:
            problems.append(f"{suite}/{path.name}: test `{header['test']}`, the index says `{row['test']}`")
    for line, r in by_line.items():
        if r["status"] in ("translated", "xfail") and line not in files:
            problems.append(f"{suite}.tsv line {line}: {r['status']} but no cases/{suite}/L{line}-*.yaml")
        if line in files:
            xfails = [p.name for p in files[line] if read_case(p)[0].get("xfail")]
            if bool(xfails) != (r["status"] == "xfail"):
                problems.append(f"{suite}.tsv line {line}: status {r['status']}, but xfail cases: {xfails or 'none'}")
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(not all(p.is_dir() for p in MIRRORS), reason="the upstream mirrors are not on this machine")
def test_index_lists_every_upstream_test():
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_upstream_index.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(not MIRRORS[0].is_dir(), reason="the upstream mirror is not on this machine")
def test_fake_catalog_is_generated_from_karpenter():
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_fake_catalog.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
