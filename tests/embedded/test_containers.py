"""Text that holds configuration, read as what it is: bare Markdown fences and AsciiDoc blocks by their content,
quoted `<<X>>` placeholders, Terraform template holes (KPL212). Exact code, line and column in the host file;
the excerpts of real repositories are in tests/fixtures/embedded/ (test_embedded_fixtures.py)."""

from __future__ import annotations

from karplint.testing import codes, lint

V1 = {"karpenter_version": "1.14.1"}

BARE_FENCE_NODEPOOL = """# Workshop

Create the NodePool:

```
cat <<EOF | kubectl apply -f -
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
      taints:
        - key: dedicated
          effect: NoSchedul
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
  limits:
    cpu: 100
EOF
```
"""


def test_bare_fence_heredoc_nodepool_mistake_found_at_its_line():
    assert codes(lint({"README.md": BARE_FENCE_NODEPOOL}, **V1)) == [("KPL101", 24, 19)]


def test_bare_fence_plain_yaml_is_read():
    text = BARE_FENCE_NODEPOOL.replace("cat <<EOF | kubectl apply -f -\n", "\n").replace("EOF\n```", "\n```")
    assert codes(lint({"README.md": text}, **V1)) == [("KPL101", 24, 19)]


def test_bare_fence_that_is_not_yaml_says_nothing():
    # kubectl output with a prompt: apiVersion and kind at the top, but not YAML; a template; prose
    text = ("```\n$ kubectl get nodepool default -o yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\n```\n\n"
            "```\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {{ .Values.name }}\n  x: [\n```\n\n"
            "```\nRun the apiVersion: check, then the kind: check.\n```\n")
    assert lint({"README.md": text}, **V1) == []


def test_yaml_fence_stays_strict():
    text = "```yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: [\n```\n"
    assert codes(lint({"README.md": text}, **V1)) == [("KPL001", 5, 1)]


def test_fence_in_a_block_quote_is_left_alone():
    text = "> ```yaml\n> apiVersion: karpenter.sh/v1\n> kind: NodePool\n> metadata: [\n> ```\n"
    assert lint({"README.md": text}, **V1) == []


def test_commonmark_closing_fence_must_be_as_long():
    # (a ``` line inside a ```` fence does not close it: the YAML after it belongs to the block)
    text = ("````yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\n```\n"
            "spec:\n  weight: 500\n````\n")
    assert codes(lint({"README.md": text}, **V1)) == [("KPL001", 6, 1)]


ADOC = """= Karpenter

.NodePool
[source,yaml,subs="attributes+"]
----
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {pool-name} # <1>
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
      expireAfter: 720 <2>
  limits:
    cpu: 100
----
<1> The name.
<2> Thirty days.

----
kubectl get nodepools
----
"""


def test_asciidoc_source_block_mistake_found_at_its_line():
    # `{pool-name}` is an attribute reference (a hole, not a flow mapping); `<1>`/`<2>` are callouts, not text
    assert codes(lint({"docs/karpenter.adoc": ADOC}, **V1)) == [("KPL100", 21, 20)]


def test_asciidoc_bare_listing_block_is_read_by_its_content():
    text = ADOC.replace('[source,yaml,subs="attributes+"]\n', "").replace("{pool-name}", "default")
    assert codes(lint({"docs/karpenter.adoc": text}, **V1)) == [("KPL100", 20, 20)]


def test_quoted_heredoc_placeholder_is_not_a_heredoc():
    text = ('sed "s/<<CLUSTER_NAME>>/$CLUSTER_NAME/g" np.yaml > out.yaml\n'
            "echo '<<ROLE>>'\n"
            "kubectl apply -f - <<EOF\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\n"
            "spec:\n  weight: 500\nEOF\n")
    assert codes(lint({"x.sh": text}, **V1)) == [("KPL103", 8, 1), ("KPL106", 9, 11)]


TF_USERDATA = """resource "kubectl_manifest" "nodeclass" {
  yaml_body = <<-YAML
    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: custom
    spec:
      amiFamily: AL2
      amiSelectorTerms:
        - alias: al2@v20240807
      role: ${module.eks_blueprints_addons.karpenter.node_iam_role_name}
      subnetSelectorTerms:
        - tags:
            karpenter.sh/discovery: ${module.eks.cluster_name}
      securityGroupSelectorTerms:
        - tags:
            karpenter.sh/discovery: ${module.eks.cluster_name}
      userData: |
        #!/bin/bash
        echo "cluster ${module.eks.cluster_name}" > /etc/motd
        echo $${module.eks.cluster_name}
  YAML
}
"""


def test_kpl212_silent_on_terraform_filled_interpolation_in_tf_heredoc():
    # line 20: Terraform fills it in before apply; line 21: `$${` is the literal `${`, which bash rejects
    found = [c for c in codes(lint({"main.tf": TF_USERDATA}, config={"select": ["ALL"]}, **V1))
             if c[0] == "KPL212"]
    assert found == [("KPL212", 21, 15)]


def test_kpl212_still_reports_plain_yaml():
    yaml = "\n".join(line[4:] for line in TF_USERDATA.splitlines()[2:21]) + "\n"
    found = [c for c in codes(lint({"nc.yaml": yaml}, config={"select": ["ALL"]}, **V1)) if c[0] == "KPL212"]
    assert found == [("KPL212", 18, 19), ("KPL212", 19, 11)]


KUSTOMIZATION = """apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - nodepool.yaml
patches:
  - target:
      kind: NodePool
    patch: |-
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata:
        name: default
      spec:
        weight: 500
        disruption:
          consolidationPolicy: WhenEmptyOrUnderutilised
patchesStrategicMerge:
  - |-
    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: default
    spec:
      amiFamily: AL2023
      metadataOptions:
        httpTokens: requred
patchesJson6902:
  - target: {kind: NodePool, name: default}
    patch: |-
      - op: replace
        path: /spec/weight
        value: 5
"""


def test_kustomize_inline_patches_checked_at_their_lines_as_patches():
    # what a patch sets is checked (bounds, enums); nothing it leaves out (no "spec.template is required"); the
    # JSON 6902 operations are left alone
    found = lint({"overlays/prod/kustomization.yaml": KUSTOMIZATION}, **V1)
    assert codes(found) == [("KPL106", 14, 17), ("KPL101", 16, 32), ("KPL101", 26, 21)]


def test_shell_template_holes_in_flow_sequence_keep_their_columns():
    text = ("```bash\ncat <<EOF > np.template\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n"
            "  name: \\${NAME}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, "
            "kind: EC2NodeClass, name: default}\n      requirements:\n"
            "        - {key: topology.kubernetes.io/zone, values: [ \\${ZONE} ], operator: Inn}\n"
            "  limits: {cpu: 10}\nEOF\n```\n")
    assert codes(lint({"README.md": text}, **V1)) == [("KPL101", 12, 78)]


# Patterns seen in repositories without a licence (not copied): HaeDalWang/eks-module-hdw
# example-karpenter-legacy/karpenter-node.tf (a commented-out heredoc above a live one), leroykayanda/
# terraform-cloud-modules aws/eks/app_karpenter.tf (`cpu: "${var.karpenter["cpu_limit"]}"`), rogertob/
# aws-terraform-ghaction-flux-eks terraform/modules/eks/main.tf (a MIME userData heredoc holding a NodeConfig).

def test_commented_out_terraform_heredoc_is_not_a_region():
    text = ('# resource "kubectl_manifest" "old" {\n#   yaml_body = <<-YAML\n#     apiVersion: karpenter.sh/v1beta1\n'
            "#     kind: NodePool\n#   YAML\n# }\n"
            'resource "kubectl_manifest" "np" {\n  yaml_body = <<-YAML\n    apiVersion: karpenter.sh/v1\n'
            "    kind: NodePool\n    metadata:\n      name: a\n    spec:\n      weight: 500\n  YAML\n}\n")
    assert codes(lint({"main.tf": text}, **V1)) == [("KPL103", 13, 5), ("KPL106", 14, 15)]


def test_quotes_inside_a_hole_in_a_quoted_scalar():
    text = ('resource "kubectl_manifest" "np" {\n  yaml_body = <<EOF\napiVersion: karpenter.sh/v1\nkind: NodePool\n'
            'metadata:\n  name: "${var.k["name"]}"\nspec:\n  limits:\n    cpu: "${var.karpenter["cpu_limit"]}"\n'
            "  weight: 500\nEOF\n}\n")
    assert codes(lint({"main.tf": text}, **V1)) == [("KPL103", 7, 1), ("KPL106", 10, 11)]


def test_mime_userdata_heredoc_is_not_a_manifest():
    text = ('resource "aws_launch_template" "nodes" {\n  user_data = base64encode(<<-EOT\n    MIME-Version: 1.0\n'
            '    Content-Type: multipart/mixed; boundary="==BOUNDARY=="\n\n    --==BOUNDARY==\n'
            "    Content-Type: application/node.eks.aws\n\n    ---\n    apiVersion: node.eks.aws/v1alpha1\n"
            "    kind: NodeConfig\n    spec:\n      kubelet:\n        config:\n          maxPods: ${var.max_pods}\n"
            "    --==BOUNDARY==--\n    EOT\n  )\n}\n")
    assert lint({"main.tf": text}, **V1) == []
