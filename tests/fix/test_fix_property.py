"""Property: fixing a fixture wrapped in unrelated documents, comments, CRLF or LF, with or without a final
newline and a BOM, gives exactly the same wrapping around the fixed fixture: no byte outside the fix moves."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings

from fix_golden import GOLDEN, run_golden_fix
from wrap import wrap, wrapping

from karplint.engine import InputFile
from karplint.fix import fix_inputs
from karplint.testing import make_config
from fixsupport import fix_rules  # noqa: F401 - pytest fixtures

NP = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: np   # name
spec:
  disruption:
    consolidationPolicy: WhenUnderutilized   # old name
    expireAfter: 720h
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
"""
NP_FIXED = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: np   # name
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized   # old name
    consolidateAfter: 0s
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
"""

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(w=wrapping())
def test_wrapped_fix_rules(fix_rules, w):
    out = fix_inputs([InputFile("w.yaml", None, wrap(NP, w))], make_config({"select": ["KPL99"]}), unsafe=True)
    assert out.files and out.files[0].error is None, out.notes
    assert out.files[0].encoded() == wrap(NP_FIXED, w)


CASES = [c for c in GOLDEN if not c.missing]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@settings(max_examples=3, deadline=None)
@given(w=wrapping())
@example(w=("# head\n", "", True, False, True))  # CRLF, no final newline, BOM
@example(w=("", "---\nnext: doc  # c\n", False, False, False))  # LF, a document after, no final newline
def test_wrapped_golden_fixture(case, w):
    assert run_golden_fix(case, wrap(case.before, w)) == wrap(case.after, w)
