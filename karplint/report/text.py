"""Human output: findings grouped by file with `path:line:col`, a code frame, and a summary line."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.text import Text

from karplint.engine import Report

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _frame(f, src) -> list[Text]:
    if src is None or f.span.line < 1:
        return []
    lines = []
    gutter = len(str(f.span.line + 1))
    for n in range(max(1, f.span.line - 1), f.span.line + 2):
        text = src.line_text(n)
        if n > len(src.line_starts()) or (n > f.span.line and not text.strip()):
            continue
        t = Text()
        t.append(f" {n:>{gutter}} | ", style="dim")
        t.append(text.expandtabs(1)[:200])
        lines.append(t)
        if n == f.span.line:
            end = f.span.end_column if f.span.end_line == f.span.line else len(text) + 1
            carets = max(1, min(end, len(text) + 1) - f.span.column)
            marker = Text(" " * (gutter + 2) + "| ", style="dim")
            marker.append(" " * (f.span.column - 1) + "^" * carets, style=STYLES[f.severity])
            lines.append(marker)
    return lines


def render_text(report: Report, out: TextIO, *, color: bool = False) -> None:
    console = Console(file=out, force_terminal=color, no_color=not color, highlight=False, soft_wrap=True,
                      width=10_000 if not color else None, emoji=False)
    current = None
    for f in report.findings:
        if f.file != current:
            if current is not None:
                console.print()
            current = f.file
        head = Text()
        head.append(f"{f.file}:{f.span.line}:{f.span.column}: ", style="bold")
        head.append(f"{f.code} ", style=STYLES[f.severity])
        head.append(f"[{f.severity}] ", style=STYLES[f.severity])
        head.append(f.message)
        if f.fix is not None:
            head.append(f"  [*] {'fixable' if f.fix.safety == 'safe' else 'unsafe fix available'}", style="green")
        if f.resource and f.resource.get("name"):
            head.append(f"  ({f.resource['kind']}/{f.resource['name']})", style="dim")
        console.print(head)
        for line in _frame(f, report.sources.get(f.file)):
            console.print(line)
    counts = report.counts()
    n = len(report.findings)
    if n:
        console.print()
    summary = Text()
    if n == 0:
        summary.append(f"All checks passed: {report.files} file(s), {report.resources} resource(s).", style="green")
    else:
        parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in ("error", "warning", "info") if counts[s]]
        summary.append(f"Found {n} finding{'s' if n != 1 else ''} ({', '.join(parts)}) in {report.files} file(s).",
                       style="bold")
        fixable = sum(1 for f in report.findings if f.fix is not None and f.fix.safety == "safe")
        unsafe = sum(1 for f in report.findings if f.fix is not None and f.fix.safety == "unsafe")
        if fixable:
            summary.append(f" [*] {fixable} fixable with `--fix`.")
        if unsafe:
            summary.append(f" {unsafe} more with `--fix --unsafe-fixes`.")
    console.print(summary)
