"""Suppressions written by the user: comments and resource annotations.

    # karplint: disable=KPL201,KPL202 -- reason     (on the offending line, or alone on the line above)
    # karplint: disable-file=KPL201                 (anywhere in the file)
    metadata.annotations["karplint.io/ignore"]: "KPL201,KPL202"   (on the resource or its pod/node template)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from karplint.readers.source import SourceFile, Span

COMMENT = re.compile(
    r"(?:^|\s)#\s*karplint:\s*(?P<kind>disable-file|disable)\s*=\s*(?P<codes>[A-Za-z0-9_, -]+?)"
    r"\s*(?:--\s*(?P<reason>.*))?$"
)
ANNOTATION = "karplint.io/ignore"


@dataclass
class Suppression:
    codes: tuple[str, ...]
    span: Span  # where it is written
    kind: str  # "line", "file", "annotation"
    target_line: int = 0  # for "line"
    used: set = field(default_factory=set)


def split_codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in re.split(r"[,\s]+", text) if c.strip())


def from_comments(src: SourceFile) -> list[Suppression]:
    out: list[Suppression] = []
    if "karplint:" not in src.text:
        return out
    lines = src.text.split("\n")
    for i, line in enumerate(lines):
        if "karplint:" not in line:
            continue
        m = COMMENT.search(line.rstrip("\r"))
        if not m:
            continue
        start = m.start() + (1 if line[m.start()] != "#" else 0)
        col = line.index("#", start) + 1
        span = Span(i + 1, col, i + 1, len(line.rstrip("\r")) + 1,
                    src.offset_of(i + 1, col), src.offset_of(i + 1, len(line.rstrip("\r")) + 1))
        codes = split_codes(m.group("codes"))
        if m.group("kind") == "disable-file":
            out.append(Suppression(codes, span, "file"))
            continue
        own_line = line[: col - 1].strip() == ""
        target = i + 1
        if own_line:
            # applies to the next line that is not blank and not another comment
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
                j += 1
            target = j + 1
        out.append(Suppression(codes, span, "line", target_line=target))
    return out
