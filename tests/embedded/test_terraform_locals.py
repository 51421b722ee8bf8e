"""A manifest kept in a Terraform local is applied only where the module names `local.NAME`: one that no
uncommented line of the module's `.tf` files names is dead code, and findings on it would be about nothing the
module deploys (kuldeep26/github-action-demo1 @bb6a48a0900f, `karpenter-helm.tf`: NodePool and EC2NodeClass
heredocs in `locals`, their `kubernetes_manifest` resources commented out; judged noise on a held-out
repository)."""

from __future__ import annotations

import json
from pathlib import Path

from karplint.testing import run_cli

LOCALS = """\
locals {
  karpenter_provisioner_manifest = <<YAML
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        name: default
      requirements: []
YAML
}
"""

COMMENTED_USE = """
# resource "kubernetes_manifest" "karpenter_provisioner" {
#   manifest   = yamldecode(local.karpenter_provisioner_manifest)
# }
"""

USE = 'resource "kubernetes_manifest" "karpenter_provisioner" {\n' \
      '  manifest = yamldecode(local.karpenter_provisioner_manifest)\n}\n'


def _findings(tmp_path: Path, *args) -> list[tuple[str, str, int, int]]:
    proc = run_cli("check", "--no-cache", "-f", "json", "--karpenter-version", "1.14.1", *args, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["file"], f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]
            if f["severity"] == "error"]


def test_a_local_nothing_uses_is_not_checked(tmp_path: Path):
    (tmp_path / "karpenter.tf").write_text(LOCALS + COMMENTED_USE)
    assert _findings(tmp_path, ".") == []


def test_a_local_used_in_the_same_file_or_another_file_of_the_module_is_checked(tmp_path: Path):
    expected = [("karpenter.tf", "KPL103", 10, 7), ("karpenter.tf", "KPL103", 10, 7)]  # nodeClassRef group, kind
    (tmp_path / "karpenter.tf").write_text(LOCALS + USE)
    assert _findings(tmp_path, ".") == expected
    (tmp_path / "karpenter.tf").write_text(LOCALS + COMMENTED_USE)
    (tmp_path / "manifests.tf").write_text(USE)
    assert _findings(tmp_path, ".") == expected
    assert _findings(tmp_path, "karpenter.tf") == expected  # (the file named alone reads its module too)


def test_a_heredoc_outside_locals_is_checked_whatever_uses_it(tmp_path: Path):
    (tmp_path / "karpenter.tf").write_text(
        'resource "kubectl_manifest" "pool" {\n  yaml_body = <<YAML\n' + LOCALS.split("<<YAML\n", 1)[1]
        .replace("YAML\n}\n", "YAML\n}\n"))
    assert [c for _f, c, *_ in _findings(tmp_path, ".")] == ["KPL103", "KPL103"]
