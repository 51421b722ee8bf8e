"""pre-commit passes only the staged files: each is judged as a run over the whole project would judge it (the
project's other files are context for cross-file rules), and only the named files are reported on."""

from __future__ import annotations

import json
import subprocess

from karplint.testing import run_cli

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: {name}
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
  limits:
    cpu: 100
"""

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@v20250101}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  metadataOptions: {httpTokens: optional}
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


def _repo(tmp_path, pool_name="default"):
    repo = tmp_path / "repo"
    (repo / "pools").mkdir(parents=True)
    (repo / "classes").mkdir()
    (repo / "infra").mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "pools" / "np.yaml").write_text(NODEPOOL.format(name=pool_name))
    (repo / "classes" / "nc.yaml").write_text(NODECLASS)
    (repo / "infra" / "cilium.yaml").write_text(CILIUM)
    return repo


def _findings(proc) -> list[tuple[str, str, int, int]]:
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["file"], f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]]


def test_nodepool_staged_alone_sees_its_nodeclass_and_cilium(tmp_path):
    repo = _repo(tmp_path)
    staged = _findings(run_cli("check", "--force-exclude", "--no-cache", "-f", "json", "pools/np.yaml", cwd=repo))
    whole = [f for f in _findings(run_cli("check", "--no-cache", "-f", "json", ".", cwd=repo)) if f[0] == "pools/np.yaml"]
    assert staged == whole
    codes = {c for _, c, _, _ in staged}
    assert "KPL601" not in codes  # the class is in an unstaged file
    assert "KPL301" in codes  # Cilium, installed in an unstaged file, still needs its startup taint
    assert all(f[0] == "pools/np.yaml" for f in staged)  # nc.yaml's KPL701 is not reported


def test_a_real_dangling_reference_is_still_reported(tmp_path):
    repo = _repo(tmp_path, pool_name="defualt")
    staged = _findings(run_cli("check", "--no-cache", "-f", "json", "pools/np.yaml", cwd=repo))
    assert ("pools/np.yaml", "KPL601", 11, 15) in staged


def test_a_class_declared_outside_yaml(tmp_path):
    repo = _repo(tmp_path, pool_name="from-terraform")
    (repo / ".karplint.toml").write_text('[cluster]\nnodeclasses = ["from-terraform"]\n')
    staged = _findings(run_cli("check", "--no-cache", "-f", "json", "pools/np.yaml", cwd=repo))
    assert "KPL601" not in {c for _, c, _, _ in staged}


def test_project_context_can_be_switched_off(tmp_path):
    repo = _repo(tmp_path)
    (repo / ".karplint.toml").write_text("project-context = false\n")
    alone = _findings(run_cli("check", "--no-cache", "-f", "json", "pools/np.yaml", cwd=repo))
    assert "KPL301" not in {c for _, c, _, _ in alone}  # judged alone: no Cilium in sight
    assert "KPL601" not in {c for _, c, _, _ in alone}  # and no class at all: nothing to resolve against


def test_partial_run_with_the_cache_matches_an_uncached_one(tmp_path):
    repo = _repo(tmp_path)
    first = _findings(run_cli("check", "-f", "json", "pools/np.yaml", cwd=repo))
    (repo / "infra" / "cilium.yaml").unlink()  # a change outside the named file changes the verdict
    second = _findings(run_cli("check", "-f", "json", "pools/np.yaml", cwd=repo))
    uncached = _findings(run_cli("check", "--no-cache", "-f", "json", "pools/np.yaml", cwd=repo))
    assert "KPL301" in {c for _, c, _, _ in first} and second == uncached
    assert "KPL301" not in {c for _, c, _, _ in second}


def test_a_file_outside_the_working_directorys_project_gets_none_of_its_context(tmp_path):
    """Checking a file of another tree from inside a repository: that repository's Cilium install, classes and
    deployed Karpenter release are no context for it (nor is the working directory's git work tree its project)."""
    repo = _repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "np.yaml").write_text(NODEPOOL.format(name="default"))
    outside = _findings(run_cli("check", "--no-cache", "-f", "json", str(elsewhere / "np.yaml"), cwd=repo))
    assert "KPL301" not in {c for _, c, _, _ in outside}  # the repository's Cilium is not this file's cluster
    inside = _findings(run_cli("check", "--no-cache", "-f", "json", "pools/np.yaml", cwd=repo))
    assert "KPL301" in {c for _, c, _, _ in inside}
