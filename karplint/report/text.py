"""Human output: findings grouped by file with `path:line:col`, a code frame, and a summary line.

rich renders the styled lines. Without colour (a pipe, a file, NO_COLOR) it prints each line's text unchanged
except for tabs (expanded) and the control characters it drops (BEL, BS, VT, FF, CR); when there are none, the
text is written here directly and rich (~35 ms of imports) is not loaded.
"""

from __future__ import annotations

from typing import Iterator, Optional, TextIO

from karplint.engine import Report
from karplint.report import escape
from karplint.wording import counted

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}

# A printed line: (the whole line's style, [(text, style), ...]); None prints an empty line.
Line = Optional[tuple[str, list[tuple[str, Optional[str]]]]]

_RICH_EDITS = frozenset("\t\a\b\v\f\r")  # rich expands tabs and strips the others (rich.control)


def _frame(f, src) -> list[Line]:
    if src is None or f.span.line < 1:
        return []
    lines: list[Line] = []
    gutter = len(str(f.span.line + 1))
    for n in range(max(1, f.span.line - 1), f.span.line + 2):
        text = src.line_text(n)
        if n > len(src.line_starts()) or (n > f.span.line and not text.strip()):
            continue
        lines.append(("", [(f" {n:>{gutter}} | ", "dim"), (escape.line(text.expandtabs(1)[:200]), None)]))
        if n == f.span.line:
            end = f.span.end_column if f.span.end_line == f.span.line else len(text) + 1
            carets = max(1, min(end, len(text) + 1) - f.span.column)
            lines.append(("dim", [(" " * (gutter + 2) + "| ", None),
                                  (" " * (f.span.column - 1) + "^" * carets, STYLES[f.severity])]))
    return lines


def _lines(report: Report, quiet: bool = False) -> Iterator[Line]:
    """ruff's shape: `path:line:col: CODE [severity] headline`, the code frame, `= help:` and `= note:` lines, a
    blank line after each finding; then the summary (not with `quiet`)."""
    for f in report.findings:
        headline, helps, notes = f.parts
        head: list[tuple[str, Optional[str]]] = [
            (f"{escape.name(f.file)}:{f.span.line}:{f.span.column}: ", "bold"),
            (f"{f.code} ", STYLES[f.severity]),
            (f"[{f.severity}] ", STYLES[f.severity]),
            (escape.line(headline), None),
        ]
        if f.fix is not None:
            head.append((f"  [*] {'fixable' if f.fix.safety == 'safe' else 'unsafe fix available'}", "green"))
        if f.resource and f.resource.get("name"):
            head.append((escape.line(f"  ({f.resource['kind']}/{f.resource['name']})"), "dim"))
        yield ("", head)
        yield from _frame(f, report.sources.get(f.file))
        for label, texts in (("help", helps), ("note", notes)):
            for text in texts:
                yield ("", [(f"  = {label}: ", "bold cyan" if label == "help" else "bold"), (escape.line(text), None)])
        yield None
    if quiet:
        return
    counts = report.counts()
    n = len(report.findings)
    target: list[tuple[str, Optional[str]]] = []
    if report.karpenter_versions:  # read from the repository (`karpenter-version` unset)
        from karplint.model.repo_version import MAX_VERSIONS_LISTED

        listed, rest = report.karpenter_versions[:MAX_VERSIONS_LISTED], report.karpenter_versions[MAX_VERSIONS_LISTED:]
        target = [(" Checked against " + "; ".join(
            f"Karpenter {v} from {escape.line(where)}"
            + (f" ({counted(k, 'file')})" if len(report.karpenter_versions) > 1 else "")
            for v, where, k in listed) + (f"; {counted(len(rest), 'more version')}" if rest else "") + ".", "dim")]
    if n == 0 and report.nothing_checked():
        # Never a silent pass: a run that checked no Karpenter object says so (the exit code stays 0 unless
        # `fail-on-nothing-checked = true`).
        yield ("", [(f"No Karpenter object checked: {counted(report.files, 'file')}, "
                     f"{counted(report.resources, 'resource')}, none of "
                     "them a Karpenter NodePool, EC2NodeClass or NodeClaim.", "yellow"), *target])
    elif n == 0:
        yield ("", [(f"All checks passed: {counted(report.files, 'file')}, {counted(report.resources, 'resource')} "
                     f"({report.karpenter_resources:,} Karpenter).", "green"), *target])
    else:
        parts = [counted(counts[s], s) for s in ("error", "warning", "info") if counts[s]]
        summary: list[tuple[str, Optional[str]]] = [
            (f"Found {counted(n, 'finding')} ({', '.join(parts)}) in {counted(report.files, 'file')}.", "bold")]
        fixable = sum(1 for f in report.findings if f.fix is not None and f.fix.safety == "safe")
        unsafe = sum(1 for f in report.findings if f.fix is not None and f.fix.safety == "unsafe")
        if fixable:
            summary.append((f" [*] {fixable} fixable with `--fix`.", None))
        if unsafe:
            summary.append((f" {unsafe} more with `--fix --unsafe-fixes`.", None))
        if report.nothing_checked():
            summary.append((" No Karpenter object checked.", "yellow"))
        summary.extend(target)
        yield ("", summary)


def _plain(lines: list[Line], out: TextIO) -> str | None:
    """The text rich would write without colour, or None when rich must decide: a tab or a control character
    it drops, or text the stream cannot encode (rich re-raises that UnicodeEncodeError with a hint of its own)."""
    text = "".join("\n" if line is None else "".join(t for t, _ in line[1]) + "\n" for line in lines)
    if not _RICH_EDITS.isdisjoint(text):
        return None
    encoding = getattr(out, "encoding", None)
    if encoding:
        try:
            text.encode(encoding, getattr(out, "errors", None) or "strict")
        except (UnicodeError, LookupError):
            return None
    return text


def _render_rich(lines: list[Line], out: TextIO, color: bool) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(file=out, force_terminal=color, no_color=not color, highlight=False, soft_wrap=True,
                      width=10_000 if not color else None, emoji=False)
    for line in lines:
        if line is None:
            console.print()
            continue
        style, parts = line
        t = Text(style=style)
        for part, part_style in parts:
            t.append(part, style=part_style)
        console.print(t)


def render_concise(report: Report, out: TextIO, *, quiet: bool = False) -> None:
    """`path:line:col: CODE [severity] headline`, one line per finding, `[*] ` before the headline when `--fix`
    would fix it (ruff's marker); then the summary, unless `quiet`."""
    for f in report.findings:
        fixable = "[*] " if f.fix is not None and f.fix.safety == "safe" else ""
        out.write(f"{escape.name(f.file)}:{f.span.line}:{f.span.column}: {f.code} [{f.severity}] {fixable}"
                  f"{escape.line(f.parts[0])}\n")
    if not quiet:
        summary = [line for line in _lines(report) if line is not None][-1]
        out.write("".join(t for t, _ in summary[1]) + "\n")


def statistics_rows(report: Report) -> list[dict]:
    """Findings per rule, most frequent first: [{code, slug, count, fixable}], `fixable` when `--fix` fixes at
    least one of them (the shape of `--statistics -f json`, documented in the README)."""
    by_code: dict[str, list] = {}
    for f in report.findings:
        by_code.setdefault(f.code, []).append(f)
    return [{"code": code, "slug": fs[0].slug, "count": len(fs),
             "fixable": any(f.fix is not None and f.fix.safety == "safe" for f in fs)}
            for code, fs in sorted(by_code.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def render_statistics(report: Report, out: TextIO, *, fmt: str = "text") -> None:
    """Findings per rule, most frequent first (ruff's --statistics): count, code, [*] when fixable, slug; then
    the total (ruff's "Found N errors."), or the summary line when there is none. With `fmt` json: the rows as
    a JSON list."""
    rows = statistics_rows(report)
    if fmt == "json":
        import json

        out.write(json.dumps(rows, indent=2) + "\n")
        return
    width = max((len(str(r["count"])) for r in rows), default=1)
    for r in rows:
        out.write(f"{r['count']:>{width}}\t{r['code']}\t{'[*]' if r['fixable'] else '   '} {r['slug']}\n")
    if not rows:  # (never silent: what was checked, or that nothing was)
        summary = [line for line in _lines(report) if line is not None][-1]
        out.write("".join(t for t, _ in summary[1]) + "\n")
        return
    n = len(report.findings)
    fixable = sum(1 for f in report.findings if f.fix is not None and f.fix.safety == "safe")
    out.write(f"Found {n} finding{'s' if n != 1 else ''}." + (f" [*] {fixable} fixable with `--fix`." if fixable else "")
              + "\n")


def render_text(report: Report, out: TextIO, *, color: bool = False, quiet: bool = False) -> None:
    lines = list(_lines(report, quiet))
    text = None if color else _plain(lines, out)
    if text is None:
        _render_rich(lines, out, color)
    else:
        out.write(text)
