"""One answer for "can any NodePool host this workload?" (issue 26): KPL910 judged a workload on the NodePools of
related directories and `simulate` on every NodePool of the run, so `simulate` said "ok" where KPL910 said "no
NodePool of the checked files". Both now use `karplint.provisioning.scope`, and the message names the scope."""

from __future__ import annotations

import json
from pathlib import Path

from karplint.testing import run_cli, run_json

SMALL = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: small\nspec:\n  template:\n    spec:\n"
         "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n"
         "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}\n")
WIDE = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: wide\nspec:\n  template:\n    spec:\n"
        "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n"
        "        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n")
APP = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\nspec:\n  template:\n    spec:\n"
       "      nodeSelector: {karpenter.sh/capacity-type: on-demand}\n"
       "      containers:\n        - name: app\n          resources: {requests: {cpu: \"30\"}}\n")


def _tree(tmp_path: Path) -> None:
    (tmp_path / "a" / "apps").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "pool.yaml").write_text(SMALL)
    (tmp_path / "a" / "apps" / "app.yaml").write_text(APP)
    (tmp_path / "b" / "pool.yaml").write_text(WIDE)  # another cluster's: a NodePool of an unrelated directory


def test_check_and_simulate_give_one_answer_and_name_the_scope(tmp_path: Path):
    """Two clusters (`clusters`): the workload of a/ is judged on a/'s NodePools only, by both front ends."""
    _tree(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.karplint]\nclusters = ["a", "b"]\n')
    _code, report, _ = run_json("check", "--no-cache", "--select", "KPL910", ".", cwd=tmp_path)
    found = [(f["code"], f["file"], f["line"], f["column"], f["severity"]) for f in report["findings"]]
    assert found == [("KPL910", "a/apps/app.yaml", 4, 9, "error")]
    proc = run_cli("simulate", ".", "--output-format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    big = json.loads(proc.stdout)["workloads"][0]
    assert (big["name"], big["hostable"]) == ("big", False)  # (before: True, `wide` of b/ hosted it)
    assert [v["nodepool"] for v in big["nodepools"]] == ["small"]


def test_a_nodepool_elsewhere_in_the_one_cluster_clears_the_workload(tmp_path: Path):
    """Without `clusters` the project is one cluster: nearness picks what is judged and names the scope, but a
    NodePool of another directory that hosts the workload clears it (aws-samples/karpenter-blueprints keeps its
    general NodePool in cluster/ and the workloads relying on it in blueprints/*/). Both front ends agree."""
    _tree(tmp_path)
    _code, report, _ = run_json("check", "--no-cache", "--select", "KPL910", ".", cwd=tmp_path)
    assert report["findings"] == []
    proc = run_cli("simulate", ".", "--output-format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    big = json.loads(proc.stdout)["workloads"][0]
    assert (big["name"], big["hostable"]) == ("big", True)
    assert [v["nodepool"] for v in big["nodepools"]][:1] == ["wide"]
    assert big["scope"] == {"nodepools": 1, "where": "in `a/apps` or a directory above or below it"}


def test_the_scope_is_named_when_no_nodepool_of_the_run_hosts_it(tmp_path: Path):
    _tree(tmp_path)
    (tmp_path / "b" / "pool.yaml").write_text(SMALL.replace("name: small", "name: other"))
    _code, report, _ = run_json("check", "--no-cache", "--select", "KPL910", ".", cwd=tmp_path)
    found = [(f["code"], f["file"], f["line"], f["column"], f["severity"]) for f in report["findings"]]
    assert found == [("KPL910", "a/apps/app.yaml", 4, 9, "error")]
    lines = report["findings"][0]["message"].splitlines()
    assert lines[0] == "Deployment `big`: no NodePool near it can give its pods a node"
    assert report["findings"][0]["notes"][1] == (
        "judged on the NodePools in `a/apps` or a directory above or below it: `small`; no NodePool of another "
        "directory can host it either")


def test_a_workload_with_no_nodepool_in_scope_is_not_judged_by_either(tmp_path: Path):
    _tree(tmp_path)
    (tmp_path / "c").mkdir()
    (tmp_path / "a" / "apps" / "app.yaml").rename(tmp_path / "c" / "app.yaml")
    _code, report, _ = run_json("check", "--no-cache", "--select", "KPL910", ".", cwd=tmp_path)
    assert report["findings"] == []
    proc = run_cli("simulate", ".", cwd=tmp_path)
    assert "  Deployment/big\tcannot tell\n    no NodePool in `c` or a directory above or below it: not judged\n" \
        in proc.stdout


def test_one_directory_is_the_checked_files(tmp_path: Path):
    (tmp_path / "pool.yaml").write_text(SMALL)
    (tmp_path / "app.yaml").write_text(APP)
    _code, report, _ = run_json("check", "--no-cache", "--select", "KPL910", ".", cwd=tmp_path)
    assert [f["message"].splitlines()[0] for f in report["findings"]] == [
        "Deployment `big`: no NodePool of the checked files can give its pods a node"]


def test_a_nodepool_named_by_the_selector_is_the_scope_when_none_is_near(tmp_path: Path):
    """A platform directory beside the applications': `karpenter.sh/nodepool: small` names the NodePool (only
    its nodes carry the label), so both judge the workload on it, at warning (the name is the only link)."""
    (tmp_path / "platform").mkdir()
    (tmp_path / "apps").mkdir()
    (tmp_path / "platform" / "pool.yaml").write_text(SMALL)
    (tmp_path / "platform" / "wide.yaml").write_text(WIDE)
    (tmp_path / "apps" / "app.yaml").write_text(APP.replace("karpenter.sh/capacity-type: on-demand",
                                                            "karpenter.sh/nodepool: small"))
    _code, report, _ = run_json("check", "--no-cache", "--select", "KPL910", ".", cwd=tmp_path)
    found = [(f["code"], f["file"], f["line"], f["column"], f["severity"]) for f in report["findings"]]
    assert found == [("KPL910", "apps/app.yaml", 4, 9, "warning")]
    assert report["findings"][0]["message"].splitlines()[0] == (
        "Deployment `big`: no NodePool it selects by name can give its pods a node")
    assert report["findings"][0]["notes"][1] == (
        "judged on the NodePools named by its `karpenter.sh/nodepool` selector (none is in its directory, above or "
        "below it): `small`; the name is the only link between them and this workload")
    proc = run_cli("simulate", ".", "--output-format", "json", cwd=tmp_path)
    big = json.loads(proc.stdout)["workloads"][0]
    assert (big["hostable"], [v["nodepool"] for v in big["nodepools"]]) == (False, ["small"])
    assert big["scope"]["nodepools"] == 1
