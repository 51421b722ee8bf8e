"""The JSON report: `{"version": 1, "findings": [...], "summary": {...}}` (a stable contract)."""

from __future__ import annotations

import json
from typing import TextIO

from karplint.engine import Report
from karplint.report import escape

SCHEMA_VERSION = 1


def summary(report: Report) -> dict:
    by_code: dict[str, int] = {}
    for f in report.findings:
        by_code[f.code] = by_code.get(f.code, 0) + 1
    return {
        "files": report.files,
        "resources": report.resources,
        "karpenter_resources": report.karpenter_resources,
        "nothing_checked": report.nothing_checked(),
        "findings": len(report.findings),
        "by_severity": report.counts(),
        "by_code": dict(sorted(by_code.items())),
        "fixable": sum(1 for f in report.findings if f.fix is not None),
        "fail_on": report.config.fail_on,
        "failed": report.failed(),
        "karpenter_version": str(report.config.karpenter_version),
        # where it came from: "default", "--karpenter-version", the configuration file, or the repository's
        # files (each version read from them, where, and how many files were checked against it)
        "karpenter_version_source": (escape.line(report.karpenter_versions[0][1]) if len(report.karpenter_versions) == 1
                                     else "repository" if report.karpenter_versions
                                     else report.config.karpenter_version_source),
        "karpenter_versions": [{"version": v, "source": escape.line(where), "files": k}
                               for v, where, k in report.karpenter_versions],
    }


def _finding(f) -> dict:
    item = f.to_json()
    # Untrusted text: a file name's non-UTF-8 bytes as visible escapes (the JSON stays valid UTF-8), control
    # characters likewise.
    item["file"] = escape.line(item["file"])
    item["message"] = escape.text(item["message"])
    item["help"] = [escape.text(x) for x in item["help"]]
    item["notes"] = [escape.text(x) for x in item["notes"]]
    return item


def render_json(report: Report) -> str:
    doc = {"version": SCHEMA_VERSION, "findings": [_finding(f) for f in report.findings], "summary": summary(report)}
    return dumps_indented(doc) + "\n"


def write_json(report: Report, out: TextIO) -> None:
    """`out.write(render_json(report))`, a few findings at a time: a large report is never held whole in memory."""
    out.write(f'{{\n  "version": {SCHEMA_VERSION},\n  "findings": ')
    if not report.findings:
        out.write("[]")
    else:
        pieces: list[str] = ["["]
        for i, f in enumerate(report.findings):
            pieces.append(",\n    " if i else "\n    ")
            item = _finding(f)
            try:
                _encode(item, "\n    ", pieces)
            except _Unusual:  # (JSON strings hold no raw line break: re-indenting the standard encoder's is safe)
                pieces.append(json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n    "))
            if len(pieces) > 4096:
                out.write(escape.json_text("".join(pieces)))
                pieces.clear()
        pieces.append("\n  ]")
        out.write(escape.json_text("".join(pieces)))
    out.write(',\n  "summary": ' + dumps_indented(summary(report)).replace("\n", "\n  ") + "\n}\n")


def dumps_indented(obj) -> str:
    """`json.dumps(obj, indent=2, ensure_ascii=False)`, byte for byte but for the characters a terminal acts on
    (\\u escapes: `escape.json_text`), about three times faster: with an indent the standard library falls back
    to its pure-Python encoder, which dominates a run whose findings are cached. Plain JSON data only (str keys;
    str, int, float, bool, None, list, tuple, dict values); anything else is left to `json.dumps`."""
    out: list[str] = []
    try:
        _encode(obj, "\n", out)
    except _Unusual:
        return escape.json_text(json.dumps(obj, indent=2, ensure_ascii=False))
    return escape.json_text("".join(out))


class _Unusual(Exception):
    pass


_encode_str = json.encoder.encode_basestring  # the C implementation when available
_float_repr = float.__repr__


def _encode(obj, newline: str, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(_encode_str(obj))
    elif obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        out.append(int.__repr__(obj))
    elif isinstance(obj, float):
        if obj != obj or obj in (float("inf"), float("-inf")):
            raise _Unusual
        out.append(_float_repr(obj))
    elif isinstance(obj, dict):
        if not all(isinstance(key, str) for key in obj):
            raise _Unusual
        _container(obj.items(), bool(obj), "{", "}", newline, out)
    elif isinstance(obj, (list, tuple)):
        _container(((None, value) for value in obj), bool(obj), "[", "]", newline, out)
    else:
        raise _Unusual


def _container(items, nonempty: bool, opening: str, closing: str, newline: str, out: list[str]) -> None:
    """A mapping ((key, value) items) or a sequence ((None, value) items), one item per indented line."""
    if not nonempty:
        out.append(opening + closing)
        return
    inner = newline + "  "
    out.append(opening)
    first = True
    for key, value in items:
        out.append(inner if first else "," + inner)
        first = False
        if key is not None:
            out.append(_encode_str(key))
            out.append(": ")
        _encode(value, inner, out)
    out.append(newline + closing)
