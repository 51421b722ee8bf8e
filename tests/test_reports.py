"""Report formats: SARIF valid against the OASIS schema, GitHub escaping, JSON ordering."""

from __future__ import annotations

import io
import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karplint.testing import need_shared
from karplint.report import render
from karplint.report.github import escape_data, escape_property
from karplint.testing import lint_report

BAD = {
    "b.yaml": "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\n",
    "a.yaml": "a: 1\na: 2\n---\napiVersion: karpenter.sh/v1\nkind: EC2NodeClass\nmetadata: {name: x}\n",
}


def _render(report, fmt: str) -> str:
    out = io.StringIO()
    render(report, fmt, out)
    return out.getvalue()


@pytest.fixture(scope="module")
def sarif_schema():
    return json.loads((need_shared() / "sarif" / "sarif-schema-2.1.0.json").read_text())


@pytest.mark.parametrize("files", [BAD, {"clean.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"}],
                         ids=["findings", "clean"])
def test_sarif_is_valid(files, sarif_schema):
    sarif = json.loads(_render(lint_report(files), "sarif"))
    jsonschema.validate(sarif, sarif_schema)
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "karplint"
    assert isinstance(run["results"], list)
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert {"startLine", "startColumn", "endLine", "endColumn"} <= set(region)


def test_sarif_regions_are_exact():
    sarif = json.loads(_render(lint_report(BAD, karpenter_version="1.14.1"), "sarif"))
    got = [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in sarif["runs"][0]["results"]]
    assert got == [("KPL002", "a.yaml", 2, 1), ("KPL802", "a.yaml", 4, 13), ("KPL801", "b.yaml", 1, 13)]


def test_json_is_sorted_by_file_line_column():
    report = json.loads(_render(lint_report(BAD, karpenter_version="1.14.1"), "json"))
    keys = [(f["file"], f["line"], f["column"]) for f in report["findings"]]
    assert keys == sorted(keys) and len(keys) == 3
    # (a.yaml's first document is not a Kubernetes object: its duplicate key is a warning, rules/KPL002.md)
    assert report["summary"]["by_severity"] == {"error": 2, "warning": 1, "info": 0}


def test_github_escaping():
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    out = _render(lint_report({"dir,x/a:b.yaml": "a: 1\na: 2\n"}), "github")
    assert out.startswith("::warning file=dir%2Cx/a%3Ab.yaml,line=2,col=1,")


# JSON-like values, including what json escapes (quotes, backslashes, control characters, non-ASCII, lone
# surrogates) and what it writes specially (floats, bools, empty containers).
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30)


@given(_json_values)
def test_indented_json_is_byte_identical_to_the_standard_library(value):
    from karplint.report.escape import json_text
    from karplint.report.json import dumps_indented

    # (but for the characters a terminal acts on, as \u escapes: the same JSON value)
    assert dumps_indented(value) == json_text(json.dumps(value, indent=2, ensure_ascii=False))


@pytest.mark.parametrize("copies", [0, 1, 3000])
def test_streamed_json_report_is_the_rendered_one(copies):
    """`write_json` writes a few findings at a time (3,000 findings: several chunks); the bytes are
    `render_json`'s, which the standard library's encoder vouches for."""
    from dataclasses import replace

    from karplint.report.json import render_json, write_json

    report = lint_report(BAD)
    assert report.findings
    report = replace(report, findings=(report.findings * copies)[:copies])
    out = io.StringIO()
    write_json(report, out)
    assert out.getvalue() == render_json(report)
    assert len(json.loads(out.getvalue())["findings"]) == copies


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_reports_are_what_the_standard_library_writes(fmt):
    text = _render(lint_report(BAD), fmt)
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


# Text without colour is written without rich when rich would print it unchanged: check that claim against rich.
_PIECE = st.tuples(st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
                   | st.text(alphabet=" \t\n\r\a\b\v\f\x1b\x7f\x85|^-:éé中\u200d", max_size=12),
                   st.sampled_from([None, "bold", "dim", "bold red", "green"]))
_LINE = st.none() | st.tuples(st.sampled_from(["", "dim"]), st.lists(_PIECE, max_size=5))


def _by_rich(lines) -> str:
    from karplint.report.text import _render_rich

    out = io.StringIO()
    _render_rich(lines, out, False)
    return out.getvalue()


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=6))
def test_plain_text_is_what_rich_prints(lines):
    from karplint.report.text import _plain

    plain = _plain(lines, io.StringIO())
    if plain is not None:
        assert plain == _by_rich(lines)


def test_plain_text_leaves_tabs_control_characters_and_unencodable_text_to_rich():
    from karplint.report.text import _plain

    assert _plain([("", [("a\tb", None)])], io.StringIO()) is None
    assert _plain([("", [("a\rb", "bold")])], io.StringIO()) is None
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert _plain([("", [("caf\u00e9", None)])], ascii_out) is None
    assert _plain([("", [("cafe", None)]), None], ascii_out) == "cafe\n\n"


@pytest.mark.parametrize("files", [BAD, {"clean.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"}],
                         ids=["findings", "clean"])
def test_text_report_without_rich_is_the_rich_one(files):
    from karplint.report.text import _lines

    report = lint_report(files)
    text = _render(report, "text")
    assert text == _by_rich(list(_lines(report)))
    assert text.endswith(" in 2 files.\n" if files is BAD else "NodeClaim.\n")  # (clean: no Karpenter object checked)


def test_sarif_security_rules_carry_security_severity(sarif_schema):
    np = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
          "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n"
          "      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n")
    sarif = json.loads(_render(lint_report({"np.yaml": np}), "sarif"))
    jsonschema.validate(sarif, sarif_schema)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["KPL701"]["properties"]["security-severity"] == "5.5"
    assert "security" in rules["KPL701"]["properties"]["tags"]
    assert "security-severity" not in rules["KPL801"]["properties"]
    assert all("markdown" in r["help"] for r in rules.values() if "help" in r)


# What GitHub code scanning documents for uploaded SARIF ("SARIF support for code scanning",
# https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning):
# reportingDescriptor id, short/fullDescription (at most 1024 characters), help.text/help.markdown, helpUri, at most
# 20 tags (10 shown), security-severity a string score 0.0-10.0 on rules tagged `security`; results with ruleId,
# ruleIndex, message.text, one location whose artifactLocation.uri is a URI reference (relative to the checkout, with
# a uriBaseId), and partialFingerprints that survive edits elsewhere in the file.
OWN_RULES_WITHOUT_PUBLIC_PAGE = {"KPL004", "KPL006", "KPL091"}  # budgets, internal errors, suppression codes




def test_sarif_rules_meet_github_code_scanning(sarif_schema):
    from urllib.parse import urlsplit

    from karplint.rules import all_rules

    sarif = json.loads(_render(lint_report(BAD), "sarif"))
    jsonschema.validate(sarif, sarif_schema)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert set(rules) == {r.code for r in all_rules()}  # the default selection plus what fired
    for code, r in rules.items():
        assert r["help"]["markdown"].startswith(f"# {code}: ") and r["help"]["text"]
        assert 0 < len(r["shortDescription"]["text"]) <= 1024 and 0 < len(r["fullDescription"]["text"]) <= 1024
        assert 1 <= len(r["properties"]["tags"]) <= 10
        if "security-severity" in r["properties"]:
            assert "security" in r["properties"]["tags"]
            assert 0.0 <= float(r["properties"]["security-severity"]) <= 10.0
        if code in OWN_RULES_WITHOUT_PUBLIC_PAGE:
            assert "helpUri" not in r  # no public page yet, and no project URL declared
            continue
        parts = urlsplit(r["helpUri"])
        assert parts.scheme == "https" and parts.netloc and " " not in r["helpUri"], (code, r["helpUri"])


def test_sarif_help_uri_is_the_first_public_reference_else_the_project_url(monkeypatch):
    from karplint.docs import parse, rule_doc
    from karplint.report import sarif

    assert sarif.help_uri(rule_doc("KPL301")) == "https://github.com/aws/karpenter-provider-aws/issues/6355"
    assert sarif.help_uri(rule_doc("KPL811")) == "https://karpenter.sh/docs/upgrading/v1-migration/"
    assert sarif.help_uri(rule_doc("KPL211")) == (
        "https://github.com/awslabs/amazon-eks-ami/blob/0ab84280/templates/al2/runtime/bootstrap.sh")
    bare = parse("# KPL999: x\n\nWhat.\n\n## References\n- karplint's own behaviour.\n")
    assert sarif.help_uri(bare) is None
    monkeypatch.setattr(sarif, "project_url", lambda: "https://example.org/karplint/docs")
    assert sarif.help_uri(bare) == "https://example.org/karplint/docs"


def test_sarif_uris_are_percent_encoded_references_and_fingerprints_ignore_line_moves(tmp_path, sarif_schema):
    from karplint.testing import run_cli

    body = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\n"
    (tmp_path / "team a").mkdir()
    (tmp_path / "team a" / "prov é.yaml").write_text(body)
    first = json.loads(run_cli("check", ".", "--no-cache", "-f", "sarif", cwd=tmp_path).stdout)
    jsonschema.validate(first, sarif_schema)
    result = first["runs"][0]["results"][0]
    loc = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "team%20a/prov%20%C3%A9.yaml", "uriBaseId": "%SRCROOT%"}
    (tmp_path / "team a" / "prov é.yaml").write_text("# a comment moves every line\n\n" + body)
    second = json.loads(run_cli("check", ".", "--no-cache", "-f", "sarif", cwd=tmp_path).stdout)
    moved = second["runs"][0]["results"][0]
    assert moved["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert moved["partialFingerprints"] == result["partialFingerprints"]
    assert set(result["partialFingerprints"]) == {"karplintFindingHash/v1"}
