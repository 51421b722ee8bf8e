"""Rule documentation (the Markdown files in `rules/`, shipped inside the wheel)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """`rules` or `schemas`: inside an installed wheel (karplint/_data/NAME) or a source checkout (NAME/)."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


@dataclass
class Example:
    kind: str  # "bad" or "good"
    text: str
    line: int  # line of the block in the doc


@dataclass
class RuleDoc:
    code: str
    slug: str
    text: str
    summary: str
    sections: dict[str, str] = field(default_factory=dict)
    examples: list[Example] = field(default_factory=list)
    config: str | None = None


_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.S | re.M)


def parse(text: str) -> RuleDoc:
    first = text.splitlines()[0] if text else ""
    m = re.match(r"^#\s+(KPL\d{3}):\s*(\S+)\s*$", first)
    code, slug = (m.group(1), m.group(2)) if m else ("", "")
    sections: dict[str, str] = {}
    current = None
    buf: list[str] = []
    intro: list[str] = []
    in_fence = False
    for line in text.splitlines()[1:]:
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            if current:
                sections[current] = "\n".join(buf).strip()
            current, buf = line[3:].strip(), []
            continue
        (buf if current else intro).append(line)
    if current:
        sections[current] = "\n".join(buf).strip()
    examples, config = [], None
    for fm in _FENCE.finditer(text):
        info = fm.group("info").strip().split()
        if len(info) >= 2 and info[0] in ("yaml", "yml") and info[1] in ("bad", "good"):
            examples.append(Example(info[1], fm.group("body"), text[: fm.start()].count("\n") + 1))
        elif len(info) >= 2 and info[0] == "toml" and info[1] == "config":
            config = fm.group("body")
    summary = " ".join(p.strip() for p in "\n".join(intro).strip().split("\n\n")[0].splitlines())
    return RuleDoc(code, slug, text, summary, sections, examples, config)


@lru_cache(maxsize=None)
def rule_doc(code: str) -> RuleDoc | None:
    path = data_dir("rules") / f"{code}.md"
    if not path.is_file():
        return None
    return parse(path.read_text(encoding="utf-8"))


def all_doc_paths() -> list[Path]:
    return sorted(data_dir("rules").glob("KPL*.md"))
