"""Findings as LSP diagnostics, their fixes and suppressions as code actions."""

from __future__ import annotations

from functools import lru_cache

from lsprotocol import types

from karplint.findings import Finding
from karplint.server.positions import TextPositions
from karplint.server.suppress import suppression_edit

SOURCE = "karplint"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


@lru_cache(maxsize=None)
def rule_doc_href(code: str) -> str | None:
    """Where a rule's documentation is: its Markdown file in the installed package (karplint has no web page of
    its own yet; `karplint explain CODE` prints the same text)."""
    from karplint.docs import data_dir

    path = data_dir("rules") / f"{code}.md"
    return path.resolve().as_uri() if path.is_file() else None


def diagnostic(finding: Finding, positions: TextPositions) -> types.Diagnostic:
    """The diagnostic of one finding: its headline, then its `help:` and `note:` lines, as `check` prints them."""
    head, helps, notes = finding.parts
    message = "\n".join([head] + [f"help: {h}" for h in helps] + [f"note: {n}" for n in notes])
    href = rule_doc_href(finding.code)
    return types.Diagnostic(
        range=positions.span_range(finding.span),
        message=message,
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
    )


def _touches(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges overlap or touch (a cursor at a diagnostic's edge counts)."""
    def key(p: types.Position):
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def code_actions(uri: str, version: int | None, path: str, findings: list[Finding], positions: TextPositions,
                 requested: types.Range, document_changes: bool = True) -> list[types.CodeAction]:
    """The code actions for the findings of one document in the requested range: each fix (safe ones preferred,
    unsafe ones say so), then "Suppress KPLnnn on this line" once per code and line."""
    fixes: list[types.CodeAction] = []
    suppressions: list[types.CodeAction] = []
    suppressed: set[tuple[str, int]] = set()

    def workspace_edit(edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        if document_changes:
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=edits)])
        return types.WorkspaceEdit(changes={uri: edits})

    for f in findings:
        diag = diagnostic(f, positions)
        if not _touches(diag.range, requested):
            continue
        if f.fix is not None and f.fix.edits:
            unsafe = f.fix.safety != "safe"
            edits = [types.TextEdit(range=positions.offsets_range(e.start, e.end), new_text=e.replacement)
                     for e in f.fix.edits]
            fixes.append(types.CodeAction(
                title=f"{f.code}: {f.fix.description}" + (" (unsafe)" if unsafe else ""),
                kind=types.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=not unsafe,
                edit=workspace_edit(edits)))
        if f.category == "suppression" or (f.code, f.span.line) in suppressed:
            continue  # (a suppression finding cannot be suppressed: karplint reports it regardless)
        suppressed.add((f.code, f.span.line))
        edit = suppression_edit(path, positions.karplint_text, f.span.line, f.code)
        if edit is None:
            continue
        start, end, new_text = edit
        suppressions.append(types.CodeAction(
            title=f"Suppress {f.code} on this line", kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
            edit=workspace_edit([types.TextEdit(range=positions.offsets_range(start, end), new_text=new_text)])))
    return fixes + suppressions
