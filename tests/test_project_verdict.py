"""One project, one verdict (karplint/project/): a file gets the same findings whether the run names the whole tree,
its directory or the file alone, with `--fix` or `--diff` or without, when the Karpenter pin and the Cilium install
live in other directories of the project."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from karplint.testing import run_cli

PIN = """\
resource "helm_release" "karpenter" {
  namespace  = "kube-system"
  name       = "karpenter"
  repository = "oci://public.ecr.aws/karpenter"
  chart      = "karpenter"
  version    = "0.37.0"
}
"""

CILIUM = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium
  namespace: kube-system
spec:
  selector: {matchLabels: {k8s-app: cilium}}
  template:
    metadata: {labels: {k8s-app: cilium}}
    spec:
      containers:
        - name: cilium-agent
          image: quay.io/cilium/cilium:v1.16.0
"""

# The first NodePool lacks Cilium's startup taint (KPL301: needs the Cilium install of addons/); the second is of an
# apiVersion Karpenter 0.37.0 does not serve (KPL801: needs the pin of infra/; the default release serves it).
NODEPOOLS = """\
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef:
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
  limits:
    cpu: 100
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: next
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      startupTaints:
        - key: node.cilium.io/agent-not-ready
          effect: NoExecute
          value: "true"
  limits:
    cpu: 100
"""

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
"""

NP = "karpenter/nodepools.yaml"
# (the v1 NodePool is checked against the schema of a release that serves v1, 1.0.0: it lacks requirements)
EXPECTED = [("KPL301", 7, 5), ("KPL801", 17, 13), ("KPL103", 23, 5)]


def _repo(tmp_path):
    repo = tmp_path / "repo"
    for d in ("infra", "addons", "karpenter"):
        (repo / d).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "infra" / "karpenter.tf").write_text(PIN)
    (repo / "addons" / "cilium.yaml").write_text(CILIUM)
    (repo / NP).write_text(NODEPOOLS)
    (repo / "karpenter" / "nodeclass.yaml").write_text(NODECLASS)
    return repo


def _on_nodepools(*args, cwd) -> list[tuple[str, int, int]]:
    proc = run_cli("check", "--no-cache", "-f", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    # the release the report names: the pin's, whatever the run names
    assert report["summary"]["karpenter_version"] == "0.37.0", report["summary"]
    assert [v["version"] for v in report["summary"]["karpenter_versions"]] == ["0.37.0"]
    return [(f["code"], f["line"], f["column"]) for f in report["findings"] if f["file"] == NP]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return _repo(tmp_path_factory.mktemp("verdict"))


@pytest.mark.parametrize("named", [".", "karpenter", "karpenter/", NP], ids=["tree", "directory", "directory/", "file"])
def test_the_same_findings_whatever_paths_are_named(repo, named):
    assert _on_nodepools(named, cwd=repo) == EXPECTED


def test_stdin_named_by_stdin_filename_is_judged_as_that_file(repo):
    """An editor sends its unsaved buffer on stdin with the file's name: the project's pin and Cilium count."""
    proc = run_cli("check", "--no-cache", "-f", "json", "--stdin-filename", NP, "-", cwd=repo, stdin=NODEPOOLS)
    assert proc.returncode == 1, proc.stderr
    assert [(f["file"], f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]] == [
        (NP, code, line, column) for code, line, column in EXPECTED]


def test_show_settings_of_a_directory_names_the_pin_elsewhere(repo):
    proc = run_cli("check", "--show-settings", "karpenter", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert ('karpenter version: 0.37.0 (read from helm_release "karpenter" at infra/karpenter.tf:6; 2 files)\n'
            in proc.stdout)


def test_fix_reports_what_check_reports(repo):
    """`karplint check --fix np.yaml` (the karplint-fix pre-commit hook): no safe fix applies, so the findings that
    remain are the check's, pin and Cilium included (it said "All checks passed" with neither)."""
    assert _on_nodepools("--fix", NP, cwd=repo) == EXPECTED
    assert (repo / NP).read_text() == NODEPOOLS


def test_diff_of_a_file_named_alone_is_the_diff_of_the_whole_tree(repo):
    alone = run_cli("check", "--no-cache", "--diff", "--unsafe-fixes", NP, cwd=repo)
    whole = run_cli("check", "--no-cache", "--diff", "--unsafe-fixes", ".", cwd=repo)
    assert alone.returncode == whole.returncode == 1, alone.stderr
    assert alone.stdout == whole.stdout
    assert "+        - key: node.cilium.io/agent-not-ready\n" in alone.stdout  # the Cilium fix, from addons/


def test_unsafe_fix_of_a_file_named_alone_leaves_what_the_tree_leaves(tmp_path):
    alone, whole = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    after_alone = _on_nodepools("--fix", "--unsafe-fixes", NP, cwd=alone)
    after_whole = _on_nodepools("--fix", "--unsafe-fixes", ".", cwd=whole)
    assert after_alone == after_whole == [("KPL801", 20, 13), ("KPL103", 26, 5)]  # the taint was added above them
    assert (alone / NP).read_text() == (whole / NP).read_text() != NODEPOOLS
    shutil.rmtree(tmp_path / "a")


# ------------------------------------------------------------------------------------ the display commands

CLASS_V1 = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
"""

POOL_V1 = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
"""


@pytest.fixture(scope="module")
def display_repo(tmp_path_factory):
    """A NodePool in pools/, its EC2NodeClass in classes/, Karpenter 1.0.6 pinned in infra/ (before 1.5.0, which
    added the `karpenter.sh/do-not-sync-taints` label), and an excluded directory."""
    repo = tmp_path_factory.mktemp("display") / "repo"
    for d in ("pools", "classes", "infra", "old"):
        (repo / d).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "pools" / "np.yaml").write_text(POOL_V1.format(name="web"))
    (repo / "old" / "np.yaml").write_text(POOL_V1.format(name="legacy"))
    (repo / "classes" / "nc.yaml").write_text(CLASS_V1)
    (repo / "infra" / "karpenter.tf").write_text(PIN.replace("0.37.0", "1.0.6"))
    (repo / ".karplint.toml").write_text('exclude = ["old"]\n')
    return repo


def test_render_of_a_nodepool_named_alone_finds_its_class_and_the_pinned_release(display_repo):
    alone = run_cli("render", "pools/np.yaml", cwd=display_repo)
    whole = run_cli("render", ".", cwd=display_repo)
    assert alone.returncode == whole.returncode == 0, alone.stdout + alone.stderr
    assert "EC2NodeClass/default (AL2023) + NodePool/web" in alone.stdout and alone.stdout == whole.stdout
    assert "karpenter.sh/do-not-sync-taints" not in alone.stdout  # rendered as Karpenter 1.0.6 renders it


def test_simulate_of_a_nodepool_named_alone_reads_its_class(display_repo):
    proc = run_cli("simulate", "-f", "json", "pools/np.yaml", cwd=display_repo)
    assert proc.returncode == 0, proc.stderr
    assert [(p["name"], p["ami_family"]) for p in json.loads(proc.stdout)["nodepools"]] == [("web", "AL2023")]


def test_budgets_honours_the_configuration_as_check_does(display_repo):
    proc = run_cli("budgets", "-f", "json", ".", cwd=display_repo)
    assert proc.returncode == 0, proc.stderr
    assert [(p["nodepool"], p["file"]) for p in json.loads(proc.stdout)["nodepools"]] == [("web", "pools/np.yaml")]


def test_a_file_named_alone_counts_only_itself_against_the_release_it_gets(tmp_path):
    """Two clusters pin two releases: a NodePool of one named alone is checked against its cluster's, and the report
    counts the named file only (it listed both releases with the project's file counts)."""
    repo = tmp_path / "repo"
    for cluster, version in (("dev", "1.0.6"), ("prod", "1.1.0")):
        (repo / cluster).mkdir(parents=True)
        (repo / cluster / "karpenter.tf").write_text(PIN.replace("0.37.0", version))
        (repo / cluster / "np.yaml").write_text(POOL_V1.format(name=cluster))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    proc = run_cli("check", "--no-cache", "-f", "json", "prod/np.yaml", cwd=repo)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["karpenter_version"] == "1.1.0"
    assert summary["karpenter_versions"] == [
        {"version": "1.1.0", "source": 'helm_release "karpenter" at prod/karpenter.tf:6', "files": 1}]


# ------------------------------------------------------------------------------------ test data

def test_test_data_is_no_context_for_the_project_and_the_verdict_stays_one(tmp_path):
    """A Cilium install and a release pin among the tests' fixtures are not what the project deploys: the NodePool
    outside them gets neither KPL301 nor the fixture's release, whether the run names the tree or its directory
    (karplint's own repository: `karplint check examples/quickstart` read tests/fixtures as the deployment). The
    fixture itself is still judged with them."""
    repo = tmp_path / "repo"
    for d in ("karpenter", "tests/fixtures"):
        (repo / d).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "tests" / "fixtures" / "cilium.yaml").write_text(CILIUM)
    (repo / "tests" / "fixtures" / "karpenter.tf").write_text(PIN)
    (repo / "tests" / "fixtures" / "nodepools.yaml").write_text(NODEPOOLS)
    (repo / NP).write_text(NODEPOOLS)
    (repo / "karpenter" / "nodeclass.yaml").write_text(NODECLASS)

    def run(*args):
        proc = run_cli("check", "--no-cache", "-f", "json", *args, cwd=repo)
        report = json.loads(proc.stdout)
        return report, sorted((f["file"], f["code"], f["line"]) for f in report["findings"]
                              if f["severity"] in ("error", "warning"))

    tree, tree_findings = run(".")
    sub, sub_findings = run("karpenter")
    on_np = [x for x in tree_findings if x[0] == NP]
    assert on_np == [x for x in sub_findings if x[0] == NP]
    assert not [x for x in on_np if x[1] in ("KPL301", "KPL801")]  # (the fixtures' Cilium and 0.37.0 pin)
    assert sub["summary"]["karpenter_versions"] == []  # (the fixture's pin applies to no file of karpenter/)
    fixture = [x for x in tree_findings if x[0] == "tests/fixtures/nodepools.yaml"]
    assert ("tests/fixtures/nodepools.yaml", "KPL301", 7) in fixture and (
        "tests/fixtures/nodepools.yaml", "KPL801", 17) in fixture
