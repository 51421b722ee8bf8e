"""karplint.schema.cel on hand-made schemas: defaulting, pruning, scopes, fieldPath, messageExpression, reason,
transition and unsupported rules, placeholders; the Kubernetes extension functions; the coverage report."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from karplint.schema import celext
from karplint.schema.cel import (
    Unsupported, _engine, cel_coverage, compile_rule, evaluate, fields_selected, functions_called, print_coverage,
)


def obj(props, rules=(), **extra):
    return {"type": "object", "properties": props, "x-kubernetes-validations": list(rules), **extra}


def rule(src, message=None, **extra):
    r = {"rule": src, **extra}
    if message:
        r["message"] = message
    return r


STR = {"type": "string"}
INT = {"type": "integer"}


def messages(out):
    return [(f.report_path, f.message) for f in out.failures]


def run(src, value):
    return compile_rule(src)({"self": value})


# ---------------------------------------------------------------------------------------------- semantics

def test_has_is_false_for_absent_fields_and_selecting_them_errors():
    schema = obj({"spec": obj({"a": STR, "b": STR}, [rule("has(self.a) || self.b == 'x'", "need a")])})
    assert messages(evaluate({"spec": {"b": "x"}}, schema)) == []
    out = evaluate({"spec": {}}, schema)
    assert messages(out) == [(("spec",), "no such key: b evaluating rule: need a")]
    assert out.failures[0].error == "no such key: b"


def test_defaults_are_applied_before_evaluation_including_defaults_of_defaults():
    inner = obj({"mode": {"type": "string", "default": "on"}})
    schema = obj({"spec": obj({"policy": {"type": "string", "default": "WhenEmpty"},
                               "inner": {**inner, "default": {}}},
                              [rule("self.policy == 'WhenEmpty'", "policy"), rule("self.inner.mode == 'on'", "mode")])})
    assert messages(evaluate({"spec": {}}, schema)) == []
    assert messages(evaluate({"spec": {"policy": "X", "inner": {"mode": "off"}}}, schema)) == [
        (("spec",), "policy"), (("spec",), "mode")]


def test_null_is_pruned_then_defaulted_and_unknown_fields_are_pruned():
    schema = obj({"spec": obj({"a": {"type": "string", "default": "d"}},
                              [rule("self.a == 'd' && !has(self.zzz)", "pruned")])})
    assert messages(evaluate({"spec": {"a": None, "zzz": 1}}, schema)) == []


def test_number_is_double_and_int_or_string_is_kept():
    schema = obj({"spec": obj({"n": {"type": "number"}, "q": {"x-kubernetes-int-or-string": True}},
                              [rule("self.n > 1.5 && (type(self.q) == int ? self.q > 1 : self.q.endsWith('%'))", "t")])})
    assert messages(evaluate({"spec": {"n": 2, "q": 3}}, schema)) == []
    assert messages(evaluate({"spec": {"n": 2, "q": "10%"}}, schema)) == []
    assert messages(evaluate({"spec": {"n": 1, "q": "10"}}, schema)) == [(("spec",), "t")]


def test_rules_run_at_list_items_and_map_values_with_their_paths():
    schema = obj({"spec": obj({
        "items": {"type": "array", "items": {**STR, "x-kubernetes-validations": [rule("self != 'bad'", "item")]}},
        "labels": {"type": "object", "additionalProperties": {**STR, "x-kubernetes-validations": [
            rule("self.size() < 5", "short")]}},
    })})
    out = evaluate({"spec": {"items": ["ok", "bad"], "labels": {"a": "toolong", "b": "x"}}}, schema)
    assert messages(out) == [(("spec", "items", 1), "item"), (("spec", "labels", "a"), "short")]


def test_field_path_message_expression_and_reason():
    schema = obj({"spec": obj({"x": STR, "m": {"type": "object", "additionalProperties": STR}}, [
        rule("self.x == 'a'", "plain", fieldPath=".x", reason="FieldValueForbidden"),
        rule("self.x == 'b'", "fallback", messageExpression="'x is ' + self.x", fieldPath=".m['k.io/y']"),
        rule("self.x == 'c'"),
        rule("self.x == 'd'", "required", reason="FieldValueRequired"),
        rule("self.x == 'e'", "bad expression", messageExpression="self.nope"),
    ])})
    out = evaluate({"spec": {"x": "z", "m": {"k.io/y": "v"}}}, schema)
    assert messages(out) == [
        (("spec", "x"), "Forbidden: plain"),
        (("spec", "m", "k.io/y"), "x is z"),
        (("spec",), "failed rule: self.x == 'c'"),
        (("spec",), "Required value: required"),
        (("spec",), "bad expression"),
    ]


def test_transition_rules_are_counted_apart_and_unsupported_ones_listed():
    schema = obj({"spec": obj({"x": STR}, [
        rule("self.x == oldSelf.x", "immutable"),
        rule("self.x == 'a'", "opt", optionalOldSelf=True),
        rule("ip(self.x).family() == 4", "ipv4"),
        rule("self.x.(", "syntax"),
        rule("self.x == 'z'", "ok"),
    ])})
    out = evaluate({"spec": {"x": "z"}}, schema)
    assert out.failures == [] and out.transition == 2 and out.evaluated == 1
    why = {r.message: w for _p, r, w in out.unevaluated}
    assert set(why) == {"ipv4", "syntax"}
    assert "ip" in why["ipv4"] and "compile" in why["syntax"]
    with pytest.raises(Unsupported):
        compile_rule("cidr('10.0.0.0/8').containsIP(self)")


def test_placeholders_make_only_the_rules_reading_them_unknown():
    schema = obj({"spec": obj({"a": STR, "b": STR, "tags": {"type": "object", "additionalProperties": STR}}, [
        rule("self.a == 'x'", "a"), rule("self.b == 'x'", "b"), rule("self.tags.all(k, k != 'bad')", "tags")])})
    out = evaluate({"spec": {"a": "${A}", "b": "y", "tags": {"{{ .Values.k }}": "v", "bad": "1"}}}, schema)
    assert messages(out) == [(("spec",), "b")]
    assert sorted(r.message for _p, r in out.unknown) == ["a", "tags"]


def test_wrong_types_are_left_to_the_structural_validator():
    schema = obj({"spec": obj({"n": INT}, [rule("self.n > 1", "n")])})
    out = evaluate({"spec": {"n": "three"}}, schema)
    assert out.failures == [] and len(out.unknown) == 1


def test_static_analysis_helpers():
    assert functions_called("self.find('^x(') == 'a' && self.split('@').size() > 1") >= {"find", "split", "size"}
    assert "find" not in functions_called("'find(' == self")
    assert fields_selected("has(self.alias) && x.amiFamily == 'a' && self['b.c'] == 1 && self.size() > 0") == {
        "alias", "amiFamily", "b.c"}


# ---------------------------------------------------------------------------------------------- extension functions

@pytest.mark.parametrize("src,value,want", [
    ("self.find('^([^/]+)')", "karpenter.sh/x", "karpenter.sh"),
    ("self.find('[0-9]+')", "abc", ""),
    ("self.findAll('[0-9]')", "a1b2c3", ["1", "2", "3"]),
    ("self.findAll('[0-9]', 2)", "a1b2c3", ["1", "2"]),
    ("self.split('@')", "al2023@latest", ["al2023", "latest"]),
    ("self.split('@', 1)", "a@b@c", ["a@b@c"]),
    ("self.split('@', 0)", "a@b", []),
    ("self.lowerAscii()", "AbÇ", "abÇ"),
    ("self.upperAscii()", "abç", "ABç"),
    ("self.replace('a', 'b')", "aaa", "bbb"),
    ("self.replace('a', 'b', 1)", "aaa", "baa"),
    ("self.trim()", "  x ", "x"),
    ("self.indexOf('b')", "abcb", 1),
    ("self.lastIndexOf('b')", "abcb", 3),
    ("self.substring(1, 3)", "abcd", "bc"),
    ("self.charAt(1)", "abc", "b"),
    ("self.join('-')", ["a", "b"], "a-b"),
    ("self.isSorted()", [1, 2, 2, 5], True),
    ("self.isSorted()", ["b", "a"], False),
    ("self.sum()", [1, 2, 3], 6),
    ("self.min()", [3, 1, 2], 1),
    ("self.max()", [3, 1, 2], 3),
    ("self.indexOf(2)", [1, 2, 3], 1),
    ("bool(self)", "true", True),
    ("quantity(self).isGreaterThan(quantity('1Gi'))", "2Gi", True),
    ("quantity(self).isLessThan(quantity('1G'))", "1Gi", False),
    ("isQuantity(self)", "100m", True),
    ("isQuantity(self)", "1GB", False),
    ("quantity(self).asInteger()", "2k", 2000),
    ("quantity(self).compareTo(quantity('1000m'))", "1", 0),
    ("isURL(self)", "https://example.com:8443/p?q=1", True),
    ("url(self).getHostname()", "https://example.com:8443/p", "example.com"),
    ("url(self).getPort()", "https://example.com:8443/p", "8443"),
    ("url(self).getScheme()", "https://example.com/p", "https"),
    ("self.exists_one(x, x > 1)", [1, 2], True),
    ("self.all(x, x.matches('^[a-z]+$'))", ["ab", "c"], True),
])
def test_extension_functions(src, value, want):
    assert run(src, value) == want


@pytest.mark.parametrize("src,value", [
    ("self.find('(')", "x"),
    ("self.substring(3, 1)", "abc"),
    ("quantity(self)", "1GB"),
    ("self.min()", []),
    ("int(self)", "x"),
])
def test_extension_errors_are_evaluation_errors(src, value):
    with pytest.raises(Exception):
        run(src, value)


def test_no_stderr_noise_from_failing_callbacks(capfd):
    schema = obj({"spec": obj({"x": STR}, [rule("self.x.find('(') == ''", "m")])})
    out = evaluate({"spec": {"x": "a"}}, schema)
    assert out.failures and out.failures[0].error
    assert capfd.readouterr().err == ""


@pytest.mark.skipif(_engine() is None or _engine().name != "common-expression-language",
                    reason="compares the Rust engine with cel-python")
def test_both_engines_agree_on_the_extension_functions():
    from karplint.schema.cel import _CelpyEngine

    try:
        py = _CelpyEngine()
    except ImportError:
        pytest.skip("cel-python not installed")
    for src, value in [("self.find('^([^/]+)').endsWith('karpenter.sh')", "a.karpenter.sh/x"),
                       ("self.split('@')[0] in ['al2', 'al2023']", "al2023@latest"),
                       ("self.all(k, k != '' && self[k] != '')", {"a": "b"}),
                       ("self.filter(x, has(x.r) ? x.r == true : false).size() <= 1", [{"r": True}, {"r": False}])]:
        assert py.compile(src)({"self": value}) == run(src, value)


# ---------------------------------------------------------------------------------------------- coverage report

def test_coverage_of_every_bundled_release_and_the_printer():
    data = cel_coverage()
    releases = {row["release"] for row in data}
    assert {"0.32.10", "0.37.8", "1.0.0", "1.1.0", "1.14.1"} <= releases
    assert all(row["unevaluated"] == 0 for row in data), [(r["release"], r["kind"]) for r in data if r["unevaluated"]]
    buf = io.StringIO()
    print_coverage([r for r in data if r["release"] == "1.14.1"], buf)
    text = buf.getvalue()
    assert "karpenter.sh/v1 NodePool" in text and "100.0%" in text and "transition" in text
    with pytest.raises(ValueError):
        cel_coverage("9.9.9")


def test_cli_cel_coverage():
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "karplint", "rules", "--cel-coverage", "--release", "1.14.1", "-f",
                           "json"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = {r["kind"]: r for r in json.loads(proc.stdout)}
    assert rows["EC2NodeClass"]["evaluated"] == 54 and rows["NodePool"]["evaluated"] == 17
    proc = subprocess.run([sys.executable, "-m", "karplint", "rules", "--cel-coverage", "--release", "1.14.1"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0 and "EC2NodeClass" in proc.stdout


def test_supported_names_cover_the_registry():
    assert {"find", "split", "isSorted", "quantity", "url", "lowerAscii"} <= celext.SUPPORTED


def test_errors_on_missing_required_fields_are_left_to_the_structural_validator():
    schema = obj({"spec": obj({"terms": {"type": "array", "items": STR}, "x": STR},
                              [rule("self.terms.size() > 0", "terms"), rule("self.x == 'a'", "x")],
                              required=["terms"])})
    out = evaluate({"spec": {"x": "b"}}, schema)
    assert messages(out) == [(("spec",), "x")]
    assert [r.message for _p, r in out.unknown] == ["terms"]


def test_status_is_not_validated_and_non_string_keys_are_json_strings():
    schema = obj({"spec": obj({"labels": {"type": "object", "additionalProperties": STR,
                                          "x-kubernetes-validations": [rule("self.all(k, k.startsWith('a'))", "k")]}}),
                  "status": obj({"x": STR}, [rule("self.x == 'never'", "status")])})
    out = evaluate({"spec": {"labels": {1: "x"}}, "status": {"x": "y"}}, schema)
    assert messages(out) == [(("spec", "labels"), "k")]
    assert evaluate({"spec": {"labels": {"a1": "x"}}, "status": {"x": "y"}}, schema).failures == []


def test_arbitrary_data_never_raises():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from karplint.schema import load_schema

    scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2 ** 70, max_value=2 ** 70),
                        st.floats(allow_nan=True), st.text(max_size=8),
                        st.sampled_from(["${X}", "{{ .V }}", "al2023@latest", "In", "Gt", "-1", "karpenter.sh/x"]))
    keys = st.one_of(st.text(max_size=6), st.sampled_from(
        ["spec", "template", "requirements", "key", "operator", "values", "labels", "metadata", "amiSelectorTerms",
         "alias", "tags", "kubelet", "replicas", "limits", "disruption", "budgets", "role", "instanceProfile"]),
        st.integers(max_value=3), st.booleans())
    data = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(keys, inner, max_size=5)), max_leaves=30)
    schemas = [load_schema("1.14.1", "karpenter.sh", "v1", "NodePool"),
               load_schema("1.14.1", "karpenter.k8s.aws", "v1", "EC2NodeClass")]

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(spec=data, which=st.integers(min_value=0, max_value=1))
    def check(spec, which):
        out = evaluate({"spec": spec}, schemas[which])
        assert all(isinstance(f.message, str) for f in out.failures)

    check()
