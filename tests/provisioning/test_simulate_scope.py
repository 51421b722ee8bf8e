"""`karplint simulate` on some files of a project: every NodePool of the project is simulated, only the named
files' workloads are (the context's workloads on the context's NodePools were most of the work, never shown)."""

from __future__ import annotations

from karplint.cli.simulate import run_simulation
from karplint.provisioning import simulate as simulate_module

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: app, image: nginx, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def _project(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()  # (a git work tree: the named file's project, whose other files are context)
    (tmp_path / "pools.yaml").write_text(NODEPOOL)
    (tmp_path / "web.yaml").write_text(DEPLOYMENT.format(name="web", cpu="1"))
    (tmp_path / "other.yaml").write_text("---\n".join(  # (requests differ: each its own placement)
        DEPLOYMENT.format(name=f"ctx-{i}", cpu=f"{i + 2}00m") for i in range(20)))
    monkeypatch.chdir(tmp_path)
    judged = []
    real_host = simulate_module.host

    def counting_host(pod, sim, ds, **kw):
        judged.append(pod.res.name)
        return real_host(pod, sim, ds, **kw)

    monkeypatch.setattr(simulate_module, "host", counting_host)
    return judged


def test_named_workload_judged_on_the_context_nodepools(tmp_path, monkeypatch):
    judged = _project(tmp_path, monkeypatch)
    data = run_simulation(["web.yaml"])
    assert [(w["name"], w["hostable"]) for w in data["workloads"]] == [("web", True)]
    assert [p["nodepool"] for p in data["workloads"][0]["nodepools"]] == ["general"]  # (from pools.yaml, context)
    assert judged == ["web"]  # the context's 20 workloads are not simulated


def test_named_nodepool_alone_simulates_no_workload(tmp_path, monkeypatch):
    judged = _project(tmp_path, monkeypatch)
    data = run_simulation(["pools.yaml"])
    assert [p["name"] for p in data["nodepools"]] == ["general"] and data["workloads"] == []
    assert judged == []
