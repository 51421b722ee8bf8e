"""Fixtures for the fix tests (imported by the test modules; not a conftest.py, whose module name `conftest`
would shadow tests/conftest.py): test-only rules with fixes, registered only for the tests that ask."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.append(str(HERE))

import fixrules  # noqa: E402


@pytest.fixture
def fix_rules():
    unregister = fixrules.register()
    yield fixrules.CODES
    unregister()


@pytest.fixture
def run_fix_cli():
    """Run the CLI as a subprocess with the test rules registered."""
    import subprocess

    def run(*args, cwd=None, stdin=None):
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
        return subprocess.run([sys.executable, str(HERE / "fixrules.py"), *args], cwd=cwd, input=stdin,
                              capture_output=True, env=env, timeout=60)
    return run


# The NodePool that the fix API and CLI tests share.
NP = """\
# a nodepool
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  disruption:
    consolidationPolicy: WhenUnderutilized   # old name
    expireAfter: 720h
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
"""
