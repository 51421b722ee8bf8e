"""Property-based tests: arbitrary input never raises out of the loader, the suppression parser or the engine."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karplint.readers.loader import Problem, decode, load
from karplint.readers.source import SourceFile
from karplint.readers.suppression import from_comments
from karplint.testing import lint

YAMLISH = st.text(alphabet=st.sampled_from(list("abc:-[]{}'\"#&*!|>?,\n\t %@`\\=\r") + ["é", "\x00", "\ufeff"]),
                  max_size=200)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.binary(max_size=300))
def test_decode_any_bytes(raw):
    result = decode("x.yaml", raw)
    assert isinstance(result, (SourceFile, Problem))


@SETTINGS
@given(YAMLISH)
def test_load_any_text(text):
    src = decode("x.yaml", text.encode("utf-8"))
    if isinstance(src, SourceFile):
        docs, problems = load(src)
        for p in problems:
            assert p.span.line >= 1 and p.span.column >= 1
        for d in docs:
            for info in d.nodes.values():
                assert 1 <= info.span.line <= info.span.end_line


@SETTINGS
@given(st.text(max_size=200))
def test_suppression_parser_any_text(text):
    from_comments(SourceFile("x.yaml", "# karplint: " + text))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["apiVersion", "kind", "metadata", "spec", "name", "template", "disruption", "taints", "userData",
         "requirements", "nodeClassRef", "amiFamily", "key", "values", "effect"]), inner, max_size=4),
    max_leaves=20))
def test_engine_never_reports_internal_errors_on_odd_shapes(spec):
    import json

    for kind, api in (("NodePool", "karpenter.sh/v1"), ("EC2NodeClass", "karpenter.k8s.aws/v1"),
                      ("Deployment", "apps/v1")):
        doc = {"apiVersion": api, "kind": kind, "metadata": {"name": "x"}, "spec": spec}
        findings = lint(json.dumps(doc))
        assert not [f for f in findings if f.code == "KPL006"], [f.message for f in findings if f.code == "KPL006"]
