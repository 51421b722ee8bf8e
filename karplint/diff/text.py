"""The terminal rendering of `karplint diff`'s document: the summary, then one block per NodePool (what changed,
whether its nodes drift and why, the rollout, capacity and behaviour), then the EC2NodeClasses and the problems.
Everything taken from the checked trees goes through `karplint.report.escape`."""

from __future__ import annotations

import json

from karplint.report import escape

VERDICT = {"all": "every node is replaced", "some": "some nodes are replaced", "none": "no node is replaced",
           "unknown": "nodes may be replaced", "new": "new NodePool", "removed": "removed: its nodes are deleted"}
STYLE = {"all": "bold red", "some": "yellow", "unknown": "yellow", "none": "green", "new": "cyan", "removed": "red"}
SHOWN_CHANGES = 12
SHOWN_PROBLEMS = 10


def render_text(doc: dict, console) -> None:
    p = console.print
    p(f"karplint diff: {doc['base']['label']} -> {doc['head']['label']}"
      + _releases(doc))
    p("")
    for i, sentence in enumerate(doc["summary"]):
        p(sentence, style="bold" if i == 0 else None)
    for pool in doc["nodepools"]:
        p("")
        _pool(pool, console)
    for nc in doc["nodeclasses"]:
        p("")
        p(f"EC2NodeClass {nc['name']} ({nc['status']}) {escape.line(nc['file'])}:{nc['line']}", style="bold")
        _changes(nc["changes"], console)
        p(f"  used by: {', '.join(nc['used_by'])}" if nc.get("used_by") else "  used by: no NodePool of these files")
        for r in nc.get("reasons", []):
            if r["drifts"] != "none" and not nc.get("used_by"):
                p(f"    - {r['field'] or r['object']}: {r['why']}")
    if doc["problems"]:
        p("")
        p("problems reading the files:")
        for problem in doc["problems"][:SHOWN_PROBLEMS]:
            p(f"  {escape.name(problem)}")
        if len(doc["problems"]) > SHOWN_PROBLEMS:
            p(f"  ... and {len(doc['problems']) - SHOWN_PROBLEMS} more (--output-format json lists them; "
              "`karplint check` reports them on their lines)")


def _releases(doc: dict) -> str:
    b, h = doc["base"]["release"], doc["head"]["release"]
    assumed = " assumed: no release pinned" if doc["base"]["release_assumed"] and doc["head"]["release_assumed"] else ""
    return f" (Karpenter {b}{assumed})" if b == h else f" (Karpenter {b} -> {h})"


def _pool(pool: dict, console) -> None:
    p = console.print
    where = f"{escape.line(pool['file'])}:{pool['line']}"
    cluster = f" (cluster {pool['cluster']})" if pool.get("cluster") else ""
    p(f"NodePool {pool['name']}{cluster} ({pool['status'].replace('_', ' ')}) {where}", style="bold")
    _changes(pool.get("changes") or [], console)
    drift = pool["drift"]
    verdict = drift["verdict"]
    style = STYLE.get(verdict, "")
    p(f"  drift: {drift.get('summary') or VERDICT.get(verdict, verdict)}", style=style or None)
    for r in drift.get("reasons", []):
        field = f"{r['object']} {r['field']}" if r.get("field") else r["object"]
        p(f"    - {field}: {r['why']}")
        p(f"      ({r['source']})", style="dim")
    quiet = [r for r in drift.get("not_drifting", []) if r.get("field")]
    if quiet:
        fields = ", ".join(dict.fromkeys(r["field"] for r in quiet))
        p(f"    not drifting: {fields}")
    ro = pool.get("rollout")
    if ro:
        detailed = ro.get("pace") and ro.get("windows") and not ro.get("never") and ro.get("pace") != "unknown"
        p(f"  rollout: {ro['pace']}; windows: {ro['windows']}" if detailed else f"  rollout: {ro.get('summary', '')}")
        for note in ro.get("notes", []):
            p(f"    ({note})", style="dim")
    cap = pool.get("capacity")
    if cap and cap.get("summary"):
        p(f"  capacity: {cap['summary']}")
        for w in (cap.get("workloads") or {}).get("unschedulable", []):
            p(f"    - no longer schedulable: {w['workload']} ({w['file']}:{w['line']}): {w['why']}")
        for w in (cap.get("workloads") or {}).get("schedulable", []):
            p(f"    - newly schedulable: {w['workload']} ({w['file']}:{w['line']})")
    for b in pool.get("behaviour") or []:
        p(f"  behaviour: {b['field']} {_value(b.get('before'))} -> {_value(b.get('after'))}: {b['meaning']}")


def _changes(changes: list[dict], console) -> None:
    for c in changes[:SHOWN_CHANGES]:
        line = f"  (line {c['line']})" if c.get("line") else ""
        console.print(f"  {c['path']}: {_value(c['before'])} -> {_value(c['after'])}{line}")
    if len(changes) > SHOWN_CHANGES:
        console.print(f"  ... and {len(changes) - SHOWN_CHANGES} more changes (--output-format json lists them)")


def _value(value) -> str:
    if value is None:
        return "(unset)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    if len(text) > 60:
        text = text[:57] + "..."
    return escape.text(text)
