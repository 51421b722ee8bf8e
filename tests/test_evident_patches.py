"""A file named as a Kustomize patch, or kept in a `patches/` directory, is checked like a patch even when no
kustomization of the run names it: what it sets (field names, types, enums), not what it lacks (KPL103).

Excerpt: Piercuta/eks-karpenter-cdk @ 30c53104e28edd95a040ab9b0c960db14357499e,
`assets/pipelines/k8s_deploy/karpenter-pool/patch-ec2-node-class-cdk.yaml` lines 1-11 (no licence file in the
repository; quoted as a regression fixture). Its `buildspec.yaml` line 28 copies the file into another repository's
kustomize overlay: `cp -r ./karpenter-pool/* eks-karpenter-git-ops/infrastructure/karpenter-pool/${ENV_NAME}/patches/`.
"""

from __future__ import annotations

import pytest

from karplint.readers.kustomize import evident_patch
from karplint.testing import lint, run_cli

PATCH = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: karpenter-node-class
  labels:
      app: karpenter
spec:
  tags:
    EnvName: ${ENV_NAME}
    ProjectName: ${PROJECT_NAME}
  role: ${KARPENTER_NODE_ROLE}
"""
# (added for the test: a misspelt field and an invalid enum value, which a patch still gets)
BROKEN = PATCH + "  amiFamilyy: AL2023\n  metadataOptions:\n    httpTokens: sometimes\n"


def _found(name: str, text: str) -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.column) for f in lint({name: text}) if f.severity != "info"]


def test_unreferenced_patch_file_gets_no_required_fields():
    assert _found("assets/pipelines/k8s_deploy/karpenter-pool/patch-ec2-node-class-cdk.yaml", PATCH) == []


def test_file_in_a_patches_directory_gets_no_required_fields():
    assert _found("infrastructure/karpenter-pool/dev/patches/ec2nodeclass.yaml", PATCH) == []


def test_patch_still_gets_field_names_and_values_checked():
    assert _found("karpenter-pool/patch-ec2-node-class-cdk.yaml", BROKEN) == [("KPL104", 12, 3), ("KPL101", 14, 17)]


def test_an_ordinary_name_is_still_a_whole_object():
    assert _found("karpenter-pool/ec2-node-class.yaml", PATCH) == [("KPL103", 7, 1)] * 3


@pytest.mark.parametrize("name, expected", [
    ("patch-ec2-node-class-cdk.yaml", True),
    ("patch_nodepool.yml", True),
    ("patch.yaml", True),
    ("nodepool-patch.yaml", True),
    ("nodepool_patch.yaml", True),
    ("nodepool.patch.yaml", True),
    ("overlays/prod/patches/nodepool.yaml", True),
    ("overlays\\prod\\patches\\nodepool.json", True),
    ("overlays/prod/patches/nodepools/nodepool.yaml", True),
    ("/home/u/patches/repo/karpenter/nodepool.yaml", False),  # (an ancestor far above is not the file's directory)
    ("dispatch.yaml", False),
    ("patchwork.yaml", False),
    ("patches.md", False),
    ("patches/README.md", False),
    ("nodepool.yaml", False),
])
def test_evident_patch_names(name, expected):
    assert evident_patch(name) is expected


@pytest.mark.parametrize("cwd, named", [("", "infra/patches/ec2nodeclass.yaml"), ("infra", "patches"),
                                        ("infra/patches", "ec2nodeclass.yaml")])
def test_same_verdict_whatever_the_run_names(tmp_path, cwd, named):
    (tmp_path / "infra" / "patches").mkdir(parents=True)
    (tmp_path / "infra" / "patches" / "ec2nodeclass.yaml").write_text(PATCH)
    proc = run_cli("check", "--no-cache", "--output-format", "json", named, cwd=tmp_path / cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '"KPL103"' not in proc.stdout
