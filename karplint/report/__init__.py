"""Reporters: turn a `Report` into text, JSON, SARIF, GitHub workflow commands, a GitLab Code Quality report or JUnit
XML. They know findings, not rules."""

from __future__ import annotations

from typing import TextIO

from karplint.engine import Report

FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "junit")


def render(report: Report, fmt: str, out: TextIO, *, color: bool = False, show_fixes: bool = True,
           quiet: bool = False, statistics: bool = False) -> None:
    if statistics:
        from karplint.report.text import render_statistics

        render_statistics(report, out, fmt=fmt)
    elif fmt == "concise":
        from karplint.report.text import render_concise

        render_concise(report, out, quiet=quiet)
    elif fmt == "json":
        from karplint.report.json import write_json

        write_json(report, out)
    elif fmt == "sarif":
        from karplint.report.sarif import render_sarif

        out.write(render_sarif(report))
    elif fmt == "github":
        from karplint.report.github import render_github

        out.write(render_github(report))
    elif fmt == "gitlab":
        from karplint.report.gitlab import render_gitlab

        out.write(render_gitlab(report))
    elif fmt == "junit":
        from karplint.report.junit import render_junit

        out.write(render_junit(report))
    else:
        from karplint.report.text import render_text

        render_text(report, out, color=color, quiet=quiet)
