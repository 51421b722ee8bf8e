"""Issue 24, bounded work across files: release evidence (Terraform variables, thousands of conflicting releases),
PodDisruptionBudgets selecting many workloads (KPL421), NodePools with many disruption budgets. Each hostile input
is generated here at a size where the code before the fix took well over the bound; the bound is generous
(10 s), the tests themselves take a few seconds at most."""

from __future__ import annotations

import time
from pathlib import Path

from karplint.model.repo_version import Evidence, assign, terraform_evidence
from karplint.testing import run_cli

# ------------------------------------------------------------------------------------------ release evidence


def test_unclosed_variable_blocks_are_read_in_one_pass():
    # 60,000 `variable "x" {` without end (900 KB) scanned MAX_BLOCK bytes each: 30 s before, about 0.2 s now.
    text = ('variable "x" {\n' * 60_000 + 'variable "v" {\n  default = "1.1.0"\n}\n'
            + 'resource "helm_release" "karpenter" {\n  chart = "karpenter"\n  version = var.v\n}\n')
    started = time.process_time()
    found = terraform_evidence([("infra/main.tf", text)])
    assert time.process_time() - started < 10
    assert found == [Evidence("1.1.0", "infra/main.tf", 60_006, 'helm_release "karpenter" (var.v default)')]


def test_thousands_of_conflicting_releases_are_assigned_by_directory():
    # 5,000 releases of distinct versions over 10,000 files: every file compared with every release took 15 s.
    evidence = [Evidence(f"1.{i % 10}.{i // 10}", f"a/b/c/d/c{i}/hr.yaml", 1, "HelmRelease") for i in range(5_000)]
    files = [f"a/b/c/d/c{i}/{name}" for i in range(5_000) for name in ("hr.yaml", "nc.yaml")]
    files.append("a/b/other.yaml")  # as near to every release: no clear version
    started = time.process_time()
    chosen = assign(files, evidence)
    assert time.process_time() - started < 10
    assert len(chosen) == 10_000 and "a/b/other.yaml" not in chosen
    assert chosen["a/b/c/d/c4321/nc.yaml"] == evidence[4321]


HELM_RELEASE = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: karpenter, namespace: kube-system}}
spec:
  chart:
    spec: {{chart: karpenter, version: 1.{minor}.0}}
"""


def test_the_warning_names_at_most_ten_versions(tmp_path: Path):
    for i in range(12):
        (tmp_path / f"c{i:02}").mkdir()
        (tmp_path / f"c{i:02}" / "hr.yaml").write_text(HELM_RELEASE.format(minor=i))
    proc = run_cli("check", ".", "--no-cache", cwd=tmp_path)
    warning = next(line for line in proc.stderr.splitlines() if "several Karpenter versions" in line)
    assert warning.count(" file(s))") == 11  # ten versions and the rest
    assert "1.9.0 (HelmRelease karpenter at c09/hr.yaml:1, 1 file(s)); 2 more version(s) (2 file(s)) in the JSON " \
           "report; each file" in warning
    assert proc.stdout.rstrip().endswith("Karpenter 1.9.0 from HelmRelease karpenter at c09/hr.yaml:1 (1 file(s)); "
                                         "2 more version(s).")
