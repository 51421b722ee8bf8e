"""Never a silent pass (issue 13): files holding Karpenter objects that karplint cannot read get one notice each
(KPL015 Helm chart templates, KPL016 program code), and a run that checked no Karpenter object says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from karplint.readers.foreign import karpenter_kind_at
from karplint.testing import need_shared, run_cli, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "coverage"
NODEPOOL = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n"
            "      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n")


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for part in ("chart", "cdk"):
        shutil.copytree(FIXTURES / part, tmp_path / "repo" / part)
    return tmp_path / "repo"


def test_one_notice_per_unreadable_file_on_the_kind_line(tree: Path):
    code, report, _ = run_json("check", ".", "--no-cache", cwd=tree)
    got = sorted((f["code"], f["file"], f["line"], f["column"]) for f in report["findings"])
    assert got == [
        ("KPL016", "cdk/karpenter-stack.ts", 7, 5),
        # the chart's templates are read as templates (karplint/readers/chart_templates.py): checked, no notice
        ("KPL705", "chart/templates/node-pool.yaml", 7, 1),
    ]
    assert code == 0  # notices are infos
    assert report["summary"]["nothing_checked"] is False and report["summary"]["karpenter_resources"] == 1


def test_notices_are_valid_sarif(tree: Path):
    proc = run_cli("check", ".", "--no-cache", "--output-format", "sarif", cwd=tree)
    sarif = json.loads(proc.stdout)
    schema = json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"KPL705", "KPL016"}


def test_nothing_checked_is_said_in_every_summary(tmp_path: Path):
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    text = run_cli("check", ".", "--no-cache", cwd=tmp_path)
    assert text.returncode == 0
    assert text.stdout == ("No Karpenter object checked: 1 file, 1 resource, none of them a Karpenter "
                           "NodePool, EC2NodeClass or NodeClaim.\n")
    concise = run_cli("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert concise.stdout.startswith("No Karpenter object checked")
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    code, report, _ = run_json("check", ".", "--no-cache", "--select", "KPL001", cwd=tmp_path)
    assert report["summary"]["nothing_checked"] is False and report["summary"]["karpenter_resources"] == 1
    text = run_cli("check", ".", "--no-cache", "--select", "KPL001", cwd=tmp_path)
    assert text.stdout == "All checks passed: 2 files, 2 resources (1 Karpenter).\n"


def test_fail_on_nothing_checked_is_opt_in(tmp_path: Path):
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    (tmp_path / ".karplint.toml").write_text("fail-on-nothing-checked = true\n")
    code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    assert code == 1 and report["summary"]["failed"] is True
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    assert run_cli("check", ".", "--no-cache", "--select", "KPL001", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("text, expected", [
    (b"cluster.addManifest('p', {\n  apiVersion: 'karpenter.sh/v1',\n  kind: 'NodePool',\n})", ("NodePool", 3, 3)),
    (b'm = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass"}', ("EC2NodeClass", 1, 45)),
    (b'ApiObject(self, "p", api_version="karpenter.sh/v1", kind="NodePool")', ("NodePool", 1, 53)),
    (b'Kind: pulumi.String("NodePool"),\nApiVersion: pulumi.String("karpenter.sh/v1")', ("NodePool", 1, 1)),
    (b"# karpenter.sh NodePool docs\nx = 1\n", None),  # named, never set
    (b"kind: 'NodePool'\n", None),  # no Karpenter API group
    # names the group and the kind, sets no Karpenter apiVersion: a UI listing NodePools, not a manifest
    (b"const KARPENTER_GROUP = 'karpenter.sh'\nconst row = () => ({\n  kind: 'NodePool',\n  namespace: '',\n})", None),
])
def test_byte_scan(text, expected):
    assert karpenter_kind_at(text) == expected


def test_test_code_gets_no_notice(tree: Path):
    (tree / "cdk" / "stack.test.ts").write_text((tree / "cdk" / "karpenter-stack.ts").read_text())
    (tree / "tests").mkdir()
    (tree / "tests" / "stack.py").write_text('m = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool"}\n')
    _, report, _ = run_json("check", ".", "--no-cache", "--select", "KPL016", cwd=tree)
    assert [f["file"] for f in report["findings"]] == ["cdk/karpenter-stack.ts"]
