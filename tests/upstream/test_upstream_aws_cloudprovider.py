"""Karpenter's own tests of `aws-cloudprovider` (tests/upstream/harness.py `SUITES`), translated into cases/aws-cloudprovider/ and run
through karplint's simulation."""

import pytest

from harness import cases, check


@pytest.mark.parametrize("path", cases("aws-cloudprovider"))
def test_upstream(path):
    check(path)
