"""SARIF 2.1.0, for GitHub code scanning and other SARIF consumers."""

from __future__ import annotations

import hashlib
import os
import re
from urllib.parse import quote

from karplint import __version__
from karplint.docs import rule_doc
from karplint.engine import Report, is_selected
from karplint.report import escape
from karplint.report.json import dumps_indented
from karplint.rules import all_rules

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
# GitHub's bands: over 9.0 critical, 7.0-8.9 high, 4.0-6.9 medium, 0.1-3.9 low.
SECURITY_SEVERITY = {"error": "8.0", "warning": "5.5", "info": "2.0"}


def _uri(path: str) -> str:
    """A URI reference (RFC 3986): the path's bytes, non-UTF-8 ones included, percent-encoded."""
    p = path.replace(os.sep, "/")
    encoded = quote(p.encode("utf-8", "surrogateescape"), safe="/-._~")
    if os.path.isabs(path):
        return "file://" + encoded
    return encoded[2:] if encoded.startswith("./") else encoded


# helpUri (GitHub code scanning links the rule's help to it): karplint has no web page of its own yet, so each rule
# points at the first public reference of its documentation (rules/KPLxxx.md, "## References": a URL, a GitHub issue
# `owner/repo#N`, a source file `owner/repo \`path\` at REF`, or "Karpenter docs, concepts/x"); a rule without one
# falls back to the project's own URL (`[project.urls]` Documentation/Homepage) when the package declares one.
_URL = re.compile(r"https?://[^\s)>\]`'\"]+")
_ISSUE = re.compile(r"\b([A-Za-z0-9-]+/[A-Za-z0-9._-]+)#(\d+)\b")
_SOURCE = re.compile(r"\b([A-Za-z0-9-]+/[A-Za-z0-9._-]+) `([^`\s]+)`(?:[^;\n]*? at (v?[0-9][0-9A-Za-z.]*|[0-9a-f]{7,40})\b)?")
_DOCS = re.compile(r"Karpenter docs?,? ((?:concepts|upgrading|tasks|reference|getting-started|troubleshooting)"
                   r"(?:/[a-z0-9-]+)*)")
_KNOWN_OWNERS = ("aws/", "kubernetes-sigs/", "kubernetes/", "awslabs/", "bottlerocket-os/", "cilium/", "Azure/",
                 "idank/", "yannh/", "zegl/")
SARIF_TEXT_MAX = 1024  # GitHub code scanning: shortDescription.text and fullDescription.text


def _reference_uri(line: str) -> str | None:
    """The URL one line of a References section names, or None."""
    found = []
    m = _URL.search(line)
    if m:
        found.append((m.start(), m.group(0).rstrip(".,;:")))
    for m in _ISSUE.finditer(line):
        if m.group(1).startswith(_KNOWN_OWNERS):
            found.append((m.start(), f"https://github.com/{m.group(1)}/issues/{m.group(2)}"))
            break
    for m in _SOURCE.finditer(line):
        if m.group(1).startswith(_KNOWN_OWNERS) and "/" in m.group(2):
            found.append((m.start(), f"https://github.com/{m.group(1)}/blob/{m.group(3) or 'HEAD'}/{m.group(2)}"))
            break
    m = _DOCS.search(line)
    if m:
        found.append((m.start(), f"https://karpenter.sh/docs/{m.group(1)}/"))
    return min(found)[1] if found else None


def help_uri(doc) -> str | None:
    """helpUri of a rule: the first public reference of its documentation, else the project's URL (or None)."""
    refs = doc.sections.get("References", "") if doc is not None else ""
    for line in refs.splitlines():
        uri = _reference_uri(line)
        if uri:
            return uri
    return project_url()


def project_url() -> str | None:
    """The package's Documentation or Homepage URL (`[project.urls]`), if it declares one."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata

        urls = metadata("karplint").get_all("Project-URL") or []
    except (ImportError, PackageNotFoundError):  # pragma: no cover - running from a source tree without metadata
        return None
    by_label = {}
    for entry in urls:
        label, _, url = entry.partition(",")
        by_label[label.strip().lower()] = url.strip()
    return by_label.get("documentation") or by_label.get("homepage") or None


def _clip(text: str, limit: int = SARIF_TEXT_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fingerprint(f, seen: dict) -> str:
    """A fingerprint that survives edits elsewhere in the file (no line numbers): rule, file, resource, headline,
    and the occurrence among equal ones."""
    base = "\0".join([f.code, f.file, f"{(f.resource or {}).get('kind')}/{(f.resource or {}).get('name')}",
                      f.parts[0]])
    n = seen[base] = seen.get(base, 0) + 1
    return hashlib.sha256(f"{base}\0{n}".encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _sarif_fix(fix, artifact: dict, src) -> dict | None:
    """A `Fix` as a SARIF fix (§3.55): one artifactChange whose replacements delete a region and insert text.

    An `Edit` counts Unicode code points of the decoded text, after any byte order mark; SARIF's charOffset counts
    from the artifact's first character in the run's columnKind, which leaves a BOM and UTF-16 readers to
    interpretation. So each deletedRegion is given as lines and columns instead, computed from the text the edits
    index: 1-based, columns in code points (run.columnKind `unicodeCodePoints`), lines ending at LF (CRLF's CR is
    the last column of its line; SARIF's default newlineSequences are CRLF and LF), endColumn exclusive; an
    insertion is an empty region (endColumn == startColumn). Replacements come in file order, each relative to the
    original text (karplint's edits never overlap). None when the text is not at hand or the edits do not fit it:
    no fix rather than a wrong one."""
    if not fix.edits or src is None:
        return None
    edits = sorted(fix.edits, key=lambda e: (e.start, e.end))
    text = src.text
    if edits[0].start < 0 or edits[-1].end > len(text) or any(e.end < e.start for e in edits) or any(
            a.end > b.start for a, b in zip(edits, edits[1:])):
        return None
    if any(0 < o < len(text) and text[o - 1] == "\r" and text[o] == "\n" for e in edits for o in (e.start, e.end)):
        return None  # inside a CRLF: a position SARIF's lines and columns cannot name
    replacements = []
    for e in edits:
        start_line, start_column = src.position_of(e.start)
        end_line, end_column = src.position_of(e.end)
        replacement = {"deletedRegion": {"startLine": start_line, "startColumn": start_column,
                                         "endLine": end_line, "endColumn": end_column}}
        if e.replacement:
            replacement["insertedContent"] = {"text": e.replacement}
        replacements.append(replacement)
    description = fix.description if fix.safety == "safe" else (
        f"{fix.description} (unsafe: it changes behaviour; `--fix --unsafe-fixes` applies it)")
    return {"description": {"text": escape.text(description)},
            "artifactChanges": [{"artifactLocation": dict(artifact), "replacements": replacements}],
            "properties": {"applicability": fix.safety}}


def render_sarif(report: Report) -> str:
    rules = [r for r in all_rules() if is_selected(r, report.config) or any(f.code == r.code for f in report.findings)]
    index = {r.code: i for i, r in enumerate(rules)}
    driver_rules = []
    for r in rules:
        doc = rule_doc(r.code)
        entry = {
            "id": r.code,
            "name": r.slug,
            "shortDescription": {"text": _clip(r.summary)},
            "fullDescription": {"text": _clip(doc.summary if doc and doc.summary else r.summary)},
            "defaultConfiguration": {"level": LEVELS[report.config.severity.get(r.code, r.severity)]},
            "properties": {"category": r.category, "tags": [r.category]},
        }
        if doc is not None:
            entry["help"] = {"text": doc.text, "markdown": doc.text}
        uri = help_uri(doc)
        if uri:
            entry["helpUri"] = uri
        if r.category == "security":  # GitHub code scanning ranks security alerts by this score (0.0-10.0)
            entry["properties"]["security-severity"] = SECURITY_SEVERITY[
                report.config.severity.get(r.code, r.severity)]
        driver_rules.append(entry)
    results = []
    seen: dict[str, int] = {}
    for f in report.findings:
        region = {"startLine": f.span.line, "startColumn": f.span.column,
                  "endLine": max(f.span.end_line, f.span.line),
                  "endColumn": f.span.end_column if f.span.end_line > f.span.line
                  else max(f.span.end_column, f.span.column + 1)}
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.file)}, "region": region}}
        if not os.path.isabs(f.file):
            location["physicalLocation"]["artifactLocation"]["uriBaseId"] = "%SRCROOT%"
        if f.resource:
            location["logicalLocations"] = [{"fullyQualifiedName": f"{f.resource['kind']}/{f.resource['name']}",
                                             "kind": "resource"}]
        result = {"ruleId": f.code, "ruleIndex": index[f.code], "level": LEVELS[f.severity],
                  "message": {"text": escape.text(f.message)}, "locations": [location],
                  "partialFingerprints": {"karplintFindingHash/v1": _fingerprint(f, seen)}}
        if f.fix is not None:
            result["properties"] = {"fix": f.fix.to_json()["description"], "applicability": f.fix.safety}
            fix = _sarif_fix(f.fix, location["physicalLocation"]["artifactLocation"], report.sources.get(f.file))
            if fix is not None:
                result["fixes"] = [fix]
        results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "karplint", "version": __version__, "semanticVersion": __version__,
                                "rules": driver_rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }
    return dumps_indented(sarif) + "\n"


def render_sarif_failure(message: str, exit_code: int) -> str:
    """A SARIF log for a run that did not complete (a usage error, a crash): no results, and the reason as a tool
    execution notification, so that a consumer shows the failure instead of reading "no results" as a pass."""
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "karplint", "version": __version__, "semanticVersion": __version__}},
            "invocations": [{
                "executionSuccessful": False,
                "exitCode": exit_code,
                "toolExecutionNotifications": [{"level": "error", "message": {"text": escape.text(message)}}],
            }],
            "results": [],
        }],
    }
    return dumps_indented(sarif) + "\n"
