"""A `Report` read back from the JSON report (`karplint/report/json.py`), so that the other formats can be rendered
from one run's JSON (the GitHub Action: annotations, SARIF and the job summary from a single check).

What the JSON does not hold stays at its default: the sources, unless `base` names the directory the run's
file names are relative to (then code frames and SARIF fixes read the files there, as the run did), the configuration but for
`fail-on` (a severity set in the configuration is each finding's own, not its rule's default), and the selection,
which becomes the reported rules (a SARIF file lists those). Text read back is the JSON's, already escaped
(`escape`; escaping it again changes nothing): a file name's non-UTF-8 bytes come back as visible escapes. A
message's `help:` lines come back before its `note:` lines (the JSON holds them apart, not their order).
"""

from __future__ import annotations

from karplint.config import Config
from karplint.engine import Report
from karplint.findings import Edit, Finding, Fix
from karplint.readers.source import Span


class NotAReport(ValueError):
    """The document is not a karplint JSON report of a version this reader knows."""


def _message(item: dict) -> str:
    """The finding's message as rules write it (`split_message`): the headline, `help:` lines, `note:` lines."""
    lines = [item["message"]]
    lines += [f"help: {h}" for h in item.get("help") or ()]
    lines += [f"note: {n}" for n in item.get("notes") or ()]
    return "\n".join(lines)


def _fix(item: dict | None) -> Fix | None:
    if not item:
        return None
    edits = tuple(Edit(e["start"], e["end"], e["replacement"]) for e in item.get("edits") or ())
    return Fix(item["description"], item["applicability"], edits)


def _finding(item: dict) -> Finding:
    span = Span(item["line"], item["column"], item["end_line"], item["end_column"])
    return Finding(code=item["code"], slug=item["slug"], category=item["category"], severity=item["severity"],
                   message=_message(item), file=item["file"], span=span, resource=item.get("resource"),
                   fix=_fix(item.get("fix")))


def report_from_json(doc: dict, *, base: str | None = None) -> Report:
    """The `Report` a JSON report describes (raises NotAReport on anything else); `base`: the directory of the run
    the report came from, where its relative file names are."""
    import os

    from karplint.engine import Sources
    from karplint.readers.files import InputFile
    from karplint.report.json import SCHEMA_VERSION

    if not isinstance(doc, dict) or doc.get("version") != SCHEMA_VERSION or not isinstance(doc.get("findings"), list):
        raise NotAReport(f"not a karplint JSON report (version {SCHEMA_VERSION})")
    try:
        findings = [_finding(item) for item in doc["findings"]]
        summary = doc.get("summary") or {}
        # the rules' own default levels: a finding's severity is no clue to a configured one (rules such as
        # KPL206 report below their default)
        config = Config(select=sorted({f.code for f in findings}), fail_on=summary.get("fail_on", "warning"))
        sources = Sources()
        if base is not None:
            sources = Sources(InputFile(name, os.path.join(base, name)) for name in {f.file for f in findings}
                              if name != "-")
        return Report(findings=findings, files=int(summary.get("files", 0)),
                      resources=int(summary.get("resources", 0)), config=config, sources=sources)
    except (KeyError, TypeError, ValueError) as exc:
        raise NotAReport(f"not a karplint JSON report: {type(exc).__name__}: {exc}") from None
