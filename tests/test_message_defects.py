"""Messages that state something wrong in their form (issue 26): a list with "are" after "every …", `None` where a
value is missing, one range in two units (`cpu: 940m-893.7`), the same text as help and as note. Scanned over every
finding on tests/fixtures and on the rules' documented examples, and checked where `budgets` and `simulate` print."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from karplint.provisioning.quantity import show_range
from karplint.testing import documented_findings, run_cli, run_json

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EVERY_ARE = re.compile(r"\b(?:every|each) [\w ]{0,30}\bare\b")
NONE = re.compile(r"\bNone\b")
# a range whose ends are written in different units: 940m-893.7, 512Mi-768Gi
MIXED_RANGE = re.compile(r"\b\d+(?:\.\d+)?m-\d+(?:\.\d+)?(?![\w.])|\b\d+(?:\.\d+)?Mi-\d+(?:\.\d+)?Gi\b")


def defects(code: str, message: str) -> list[str]:
    head, *rest = message.splitlines()
    helps = [line[len("help: "):] for line in rest if line.startswith("help: ")]
    notes = [line[len("note: "):] for line in rest if line.startswith("note: ")]
    out = []
    if set(helps) & set(notes) or head in helps + notes or len(set(helps)) < len(helps) \
            or len(set(notes)) < len(notes):
        out.append(f"{code}: the same text twice: {head}")
    for name, pattern in (("grammar", EVERY_ARE), ("None", NONE), ("mixed units", MIXED_RANGE)):
        hit = pattern.search(message)
        if hit:
            out.append(f"{code}: {name}: {hit.group(0)!r} in {head}")
    return out


def test_the_scan_catches_each_class():
    assert defects("X", "every disruption method are unlimited")
    assert defects("X", "budget nodes None")
    assert defects("X", "cpu: 940m-893.7") and defects("X", "memory: 74Mi-30306Gi")
    assert defects("X", "head\nhelp: do this\nnote: do this")
    assert not defects("X", "cpu: 0.94-893.7 and 500m-1500m; Drifted and Empty are unlimited\nhelp: a\nnote: b")


def test_no_finding_on_the_fixtures_or_documented_examples_has_a_defect():
    code, report, _ = run_json("check", "--no-cache", str(FIXTURES))
    assert code in (0, 1) and report["findings"]
    found = [(f["code"], f["message"]) for f in report["findings"]]
    found += [(f.code, f.message) for f in documented_findings()]
    assert [d for c, m in found for d in defects(c, m)] == []


def test_budgets_prints_no_none(tmp_path: Path):
    (tmp_path / "np.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  disruption:\n"
        "    consolidateAfter: 1m\n    budgets:\n      - nodes: ~\n        reasons: [Drifted]\n"
        "      - nodes: \"3\"\n        duration: 4h\n      - nodes: \"0\"\n        schedule: \"0 0 * * *\"\n"
        "  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n")
    proc = run_cli("budgets", "np.yaml", cwd=tmp_path)
    assert "None" not in proc.stdout and "``" not in proc.stdout
    lines = [line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("budgets[")]
    assert lines == [
        "budgets[0]: nodes 10% - Drifted - always",  # (null is pruned, then the CRD default applies)
        "budgets[1]: nodes 3 - all reasons - no schedule - error: `duration` without `schedule`",
        "budgets[2]: nodes 0 - all reasons - after each `0 0 * * *`, no duration - error: `schedule` without "
        "`duration`"]


def test_a_range_is_shown_in_one_unit(tmp_path: Path):
    assert show_range("cpu", Fraction(94, 100), Fraction(8937, 10)) == ["0.94", "893.7"]
    assert show_range("cpu", Fraction(1, 2), Fraction(3, 2)) == ["500m", "1500m"]
    assert show_range("memory", Fraction(74 * 2**20), Fraction(30306 * 2**30)) == ["0.072Gi", "30306Gi"]
    (tmp_path / "np.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
        "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
        "      requirements:\n        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n")
    proc = run_cli("simulate", "np.yaml", cwd=tmp_path)
    assert proc.returncode == 0
    assert "\tcpu: 0.94-893.7\tmemory: 0.072Gi-30306Gi\t" in proc.stdout
    assert not MIXED_RANGE.search(proc.stdout)


def test_a_nodepool_without_a_name_is_not_called_none():
    from karplint.testing import lint

    text = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: api\nspec:\n  maxUnavailable: 0\n"
            "  selector:\n    matchLabels: {app: api}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
            "  name: api\nspec:\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n"
            "      containers: [{name: a, image: a}]\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {}\n"
            "spec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n")
    found = [f for f in lint(text) if f.code == "KPL421"]
    assert [(f.line, f.column) for f in found] == [(6, 19)]
    assert "a node of NodePool <unnamed> running these pods" in found[0].message
    assert "forever on <unnamed> (no terminationGracePeriod)" in found[0].message
    assert defects("KPL421", found[0].message) == []
