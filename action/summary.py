"""The job summary (Markdown) of the action's check, from karplint's JSON report.

GitHub shows at most 10 annotations of each level (error, warning, notice) per step: the findings beyond those
are listed here, in a table grouped by file, so that none is hidden. Every cell holds untrusted text (file names,
values quoted in messages): it is escaped so that it stays text in its cell. The summary stays far below GitHub's
1 MiB limit for a step (rows and message lengths are bounded; what is left out is counted).
"""

from __future__ import annotations

import re


def counted(n: int, noun: str) -> str:
    """"1 finding", "2 findings": karplint.wording's, written again here because the installed karplint may be
    an older release than these scripts."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


ANNOTATIONS_PER_LEVEL = 10  # GitHub: per step, for each of error, warning and notice
MAX_ROWS = 1000
MAX_MESSAGE = 300  # characters of a finding's headline in a cell
MAX_BYTES = 512 * 1024  # of the table (GitHub refuses a step summary over 1 MiB)
_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}  # karplint severity -> annotation level

# ASCII punctuation that Markdown (GitHub's: tables, emphasis, links, autolinks, emoji codes, math) may read;
# a backslash makes each a literal. `<`, `>` and `&` become entities (raw HTML is allowed in a summary).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~:@$])")
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def cell(text: str, limit: int | None = None) -> str:
    """`text` as the content of one table cell: one line, every Markdown and HTML character literal."""
    text = " ".join(str(text).split())  # line breaks (and runs of blanks) would end the row
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = re.sub(r"[&<>]", lambda m: _ENTITY[m.group(0)], text)
    return _MARKDOWN.sub(r"\\\1", text)


def beyond_annotations(findings: list[dict]) -> list[dict]:
    """The findings GitHub does not show as annotations: after the first 10 of their level, in report order
    (the order of the annotations the step prints)."""
    seen: dict[str, int] = {}
    hidden = []
    for f in findings:
        level = _LEVEL.get(f.get("severity"), "notice")
        seen[level] = seen.get(level, 0) + 1
        if seen[level] > ANNOTATIONS_PER_LEVEL:
            hidden.append(f)
    return hidden


def _findings_table(hidden: list[dict]) -> list[str]:
    rows = sorted(hidden, key=lambda f: (f.get("file", ""), f.get("line", 0), f.get("column", 0), f.get("code", "")))
    lines = ["", f"### {counted(len(rows), 'finding')} not shown as annotations", "",
             f"GitHub shows {ANNOTATIONS_PER_LEVEL} annotations of each level per step; these are the others, "
             "by file.", "", "| file | line | code | severity | message |", "|---|---:|---|---|---|"]
    size = 0
    shown = 0
    for f in rows:
        if shown == MAX_ROWS or size > MAX_BYTES:
            break
        row = (f"| {cell(f.get('file', ''), 200)} | {int(f.get('line', 0))} | {cell(f.get('code', ''))} "
               f"{cell(f.get('slug', ''))} | {cell(f.get('severity', ''))} "
               f"| {cell(f.get('message', ''), MAX_MESSAGE)} |")
        lines.append(row)
        size += len(row.encode("utf-8")) + 1
        shown += 1
    if shown < len(rows):
        lines += ["", f"… and {len(rows) - shown} more: the SARIF file and `karplint check` list them all."]
    return lines


def render(doc: dict) -> str:
    """The step's summary from a JSON report (`{"findings": [...], "summary": {...}}`)."""
    s = doc["summary"]
    slugs = {f["code"]: f["slug"] for f in doc["findings"]}
    lines = ["## karplint", "",
             f"{counted(s['findings'], 'finding')} in {counted(s['files'], 'file')}, "
             f"{counted(s['resources'], 'resource')}; "
             f"Karpenter {cell(s['karpenter_version'])}; fail-on {s['fail_on']}: "
             f"**{'failed' if s['failed'] else 'passed'}**", ""]
    if s["by_code"]:
        lines += ["| rule | findings |", "|---|---:|"]
        lines += [f"| {code} {slugs.get(code, '')} | {n} |"
                  for code, n in sorted(s["by_code"].items(), key=lambda kv: -kv[1])]
    hidden = beyond_annotations(doc["findings"])
    if hidden:
        lines += _findings_table(hidden)
    return "\n".join(lines) + "\n"


def render_failure(message: str, exit_code: int) -> str:
    """The summary of a check that did not complete (a usage error, a crash)."""
    import html

    text = message if len(message) <= 4000 else message[:3999] + "…"
    # <pre> keeps the lines; escaped, the message stays text (a fence could be closed by backticks in it)
    return (f"## karplint\n\n**karplint did not complete** (exit code {exit_code}):\n\n"
            f"<pre>{html.escape(text)}</pre>\n")
