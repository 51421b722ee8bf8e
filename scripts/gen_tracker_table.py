#!/usr/bin/env python3
"""Write the survey of Karpenter's trackers into rules/README.md (between its `trackers` markers) from the cases of
tests/trackers/cases/ and the reports of tests/trackers/not_visible/. `--check`: exit 1 when the file differs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "trackers"))

from tracker_cases import cases, not_visible  # noqa: E402

README = ROOT / "rules" / "README.md"
BEGIN, END = "<!-- trackers:begin (scripts/gen_tracker_table.py) -->", "<!-- trackers:end -->"


def short(link: str) -> str:
    m = re.match(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)", link)
    if not m:
        return link
    return f"[{m.group(1)}#{m.group(2)}]({link})"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def table() -> str:
    rows = []
    counts = {"caught": 0, "missed": 0, "negative": 0, "not visible": 0}
    for c in cases():
        counts[c.verdict] += 1
        verdict = {"caught": f"caught: {c.rule}", "negative": "negative (configuration right)",
                   "missed": f"missed{f' ({c.rule} wanted)' if c.rule else ''}"}[c.verdict]
        rows.append((c.link, f"| {short(c.link)} | {c.release or '-'} | {cell(c.title)} | {verdict} | "
                             f"`tests/trackers/cases/{c.name}.yaml` |"))
    for link, title, reason, _stream in not_visible():
        counts["not visible"] += 1
        rows.append((link, f"| {short(link)} | - | {cell(title)} | not visible: {cell(reason)} | |"))
    positives = counts["caught"] + counts["missed"]
    share = f"{100 * counts['caught'] / positives:.1f}%" if positives else "-"
    out = [BEGIN, "",
           f"Reports read: **{len(rows)}**. Positives visible in configuration: **{positives}**, of which caught "
           f"**{counts['caught']}** ({share}) and missed **{counts['missed']}**. Negatives (configuration right, "
           f"cause elsewhere): **{counts['negative']}**, none flagged. Not visible in configuration: "
           f"**{counts['not visible']}**.", "",
           "| report | release | title | verdict | case |", "|---|---|---|---|---|"]
    out += [line for _, line in sorted(rows, key=lambda r: _order(r[0]))]
    out += ["", END]
    return "\n".join(out)


def _order(link: str):
    m = re.match(r"https://github\.com/([^/]+/[^/]+)/\w+/(\d+)", link)
    return (m.group(1), int(m.group(2))) if m else (link, 0)


def render(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + table() + text[end:]


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in argv:
        if new != text:
            print("rules/README.md: the survey table is out of date; run scripts/gen_tracker_table.py")
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
