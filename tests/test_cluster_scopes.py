"""`clusters` says which directories each hold one cluster: cross-file rules judge a cluster's files with that
cluster's files and the shared ones only."""

from __future__ import annotations

import json

from karplint.testing import run_cli

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: [{{key: kubernetes.io/arch, operator: In, values: [amd64]}}]
  limits: {{cpu: 10}}
"""
CILIUM = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: cilium, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: cilium}}
  template:
    metadata: {labels: {k8s-app: cilium}}
    spec:
      containers: [{name: cilium-agent, image: "quay.io/cilium/cilium:v1.16.0"}]
"""


def _tree(tmp_path, clusters: str | None):
    for env in ("prod", "dev"):
        (tmp_path / "clusters" / env).mkdir(parents=True)
        (tmp_path / "clusters" / env / "np.yaml").write_text(NODEPOOL.format(name=env))
    (tmp_path / "clusters" / "prod" / "cilium.yaml").write_text(CILIUM)
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "np.yaml").write_text(NODEPOOL.format(name="shared"))
    (tmp_path / ".karplint.toml").write_text(f"clusters = {clusters}\n" if clusters else "")


def _kpl301(tmp_path) -> set[str]:
    proc = run_cli("check", ".", "--no-cache", "-f", "json", "--select", "KPL301", cwd=tmp_path)
    return {f["file"] for f in json.loads(proc.stdout)["findings"]}


def test_cilium_in_prod_does_not_judge_dev(tmp_path):
    _tree(tmp_path, '["clusters/*"]')
    assert _kpl301(tmp_path) == {"clusters/prod/np.yaml", "base/np.yaml"}  # base is shared with prod


def test_without_clusters_the_project_is_one_cluster(tmp_path):
    _tree(tmp_path, None)
    assert _kpl301(tmp_path) == {"clusters/prod/np.yaml", "clusters/dev/np.yaml", "base/np.yaml"}


def test_scoped_verdicts_are_the_same_with_the_cache(tmp_path):
    _tree(tmp_path, '["clusters/*"]')
    first = run_cli("check", ".", "-f", "json", "--select", "KPL301", cwd=tmp_path)
    again = run_cli("check", ".", "-f", "json", "--select", "KPL301", cwd=tmp_path)
    assert json.loads(first.stdout)["findings"] == json.loads(again.stdout)["findings"]
    assert {f["file"] for f in json.loads(again.stdout)["findings"]} == {"clusters/prod/np.yaml", "base/np.yaml"}
