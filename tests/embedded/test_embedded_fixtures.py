"""Karpenter objects embedded in other files, on excerpts of real repositories (tests/fixtures/embedded/, each
naming its source): code, line and column of every finding in the ORIGINAL file."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.readers import hcl
from karplint.testing import codes, lint

FIXTURES = Path(__file__).parents[1] / "fixtures" / "embedded"
PINNED = "1.14.1"  # a pinned release: KPL801 on each object of an older apiVersion (unpinned: KPL803 once per file)

EXPECTED = {
    # Terraform heredocs: `yaml_body = <<-YAML` (indentation stripped), `<<EOF`, a local-exec heredoc
    "blueprints-karpenter.tf": [("KPL706", 13, 16), ("KPL705", 40, 5), ("KPL105", 63, 11)],
    "truemark-locals.tf": [("KPL705", 11, 1), ("KPL100", 46, 16)],
    "local-exec.tf": [("KPL705", 11, 7), ("KPL100", 22, 26)],
    # a suppression comment inside the heredoc; `${var.name}` and `$${literal}` are holes, never errors
    "suppressed.tf": [("KPL705", 7, 5), ("KPL101", 19, 23)],
    # yamlencode({...}): read with the terraform extra (the EC2NodeClass has neither role nor instanceProfile),
    # else one notice
    "radar-base-yamlencode.tf": [("KPL130", 83, 5)] if hcl.available() else [("KPL009", 8, 18)],
    # templatefile() templates: %{ if } directives, ${indent(8, ...)} lines, `[${x}]` in a flow sequence
    "sphtech-nodepool.tftpl": [],
    "github-runner-nodepool.tpl": [("KPL801", 1, 13)],
    # shell heredocs: a duplicate key in the Deployment; a heredoc whose delimiter is misspelt (EoF)
    "workshop-nodepool-app.sh": [("KPL801", 6, 13), ("KPL801", 40, 13), ("KPL002", 90, 7)],
    "workshop-unterminated.sh": [("KPL801", 6, 13), ("KPL001", 56, 1)],
    # Markdown: fragments (partial NodePools of a how-to) give no "required" wall; complete blocks are checked
    # KPL426 (info, true): a budget limited to one reason leaves the other reasons unlimited
    "blueprints-disruption-budgets.md": [("KPL426", 127, 5), ("KPL426", 145, 5), ("KPL426", 163, 5)],
    "data-on-eks-nvme-ssd.md": [("KPL606", 23, 5), ("KPL705", 93, 1), ("KPL103", 96, 7), ("KPL103", 96, 7)],
    "data-on-eks-soci.md": [("KPL706", 11, 14), ("KPL210", 35, 5)],
    # a fence without a language holding `cat >f.yaml <<EOF` (in a list item): the heredoc is read, never KPL001
    "eks-guide-eniconfig-bare-fence.md": [],
    # AsciiDoc: `[source,bash]` + `----` block with `cat <<EOF | kubectl apply -f -`; console output in another
    "eks-guide-time-slicing.adoc": [("KPL706", 17, 14)],
    # `sed "s/<<CLUSTER_NAME>>/.../"`: quoted, not a heredoc that would swallow the file; the real heredoc is read
    "blueprints-node-overlay-placeholder.sh": [],
    # a Terraform conditional line that yields `snapshotID: ...` or nothing: a hole, not "invalid YAML"
    "ai-on-eks-conditional-line.tf": [],
    # an unquoted heredoc writing an envsubst template: `\${X}` is the literal `${X}`, a hole, in a flow sequence
    "eks-workshop-eniconfig-template.md": [],
    # `..` on a line of its own in a ```yaml block: an elision of the documentation, like `...`
    "eks-workshop-v2-elision.md": [],
    # the API reference's NodePool: `expireAfter: 720h | Never` describes the values allowed, it is not one
    # (KPL130, kept: the block sets both `replicas` and `weight`, which a static NodePool rejects)
    "karpenter-docs-nodepool-reference.md": [("KPL130", 7, 1), ("KPL130", 7, 1)],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_positions_in_the_original_file(name):
    text = (FIXTURES / name).read_text(encoding="utf-8")
    found = lint({name: text}, config={"select": ["ALL"]}, karpenter_version=PINNED)
    assert codes(found) == EXPECTED[name]
    assert all(f.file == name for f in found)


def test_every_fixture_is_listed():
    assert sorted(p.name for p in FIXTURES.glob("*.*")) == sorted(EXPECTED)


def test_unterminated_heredoc_says_so():
    text = (FIXTURES / "workshop-unterminated.sh").read_text(encoding="utf-8")
    [f] = [f for f in lint({"x.sh": text}) if f.code == "KPL001"]
    assert "has no `EOF` line" in f.message


def test_one_bad_markdown_block_hides_no_other():
    text = ("# Doc\n\n```yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: [\n```\n\n"
            "```yaml\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata:\n  name: a\n```\n")
    assert codes(lint({"README.md": text}, karpenter_version=PINNED)) == [("KPL001", 7, 1), ("KPL801", 10, 13)]


def test_markdown_heredoc_in_a_bash_block():
    text = ("Apply:\n\n```bash\ncat <<EOF | envsubst | kubectl apply -f -\napiVersion: karpenter.sh/v1beta1\n"
            "kind: NodePool\nmetadata:\n  name: ${NAME}\nEOF\n```\n")
    assert codes(lint({"README.md": text}, karpenter_version=PINNED)) == [("KPL801", 5, 13)]


def test_helm_values_heredoc_is_not_an_object():
    text = 'resource "helm_release" "k" {\n  values = [<<-EOT\n    nodePool:\n      kind: x\n  EOT\n  ]\n}\n'
    assert lint({"main.tf": text}) == []


def test_else_branch_is_dropped():
    text = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n%{ if x }\n  name: a\n%{ else }\n"
            "  name: b\n%{ endif }\n")
    assert [f.code for f in lint({"np.yaml.tpl": text}) if f.code in ("KPL001", "KPL002")] == []


MANIFEST = """resource "kubernetes_manifest" "nodepool" {
  manifest = {
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata = {
      name = "default"
    }
    spec = {
      template = {
        spec = {
          nodeClassRef = {
            group = "karpenter.k8s.aws"
            kind  = "EC2NodeClass"
            name  = var.node_class
          }
          requirements = [
            {
              key      = "karpenter.sh/capacity-type"
              operator = "In"
              values   = ["spot", "on-demand"]
            }
          ]
          taints = [{ key = "dedicated", value = "gpu", effect = "NoSchedul" }]
          expireAfter = "720h"
        }
      }
      disruption = {
        consolidationPolicy = "WhenEmptyOrUnderutilized"
        consolidateAfter    = "${var.after}"
      }
    }
  }
}
"""


def test_kubernetes_manifest_hcl_object():
    pytest.importorskip("tree_sitter_hcl")
    found = lint({"main.tf": MANIFEST})
    assert codes(found) == [("KPL705", 8, 5), ("KPL101", 23, 66)]
    assert all(f.fix is None for f in found)  # fixes edit YAML, never HCL


def test_kubernetes_manifest_without_the_extra_is_a_notice(monkeypatch):
    monkeypatch.setattr(hcl, "available", lambda: False)
    found = lint({"main.tf": MANIFEST})
    assert codes(found) == [("KPL009", 4, 18)]
    assert "pip install tree-sitter-hcl" in found[0].message
