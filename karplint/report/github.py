"""GitHub Actions workflow commands: one annotation per finding, on the exact line."""

from __future__ import annotations

from karplint.engine import Report
from karplint.report import escape

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """Workflow-command data (actions/toolkit packages/core/src/command.ts), control characters made visible."""
    return escape.text(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    lines = []
    for f in report.findings:
        if f.file == "-":  # stdin without --stdin-filename (and no chart template found): an annotation on no file
            props = [f"title={escape_property(f'karplint {f.code} ({f.slug}) in {f.file}:{f.span.line}')}"]
            lines.append(f"::{LEVELS[f.severity]} {','.join(props)}::{escape_data(f.message)}")
            continue
        props = [f"file={escape_property(f.file)}", f"line={f.span.line}"]
        if f.span.end_line == f.span.line:
            props += [f"col={f.span.column}", f"endLine={f.span.end_line}", f"endColumn={f.span.end_column}"]
        else:  # GitHub ignores columns on multi-line annotations
            props += [f"endLine={f.span.end_line}"]
        props.append(f"title={escape_property(f'karplint {f.code} ({f.slug})')}")
        lines.append(f"::{LEVELS[f.severity]} {','.join(props)}::{escape_data(f.message)}")
    return "".join(line + "\n" for line in lines)
