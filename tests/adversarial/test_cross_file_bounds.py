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
    assert warning.count(" file)") + warning.count(" files)") == 11  # ten versions and the rest
    assert "1.9.0 (HelmRelease karpenter at c09/hr.yaml:1, 1 file); 2 more versions (2 files) in the JSON " \
           "report; each file" in warning
    assert proc.stdout.rstrip().endswith("Karpenter 1.9.0 from HelmRelease karpenter at c09/hr.yaml:1 (1 file); "
                                         "2 more versions.")


# ------------------------------------------------------------------------------------------ KPL421

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements: []
"""
DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{i}, namespace: ns}}\nspec:\n"
              "  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: c, image: i}}]}}\n")
PDB = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: p{i}, namespace: ns}}\nspec:\n"
       "  maxUnavailable: 0\n  selector: {selector}\n")


def _pdb_tree(pdbs: int, deployments: int, selector) -> dict[str, str]:
    return {"np.yaml": NODEPOOL,
            "apps.yaml": "---\n".join(DEPLOYMENT.format(i=i) for i in range(deployments)),
            "pdbs.yaml": "---\n".join(PDB.format(i=i, selector=selector(i)) for i in range(pdbs))}


def test_pdbs_with_one_selector_are_matched_once():
    # 1,000 PDBs selecting the same 3,000 Deployments: every pair matched and placed again took 30 s.
    from karplint.testing import lint

    files = _pdb_tree(1_000, 3_000, lambda i: "{matchLabels: {app: web}}")
    started = time.process_time()
    found = lint(files, config={"select": ["KPL421", "KPL004"]})
    assert time.process_time() - started < 10
    assert [(f.code, f.line) for f in found] == [("KPL421", 5 + 7 * i) for i in range(1_000)]
    assert found[-1].message.startswith("maxUnavailable 0 allows no eviction of the 3000 pods it selects: "
                                        "Deployment/d0 (1 replica), Deployment/d1 (1 replica), Deployment/d2 (1 replica) and 2997 more\n")


def test_pdb_matching_past_its_bound_is_kpl004_on_the_file(monkeypatch):
    # Distinct selectors that no index narrows each cost every workload of the namespace: past the bound (1 million
    # steps, 50,000 here to keep the test short), the PDBs left are not checked, and the file says so.
    from karplint.rules import pdb_drain
    from karplint.testing import lint

    monkeypatch.setattr(pdb_drain, "MAX_PDB_WORK", 50_000)
    files = _pdb_tree(30, 2_000, lambda i: f"{{matchExpressions: [{{key: k{i}, operator: DoesNotExist}}]}}")
    found = lint(files, config={"select": ["KPL421", "KPL004"]})
    assert [(f.code, f.file) for f in found] == [("KPL421", "pdbs.yaml")] * 24 + [("KPL004", "pdbs.yaml")]
    kpl004 = found[-1]
    assert (kpl004.line, kpl004.column) == (7 * 24 + 6, 13)
    assert kpl004.message == ("too large: matching PodDisruptionBudgets with workloads took over 50,000 steps in "
                              "this run; KPL421 (pdb-blocks-every-drain) not checked for "
                              "PodDisruptionBudget/p24 and 5 other PodDisruptionBudget(s) of this file")


# ------------------------------------------------------------------------------------------ disruption budgets

def _pools(pools: int, budgets: int) -> str:
    """NodePools of `budgets` budgets each firing every other minute for a minute (distinct nodes): a timeline
    that changes at every minute of the week, for every reason."""
    listed = "".join(f'      - {{nodes: "{i + 1}", schedule: "*/2 * * * *", duration: 1m}}\n' for i in range(budgets))
    return "---\n".join(
        f"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p{n}\nspec:\n  disruption:\n"
        "    consolidateAfter: 0s\n    budgets:\n" + listed +
        "  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n"
        "      requirements: []\n" for n in range(pools))


def test_budget_rules_on_pools_of_fifty_dense_budgets():
    # 20 NodePools of 50 (the CRD's maximum) budgets changing every minute: 1 s a pool before, milliseconds now.
    from karplint.testing import lint

    started = time.process_time()
    found = lint({"pools.yaml": _pools(20, 50)}, config={"select": ["KPL42", "KPL004", "KPL006"]})
    assert time.process_time() - started < 10
    assert {f.code for f in found} == {"KPL420"} and len(found) == 20 * 50
    assert (found[0].line, found[0].column) == (9, 22)
    assert "Mon 00:01–Mon 00:02 UTC" in found[0].message  # (its first unlimited stretch)


def test_budgets_past_the_crds_maximum_are_not_simulated_by_the_rules():
    # 300 budgets: the API server rejects the NodePool (KPL106 says so); the timeline rules judge nothing.
    from karplint.testing import lint

    started = time.process_time()
    found = lint({"pools.yaml": _pools(5, 300)}, config={"select": ["KPL42", "KPL106"]})
    assert time.process_time() - started < 10
    assert [(f.code, f.line) for f in found] == [("KPL106", 9 + 313 * n) for n in range(5)]


def test_budgets_command_reports_what_passes_its_allowance_as_too_large(tmp_path: Path):
    # 12 pools of 50 dense budgets: a million JSON values each; the run reports one, then says "too large".
    (tmp_path / "pools.yaml").write_text(_pools(12, 50))
    started = time.monotonic()
    proc = run_cli("budgets", "pools.yaml", "--output-format", "json", cwd=tmp_path)
    assert time.monotonic() - started < 10
    assert proc.returncode == 1
    assert proc.stderr == "karplint budgets: 11 NodePools too large to show in one run; not shown (KPL004)\n"
    import json

    reports = json.loads(proc.stdout)["nodepools"]
    assert len(reports[0]["reasons"]["Drifted"]["segments"]) == 10_080
    assert reports[1] == {"nodepool": "p1", "file": "pools.yaml", "line": 64, "api_version": "karpenter.sh/v1",
                          "too_large": "too large: 1,058,400 entries, over the 941,600 this run may still report "
                                       "(of 2,000,000); not shown (--nodepool NAME shows it alone)"}
    text = run_cli("budgets", "pools.yaml", "--nodepool", "p3", cwd=tmp_path)
    assert text.returncode == 1 and ("too large: 30,240 rows, over the 12,000 this run may still report (of 12,000); "
                                     "not shown (--output-format json shows it)") in text.stdout


def test_budgets_command_says_budgets_past_the_crds_maximum_are_not_simulated(tmp_path: Path):
    import json

    (tmp_path / "pools.yaml").write_text(_pools(1, 300))
    proc = run_cli("budgets", "pools.yaml", "--output-format", "json", cwd=tmp_path)
    assert proc.returncode == 0
    report = json.loads(proc.stdout)["nodepools"][0]
    assert report["note"] == ("300 budgets: only the first 50 are simulated; the CRD allows at most 50, so the API "
                              "server rejects this NodePool")
    assert len(report["budgets"]) == 300
    sparse = _pools(1, 0).replace("    budgets:\n", "    budgets:\n" + '      - {nodes: "1", schedule: "0 2 * * *", '
                                                                      'duration: 1h}\n' * 60)
    (tmp_path / "sparse.yaml").write_text(sparse)
    text = run_cli("budgets", "sparse.yaml", cwd=tmp_path)
    assert text.returncode == 0
    assert ("note: 60 budgets: only the first 50 are simulated; the CRD allows at most 50, so the API server rejects "
            "this NodePool") in text.stdout
