"""Where "suppress this finding" writes its comment: the edit a user would make by hand.

karplint's suppression syntax (karplint/readers/suppression.py, README "Suppressing findings"):
`# karplint: disable=KPL201 -- reason` alone on the line above a finding's line (or at the end of that line).
The comment goes on its own line above, at the line's indentation, so that the line itself is not touched; a
`disable=` comment already there (above, or at the end of the line) gets the code added instead.

It is a `#` comment, which YAML, Terraform (HCL and the YAML of its heredocs) and shell read as a comment. No
comment is offered where one would change what the user wrote: JSON (no comments), a line inside a YAML block
scalar (`userData: |`: the comment would become part of the script), a blank or comment line (the comment would
apply to the next line instead), a Markdown or AsciiDoc line outside the YAML block it belongs to (there `#` is a
heading), and YAML written as JSON inside another file (a Terraform heredoc for `jsondecode`).
"""

from __future__ import annotations

import re

from karplint.readers.suppression import COMMENT

# a YAML block scalar header at the end of a line: `key: |`, `- >-`, `key: |2+ # comment`
_BLOCK_HEADER = re.compile(r"(?:^|[:\-]|\s)[ \t]*[|>][0-9+-]{0,2}[ \t]*(?:#.*)?$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _in_block_scalar(lines: list[str], index: int) -> bool:
    """Whether line `index` (0-based) may be inside a YAML block scalar: a less indented line above it, in the
    chain of ever less indented lines, opens one. (A false "yes" only withholds the action.)"""
    least = _indent(lines[index])
    for k in range(index - 1, -1, -1):
        text = lines[k].rstrip("\r")
        if not text.strip():
            continue
        if text.startswith(("---", "...")) or text.lstrip().startswith(("```", "~~~")):
            return False  # a document or code block starts: nothing above can hold this line
        depth = _indent(text)
        if depth < least:
            if _BLOCK_HEADER.search(text):
                return True
            least = depth
            if depth == 0:
                return False
    return False


def _comment_allowed_in_host(path: str, lines: list[str], line: int) -> bool:
    """For YAML inside another file: whether 1-based `line` may take a `#` comment line. In Markdown and AsciiDoc
    only inside a YAML block; nowhere in a block of JSON (a heredoc for Terraform's `jsondecode`, a bare fence of
    JSON): JSON has no comments. Terraform and shell lines outside their heredocs are `#`-commented code."""
    from karplint.readers import embedded
    from karplint.readers.source import SourceFile

    kind = embedded.host_kind(path)
    if kind is None:
        return True
    region = next((r for r in embedded.regions(SourceFile(path, "\n".join(lines)), kind) if r.first <= line < r.end),
                  None)
    if region is None:
        return kind not in ("markdown", "asciidoc")
    opening = lines[region.first - 2] if region.first >= 2 else ""
    first = next((x.strip() for x in lines[region.first - 1:region.end - 1] if x.strip()), "")
    return "json" not in opening.lower() and not first.startswith(("{", "["))


def suppression_edit(path: str, text: str, line: int, code: str) -> tuple[int, int, str] | None:
    """The edit (start offset, end offset, new text; code points) that suppresses `code` on 1-based `line` of
    the document `path` whose text is `text`, or None when no comment can be written there safely."""
    if path.lower().endswith(".json"):
        return None
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    index = line - 1
    target = lines[index].rstrip("\r")
    if not target.strip() or target.lstrip().startswith("#"):
        return None
    # a `disable=` comment already on the line, or alone on the line above: add the code to it
    for k in (index, index - 1):
        if k < 0:
            continue
        here = lines[k].rstrip("\r")
        m = COMMENT.search(here)
        if m is None or m.group("kind") != "disable":
            continue
        own_line = here.lstrip().startswith("#")
        if (k == index) == own_line:
            continue  # (the line's own comment must be at its end; the one above alone on its line)
        codes = [c.strip().upper() for c in re.split(r"[,\s]+", m.group("codes")) if c.strip()]
        if code in codes:
            return None
        at = starts[k] + m.end("codes")
        return at, at, f",{code}"
    if index > 0 and _in_block_scalar(lines, index):
        return None
    if not _comment_allowed_in_host(path, lines, line):
        return None
    newline = "\r\n" if lines[index].endswith("\r") else "\n"
    indent = target[:_indent(target)]
    return starts[index], starts[index], f"{indent}# karplint: disable={code}{newline}"
