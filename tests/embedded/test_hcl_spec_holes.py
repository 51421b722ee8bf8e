"""An HCL object whose whole `spec` is an expression only Terraform knows (`spec = local.x`, `spec = merge(...)`)
is a mapping once applied: unknown to karplint, never "spec must be a mapping" (KPL007), and its class reference
could be any class (no KPL603 on the classes beside it). From held-out repositories: restatedev/
aws-eks-karpenter-sandbox @c2bf9fb4 `karpenter.tf` (a local picking a variable or a default), cloudposse-terraform-
components/aws-eks-karpenter-node-pool @06755a54 `src/ec2-node-class.tf` (`spec = merge({...}, ...)`)."""

from __future__ import annotations

import json
from pathlib import Path

from karplint.testing import run_cli

TF = '''\
resource "kubectl_manifest" "class" {
  yaml_body = yamlencode({
    apiVersion = "karpenter.k8s.aws/v1"
    kind       = "EC2NodeClass"
    metadata   = { name = "default" }
    spec = merge({
      role                       = var.role
      amiSelectorTerms           = [{ alias = "al2023@latest" }]
      subnetSelectorTerms        = [for id in var.subnets : { id = id }]
      securityGroupSelectorTerms = [{ tags = { "karpenter.sh/discovery" = var.cluster } }]
    }, var.extra)
  })
}

resource "kubectl_manifest" "pool" {
  yaml_body = yamlencode({
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata   = { name = "default" }
    spec       = local.default_nodepool_spec
  })
}
'''


def test_a_spec_only_terraform_knows_is_unknown_not_malformed(tmp_path: Path):
    (tmp_path / "karpenter.tf").write_text(TF)
    proc = run_cli("check", "--no-cache", "-f", "json", "--karpenter-version", "1.14.1", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert [(f["code"], f["line"]) for f in json.loads(proc.stdout)["findings"]] == []
