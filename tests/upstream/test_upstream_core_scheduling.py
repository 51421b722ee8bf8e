"""Karpenter's own tests of `core-scheduling` (tests/upstream/harness.py `SUITES`), translated into cases/core-scheduling/ and run
through karplint's simulation."""

import pytest

from harness import cases, check


@pytest.mark.parametrize("path", cases("core-scheduling"))
def test_upstream(path):
    check(path)
