"""Messages for a person (issue 27): what `simulate` says when there is nothing to simulate, counts that are right
and in words ("1 file", "2 files"), what a run with no file to check says, where KPL091 points, one finding for
one budget mistake, the help of `--karpenter-version`, and what the JSON fix offsets count."""

from __future__ import annotations

import re
from pathlib import Path

from karplint.testing import codes, lint, run_cli, run_json

NODEPOOL = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\n{annotations}spec:\n"
            "{disruption}  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n"
            "        kind: EC2NodeClass\n        name: default\n      requirements: []\n")
# A NodePool object in program code: karplint only scans it (a KPL016 notice), it reads no file to check.
CDK = 'new NodePool(this, "x", {});\nconst pool = { apiVersion: "karpenter.sh/v1", kind: "NodePool" };\n'


# ---------------------------------------------------------------------------------------------- simulate

def test_simulate_names_a_missing_path(tmp_path: Path):
    proc = run_cli("simulate", "nosuch", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "karplint simulate: nosuch: no such file or directory\n"


def test_simulate_with_nothing_to_simulate_says_so_and_exits_as_check(tmp_path: Path):
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    proc = run_cli("simulate", ".", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")  # no empty tables
    assert proc.stderr == "karplint simulate: no NodePool or workload to simulate in . (1 file read)\n"
    assert run_cli("check", ".", "--no-cache", cwd=tmp_path).returncode == 0  # check on it: the same exit code
    (tmp_path / ".karplint.toml").write_text("fail-on-nothing-checked = true\n")
    strict = run_cli("simulate", ".", cwd=tmp_path)
    assert strict.returncode == 1 == run_cli("check", ".", "--no-cache", cwd=tmp_path).returncode
    assert strict.stderr.endswith("no NodePool or workload to simulate in . (1 file read)\n")


def test_simulate_on_an_empty_directory(tmp_path: Path):
    proc = run_cli("simulate", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == "karplint simulate: no NodePool or workload to simulate in . (0 files read)\n"


# ---------------------------------------------------------------------------------------------- counts

def test_files_count_program_code_whose_notice_is_a_finding(tmp_path: Path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.ts").write_text(CDK)
    proc = run_cli("check", ".", "--no-cache", cwd=tmp_path)
    assert proc.stdout.endswith("\nFound 3 findings (3 infos) in 3 files. No Karpenter object checked.\n")
    code, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    assert (code, report["summary"]["files"], report["summary"]["findings"]) == (0, 3, 3)


def test_one_finding_in_one_file_is_singular(tmp_path: Path):
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01binary")
    proc = run_cli("check", ".", "--no-cache", cwd=tmp_path)
    assert proc.stdout.endswith("\nFound 1 finding (1 error) in 1 file. No Karpenter object checked.\n")
    (tmp_path / "bin.yaml").unlink()
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    proc = run_cli("check", ".", "--no-cache", cwd=tmp_path)
    assert proc.stdout == ("No Karpenter object checked: 1 file, 1 resource, none of them a Karpenter NodePool, "
                           "EC2NodeClass or NodeClaim.\n")


def test_a_run_with_no_file_to_check_says_what_it_read(tmp_path: Path):
    (tmp_path / "stack.ts").write_text(CDK)
    (tmp_path / "versions.env").write_text("KARPENTER_VERSION=1.1.0\n")
    proc = run_cli("check", ".", "--no-cache", "-q", cwd=tmp_path)
    assert proc.stderr == (
        "karplint: warning: no file to check in .: karplint checks YAML and JSON files, Go templates, and the "
        "manifests inside Terraform, shell, Markdown and AsciiDoc files; 1 program-code file scanned for Karpenter "
        "objects (KPL016) and 1 other file read only for the Karpenter release they pin\n")
    (tmp_path / "stack.ts").unlink()
    (tmp_path / "versions.env").unlink()
    empty = run_cli("check", ".", "--no-cache", "-q", cwd=tmp_path)
    assert empty.stderr == ("karplint: warning: no file to check in .: karplint checks YAML and JSON files, Go "
                            "templates, and the manifests inside Terraform, shell, Markdown and AsciiDoc files\n")


# ---------------------------------------------------------------------------------------------- positions

def test_kpl091_and_kpl090_point_at_the_annotation_key():
    text = NODEPOOL.format(annotations="  annotations:\n    team: a\n    karplint.io/ignore: \"KPL9999, KPL201\"\n",
                           disruption="")
    got = [(c, line, col) for c, line, col in codes(lint(text)) if c in ("KPL090", "KPL091")]
    assert got == [("KPL090", 7, 5), ("KPL091", 7, 5)]


def test_a_budget_with_schedule_and_no_duration_is_reported_once():
    budgets = "  disruption:\n    budgets:\n      - nodes: \"0\"\n        schedule: \"0 9 * * 1-5\"\n"
    found = [f for f in lint(NODEPOOL.format(annotations="", disruption=budgets)) if f.code in ("KPL130", "KPL404")]
    assert codes(found) == [("KPL404", 9, 9)]
    assert found[0].message.startswith("budget has `schedule` but no `duration`: the API server rejects it")
    reverse = budgets.replace('schedule: "0 9 * * 1-5"', "duration: 8h")
    assert codes(f for f in lint(NODEPOOL.format(annotations="", disruption=reverse))
                 if f.code in ("KPL130", "KPL404")) == [("KPL404", 9, 9)]


# ---------------------------------------------------------------------------------------------- help and docs

def test_check_help_says_where_the_default_release_comes_from(tmp_path: Path):
    proc = run_cli("check", "--help", cwd=tmp_path, env={"COLUMNS": "200"})
    help_text = " ".join(proc.stdout.split())
    assert "(default: 1.14.1)" not in help_text
    assert ("Karpenter release the manifests target. Default: `karpenter-version` of the configuration; else the "
            "release the repository deploys (its Helm chart, Terraform or GitOps pin), file by file; else the newest "
            "bundled release (1.14.1).") in help_text


def test_json_fix_offsets_are_code_points_of_the_decoded_file(tmp_path: Path):
    """README, JSON output: `text[start:end]`, text decoded without its BOM, line endings as written."""
    body = NODEPOOL.format(annotations="", disruption="").replace(
        "        group:", "        apiVersion: karpenter.k8s.aws/v1\n        group:")
    text = "# équipe données ☃ 🚀\n" + body.replace("name: default\nspec", "name: défaut\nspec")
    text = text.replace("\n", "\r\n")
    path = tmp_path / "np.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    _code, report, _ = run_json("check", ".", "--no-cache", "--select", "KPL105", cwd=tmp_path)
    [finding] = report["findings"]
    [edit] = finding["fix"]["edits"]
    assert text[edit["start"]:edit["end"]] == "        apiVersion: karpenter.k8s.aws/v1\r\n"
    assert len(text.encode("utf-8")) != len(text)  # (byte offsets would differ)
    fixed = text[:edit["start"]] + edit["replacement"] + text[edit["end"]:]
    assert run_cli("check", ".", "--no-cache", "--select", "KPL105", "--fix", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + fixed.encode("utf-8")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert re.search(r"`start`/`end` count Unicode code points", readme)
