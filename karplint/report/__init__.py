"""Reporters: turn a `Report` into text, JSON, SARIF or GitHub workflow commands. They know findings, not rules."""

from __future__ import annotations

from typing import TextIO

from karplint.engine import Report

FORMATS = ("text", "concise", "json", "sarif", "github")


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
    else:
        from karplint.report.text import render_text

        render_text(report, out, color=color, quiet=quiet)
