"""What a check produces: `Finding`s, their severities and optional `Fix`es."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from karplint.readers.source import Span

SEVERITIES = ("info", "warning", "error")
Severity = Literal["info", "warning", "error"]
CATEGORIES = (
    "input", "schema", "userdata", "taints", "disruption", "repair", "references", "security", "deprecation",
    "suppression", "provisioning",
)


def severity_rank(sev: str) -> int:
    return SEVERITIES.index(sev)


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] with `replacement`: offsets in Unicode code points of the whole file's decoded text
    (the host file of an embedded document; no byte-order mark; line endings as written), as the README's JSON
    output documents."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Fix:
    description: str
    safety: Literal["safe", "unsafe"]
    edits: tuple[Edit, ...] = ()

    def to_json(self) -> dict:
        return {
            "description": self.description,
            "applicability": self.safety,
            "edits": [{"start": e.start, "end": e.end, "replacement": e.replacement} for e in self.edits],
        }


@dataclass
class Finding:
    code: str
    slug: str
    category: str
    severity: str
    message: str
    file: str
    span: Span
    resource: dict | None = None  # {"api_version", "kind", "name"}
    fix: Fix | None = None

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def parts(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        """The message in ruff's shape (CONTRIBUTING "Writing a rule"): (headline, help lines, note lines)."""
        return split_message(self.message)

    @property
    def column(self) -> int:
        return self.span.column

    def sort_key(self):
        return (self.file, self.span.line, self.span.column, self.code, self.message)

    def to_json(self) -> dict:
        head, helps, notes = self.parts
        return {
            "code": self.code,
            "slug": self.slug,
            "category": self.category,
            "severity": self.severity,
            "message": head,
            "help": list(helps),
            "notes": list(notes),
            "file": self.file,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "resource": self.resource,
            "fix": self.fix.to_json() if self.fix else None,
        }


def split_message(message: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """A rule's message: its first line, then `help: ...` and `note: ...` lines (other lines count as notes)."""
    if "\n" not in message:
        return message, (), ()
    head, *rest = message.split("\n")
    helps = tuple(ln[6:] for ln in rest if ln.startswith("help: "))
    notes = tuple(ln[6:] if ln.startswith("note: ") else ln for ln in rest if ln.strip() and not ln.startswith("help: "))
    return head, helps, notes
