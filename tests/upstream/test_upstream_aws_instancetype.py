"""Karpenter's own tests of `aws-instancetype` (tests/upstream/harness.py `SUITES`), translated into cases/aws-instancetype/ and run
through karplint's simulation."""

import pytest

from harness import cases, check


@pytest.mark.parametrize("path", cases("aws-instancetype"))
def test_upstream(path):
    check(path)
