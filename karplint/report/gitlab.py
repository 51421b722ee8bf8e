"""GitLab Code Quality: the JSON array of issues a job's `artifacts:reports:codequality` file holds.

The fields GitLab reads (docs.gitlab.com/ci/testing/code_quality/, "Implement a custom tool"; gitlabhq/gitlabhq
`doc/ci/testing/code_quality.md`): `description`, `check_name`, `fingerprint`, `severity` (info, minor, major,
critical, blocker), `location.path` (relative to the repository) and `location.lines.begin`; the rest of the Code
Climate issue format is ignored. GitLab shows issues with equal fingerprints as one, and compares a merge request's
fingerprints with its target branch's to list what it introduced or resolved: a fingerprint must be unique in a
report and the same for the same finding in the next run, wherever the finding moved in its file.
"""

from __future__ import annotations

import hashlib
import os
import re

from karplint.engine import Report
from karplint.report import escape
from karplint.report.json import dumps_indented

# An error one level below `blocker`, as SARIF's security-severity puts it in GitHub's "high" band, below "critical".
SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}

# Line numbers a headline quotes ("first defined at line 3"): they move with edits above the finding.
_LINE_NUMBER = re.compile(r"\b(lines?) \d+(?:\s*[-–]\s*\d+)?")


def location_path(file: str, project_dir: str | None) -> str:
    """The finding's file as GitLab wants it: relative to the project (`CI_PROJECT_DIR` in a GitLab job, else the
    working directory) when it is inside it, with `/` separators; else as given (stdin's `-` included)."""
    if file == "-":
        return file
    base = os.path.abspath(project_dir or os.curdir)
    absolute = os.path.abspath(file)
    if os.path.commonpath([base, absolute]) == base:
        file = os.path.relpath(absolute, base)
    return file.replace(os.sep, "/")


def fingerprint(f, path: str, seen: set) -> str:
    """Rule, path, resource and headline (its line numbers left out), without the finding's own line or column,
    so a finding keeps its fingerprint when lines above it change; equal ones are told apart by their order in the
    file (ruff's gitlab.rs re-hashes with the previous fingerprint until the value is unused: the same idea)."""
    base = "\0".join([f.code, path, f"{(f.resource or {}).get('kind')}/{(f.resource or {}).get('name')}",
                      _LINE_NUMBER.sub(r"\1 N", f.parts[0])])
    n = 0
    while True:
        value = hashlib.sha256(f"{base}\0{n}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
        if value not in seen:
            seen.add(value)
            return value
        n += 1


def _last_line(span) -> int:
    """The last line a span covers (inclusive, as Code Climate's line ranges are): its end is exclusive, so a span
    ending at column 1 ends on the line before."""
    end = span.end_line - 1 if span.end_column == 1 and span.end_line > span.line else span.end_line
    return max(end, span.line)


def render_gitlab(report: Report, project_dir: str | None = None) -> str:
    if project_dir is None:
        project_dir = os.environ.get("CI_PROJECT_DIR") or None
    issues = []
    seen: set[str] = set()
    for f in report.findings:
        path = location_path(f.file, project_dir)
        headline = f.parts[0]
        issues.append({
            # GitLab's widget shows the description and not check_name: the code leads it, as in ruff's report
            "description": escape.line(f"{f.code}: {headline}"),
            "check_name": f.code,
            "fingerprint": fingerprint(f, path, seen),
            "severity": SEVERITIES[f.severity],
            "location": {"path": escape.line(path),
                         "lines": {"begin": f.span.line, "end": _last_line(f.span)}},
        })
    return dumps_indented(issues) + "\n"
