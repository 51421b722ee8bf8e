"""Report formats CI systems read natively: GitLab Code Quality, JUnit XML, and SARIF results carrying their fixes."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from karplint.report import render
from karplint.testing import lint_report, need_shared, run_cli

PROVISIONER = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\n"
CLEAN = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
# Two findings of one rule on one resource (two unknown fields with the same suggestion), an error and an info.
NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirement: []
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets:
      - {nodes: "10%", reason: [Drifted]}
"""


def _render(report, fmt: str) -> str:
    out = io.StringIO()
    render(report, fmt, out)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------- GitLab

@pytest.fixture(scope="module")
def gitlab_schema():
    return json.loads((Path(__file__).parent / "schemas" / "gitlab-code-quality.schema.json").read_text())


def test_gitlab_report_is_the_documented_code_quality_format(tmp_path, gitlab_schema):
    (tmp_path / "pools").mkdir()
    (tmp_path / "pools" / "np.yaml").write_text(NODEPOOL)
    (tmp_path / "prov.yaml").write_text(PROVISIONER)
    proc = run_cli("check", ".", "--no-cache", "--karpenter-version", "1.14.1", "-f", "gitlab", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    issues = json.loads(proc.stdout)
    jsonschema.validate(issues, gitlab_schema)
    got = [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"],
            i["location"]["lines"]["end"]) for i in issues]
    assert got == [("KPL705", "info", "pools/np.yaml", 5, 5), ("KPL104", "critical", "pools/np.yaml", 9, 9),
                   ("KPL104", "critical", "pools/np.yaml", 14, 14), ("KPL801", "critical", "prov.yaml", 1, 1)]
    assert issues[1]["description"] == "KPL104: spec.template.spec.requirement is not a NodePool field"
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert not proc.stdout.startswith("\ufeff")  # GitLab's parser refuses a byte order mark


def test_gitlab_paths_are_relative_to_ci_project_dir(tmp_path, gitlab_schema):
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "prov.yaml").write_text(PROVISIONER)
    env = {"CI_PROJECT_DIR": str(tmp_path)}
    inside = run_cli("check", ".", "--no-cache", "-f", "gitlab", "--exit-zero", cwd=tmp_path / "deploy", env=env)
    absolute = run_cli("check", str(tmp_path / "deploy"), "--no-cache", "-f", "gitlab", "--exit-zero", cwd="/",
                       env=env)
    for proc in (inside, absolute):
        assert proc.returncode == 0, proc.stderr
        issues = json.loads(proc.stdout)
        jsonschema.validate(issues, gitlab_schema)
        assert [i["location"]["path"] for i in issues] == ["deploy/prov.yaml"]
    assert json.loads(inside.stdout) == json.loads(absolute.stdout)  # fingerprints included


def test_gitlab_fingerprints_are_unique_and_survive_line_moves():
    from karplint.report.gitlab import render_gitlab

    # the same finding twice in one file, and one whose headline quotes a line ("already defined at line 3")
    twice = PROVISIONER + "---\n" + PROVISIONER
    first = json.loads(render_gitlab(lint_report({"p.yaml": twice}, karpenter_version="1.14.1"), "/nowhere"))
    moved = json.loads(render_gitlab(lint_report({"p.yaml": "# a comment\n\n" + twice}, karpenter_version="1.14.1"),
                                     "/nowhere"))
    assert [(i["check_name"], i["location"]["lines"]["begin"]) for i in first] == [
        ("KPL801", 1), ("KPL801", 5), ("KPL604", 7)]
    assert [(i["check_name"], i["location"]["lines"]["begin"]) for i in moved] == [
        ("KPL801", 3), ("KPL801", 7), ("KPL604", 9)]
    assert first[2]["description"].endswith("is already defined at line 3")
    assert moved[2]["description"].endswith("is already defined at line 5")
    assert len({i["fingerprint"] for i in first}) == 3
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in first]


# ---------------------------------------------------------------------------------------------- JUnit

# What junit-10.xsd allows (jenkinsci/xunit-plugin, src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/
# junit-10.xsd at 031e285ef3b60dee7aaf36e9096d7dcd95ffae83, MIT): per element, its required and optional attributes
# and the elements it may hold.
_JUNIT_10 = {
    "testsuites": (set(), {"name", "time", "tests", "failures", "errors"}, {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors"},
                  {"group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
                  {"testsuite", "properties", "testcase", "system-out", "system-err"}),
    "testcase": ({"name"}, {"time", "classname", "group"},
                 {"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError",
                  "system-out", "system-err"}),
    "failure": (set(), {"type", "message"}, set()),
    "error": (set(), {"type", "message"}, set()),
    "skipped": (set(), {"type", "message"}, set()),
    "system-out": (set(), set(), set()),
    "system-err": (set(), set(), set()),
}


def _junit(text: str) -> ET.Element:
    """The parsed report, after checking it against junit-10.xsd's elements and attributes and its counts."""
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    for el in root.iter():
        required, optional, children = _JUNIT_10[el.tag]
        assert required <= set(el.attrib) <= required | optional, (el.tag, el.attrib)
        assert {c.tag for c in el} <= children, el.tag
    for suite in root.iter("testsuite"):
        assert int(suite.get("tests")) == len(suite.findall("testcase"))
        assert int(suite.get("failures")) == len(suite.findall("testcase/failure"))
    assert int(root.get("tests")) == len(root.findall(".//testcase"))
    assert int(root.get("failures")) == len(root.findall(".//failure"))
    return root


def test_junit_report_has_a_testsuite_per_file_and_a_testcase_per_finding(tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    (tmp_path / "prov.yaml").write_text(PROVISIONER)
    proc = run_cli("check", ".", "--no-cache", "--karpenter-version", "1.14.1", "-f", "junit", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    root = _junit(proc.stdout)
    assert (root.get("tests"), root.get("failures")) == ("4", "3")
    suites = root.findall("testsuite")
    assert [(s.get("name"), s.get("file"), s.get("tests"), s.get("failures")) for s in suites] == [
        ("np.yaml", "np.yaml", "3", "2"), ("prov.yaml", "prov.yaml", "1", "1")]
    cases = suites[0].findall("testcase")
    assert [(c.get("name"), c.get("classname")) for c in cases] == [("karplint.KPL705", "np")] + [
        ("karplint.KPL104", "np")] * 2
    failure = cases[1].find("failure")
    assert failure.get("message") == "spec.template.spec.requirement is not a NodePool field"
    assert failure.get("type") == "error"
    assert failure.text.split("\n")[0] == (
        "line 9, col 7, KPL104 [error] spec.template.spec.requirement is not a NodePool field")
    assert failure.text.split("\n")[-1] == "fix (unsafe): rename requirement to requirements"
    # an info finding under the default fail-on (warning) is reported, not failed: the verdict is the exit code's
    assert cases[0].find("failure") is None
    assert cases[0].find("system-out").text.startswith("line 5, col 1, KPL705 [info] no spec.limits")


def test_junit_clean_run_is_one_passing_testcase(tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", "--select", "KPL801", "-f", "junit", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    root = _junit(proc.stdout)
    assert (root.get("tests"), root.get("failures")) == ("1", "0")
    case = root.find("testsuite/testcase")
    assert case.get("name") == "No findings: 1 file, 1 resource checked" and len(case) == 0


def test_junit_never_presents_a_run_that_checked_nothing_as_a_pass():
    report = lint_report({"s.yaml": CLEAN})
    case = _junit(_render(report, "junit")).find("testsuite/testcase")
    assert case.get("name").startswith("No Karpenter object checked: 1 file, 1 resource")
    assert case.find("failure") is None  # (exit 0 too)
    report = lint_report({"s.yaml": CLEAN}, config={"fail-on-nothing-checked": True})
    assert report.failed()
    root = _junit(_render(report, "junit"))
    assert root.get("failures") == "1"
    assert root.find("testsuite/testcase/failure").get("type") == "fail-on-nothing-checked"


def test_junit_escapes_what_xml_cannot_hold():
    name = 'a&b<"c>\x1b[31m\ufffe.yaml'
    root = _junit(_render(lint_report({name: "a: 1\na: 2\n"}), "junit"))
    suite = root.find("testsuite")
    assert suite.get("name") == 'a&b<"c>\\x1b[31m\\ufffe.yaml'
    assert "\x1b" not in ET.tostring(root, encoding="unicode")


# ---------------------------------------------------------------------------------------------- the CLI's options

@pytest.mark.parametrize("fmt", ["gitlab", "junit"])
def test_new_formats_honour_output_exit_zero_and_stdin_filename(tmp_path, fmt):
    proc = run_cli("check", "-", "--no-cache", "--stdin-filename", "deploy/prov.yaml", "--karpenter-version",
                   "1.14.1", "-f", fmt, stdin=PROVISIONER, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "deploy/prov.yaml" in proc.stdout and "Traceback" not in proc.stderr
    written = run_cli("check", "-", "--no-cache", "--stdin-filename", "deploy/prov.yaml", "--karpenter-version",
                      "1.14.1", "-f", fmt, "--exit-zero", "-o", "report.out", stdin=PROVISIONER, cwd=tmp_path)
    assert written.returncode == 0 and written.stdout == "", written.stderr
    assert (tmp_path / "report.out").read_text() == proc.stdout


def test_check_help_lists_the_new_formats():
    proc = run_cli("check", "--help", env={"COLUMNS": "200"})
    (line,) = [ln for ln in proc.stdout.splitlines() if "--output-format" in ln]
    assert re.findall(r"\b(text|json|sarif|github|concise|gitlab|junit)\b", line) == [
        "text", "json", "sarif", "github", "concise", "gitlab", "junit"], proc.stdout


# ---------------------------------------------------------------------------------------------- SARIF fixes

def _apply_sarif(text: str, result: dict) -> str:
    """Apply a SARIF result's fixes as a SARIF consumer does: lines end at CRLF or LF (SARIF's default
    newlineSequences), columns count Unicode code points (run.columnKind), regions are of the original text."""
    starts = [0] + [m.end() for m in re.finditer("\r\n|\n", text)]
    edits = []
    for fix in result["fixes"]:
        (change,) = fix["artifactChanges"]
        for rep in change["replacements"]:
            region = rep["deletedRegion"]
            start = starts[region["startLine"] - 1] + region["startColumn"] - 1
            end = starts[region["endLine"] - 1] + region["endColumn"] - 1
            edits.append((start, end, rep.get("insertedContent", {}).get("text", "")))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# A byte order mark, CRLF line ends, characters outside the BMP (two UTF-16 units, four UTF-8 bytes) before an edit on
# its line and on the lines before it, an insertion (KPL401) and two renames (KPL104, unsafe).
BOM_CRLF = ('# nodepool for the \u00e9\U0001F600 team\r\n'
            'apiVersion: karpenter.sh/v1\r\nkind: NodePool\r\nmetadata:\r\n  name: d\r\nspec:\r\n  template:\r\n'
            '    spec:\r\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: "\U0001F600"}\r\n'
            '      requirement: [{key: karpenter.sh/capacity-type, operator: In, values: ["spot"]}]\r\n'
            '  disruption:\r\n    budgets: [{nodes: "\U0001F600\u00e9", schedule: "0 9 * * *", duration: 8h},'
            ' {nodes: "10%", reason: [Drifted]}]\r\n')
MARKDOWN = ("# Setup \u00e9\U0001F600\n\nThe pool:\n\n```yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\n"
            "metadata:\n  name: x\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n      requirement: []\n```\n")


@pytest.mark.parametrize(("name", "data"), [("np.yaml", b"\xef\xbb\xbf" + BOM_CRLF.encode()),
                                            ("README.md", MARKDOWN.encode())], ids=["bom-crlf-astral", "markdown"])
def test_sarif_results_carry_their_fixes_at_the_positions_fix_edits(tmp_path, name, data):
    sarif_schema = json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text())
    path = tmp_path / name
    path.write_bytes(data)
    sarif = json.loads(run_cli("check", name, "--no-cache", "-f", "sarif", cwd=tmp_path).stdout)
    jsonschema.validate(sarif, sarif_schema)
    run = sarif["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    with_fixes = [r for r in run["results"] if "fixes" in r]
    assert with_fixes and all("fix" in r["properties"] for r in with_fixes)
    assert all("fix" not in r.get("properties", {}) for r in run["results"] if "fixes" not in r)
    for result in with_fixes:
        (fix,) = result["fixes"]
        (change,) = fix["artifactChanges"]
        assert change["artifactLocation"] == result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert fix["properties"]["applicability"] == result["properties"]["applicability"]
        assert ("unsafe" in fix["description"]["text"]) == (fix["properties"]["applicability"] == "unsafe")
    original = data.decode("utf-8-sig")
    by_sarif = original
    for result in sorted(with_fixes, key=lambda r: -r["fixes"][0]["artifactChanges"][0]["replacements"][0][
            "deletedRegion"]["startLine"]):  # (each fix's regions are of the original text: last first)
        by_sarif = _apply_sarif(by_sarif, result)
    fixed = run_cli("check", name, "--no-cache", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "Traceback" not in fixed.stderr
    assert by_sarif != original and by_sarif == path.read_bytes().decode("utf-8-sig")
    if name == "np.yaml":
        assert [r["ruleId"] for r in with_fixes] == ["KPL104", "KPL401", "KPL104"]
        region = with_fixes[2]["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]
        # column in code points: the line's emoji counts one (UTF-16 would count two)
        line = original.split("\r\n")[11]
        assert region == {"startLine": 12, "startColumn": line.index("reason:") + 1, "endLine": 12,
                          "endColumn": line.index("reason:") + 7}


def test_sarif_fix_is_left_out_when_its_text_is_not_at_hand():
    from karplint.findings import Edit, Fix
    from karplint.readers.source import SourceFile
    from karplint.report.sarif import _sarif_fix

    fix = Fix("rename", "safe", (Edit(3, 5, "xy"),))
    loc = {"uri": "a.yaml"}
    assert _sarif_fix(fix, loc, None) is None
    assert _sarif_fix(fix, loc, SourceFile("a.yaml", "ab")) is None  # edits beyond the text: not this text
    assert _sarif_fix(Fix("x", "safe", (Edit(2, 3, ""),)), loc, SourceFile("a.yaml", "a\r\nb")) is None  # CR|LF
    got = _sarif_fix(fix, loc, SourceFile("a.yaml", "a\nbcdef"))
    assert got["artifactChanges"][0]["replacements"] == [
        {"deletedRegion": {"startLine": 2, "startColumn": 2, "endLine": 2, "endColumn": 4},
         "insertedContent": {"text": "xy"}}]
