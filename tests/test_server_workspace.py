"""karplint/server/workspace.py: the editor's workspace gets `karplint check ROOT`'s findings, with unsaved buffers
in place of the disk, re-checking only what an edit changes."""

from __future__ import annotations

import json
import os

import pytest

from karplint.server.workspace import Workspace
from karplint.testing import run_cli

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
"""
# the same NodePool with Cilium's startup taint (KPL301's fix)
TAINTED = NODEPOOL + """\
      startupTaints:
        - key: node.cilium.io/agent-not-ready
          value: "true"
          effect: NoExecute
"""
CILIUM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cilium-config
  namespace: kube-system
data:
  cluster-name: prod
"""
OTHER_CONFIGMAP = CILIUM.replace("cilium-config", "app-config")


def _tree(tmp_path, files: dict[str, str]) -> str:
    root = tmp_path / "ws"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return str(root)


def _codes(findings) -> list[tuple[str, int, int]]:
    return [(f.code, f.span.line, f.span.column) for f in findings]


def _cli_findings(root: str, path: str) -> list[tuple]:
    proc = run_cli("check", "--no-cache", "--output-format", "json", root)
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["code"], f["line"], f["column"], f["end_line"], f["end_column"], f["severity"])
            for f in json.loads(proc.stdout)["findings"] if f["file"] == path]


def _mine(findings) -> list[tuple]:
    return [(f.code, f.span.line, f.span.column, f.span.end_line, f.span.end_column, f.severity) for f in findings]


def test_findings_equal_check_root_including_a_cross_file_finding(tmp_path):
    # Cilium installed in another directory: the NodePool lacks its startup taint (KPL301, cross-file)
    root = _tree(tmp_path, {"pools/np.yaml": NODEPOOL, "cni/cilium.yaml": CILIUM, "apps/cm.yaml": OTHER_CONFIGMAP})
    np = os.path.join(root, "pools", "np.yaml")
    ws = Workspace(root)
    assert ("KPL301", 7, 5) in _codes(ws.findings(np))
    assert _mine(ws.findings(np)) == _cli_findings(root, np)
    assert [f.file for f in ws.findings(np)] == [np] * len(ws.findings(np))
    # an open buffer equal to the disk changes nothing
    assert _mine(ws.update(np, NODEPOOL)[np]) == _cli_findings(root, np)


def test_unsaved_fix_removes_the_finding_without_touching_disk_and_closing_restores_it(tmp_path):
    root = _tree(tmp_path, {"pools/np.yaml": NODEPOOL, "cni/cilium.yaml": CILIUM})
    np = os.path.join(root, "pools", "np.yaml")
    ws = Workspace(root)
    got = ws.update(np, TAINTED)
    assert "KPL301" not in [c for c, *_ in _codes(got[np])]
    assert ws.text(np) == TAINTED
    with open(np, encoding="utf-8") as fh:
        assert fh.read() == NODEPOOL  # nothing written
    assert ws.update(np, None) == {}  # (closed: no longer an open document)
    assert ("KPL301", 7, 5) in _codes(ws.findings(np))
    assert ws.text(np) == NODEPOOL


def test_an_edit_to_another_file_rechecks_the_open_document_that_depends_on_it(tmp_path):
    root = _tree(tmp_path, {"pools/np.yaml": NODEPOOL, "cni/cilium.yaml": CILIUM})
    np, cilium = os.path.join(root, "pools", "np.yaml"), os.path.join(root, "cni", "cilium.yaml")
    ws = Workspace(root)
    ws.update(np, NODEPOOL)
    ws.update(cilium, CILIUM)
    got = ws.update(cilium, OTHER_CONFIGMAP)  # Cilium gone (unsaved): the NodePool needs no taint
    assert set(got) == {np, cilium}
    assert "KPL301" not in [c for c, *_ in _codes(got[np])]
    got = ws.update(cilium, CILIUM)
    assert ("KPL301", 7, 5) in _codes(got[np])


def test_saved_reads_the_changed_disk(tmp_path):
    root = _tree(tmp_path, {"pools/np.yaml": NODEPOOL, "cni/cilium.yaml": CILIUM})
    np, cilium = os.path.join(root, "pools", "np.yaml"), os.path.join(root, "cni", "cilium.yaml")
    ws = Workspace(root)
    ws.update(np, NODEPOOL)
    with open(cilium, "w", encoding="utf-8") as fh:  # (as another program would; same size: stat must not vouch)
        fh.write(OTHER_CONFIGMAP.replace("app-config", "app-conf-x"))
    got = ws.saved(cilium)
    assert "KPL301" not in [c for c, *_ in _codes(got[np])]
    assert _mine(got[np]) == _cli_findings(root, np)
    os.unlink(cilium)  # deleted: gone from the project
    assert ws.saved(cilium) == {}
    assert ws.findings(cilium) == []
    with open(os.path.join(root, "cni", "new.yaml"), "w", encoding="utf-8") as fh:  # created
        fh.write(CILIUM)
    got = ws.saved(os.path.join(root, "cni", "new.yaml"))
    assert ("KPL301", 7, 5) in _codes(got[np])


KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../base
patches:
  - path: ../extra/np.yaml
"""
PATCH = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  limits:
    cpu: "100"
"""


def test_project_roots_are_found_again_after_a_git_work_tree_appears(tmp_path):
    # A kustomization applies a patch only inside its own project (readers/kustomize.py): without a `.git`, its
    # directory; with one above, the work tree. The project roots are memoised (discover/boundary.py): a
    # long-lived Workspace must not keep the roots of before the `.git` appeared.
    root = _tree(tmp_path, {"overlay/kustomization.yaml": KUSTOMIZATION, "extra/np.yaml": PATCH})
    patch, kustomization = os.path.join(root, "extra", "np.yaml"), os.path.join(root, "overlay", "kustomization.yaml")
    ws = Workspace(root)
    ws.update(patch, PATCH)
    # outside the kustomization's project (its directory): no patch of it, checked as a whole NodePool
    assert _codes(ws.findings(patch)) == [("KPL103", 5, 1)] == [c[:3] for c in _cli_findings(root, patch)]
    os.mkdir(os.path.join(root, ".git"))
    got = ws.update(kustomization, KUSTOMIZATION + "# edited\n")
    assert _mine(got[patch]) == _cli_findings(root, patch) == []


def test_an_edit_runs_the_per_file_stage_of_the_edited_file_only(tmp_path, monkeypatch):
    from karplint.engine import parallel

    files = {f"apps/cm{i}.yaml": OTHER_CONFIGMAP.replace("app-config", f"app-{i}") for i in range(5)}
    root = _tree(tmp_path, {"pools/np.yaml": NODEPOOL, "cni/cilium.yaml": CILIUM, **files})
    np = os.path.join(root, "pools", "np.yaml")
    ws = Workspace(root)
    ws.update(np, NODEPOOL)
    processed: list[str] = []
    real = parallel.process_input

    def counting(item, *args, **kw):
        processed.append(item.display)
        return real(item, *args, **kw)

    monkeypatch.setattr(parallel, "process_input", counting)
    got = ws.update(np, TAINTED)
    assert processed == [np]
    assert "KPL301" not in [c for c, *_ in _codes(got[np])]


@pytest.mark.parametrize("name", ["values.md"])
def test_a_new_buffer_of_a_file_check_would_read_joins_the_workspace(tmp_path, name):
    root = _tree(tmp_path, {"cni/cilium.yaml": CILIUM})
    ws = Workspace(root)
    np = os.path.join(root, "pools", "np.yaml")  # not on disk yet
    got = ws.update(np, NODEPOOL)
    assert ("KPL301", 7, 5) in _codes(got[np])
    doc = os.path.join(root, name)
    assert ws.update(doc, "# notes\n") == {doc: []}


def test_a_loose_document_is_its_own_workspace(tmp_path):
    # (the server checks a document outside every folder as `karplint check FILE` would: ROOT is the file)
    path = str(tmp_path / "np.yaml")
    ws = Workspace(path)
    got = ws.update(path, NODEPOOL)
    assert [(f.code, f.file) for f in got[path]] == [("KPL705", path)]
    (tmp_path / "np.yaml").write_text(NODEPOOL, encoding="utf-8")
    assert _mine(Workspace(path).findings(path)) == _cli_findings(path, path) == _mine(got[path])


TERRAFORM = """\
resource "helm_release" "karpenter" {
  name       = "karpenter"
  repository = "oci://public.ecr.aws/karpenter"
  chart      = "karpenter"
  version    = "0.37.0"
}
"""


def test_an_unsaved_release_pin_is_the_release_the_workspace_checks_against(tmp_path):
    # The release a Terraform file pins (read by the project stage, not the per-file stage): a v1 NodePool is not
    # served by 0.37 (KPL801); the pin raised in the editor, unsaved, clears it; closing brings the disk's back.
    root = _tree(tmp_path, {"pools/np.yaml": NODEPOOL, "infra/karpenter.tf": TERRAFORM})
    np, tf = os.path.join(root, "pools", "np.yaml"), os.path.join(root, "infra", "karpenter.tf")
    ws = Workspace(root)
    ws.update(np, NODEPOOL)
    assert ("KPL801", 1, 13) in _codes(ws.findings(np))
    assert _mine(ws.findings(np)) == _cli_findings(root, np)
    got = ws.update(tf, TERRAFORM.replace("0.37.0", "1.0.0"))
    assert "KPL801" not in [c for c, *_ in _codes(got[np])]
    got = ws.update(tf, None)
    assert ("KPL801", 1, 13) in _codes(got[np])
