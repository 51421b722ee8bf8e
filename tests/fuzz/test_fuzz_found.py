"""Defects the fuzz targets of tests/fuzz found, each with its minimal input: plain tests that fail without the fix."""

from __future__ import annotations

import pytest

from karplint.readers.loader import decode, load, load_reference
from karplint.testing import codes, lint

# U+2028 LINE SEPARATOR (and NEL, U+2029) in a quoted value: ruamel and libyaml count it as a line break, no editor
# does; every finding after it was reported lines too low, past the end of the file.
OTHER_BREAK = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: \"a{0}b{0}c\"\nspec:\n  weight: 1000\n"


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"])
def test_findings_after_a_unicode_line_separator_keep_their_line(char):
    assert [c for c in codes(lint(OTHER_BREAK.format(char))) if c[0] == "KPL106"] == [("KPL106", 6, 11)]


def test_reference_loader_places_nodes_after_a_unicode_line_separator():
    src = decode("x.yaml", OTHER_BREAK.format("\u2028").encode("utf-8"), None)
    docs, _problems = load_reference(src)
    span = docs[0].nodes[("spec", "weight")].span
    assert (span.line, span.column, span.end_line, span.end_column) == (6, 11, 6, 15)


def test_syntax_error_at_the_end_of_input_is_inside_the_file():
    # ruamel placed it at line 2 of this one-line file
    assert codes(lint("{")) == [("KPL001", 1, 2)]


def test_syntax_error_after_a_unicode_line_separator():
    assert codes(lint("a: \"x\u2028y\"\nb: [\n")) == [("KPL001", 3, 1)]


@pytest.mark.parametrize("loader", [load, load_reference])
def test_explicit_key_without_value_at_the_end_of_input_is_inside_the_file(loader):
    # `? key` with no value and no final line break: its null value was marked on line 2 of a one-line file
    src = decode("x.yaml", b"a:\n  ? b", None)
    docs, _problems = loader(src)
    span = docs[0].nodes[("a", "b")].span
    assert (span.line, span.column, span.end_line, span.end_column) == (2, 6, 2, 6)


REQUIREMENT = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
               "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n      requirements:\n"
               "        - {key: %s, operator: In, values: %s}\n")


@pytest.mark.parametrize("key, values, expected", [
    ("{a: 1}", "[x]", []),  # a map as the key: the schema's finding (KPL10x), no KPL143
    ("karpenter.sh/capacity-type", "[{a: 1}, spot]", [("KPL143", 9, 68)]),
    ("karpenter.sh/capacity-type", "[[x]]", [("KPL143", 9, 67)]),
])
def test_capacity_type_rule_takes_a_list_or_map_where_a_string_belongs(key, values, expected):
    # KPL143 looked the key and the values up in sets: TypeError (unhashable), an internal error (KPL006)
    found = codes(lint(REQUIREMENT % (key, values)))
    assert not [c for c in found if c[0] == "KPL006"]
    assert [c for c in found if c[0] == "KPL143"] == expected


POOL_AND_APP = (
    "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
    "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n"
    "      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n"
    "      taints: [{key: gpu, effect: NoSchedule}]\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  selector: {matchLabels: {app: a}}\n"
    "  template:\n    metadata: {labels: {app: a}}\n    spec:\n      containers: [{name: a, image: x}]\n%s")


@pytest.mark.parametrize("pod_spec", [
    "      tolerations: [{key: {a: 1}, operator: Exists}]\n",
    "      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [\n"
    "        {matchExpressions: [{key: [x], operator: Exists}]}]}}}\n",
])
def test_workload_rule_takes_a_map_or_list_as_a_toleration_or_affinity_key(pod_spec):
    # KPL910's pre-filter put the key in a set / looked it up in one: TypeError (unhashable), an internal error
    found = codes(lint(POOL_AND_APP % pod_spec))
    assert not [c for c in found if c[0] == "KPL006"], found


TAINTED_POOL_AND_APP = (
    "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
    "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n"
    "      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n"
    "      taints: [%s{key: gpu, effect: NoSchedule}]\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  selector: {matchLabels: {app: a}}\n"
    "  template:\n    metadata: {labels: {app: a}}\n    spec:\n      containers: [{name: a, image: x}]\n"
    "      tolerations: [%s{key: gpu, operator: Exists}]\n")


@pytest.mark.parametrize("taint, toleration", [
    ("{key: [x], effect: NoSchedule}, ", ""),  # the NodePool's taint keys were put in a set
    ("", "{key: {a: 1}, operator: Exists}, "),  # a toleration's key was looked up in that set
    ("", "{key: [x], operator: Exists}, "),
])
def test_workload_rule_takes_a_map_or_list_as_a_taint_key(taint, toleration):
    found = codes(lint(TAINTED_POOL_AND_APP % (taint, toleration)))
    assert not [c for c in found if c[0] == "KPL006"], found
