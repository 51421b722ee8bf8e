"""JUnit XML, for CI systems that show test reports (Jenkins, GitLab `artifacts:reports:junit`, Azure Pipelines...).

ruff's shape (crates/ruff_linter/src/message/junit.rs): a `testsuites` root, one `testsuite` per file with one
`testcase` per finding, named after its rule, whose `failure` carries the headline as `message` and the location
and whole message as text; a run without findings is one passing testcase, so that the CI shows "0 failures"
rather than no report. Elements and attributes are those of the junit-10.xsd schema most readers follow
(jenkinsci/xunit-plugin): the line and column are in the failure's text, since that schema gives a testcase no
attributes for them.

The verdict is the exit code's: a finding below `fail-on` is a passing testcase with the finding as its output,
and a run that fails because it checked no Karpenter object (`fail-on-nothing-checked`) has a failing testcase
saying so.
"""

from __future__ import annotations

import os
import re

from karplint.engine import Report
from karplint.findings import severity_rank
from karplint.report import escape
from karplint.wording import counted

# What XML 1.0 cannot hold even as a character reference, once `escape.text` has made control characters and
# lone surrogates visible.
_NOT_XML = re.compile("[\ufffe\uffff]")


def _text(s: str) -> str:
    """Element text: escaped as `escape.text` does (control characters visible), no line starting with `::` (a
    report printed in a GitHub Actions log would run it as a workflow command), XML's markup characters."""
    s = escape.no_commands(_NOT_XML.sub(lambda m: f"\\u{ord(m.group(0)):04x}", escape.text(s)))
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(s: str) -> str:
    """An attribute value, quoted; newlines and tabs as references (a parser would normalise them to spaces)."""
    return '"' + _text(s).replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;") + '"'


def _classname(file: str) -> str:
    """The file without its extension, as ruff names a testcase's class (a reader splits a class name at its
    last dot)."""
    root, _ext = os.path.splitext(file)
    return root or file


def render_junit(report: Report) -> str:
    threshold = severity_rank(report.config.fail_on)
    failing = sum(1 for f in report.findings if severity_rank(f.severity) >= threshold)
    by_file: dict[str, list] = {}
    for f in report.findings:
        by_file.setdefault(f.file, []).append(f)
    suites: list[tuple[str, str | None, list[str], int]] = []  # (name, file, testcases, failures)
    for file, findings in by_file.items():
        cases = []
        failures = 0
        for f in findings:
            headline = f.parts[0]
            body = f"line {f.span.line}, col {f.span.column}, {f.code} [{f.severity}] {f.message}"
            if f.fix is not None:
                body += f"\nfix ({f.fix.safety}): {f.fix.description}"
            head = f"        <testcase name={_attr(f'karplint.{f.code}')} classname={_attr(_classname(file))}>\n"
            if severity_rank(f.severity) >= threshold:
                failures += 1
                cases.append(f"{head}            <failure message={_attr(headline)} type={_attr(f.severity)}>"
                             f"{_text(body)}</failure>\n        </testcase>\n")
            else:  # below fail-on: reported, not failed
                cases.append(f"{head}            <system-out>{_text(body)}</system-out>\n        </testcase>\n")
        suites.append((file, file, cases, failures))
    nothing_checked_fails = report.failed() and not failing  # fail-on-nothing-checked
    if not report.findings or nothing_checked_fails:
        if report.nothing_checked():
            name = (f"No Karpenter object checked: {counted(report.files, 'file')}, "
                    f"{counted(report.resources, 'resource')}, none of "
                    "them a Karpenter NodePool, EC2NodeClass or NodeClaim")
        else:
            name = f"No findings: {counted(report.files, 'file')}, {counted(report.resources, 'resource')} checked"
        case = f"        <testcase name={_attr(name)} classname=\"karplint\""
        if nothing_checked_fails:
            failing += 1
            case += (f">\n            <failure message={_attr(name)} type=\"fail-on-nothing-checked\"/>\n"
                     "        </testcase>\n")
        else:
            case += "/>\n"
        suites.append(("karplint", None, [case], 1 if nothing_checked_fails else 0))
    tests = sum(len(cases) for _name, _file, cases, _failures in suites)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           f'<testsuites name="karplint" tests="{tests}" failures="{failing}" errors="0">\n']
    for name, file, cases, failures in suites:
        out.append(f"    <testsuite name={_attr(name)} tests=\"{len(cases)}\" failures=\"{failures}\" errors=\"0\" "
                   f"skipped=\"0\"{'' if file is None else f' file={_attr(file)}'}>\n")
        out.extend(cases)
        out.append("    </testsuite>\n")
    out.append("</testsuites>\n")
    return "".join(out)
