"""Karpenter's own tests of `core-provisioning` (tests/upstream/harness.py `SUITES`), translated into cases/core-provisioning/ and run
through karplint's simulation."""

import pytest

from harness import cases, check


@pytest.mark.parametrize("path", cases("core-provisioning"))
def test_upstream(path):
    check(path)
