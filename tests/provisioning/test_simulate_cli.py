"""`karplint simulate`: JSON and plain text through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys

from karplint.testing import REPO


def _run(*args: str, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "karplint", "simulate", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_json(tmp_path):
    # (copied out of this repository: named inside it, the file's project would be karplint's whole tree, whose
    # other NodePools host the workloads too)
    (tmp_path / "workloads.yaml").write_bytes((REPO / "tests/fixtures/provisioning/workloads/workloads.yaml").read_bytes())
    out = _run("workloads.yaml", "--output-format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    pool = data["nodepools"][0]
    assert pool["name"] == "general" and pool["instance_types"] == 2 and pool["families"] == ["m5"]
    assert pool["cpu"] == ["1930m", "3920m"] and pool["arch"] == ["amd64"]
    by_name = {w["name"]: w for w in data["workloads"]}
    assert by_name["fits"]["hostable"] is True and by_name["too-big"]["hostable"] is False
    assert by_name["untolerated"]["nodepools"][0]["reason"] == "did not tolerate taint `dedicated=web:NoSchedule`"


def test_text_in_a_pipe(tmp_path):
    # (copied out, as in test_json: inside this repository its project is every fixture of tests/, upstream cases
    # included, whose NodePools and workloads are all simulated with it)
    (tmp_path / "empty.yaml").write_bytes((REPO / "tests/fixtures/provisioning/empty.yaml").read_bytes())
    out = _run("empty.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "arm (empty.yaml:4)\t0 types" in out.stdout
    assert ("emptied by: karpenter.k8s.aws/instance-family, kubernetes.io/arch; c5.large passes without "
            "kubernetes.io/arch") in out.stdout


def test_instance_types_file(tmp_path):
    extra = tmp_path / "types.json"
    extra.write_text(json.dumps({"m9z.large": {"labels": {"kubernetes.io/arch": "arm64"},
                                               "allocatable": {"cpu": "1930m", "memory": "7Gi", "pods": "29"}}}))
    np = tmp_path / "np.yaml"
    np.write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n"
                  "    spec:\n      requirements:\n"
                  "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m9z]}\n")
    out = _run(str(np), "--instance-types", str(extra), "-f", "json")
    assert json.loads(out.stdout)["nodepools"][0]["instance_types"] == 1, out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    out = _run(str(np), "--instance-types", str(bad))
    assert out.returncode == 2 and "karplint simulate:" in out.stderr and "Traceback" not in out.stderr
    out = _run(str(np), "--instance-types", str(tmp_path / "missing.json"))
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_names_from_the_tree_are_escaped(tmp_path):
    np = tmp_path / "np.yaml"
    np.write_text('apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: "evil\\u001b[31m"}\nspec:\n'
                  "  template:\n    spec:\n      requirements: []\n")
    out = _run(str(np))
    assert "\x1b" not in out.stdout and "\\x1b" in out.stdout


def test_unreadable_inputs_are_named_and_documentation_examples_are_not_the_cluster(tmp_path):
    """A file that does not parse is named (the simulation lacks its objects), and a NodePool shown in a README
    is an example, not one of the cluster's NodePools: `check` leaves it out of cross-file verdicts too."""
    (tmp_path / "np.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: real}\nspec:\n"
                                      "  template:\n    spec:\n      requirements: []\n")
    (tmp_path / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p\n")
    (tmp_path / "README.md").write_text("# Example\n\n```yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\n"
                                        "metadata:\n  name: example\nspec:\n  template:\n    spec:\n"
                                        "      requirements: []\n```\n")
    out = _run(".", "-f", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [p["name"] for p in data["nodepools"]] == ["real"]
    assert data["problems"] == ["broken.yaml:4:1: invalid YAML: did not find expected ',' or '}'"]
    text = _run(".", cwd=tmp_path)
    assert "warning: broken.yaml:4:1: invalid YAML" in text.stdout
