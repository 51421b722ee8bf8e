"""Go/Helm templates read as templates (karplint/readers/gotemplate.py, karplint/readers/chart_templates.py): never
"invalid YAML" (KPL001) on a template, literal keys and values checked at the template's lines, actions unknown,
`.Values.x` filled from the chart's values.yaml; KPL001 still on a plain YAML file that is broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.readers.gotemplate import is_template
from karplint.testing import lint, run_json

# A NodePool template whose `disruption:` sits under spec.template: Helm renders it, the API server (v1) rejects the
# unknown field or, with client-side pruning, the settings are silently lost. Written for this test.
DISRUPTION_UNDER_TEMPLATE = """\
{{- if .Values.nodePool.enabled }}
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {{ .Values.nodePool.name }}
  labels:
    {{- include "pools.labels" . | nindent 4 }}
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: {{ .Values.nodeClass }}
      expireAfter: {{ .Values.nodePool.expireAfter }}
      requirements:
        {{- toYaml .Values.requirements | nindent 8 }}
    disruption:
      consolidationPolicy: WhenEmptyOrUnderutilized
  limits:
    cpu: {{ .Values.limits.cpu | quote }}
{{- end }}
"""
# (`enabled: true`: the template is inside `if .Values.nodePool.enabled`, not read when the defaults leave it off)
VALUES = "nodePool:\n  enabled: true\n  name: default\n  expireAfter: 720h\nnodeClass: \"\"\n"


def _findings(report: dict) -> list[tuple]:
    return sorted((f["code"], f["file"], f["line"], f["column"]) for f in report["findings"])


@pytest.mark.parametrize("chart_file", ["Chart.yaml", "chart.yaml", None])
def test_disruption_under_template_found_at_its_template_line(tmp_path: Path, chart_file):
    """With a Chart.yaml, a lower-case chart.yaml, or none (Argo CD or helmfile supply the chart): before, KPL005
    "skipped" (Chart.yaml) or KPL001 "invalid YAML" (the others), and the misplaced block was never reported."""
    chart = tmp_path / "pools"
    (chart / "templates").mkdir(parents=True)
    if chart_file:
        (chart / chart_file).write_text("apiVersion: v2\nname: pools\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(VALUES)
    (chart / "templates" / "nodepool.yaml").write_text(DISRUPTION_UNDER_TEMPLATE)
    code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    assert _findings(report) == [("KPL104", "pools/templates/nodepool.yaml", 18, 5)]
    assert report["findings"][0]["message"].startswith("spec.template.disruption is not a NodePool field")
    assert report["findings"][0]["resource"]["name"] == "default"  # (from values.yaml)
    assert code == 1


def test_values_default_is_judged_at_the_action_and_an_empty_default_is_not(tmp_path: Path):
    chart = tmp_path / "pools"
    (chart / "templates").mkdir(parents=True)
    (chart / "values.yaml").write_text(
        "nodePool:\n  enabled: true\n  expireAfter: 30days\n  name: \"\"\nnodeClass: \"\"\n")
    (chart / "templates" / "np.yaml").write_text(DISRUPTION_UNDER_TEMPLATE.replace(
        "    disruption:\n      consolidationPolicy: WhenEmptyOrUnderutilized\n", ""))
    _code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    # `expireAfter: {{ .Values.nodePool.expireAfter }}`: the chart's default "30days" is not a duration, reported on
    # the action; the empty name and nodeClass are install-time values: unknown, not judged
    assert _findings(report) == [("KPL102", "pools/templates/np.yaml", 15, 20)]


# Excerpt of nuonco/byoc@194c19d5d514624e9e2441860ef869c3a5f26b36
# byoc-nuon/src/components/karpenter-nodepools/templates/nodepool.tpl (no licence file found in the repository;
# a short excerpt for a regression test): a chart template named .tpl, without Chart.yaml, over a range.
NUON_NODEPOOL_TPL = """\
{{- range .Values.nodepools }}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: "{{ .name }}"
spec:
  limits:
    cpu: {{ .limits.cpu }}
  template:
    spec:
      expireAfter: {{ .expireAfter }}
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: {{ .name }}
      requirements:
      - key: node.kubernetes.io/instance-type
        operator: In
        values: {{ .instance_types }}
      - key: topology.kubernetes.io/zone
        operator: In
        values:
        - {{ $.Values.region }}a
{{- end}}
"""


def test_tpl_chart_template_over_a_range_is_read_not_invalid_yaml():
    """Before: KPL001 "invalid YAML" at 1:3 (read as a Terraform template)."""
    report_findings = lint({"karpenter-nodepools/templates/nodepool.tpl": NUON_NODEPOOL_TPL})
    assert [(f.code, f.span.line, f.span.column) for f in report_findings] == []
    # the NodePool is checked: a typo in a literal key is found at its line
    typo = NUON_NODEPOOL_TPL.replace("      expireAfter:", "      expireAftr:")
    got = [(f.code, f.span.line, f.span.column) for f in lint({"p/templates/nodepool.tpl": typo})]
    assert ("KPL104", 12, 7) in got and all(c != "KPL001" for c, *_ in got)


def test_helmfile_gotmpl_is_discovered_and_read(tmp_path: Path):
    """`.gotmpl` files were not read at all; now as templates, their literal objects checked."""
    (tmp_path / "helmfile.d").mkdir()
    (tmp_path / "helmfile.d" / "pools.yaml.gotmpl").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {{ .Environment.Name }}\nspec:\n"
        "  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n"
        "      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n"
        "      expireAfter: {{ .Values.expire | default \"720h\" }}\n"
        "  limits:\n    cpu: 100\n  disruption:\n    consolidateAfter: 1m\n    budgts: []\n")
    _code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    assert _findings(report) == [("KPL104", "helmfile.d/pools.yaml.gotmpl", 15, 5)]


def test_markdown_yaml_block_showing_a_helm_template():
    """A ```yaml block that shows a chart template: before, KPL001 at 6:3; now read, a literal value judged."""
    md = ("# Pools\n\nThe chart renders this NodePool:\n\n```yaml\n{{- if .Values.gpu.enabled }}\n"
          "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {{ .Values.gpu.name }}\nspec:\n"
          "  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n"
          "        name: default\n      requirements:\n        {{- toYaml .Values.gpu.requirements | nindent 8 }}\n"
          "      expireAfter: 30days\n{{- end }}\n```\n")
    got = [(f.code, f.span.line, f.span.column) for f in lint({"README.md": md}) if f.severity != "info"]
    assert got == [("KPL102", 20, 20)]


def test_if_else_defining_the_same_key_reads_one_branch():
    tpl = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\nspec:\n  template:\n    spec:\n"
           "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n"
           "      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n"
           "      {{- if .Values.short }}\n      expireAfter: 24h\n      {{- else }}\n      expireAfter: 720h\n"
           "      {{- end }}\n  limits:\n    cpu: 10\n")
    assert [(f.code, f.span.line) for f in lint({"c/templates/np.yaml": tpl}) if f.severity != "info"] == []


def test_template_whose_literal_text_is_broken_gets_one_info_not_invalid_yaml():
    tpl = "{{- if .Values.x }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: [1, 2\n{{- end }}\n"
    got = [(f.code, f.severity, f.span.line) for f in lint({"c/templates/cm.yaml": tpl})]
    assert got == [("KPL005", "info", 8)]


def test_chart_template_with_a_flow_range_gets_one_info_not_invalid_yaml(tmp_path: Path):
    """No line of actions only, no action starting a value: a template by its place (a chart's templates/) and its
    unquoted actions. Before: KPL001 at 6:36."""
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n"
                                                 "  zones: [{{ range .Values.zones }}{{ . }},{{ end }}]\n")
    _code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    assert [(f["code"], f["severity"], f["line"], f["column"]) for f in report["findings"]] == [
        ("KPL005", "info", 6, 36)]


# Excerpt of CMS-Enterprise/eks-core@03c8b996d0dec2207c1a4535497557040b854d83
# addons/charts/karpenter-node-pool/templates/nodepool.yaml lines 1-25 (Apache-2.0), with `effect` misspelt
# `efect` on line 23 for the test. Line 16 builds a flow sequence with a `range`: no YAML reading of it.
CMS_NODEPOOL = """\
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: {{ .Values.nodePool.metadata.name | default "default" | quote }}
  annotations:
{{- range $key, $value := .Values.nodePool.metadata.annotations }}
    {{ $key }}: "{{ $value }}"
{{- end }}
spec:
  template:
    spec:
      requirements:
{{- range .Values.nodePool.spec.template.spec.requirements }}
        - key: {{ .key | quote }}
          operator: {{ .operator | quote }}
          values: [{{ range $index, $value := .values }}{{ if $index }}, {{ end }}"{{ $value }}"{{ end }}]
{{- end }}
{{- if .Values.nodePool.spec.template.spec.taints }}
      taints:
{{- range .Values.nodePool.spec.template.spec.taints }}
        - key: {{ .key | quote }}
          value: {{ .value | quote }}
          efect: {{ .effect | quote }}
{{- end }}
{{- end }}
"""


def test_a_line_that_does_not_read_is_set_aside_and_the_rest_checked():
    """Before: KPL001 at 6:24 and nothing checked; then (reading as a template) KPL005 "the rest of the file is not
    checked". Now one info on line 16, and the typo after it is found at its line."""
    got = [(f.code, f.severity, f.span.line, f.span.column)
           for f in lint({"chart/templates/nodepool.yaml": CMS_NODEPOOL}, karpenter_version="0.37.0")]
    assert ("KPL005", "info", 16, 57) in got  # (where YAML stops, past the first item: a hole)
    assert ("KPL104", "error", 23, 11) in got
    assert all(code not in ("KPL001", "KPL103") for code, *_ in got), got


def test_plain_yaml_that_is_broken_is_still_invalid_yaml():
    """No template actions (or only inside quotes): a plain YAML file, KPL001 as before."""
    broken = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"{{ .Values.name }}\"\ndata:\n  k: [1, 2\n"
    got = [(f.code, f.severity, f.span.line) for f in lint({"cm.yaml": broken})]
    assert got and got[0][:2] == ("KPL001", "error")


@pytest.mark.parametrize("text,expected", [
    ("{{- if .Values.x }}\na: 1\n{{- end }}\n", True),
    ("a:\n  {{- include \"x\" . | nindent 2 }}\n", True),
    ("name: {{ .Values.name }}\n", True),
    ("{{ .Values.key }}: value\n", True),
    ("- {{ .Values.item }}\n", True),
    ("name: \"{{ .Values.name }}\"\n", False),  # valid YAML: a quoted hole
    ("name: pool-{{ .Values.name }}\n", False),  # valid YAML: a plain scalar holding a hole
    ("command: echo ${X}\n", False),
    # fleet-management workshop, validation-frameworks/helm/locust/templates: a quote inside an action in quotes
    ('  name: "{{ include "locust.fullname" . }}-test-readiness"\n', True),
    ("  name: '{{ include \"x\" . }}'\n", False),  # valid YAML: the other quote
    # aws/karpenter-provider-aws#7651 (the docs' example): an action line inside a block scalar is the scalar's text
    ("spec:\n  userData: |\n    cat <<EOF\n    {{ insertFile \"./f\" }}\n\n    EOF\n", False),
    ("- run: >-\n    {{ .x }}\n", False),
    # ...but not once the scalar has ended, nor an action less indented than the key that opened it
    ("spec:\n  userData: |\n    echo hi\n  {{- if .Values.x }}\n  a: 1\n", True),
    ("  userData: |\n{{ .Values.userData | indent 4 }}\n", True),
])
def test_is_template(text, expected):
    assert is_template(text) is expected


RENDERED_TEMPLATE = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {{ include "pools.name" . }}
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        {{- toYaml .Values.requirements | nindent 8 }}
      expireAfter: {{ include "pools.expire" . }}
  limits:
    cpu: 100
  disruption:
    consolidateAfter: 1m
"""
# What a `helm template` of that chart prints (the helpers give "gpu" and "30days", which no reading without helm knows)
RENDERING = """\
---
# Source: pools/templates/nodepool.yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
      expireAfter: 30days
  limits:
    cpu: 100
  disruption:
    consolidateAfter: 1m
"""


@pytest.mark.parametrize("helm", ["renders", "fails", "absent"])
def test_chart_rendered_by_helm_on_the_path_lands_on_the_template(tmp_path: Path, helm: str):
    chart = tmp_path / "repo" / "pools"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: pools\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("requirements: []\n")
    (chart / "templates" / "nodepool.yaml").write_text(RENDERED_TEMPLATE)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "rendering.yaml").write_text(RENDERING)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "KARPLINT_NO_HELM": ""}
    if helm != "absent":  # a fake helm: the canned rendering (its arguments checked), or a failure
        body = (f'[ "$1 $2 $4" = "template karplint --skip-tests" ] || exit 3\ncat "{tmp_path}/rendering.yaml"\n'
                if helm == "renders" else 'echo "Error: found in Chart.yaml, but missing in charts/" >&2\nexit 1\n')
        (bin_dir / "helm").write_text("#!/bin/sh\n" + body)
        (bin_dir / "helm").chmod(0o755)
    code, report, stderr = run_json("check", ".", "--no-cache", cwd=tmp_path / "repo", env=env)
    got = _findings(report)
    if helm == "renders":  # the rendered value, judged on the template's line, at its action
        assert got == [("KPL102", "pools/templates/nodepool.yaml", 14, 20)]
        assert report["findings"][0]["resource"]["name"] == "gpu"
    else:  # read without rendering: the helpers are unknown, nothing to say
        assert got == []
    assert stderr == ""


# Excerpt of aws-ia/terraform-aws-eks-data-addons@ea3c83dc8ce4be0f2bcca8cb3dc3e5e71057740e
# helm-charts/mlflow-tracking/templates/deployment.yaml lines 30-41 (Apache-2.0): an action with quotes inside a
# double-quoted string (Helm replaces the action; YAML would end the string at its first quote).
MLFLOW_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "mlflow-tracking-server.fullname" . }}
spec:
  template:
    spec:
      containers:
        - name: {{ include "mlflow-tracking-server.fullname" . }}
          securityContext:
            {{- toYaml .Values.securityContext | nindent 12 }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          command: ["mlflow"]
          args: ["server",
                "--port", "{{ .Values.service.port }}",
                "--backend-store-uri", "{{ include "mlflow.database.uri" . }}",
                "--artifacts-destination", "s3://{{ .Values.mlflow.artifacts.bucketName }}"]
"""

# Excerpt of nuonco/byoc@806f260facb5efe6e31e454c453bfe82b16a33f6 byoc-nuon/components/values/karpenter-nodepools.yaml
# lines 7-22 (no licence file found in the repository; a short excerpt for a regression test): a values file that
# is itself a Go template (the platform renders it before Helm reads it). Before: KPL001 "invalid YAML" at 12:3.
NUON_VALUES = """\
cluster_name: "{{ .nuon.sandbox.outputs.cluster.name }}"

region: "{{ .nuon.install_stack.outputs.region }}"

public_azs:
{{- range .nuon.sandbox.outputs.vpc.public_subnet_azs }}
  - "{{ . }}"
{{- end }}
private_azs:
{{- range .nuon.sandbox.outputs.vpc.private_subnet_azs }}
  - "{{ . }}"
{{- end }}

nodepools:
  - name: temporal
    public: false
"""


def test_action_with_quotes_inside_a_quoted_string_is_a_hole():
    """Before (in a chart with Chart.yaml): skipped; without one: KPL001. Now: read, nothing to say."""
    assert [(f.code, f.span.line) for f in lint({"mlflow/templates/deployment.yaml": MLFLOW_DEPLOYMENT})] == []


def test_values_file_that_is_a_go_template_is_not_invalid_yaml():
    assert [(f.code, f.span.line) for f in lint({"components/values/karpenter-nodepools.yaml": NUON_VALUES})] == []


def test_go_template_holes_in_userdata_of_a_template_are_not_unrendered_templates():
    """A Go template outside any `templates/` directory (an Argo CD or platform-rendered manifest): its `{{ }}` in
    userData are filled in before apply (KPL212 is for plain YAML, where nothing will fill them)."""
    body = ("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: a\nspec:\n"
            "  role: r\n  amiSelectorTerms: [{alias: al2@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n"
            "  securityGroupSelectorTerms: [{tags: {a: b}}]\n  userData: |\n    #!/bin/bash\n"
            "    echo start\n    /etc/eks/bootstrap.sh {{ .Values.cluster }}\n")
    template = "{{- if .Values.enabled }}\n" + body + "{{- end }}\n"
    got = [(f.code, f.span.line, f.span.column) for f in lint({"deploy/nodeclass.yaml": template})]
    assert all(code != "KPL212" for code, *_ in got), got
    as_plain = [(f.code, f.span.line, f.span.column) for f in lint({"deploy/nodeclass.yaml": body})]
    assert ("KPL212", 13, 27) in as_plain, as_plain


# Excerpt of aws-samples/fleet-management-on-amazon-eks-workshop@b93f942f162756abe2cb3bb9dd1ba002235540ed
# gitops/addons/charts/resources/karpenter/templates/nodepool.yaml lines 1-11 (MIT-0): the apiVersion is a hole.
FLEET_NODEPOOL = """\
{{- range $k, $v := $.Values.nodeGroups }}
---
apiVersion: karpenter.sh/{{ $.Values.ApiVersion }}
kind: NodePool
metadata:
  name: "{{ $k }}-{{ $v.instances.architecture | default $.Values.instances.architecture }}"
spec:
  template:
    metadata:
      labels:
        {{ $.Values.nodeGroupLabelName }}: {{ $v.nodeGroupLabel | default $k }}
{{- end }}
"""

# Excerpt of aws-samples/eks-blueprints-for-terraform-workshop@d4fc0251d4d2b5f7e0cc0fb57e36a1b9ccf3048d
# gitops/retail-store-app/src/app/templates/ingress.yaml.gotmpl lines 9-17 (MIT-0): one key in two `if` blocks.
BLUEPRINTS_GOTMPL = """\
{{ if env "NODE_PORT" }}
service:
  type: NodePort
  nodePort: {{ env "NODE_PORT" }}
{{ end }}
{{ if env "LOAD_BALANCER" }}
service:
  type: LoadBalancer
{{ end }}
"""


def test_apiversion_that_is_a_hole_is_not_a_wrong_api_group(tmp_path: Path):
    """Before: KPL001 (no chart file) or KPL015 (with one); reading the template without this, KPL802 at 3:13
    "karpenter.sh has no version '{{ $.Values.ApiVersion }}'"."""
    (tmp_path / "karpenter" / "templates").mkdir(parents=True)
    (tmp_path / "karpenter" / "Chart.yaml").write_text("apiVersion: v2\nname: karpenter\nversion: 0.1.0\n")
    (tmp_path / "karpenter" / "templates" / "nodepool.yaml").write_text(FLEET_NODEPOOL)
    _code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path, env={"KARPLINT_NO_HELM": "1"})
    assert _findings(report) == []


def test_one_key_in_two_conditional_blocks_is_no_duplicate_but_an_unconditional_one_is():
    assert lint({"app/templates/ingress.yaml.gotmpl": BLUEPRINTS_GOTMPL}) == []
    # the same key twice outside any block (as in the workshop's gitops/platform/charts/team/templates/
    # namespaces-appset.yaml, `generators:` at lines 10 and 18): rendered twice whatever the values, a duplicate
    both = "{{- if .Values.x }}\na: 1\n{{- end }}\nservice:\n  type: NodePort\nservice:\n  type: LoadBalancer\n"
    assert [(f.code, f.span.line) for f in lint({"app/templates/svc.yaml": both})] == [("KPL002", 6)]


# Excerpt of aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe
# website/content/en/docs/concepts/nodeclasses.md#L1271 (Apache-2.0), as ../shared/corpus keeps it
# (karpenter-docs/docs_concepts_nodeclasses__5.yaml): a snippet with an elision and a Hugo (Go template) action.
DOCS_NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: al2-example
spec:
  ...
  amiFamily: AL2
  userData: |
    #!/bin/bash
    cat >> ~ec2-user/.ssh/authorized_keys <<EOF
    {{ insertFile "../my-authorized_keys" | indent 4  }}
    EOF
"""


def test_documentation_snippet_with_an_elision_and_a_template_action():
    """Before: KPL001 at 7:12 (an error); reading it as a template without the elision rule: a KPL005 info and
    nothing checked. Now read: a snippet (what it leaves out is not judged), a literal mistake still found."""
    assert lint({"docs/nodeclass.yaml": DOCS_NODECLASS}) == []
    typo = DOCS_NODECLASS.replace("amiFamily: AL2", "amiFamly: AL2")
    assert [(f.code, f.span.line, f.span.column) for f in lint({"docs/nodeclass.yaml": typo})] == [("KPL104", 7, 3)]


def test_a_changed_values_yaml_is_seen_through_the_cache(tmp_path: Path):
    """The template's verdict depends on values.yaml: its scalars are in the cache key (karplint/engine/cache.py)."""
    chart = tmp_path / "pools"
    (chart / "templates").mkdir(parents=True)
    (chart / "values.yaml").write_text("nodePool:\n  enabled: true\n  expireAfter: 720h\n")
    (chart / "templates" / "np.yaml").write_text(DISRUPTION_UNDER_TEMPLATE.replace(
        "    disruption:\n      consolidationPolicy: WhenEmptyOrUnderutilized\n", ""))
    env = {"KARPLINT_CACHE_DIR": str(tmp_path / "cache"), "KARPLINT_NO_HELM": "1"}
    _code, report, _ = run_json("check", "pools", cwd=tmp_path, env=env)
    assert _findings(report) == []
    (chart / "values.yaml").write_text("nodePool:\n  enabled: true\n  expireAfter: 30days\n")
    _code, report, _ = run_json("check", "pools", cwd=tmp_path, env=env)
    assert _findings(report) == [("KPL102", "pools/templates/np.yaml", 15, 20)]


def test_helm_is_not_run_on_a_chart_with_a_link_out_of_its_project(tmp_path: Path):
    """helm follows links: a chart that reaches outside its project (here a template linked to a file beside the
    repository) is read without rendering, so that no byte from outside reaches the report."""
    repo = tmp_path / "repo"
    chart = repo / "pools"
    (chart / "templates").mkdir(parents=True)
    (repo / ".git").mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: pools\nversion: 0.1.0\n")
    (chart / "templates" / "nodepool.yaml").write_text(RENDERED_TEMPLATE)
    (tmp_path / "secret.yaml").write_text("kind: Secret\n")
    (chart / "templates" / "other.yaml").symlink_to(tmp_path / "secret.yaml")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").write_text(f"#!/bin/sh\ntouch {tmp_path}/helm-ran\n")
    (bin_dir / "helm").chmod(0o755)
    _code, report, _ = run_json("check", ".", "--no-cache", cwd=repo,
                                env={"PATH": f"{bin_dir}:/usr/bin:/bin", "KARPLINT_NO_HELM": ""})
    assert not (tmp_path / "helm-ran").exists()
    assert [(f["code"], f["file"]) for f in report["findings"]] == [("KPL003", "pools/templates/other.yaml")]


# Excerpt of zeeamd/z-eks-v0 @ 5d26d2f62dee2caaec878b8388299a595b0406da,
# istio-v2/istio-1.23.0/samples/ambient-argo/tag-chart/templates/mutatingwebhooks.yaml lines 1-66 abridged (Istio
# 1.23.0's sample chart, Apache-2.0, as vendored there): each `{{- include "core" ... }}` writes a new `- name:`
# webhook, so the `namespaceSelector:` and `objectSelector:` after each belong to different webhooks.
ISTIO_TAG_WEBHOOKS = """\
{{- define "core" }}
- name: {{.Prefix}}sidecar-injector.istio.io
  sideEffects: None
  failurePolicy: Fail
  admissionReviewVersions: ["v1"]
{{- end }}

{{- range $tagName, $tag := $.Values.base.tags }}
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: istio-revision-tag-{{ $tagName }}
webhooks:
{{- include "core" (mergeOverwrite (deepCopy $) (deepCopy $tag) (dict "Prefix" "rev.namespace.") ) }}
  namespaceSelector:
    matchExpressions:
    - key: istio-injection
      operator: DoesNotExist
  objectSelector:
    matchExpressions:
    - key: sidecar.istio.io/inject
      operator: NotIn
      values:
      - "false"
{{- include "core" (mergeOverwrite (deepCopy $) (deepCopy $tag) (dict "Prefix" "rev.object.") ) }}
  namespaceSelector:
    matchExpressions:
    - key: istio.io/rev
      operator: DoesNotExist
  objectSelector:
    matchExpressions:
    - key: istio.io/rev
      operator: In
      values:
      - "{{ $tagName }}"
{{- end }}
"""


def test_keys_on_each_side_of_an_inserting_action_are_no_duplicate():
    """Before: KPL002 errors at 26:3 ('namespaceSelector', first at 15) and 30:3 ('objectSelector', first at 19)."""
    assert [(f.code, f.span.line) for f in lint({"tag-chart/templates/mutatingwebhooks.yaml": ISTIO_TAG_WEBHOOKS})
            if f.code in ("KPL001", "KPL002", "KPL005")] == []


@pytest.mark.parametrize("action", ['{{- include "core" . }}', '{{ template "core" . }}',
                                    "{{- toYaml .Values.more | nindent 0 }}"])
def test_an_action_line_above_the_keys_indentation_may_start_a_new_item(action):
    text = f"items:\n- name: a\n  port: 80\n{action}\n  port: 81\n"
    assert [f.code for f in lint({"app/templates/list.yaml": text}) if f.code == "KPL002"] == []


@pytest.mark.parametrize("action", ["{{- toYaml .Values.extra | nindent 2 }}", '    {{- include "more" . }}'])
def test_an_action_inserting_into_the_same_mapping_leaves_a_duplicate(action):
    # (text at the keys' own indentation, or deeper, cannot start another mapping: both `port:` stay in one)
    text = f"apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  port: 80\n{action}\n  port: 81\n"
    got = [(f.code, f.span.line, f.span.column, f.severity) for f in lint({"app/templates/svc.yaml": text})
           if f.code == "KPL002"]
    assert got == [("KPL002", 8, 3, "error")]


# Shape of Sashasunq/eks-karpenter-graviton-poc@7b937e22 terraform/charts/karpenter-resources/templates/nodepools.yaml
# (no licence file: the lines are written for the test): an action as the item of a flow sequence, inside a range.
FLOW_ITEM = """\
{{- range .Values.nodePools }}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {{ .name }}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: [{{ .arch | quote }}]
        - key: kubernetes.io/os
          operator: Inn
          values: ["linux"]
{{- end }}
"""


def test_an_action_as_an_item_of_a_flow_sequence_is_a_hole_not_a_mapping():
    """`values: [{{ .arch | quote }}]`: YAML reads the action's braces as a flow mapping (KPL100 "must be a string,
    not a mapping" on a held-out repository); it is a hole. The typo two lines down is still found."""
    got = [(f.code, f.span.line, f.span.column) for f in lint({"charts/pools/templates/nodepools.yaml": FLOW_ITEM},
                                                             karpenter_version="1.14.1") if f.severity != "info"]
    assert got == [("KPL101", 16, 21)]
