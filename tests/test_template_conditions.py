"""`{{ if }}` on chart values read with the chart's defaults (karplint/readers/gotemplate.py `Condition`): a branch
that does not render with values.yaml is not read; an unknown condition keeps both branches read as before."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from karplint.readers.gotemplate import Condition, Masker
from karplint.readers.helm_charts import _truth
from karplint.testing import run_json

# Excerpt of aws-samples/fleet-management-on-amazon-eks-workshop@b93f942f162756abe2cb3bb9dd1ba002235540ed
# validation-frameworks/helm/locust/templates/master-pdb.yaml (MIT-0); the chart's values.yaml has
# `master: pdb: enabled: false`. Before: KPL421 (maxUnavailable 0 blocks eviction) on a PDB the chart does not
# render unless a user turns it on.
LOCUST_MASTER_PDB = """\
{{- if .Values.master.pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ template "locust.fullname" . }}-master
  labels:
    component: master
{{ include "locust.labels" . | indent 4 }}
spec:
  maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "locust.selectorLabels" . | nindent 6 }}
      component: master
{{- end }}
"""
# The pods it selects and a NodePool they can run on (written for this test).
CONTEXT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: locust-master
spec:
  replicas: 1
  selector:
    matchLabels: {component: master}
  template:
    metadata:
      labels: {component: master}
    spec:
      containers: [{name: locust, image: locust:1}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  limits: {cpu: 100}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
"""


def _check(tmp_path: Path, template: str, values: str | None) -> list[tuple]:
    chart = tmp_path / "locust"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: locust\nversion: 0.1.0\n")
    if values is not None:
        (chart / "values.yaml").write_text(values)
    (chart / "templates" / "master-pdb.yaml").write_text(template)
    (tmp_path / "context.yaml").write_text(CONTEXT)
    _code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path, env={"KARPLINT_NO_HELM": "1"})
    return sorted((f["code"], f["file"], f["line"], f["column"]) for f in report["findings"]
                  if f["severity"] != "info")


LOCUST_VALUES = "master:\n  image: locust\n  pdb:\n    enabled: false\n"
KPL421 = [("KPL421", "locust/templates/master-pdb.yaml", 10, 19)]


def test_locust_pdb_off_by_default_is_not_read_and_on_is_checked(tmp_path: Path):
    """Before: KPL421 at 10:19 with `enabled: false` too."""
    assert _check(tmp_path / "off", LOCUST_MASTER_PDB, LOCUST_VALUES) == []
    assert _check(tmp_path / "on", LOCUST_MASTER_PDB, LOCUST_VALUES.replace("false", "true")) == KPL421


@pytest.mark.parametrize("condition, values", [
    (".Release.IsInstall", LOCUST_VALUES),  # not a value
    ('include "locust.pdbEnabled" .', LOCUST_VALUES),  # a helper
    (".Values.master.pdb.enabled | default true", LOCUST_VALUES),  # a function in the pipeline
    ("and .Values.master.pdb.enabled .Release.IsInstall", LOCUST_VALUES),  # an unknown operand
    (".Values.worker.pdb.enabled", LOCUST_VALUES),  # `.worker` missing: helm fails, not "false"
    (".Values.master.pdb.enabled", LOCUST_VALUES.replace("false", "no")),  # YAML 1.1 false, a string in 1.2
    (".Values.master.pdb.enabled", None),  # no values.yaml
])
def test_an_unknown_condition_keeps_the_branch_read(tmp_path: Path, condition, values):
    template = LOCUST_MASTER_PDB.replace(".Values.master.pdb.enabled", condition, 1)
    assert _check(tmp_path, template, values) == KPL421


# the PDB's fields under an if/else on a value (written for this test): minAvailable 0 allows every eviction
IF_ELSE = """\
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: locust-master
spec:
  {{- if .Values.master.pdb.allowAll }}
  minAvailable: 0
  {{- else }}
  maxUnavailable: 0
  {{- end }}
  selector:
    matchLabels:
      component: master
"""


def test_if_else_with_a_known_condition_reads_one_branch(tmp_path: Path):
    """Before: both branches read (a PDB with minAvailable and maxUnavailable 0): KPL421 at line 9 whatever the
    value; now only the branch the defaults render."""
    at_else = [("KPL421", "locust/templates/master-pdb.yaml", 9, 19)]
    assert _check(tmp_path / "a", IF_ELSE, "master:\n  pdb:\n    allowAll: true\n") == []
    assert _check(tmp_path / "b", IF_ELSE, "master:\n  pdb:\n    allowAll: false\n") == at_else


def _masked(template: str, values: dict) -> str:
    truth: dict = {}
    mappings: list = []
    _truth(values, "", truth, mappings)
    masker = Masker({}, condition=Condition(truth, mappings))
    return "".join(t for line in template.splitlines(keepends=True) for t, _ in masker.pieces(line) or ())


NESTED = """\
{{- if .Values.a }}
a: 1
{{- if .Values.b }}
b: 1
{{- else if .Values.c }}
c: 1
{{- else }}
d: 1
{{- end }}
e: 1
{{- end }}
f: 1
"""


@pytest.mark.parametrize("values, read", [
    ({"a": True, "b": True, "c": True}, {"a", "b", "e", "f"}),
    ({"a": True, "b": False, "c": True}, {"a", "c", "e", "f"}),
    ({"a": True, "b": 0, "c": ""}, {"a", "d", "e", "f"}),  # (0 and "" are false)
    ({"a": True, "b": [], "c": {}}, {"a", "d", "e", "f"}),  # (empty list and map too)
    ({"a": True}, {"a", "d", "e", "f"}),  # (keys missing from a map: null, false)
    ({"a": {"x": 1}, "b": None, "c": [1]}, {"a", "c", "e", "f"}),
    ({"a": False, "b": True}, {"f"}),  # (nothing inside a false `if` is read, nested blocks included)
    ({"a": "yes", "b": True}, {"a", "b", "e", "f"}),  # (`a` unknown: read as before)
    ({"a": True, "b": "off", "c": "on"}, {"a", "b", "c", "d", "e", "f"}),  # (unknown: every branch read, as before)
    ({"a": True, "b": "off", "c": False}, {"a", "b", "d", "e", "f"}),  # (`c` known false: its branch only)
    ({"a": True, "b": True, "c": "off"}, {"a", "b", "e", "f"}),  # (`b` true: the rest of the chain is not read)
])
def test_nested_and_chained_conditions(values, read):
    got = yaml.safe_load(_masked(NESTED, values)) or {}
    assert set(got) == read


@pytest.mark.parametrize("condition, expected", [
    (".Values.on", True), (".Values.off", False), ("$.Values.on", True), (".Values.missing", False),
    ("not .Values.off", True), ("not .Values.on", False),
    ("and .Values.on .Values.off", False), ("and .Values.on .Values.on", True),
    ("or .Values.off .Values.on", True), ("or .Values.off .Values.off", False),
    ("and .Values.on (not .Values.off)", True), ("or (not .Values.on) .Values.off", False),
    (".Values.on.x", None),  # (a field of a boolean: helm fails)
    (".Values.nested.missing.x", None), ("not .Values.on .Values.off", None), ("and .Values.on", None),
    ("eq .Values.on true", None), ("and .Values.on (.Values.off", None), (".Values.on )", None),
    ("or .Values.on .Values.unsure", None), ("(.Values.on)", True), (".Values.nested", True),
])
def test_condition_forms(condition, expected):
    truth: dict = {}
    mappings: list = []
    _truth({"on": True, "off": False, "unsure": "on", "nested": {"k": 1}}, "", truth, mappings)
    assert Condition(truth, mappings).evaluate(condition, False) is expected


def test_values_inside_with_or_range_are_not_the_charts():
    """Inside `with`/`range`, `.` is rebound: `.Values.x` is not the chart's value, `$.Values.x` is."""
    template = "{{- range .Values.list }}\n{{- if .Values.off }}\na: 1\n{{- end }}\n{{- if $.Values.off }}\nb: 1\n" \
               "{{- end }}\n{{- end }}\n"
    assert yaml.safe_load(_masked(template, {"off": False, "list": [1]})) == {"a": 1}


def test_a_condition_turned_on_in_values_yaml_is_seen_through_the_cache(tmp_path: Path):
    """What `if` makes of values.yaml is in the cache key (karplint/engine/cache.py hashes each chart's entry)."""
    chart = tmp_path / "locust"
    (chart / "templates").mkdir(parents=True)
    (chart / "values.yaml").write_text(LOCUST_VALUES)
    (chart / "templates" / "master-pdb.yaml").write_text(LOCUST_MASTER_PDB)
    (tmp_path / "context.yaml").write_text(CONTEXT)
    env = {"KARPLINT_CACHE_DIR": str(tmp_path / "cache"), "KARPLINT_NO_HELM": "1"}
    got = []
    for values in (LOCUST_VALUES, LOCUST_VALUES.replace("false", "true")):
        (chart / "values.yaml").write_text(values)
        _code, report, _ = run_json("check", ".", cwd=tmp_path, env=env)
        got.append([(f["code"], f["line"]) for f in report["findings"] if f["code"] == "KPL421"])
    assert got == [[], [("KPL421", 10)]]
