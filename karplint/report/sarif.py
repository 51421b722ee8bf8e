"""SARIF 2.1.0, for GitHub code scanning and other SARIF consumers."""

from __future__ import annotations

import os
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


def render_sarif(report: Report) -> str:
    rules = [r for r in all_rules() if is_selected(r, report.config) or any(f.code == r.code for f in report.findings)]
    index = {r.code: i for i, r in enumerate(rules)}
    driver_rules = []
    for r in rules:
        doc = rule_doc(r.code)
        entry = {
            "id": r.code,
            "name": r.slug,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": (doc.summary if doc and doc.summary else r.summary)},
            "defaultConfiguration": {"level": LEVELS[report.config.severity.get(r.code, r.severity)]},
            "properties": {"category": r.category, "tags": [r.category]},
        }
        if doc is not None:
            entry["help"] = {"text": doc.text, "markdown": doc.text}
        if r.category == "security":  # GitHub code scanning ranks security alerts by this score (0.0-10.0)
            entry["properties"]["security-severity"] = SECURITY_SEVERITY[
                report.config.severity.get(r.code, r.severity)]
        driver_rules.append(entry)
    results = []
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
                  "message": {"text": escape.text(f.message)}, "locations": [location]}
        if f.fix is not None:
            result["properties"] = {"fix": f.fix.to_json()["description"], "applicability": f.fix.safety}
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
