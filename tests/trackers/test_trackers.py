"""The survey of Karpenter's trackers as a test suite: every case at the release its report names and at the
default (tests/trackers/README.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tracker_cases import LOUD, cases, mismatch, not_visible

CASES = cases()
WITH_RELEASE = [c for c in CASES if c.release is not None]  # (the others name none: the default run covers them)
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", WITH_RELEASE, ids=[c.name for c in WITH_RELEASE])
def test_case_at_its_release(case):
    problem = mismatch(case, case.release)
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_at_default(case):
    problem = mismatch(case, None)
    if problem:
        pytest.fail(problem, pytrace=False)


def test_verdicts_are_consistent():
    from karplint.rules import all_rules

    severity = {r.code: r.severity for r in all_rules()}
    for case in CASES:
        codes = {c for c, _, _ in case.expect}
        if case.verdict == "caught":
            assert case.rule in codes, f"{case.name}: caught by {case.rule}, which `expect` does not list"
        elif case.verdict == "negative":
            loud = [c for c in codes | {c for c, _, _ in case.expect_default} if severity.get(c) in LOUD]
            assert not loud, f"{case.name}: a negative is flagged ({loud})"
        else:
            assert case.rule is None or case.rule not in codes, f"{case.name}: missed but {case.rule} is expected"
        assert case.rule is None or case.rule in severity or case.verdict == "missed", case.name


def test_every_report_is_read_once():
    links = [c.link for c in CASES] + [row[0] for row in not_visible()]
    twice = sorted({link for link in links if links.count(link) > 1})
    assert not twice, f"reports listed twice: {twice}"


def test_survey_table_is_current():
    out = subprocess.run([sys.executable, "scripts/gen_tracker_table.py", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
