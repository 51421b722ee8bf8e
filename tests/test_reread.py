"""Files that do not parse as plain YAML because they are not meant to be plain YAML (karplint/readers/reread.py):
Terraform templates (`%{ }` directives, `${...}` holes) and JSON with comments; and List documents cut short
before their `kind:` line (karplint/readers/reference.py `is_list_document`). Each case is built from a small
excerpt of a public repository, attributed beside it."""

from __future__ import annotations

import json

import pytest

from karplint.testing import lint, run_cli


def _seen(findings):
    return [(f.code, f.severity, f.line, f.column) for f in findings]


# ---------------------------------------------------------------------------------------------- Terraform templates

# aws-samples/eks-blueprints-for-terraform-workshop @ d4fc0251d4d2b5f7e0cc0fb57e36a1b9ccf3048d (MIT-0),
# gitops/retail-store-app/terraform/eks/default/values/assets.yaml lines 1-9: Helm values that kubernetes.tf renders
# with templatefile(); `%{ if }` is a Terraform directive, which plain YAML reads as a `%` directive (KPL001 before).
BLUEPRINTS_VALUES = """\
image:
  repository: ${image_repository}
  tag: ${image_tag}

%{ if opentelemetry_enabled }
opentelemetry:
  enabled: true
  instrumentation: ${opentelemetry_instrumentation}
%{ endif }
"""


def test_terraform_template_values_yaml_is_not_invalid_yaml():
    assert _seen(lint({"values/assets.yaml": BLUEPRINTS_VALUES})) == []


# QloudX/Terraform-EKS-Fargate-IRSA-Karpenter-Spot-ABS @ 5dbfd4f705789b0f81d0a460189281f8e3244c25 (MIT),
# karpenter-node-template.yaml lines 2-15 (../shared/corpus): a templatefile() template whose tags come from a
# `%{ for }` loop; KPL001 at line 12 before, the AWSNodeTemplate never checked.
QLOUDX_NODE_TEMPLATE = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata:
  name: default
spec:
  subnetSelector:
    karpenter.sh/discovery: ${eks_cluster_name}
  securityGroupSelector:
    karpenter.sh/discovery: ${eks_cluster_name}
  tags:
    %{ for key, val in tags ~}
    ${key}: ${val}
    %{ endfor ~}
    karpenter.sh/discovery: ${eks_cluster_name}
"""


def test_terraform_template_object_is_checked_with_its_directive_lines_dropped():
    assert _seen(lint({"karpenter-node-template.yaml": QLOUDX_NODE_TEMPLATE}, karpenter_version="0.31.0")) == []
    typo = QLOUDX_NODE_TEMPLATE.replace("  securityGroupSelector:", "  securityGroupSelectr:")
    assert _seen(lint({"karpenter-node-template.yaml": typo}, karpenter_version="0.31.0")) == [
        ("KPL104", "error", 8, 3), ("KPL129", "info", 8, 3)]  # (not a field; did you mean securityGroupSelector)


def test_terraform_template_yaml_that_still_does_not_read_is_an_info_notice():
    """What is left once directives are dropped and holes quoted does not read as YAML (a flow sequence built by a
    loop): KPL010 (info) where reading stopped, never KPL001; the documents before it are checked."""
    text = QLOUDX_NODE_TEMPLATE.replace("  tags:\n", "  tags: [%{ for t in tags }${t},%{ endfor }\n")
    findings = lint({"karpenter-node-template.yaml": text}, karpenter_version="0.31.0")
    assert _seen(findings) == [("KPL010", "info", 10, 11)]
    assert findings[0].message.split("\n")[:2] == [
        "this Terraform template does not read as YAML from here once its `%{ ... }` directive lines are dropped and "
        "its `${...}` holes taken as unknown values: this document and the rest of the file are not checked",
        "note: invalid YAML: did not find expected ',' or ']'"]


@pytest.mark.parametrize("name", ["nodeclass.yaml.tftpl", "nodeclass.tpl"])
def test_terraform_template_file_that_does_not_read_is_an_info_notice(name):
    text = QLOUDX_NODE_TEMPLATE.replace("  tags:\n", "  tags: [%{ for t in tags }${t},%{ endfor }\n")
    assert _seen(lint({name: text}, karpenter_version="0.31.0")) == [("KPL010", "info", 10, 11)]


# JohnMonteir0/eks-with-cilium @ 53fe7cca2c1c8b551b99a2e4204c1da731d38a82 (MIT), templates/karpenter.tpl.yaml
# lines 40-46 (../shared/corpus): a hole as the item list of a flow sequence, where YAML cannot hold `${`.
CILIUM_REQUIREMENTS = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: bottlerocket
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: bottlerocket
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: [${instance_types}]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["${capacity_type}"]
"""


def test_yaml_with_a_hole_yaml_cannot_hold_is_read_with_the_hole_quoted():
    assert _seen(lint({"karpenter.tpl.yaml": CILIUM_REQUIREMENTS})) == [("KPL705", "info", 5, 1)]  # (no limits)
    typo = CILIUM_REQUIREMENTS.replace("operator: In", "operatr: In", 1)
    assert [(c, line, col) for c, _s, line, col in _seen(lint({"karpenter.tpl.yaml": typo}))] == [
        ("KPL705", 5, 1), ("KPL104", 14, 11)]


def test_yaml_with_holes_and_a_real_syntax_error_keeps_its_error():
    """A file without directives that does not read even with its holes quoted: plain YAML, KPL001 as before (at
    the first error of the plain reading)."""
    text = CILIUM_REQUIREMENTS.replace('values: ["${capacity_type}"]', 'values: ["${capacity_type}"')
    assert _seen(lint({"karpenter.yaml": text})) == [("KPL001", "error", 15, 21)]


# ---------------------------------------------------------------------------------------------- JSON with comments

# robertd/cdk-karpenter @ a2c70662f50008c01711b370fce4b2b84660dc1f (Apache-2.0), .eslintrc.json lines 1-7 and
# tsconfig.dev.json lines 1-5 (projen writes a `//` comment first: JSONC, which eslint and tsc read).
ESLINTRC = """\
// ~~ Generated by projen. To modify, edit .projenrc.js and run "npx projen".
{
  "env": {
    "jest": true,
    "node": true
  },
  "root": true
}
"""
TSCONFIG = """\
// ~~ Generated by projen. To modify, edit .projenrc.js and run "npx projen".
{
  "compilerOptions": {
    "alwaysStrict": true,
    "declaration": true
  }
}
"""


def test_json_with_comments_is_not_invalid_yaml():
    assert _seen(lint({".eslintrc.json": ESLINTRC, "tsconfig.dev.json": TSCONFIG})) == []


def test_json_manifest_with_a_comment_keeps_its_error():
    """kubectl rejects comments in JSON: a .json file with apiVersion and kind keys is a manifest, KPL001 stays."""
    text = ('// a NodePool\n{\n  "apiVersion": "karpenter.sh/v1",\n  "kind": "NodePool",\n'
            '  "metadata": {"name": "default"}\n}\n')
    assert _seen(lint({"nodepool.json": text})) == [("KPL001", "error", 3, 15)]


def test_json_with_comments_exit_code(tmp_path):
    (tmp_path / ".eslintrc.json").write_text(ESLINTRC)
    (tmp_path / "tsconfig.dev.json").write_text(TSCONFIG)
    proc = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path, unprivileged=True)
    assert (proc.returncode, json.loads(proc.stdout)["findings"]) == (0, []), proc.stderr


# ---------------------------------------------------------------------------------------------- List documents

# The shape of k8sug/karpenter-workshop @ 65ec2f96402eda4996f111a4bdefb03a3fe3fafb, karpenter/ec2nodeclass.md
# lines 22-57 (no licence found: the shape only, values made up): `kubectl get ec2nodeclass -o yaml` pasted into a
# ```yaml block up to the end of its items, without the `kind: List` line kubectl prints after them.
KUBECTL_LIST = """\
apiVersion: v1
items:
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata:
    name: default
    resourceVersion: "4369"
  spec:
    amiSelectorTerms:
    - alias: al2023@v20240807
    role: KarpenterNodeRole-demo
    securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
    subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
"""


@pytest.mark.parametrize("name,text,offset", [
    ("nodeclasses.yaml", KUBECTL_LIST, 0),
    ("ec2nodeclass.md", "# EC2NodeClass\n\n```yaml\n" + KUBECTL_LIST + "```\n", 3),
])
def test_list_without_its_kind_line_is_read_item_by_item(name, text, offset):
    assert _seen(lint({name: text})) == []
    typo = text.replace("    role: KarpenterNodeRole-demo", "    rol: KarpenterNodeRole-demo")
    assert [(c, line, col) for c, _s, line, col in _seen(lint({name: typo}))] == [
        ("KPL130", 8 + offset, 3), ("KPL104", 11 + offset, 5)]  # (role or instanceProfile required; not a field)


def test_list_items_are_cross_file_context():
    """An EC2NodeClass kept as `kubectl get -o yaml` output defines the name a NodePool of another file uses."""
    pool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: od\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
            "      requirements: []\n")
    other = KUBECTL_LIST.replace("name: default", "name: other").replace("apiVersion: v1\nitems:\n", "").replace(
        "\n  ", "\n")[2:]
    files = {"pool.yaml": pool, "other.yaml": other, "nodeclasses.yaml": KUBECTL_LIST}
    assert [f.code for f in lint(files, config={"select": ["KPL601"]})] == []
    del files["nodeclasses.yaml"]
    assert [(f.code, f.file, f.line) for f in lint(files, config={"select": ["KPL601"]})] == [
        ("KPL601", "pool.yaml", 8)]


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nitems:\n- a\n- b\n",  # items that are not objects
    "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\nspec: {}\n",  # another key: not kubectl's List
    "apiVersion: example.com/v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n",  # not the core List
])
def test_a_mapping_with_items_is_not_always_a_list(text):
    from karplint.readers.loader import load
    from karplint.readers.source import SourceFile

    docs, problems = load(SourceFile("x.yaml", text))
    assert (len(docs), problems) == (1, [])


def test_list_items_count_toward_the_per_kind_bound(monkeypatch):
    import karplint.engine.perfile as perfile

    monkeypatch.setattr(perfile, "MAX_CHECKED_PER_KIND", 2)
    item = KUBECTL_LIST.split("items:\n", 1)[1]
    text = "apiVersion: v1\nitems:\n" + "".join(item.replace("name: default", f"name: c{n}") for n in range(4))
    assert [(f.code, f.line, f.column) for f in lint({"nodeclasses.yaml": text}, config={"select": ["KPL004"]})] == [
        ("KPL004", 33, 3)]


def test_documentation_showing_a_cluster_s_class_defines_its_name():
    """k8sug/karpenter-workshop (above): the workshop's NodePools use EC2NodeClass `default`, which exists only as
    `kubectl get` output in its Markdown (KPL601 before, the project defining another class). An object with the
    metadata only the API server sets (resourceVersion) exists in the cluster; a plain example does not say so."""
    pool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: od\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
            "      requirements: []\n")
    other = KUBECTL_LIST.replace("name: default", "name: other").split("items:\n- ", 1)[1].replace("\n  ", "\n")
    doc = "# EC2NodeClass\n\n```yaml\n" + KUBECTL_LIST + "```\n"
    files = {"resources/pool.yaml": pool, "resources/other.yaml": other, "karpenter/ec2nodeclass.md": doc}
    assert [f.code for f in lint(files, config={"select": ["KPL601"]})] == []
    files["karpenter/ec2nodeclass.md"] = doc.replace('    resourceVersion: "4369"\n', "")
    assert [(f.code, f.file, f.line) for f in lint(files, config={"select": ["KPL601"]})] == [
        ("KPL601", "resources/pool.yaml", 8)]


# BojanKomazec/demo-terraform @ 84546e650cb5 (no licence file; a few lines quoted to test against),
# aws/modules/eks-cluster/modules/karpenter-post-deploy/files/templates/karpenter-node-pool.yaml.tftpl lines 1-16
# and 39-42: templatefile() fills each `${...}` with yamlencode(list), a block sequence at the indentation of
# `values:`. Before: the hole line was read as a comment, `values` as missing (KPL130 error "no such key: values"
# at 8:7).
BOJAN_NODE_POOL = """\
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values:
          ${instance_arch}
        - key: kubernetes.io/os
          operator: In
          values:
          ${instance_os}
      nodeClassRef:
        apiVersion: karpenter.k8s.aws/v1beta1
        kind: EC2NodeClass
        name: default
"""


@pytest.mark.parametrize("version", [None, "0.37.0"])
def test_hole_line_under_a_key_with_no_value_is_its_unknown_value(version):
    got = _seen(lint({"karpenter-node-pool.yaml.tftpl": BOJAN_NODE_POOL}, karpenter_version=version))
    assert [f for f in got if f[1] != "info"] == []
    # the rest is still read and checked: a typo below the holes is reported at its line
    typo = BOJAN_NODE_POOL.replace("        kind: EC2NodeClass", "        knd: EC2NodeClass")
    got = _seen(lint({"karpenter-node-pool.yaml.tftpl": typo}, karpenter_version=version))
    assert [f for f in got if f[1] != "info"] == [("KPL104", "error", 19, 9)]


# The same form in a v1 NodePool: the requirements' values unknown, not missing, so no "can launch no instance type"
V1_NODE_POOL_WITH_HOLES = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values:
          ${instance_arch}
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
  limits:
    cpu: 1000
"""


def test_hole_line_under_values_of_a_v1_nodepool_launches_what_it_may():
    assert _seen(lint({"np.yaml.tftpl": V1_NODE_POOL_WITH_HOLES})) == []


def test_hole_line_that_inserts_lines_leaves_what_the_object_seems_to_lack_unknown():
    # `${indent(10, ...)}` at the margin inserts lines karplint cannot see (here, the `values:` of the requirement):
    # the template is incomplete, its missing keys are not findings (KPL130 "no such key", KPL901 before)
    inserted = V1_NODE_POOL_WITH_HOLES.replace("          values:\n          ${instance_arch}\n",
                                               "${indent(10, arch_values)}\n")
    assert _seen(lint({"np.yaml.tftpl": inserted})) == []
    # the same object in plain YAML, `values` really missing: the API server rejects it (one error, no KPL901)
    plain = V1_NODE_POOL_WITH_HOLES.replace("          values:\n          ${instance_arch}\n", "")
    assert _seen(lint({"np.yaml": plain})) == [("KPL130", "error", 8, 7)]
