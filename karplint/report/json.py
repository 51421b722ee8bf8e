"""The JSON report: `{"version": 1, "findings": [...], "summary": {...}}` (a stable contract)."""

from __future__ import annotations

import json

from karplint.engine import Report

SCHEMA_VERSION = 1


def summary(report: Report) -> dict:
    by_code: dict[str, int] = {}
    for f in report.findings:
        by_code[f.code] = by_code.get(f.code, 0) + 1
    return {
        "files": report.files,
        "resources": report.resources,
        "findings": len(report.findings),
        "by_severity": report.counts(),
        "by_code": dict(sorted(by_code.items())),
        "fixable": sum(1 for f in report.findings if f.fix is not None),
        "fail_on": report.config.fail_on,
        "failed": report.failed(),
        "karpenter_version": str(report.config.karpenter_version),
    }


def render_json(report: Report) -> str:
    doc = {"version": SCHEMA_VERSION, "findings": [f.to_json() for f in report.findings], "summary": summary(report)}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
