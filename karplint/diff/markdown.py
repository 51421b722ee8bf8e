"""`karplint diff` as GitHub-flavoured Markdown: the job summary and the pull-request comment of the action, and
`karplint diff -f markdown`.

Input is the JSON document of karplint.diff.impact (schemas/diff.schema.json). Every string in it may come from
the repository under review (names, paths, values, problems) and is escaped so that it stays text: no HTML, no
link, no mention, no table cell or emphasis it did not ask for. The whole is bounded by `limit` characters
(GitHub refuses a comment over 65,536 characters and a step summary over 1 MiB): what does not fit is cut at a
line and counted.
"""

from __future__ import annotations

import json
import re

# ASCII punctuation that GitHub's Markdown may read (tables, emphasis, code, links, autolinks, emoji, math,
# mentions, issue references); a backslash makes each a literal. `<`, `>`, `&` become entities (raw HTML is
# allowed in a summary and a comment). The same set as the action's summary (action/summary.py).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~:@$])")
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}

MAX_TEXT = 1000  # characters of one sentence or reason
MAX_VALUE = 120  # characters of a before/after value
MAX_ITEMS = 20  # changes, reasons, problems listed per object
_VERDICT = {"all": "every node is replaced", "some": "some nodes are replaced", "none": "no node is replaced",
            "unknown": "drift could not be decided", "new": "new NodePool: no node runs yet",
            "removed": "removed NodePool: its nodes are deleted"}


def text(value: object, limit: int = MAX_TEXT) -> str:
    """`value` as inline Markdown text: one line, cut to `limit` characters, every Markdown and HTML character
    literal. Cut before escaping, so that an escape is never split."""
    s = " ".join(str(value).split())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    s = re.sub(r"[&<>]", lambda m: _ENTITY[m.group(0)], s)
    return _MARKDOWN.sub(r"\\\1", s)


def _value(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return text(json.dumps(value, ensure_ascii=False), MAX_VALUE)
    return text(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": ")), MAX_VALUE)


def _more(items: list, noun: str) -> list[str]:
    return [f"  - … and {len(items) - MAX_ITEMS} more {noun}"] if len(items) > MAX_ITEMS else []


def _reason(reason: dict) -> str:
    field = reason.get("field")
    where = f"{text(field)}: " if field else ""
    source = reason.get("source")
    cited = f" (source: {text(source, 200)})" if source else ""
    return f"  - {where}{text(reason.get('why', ''))}{cited}"


def _where(obj: dict) -> str:
    parts = []
    if obj.get("cluster"):
        parts.append(f"cluster {text(obj['cluster'], 200)}")
    if obj.get("file"):
        line = obj.get("line")
        parts.append(text(f"{obj['file']}:{line}" if isinstance(line, int) else obj["file"], 300))
    return f" ({', '.join(parts)})" if parts else ""


def _changes(changes: list[dict]) -> list[str]:
    if not changes:
        return []
    lines = [f"- Changed fields ({len(changes)}):"]
    for change in changes[:MAX_ITEMS]:
        lines.append(f"  - {text(change.get('path', ''), 300)}: {_value(change.get('before'))} → "
                     f"{_value(change.get('after'))}")
    return lines + _more(changes, "changes")


def _nodepool(pool: dict) -> list[str]:
    lines = ["", f"### NodePool {text(pool.get('name', ''), 253)}", "",
             f"{text(pool.get('status', ''))}{_where(pool)}"
             + (f"; EC2NodeClass {text(pool['nodeclass'], 253)}" if pool.get("nodeclass") else ""), ""]
    drift = pool.get("drift") or {}
    if drift:
        verdict = drift.get("verdict", "unknown")
        said = drift.get("summary") or _VERDICT.get(verdict, verdict)
        lines.append(f"- **Drift: {text(verdict)}**: {text(said)}")
        reasons = drift.get("reasons") or []
        lines += [_reason(r) for r in reasons[:MAX_ITEMS]] + _more(reasons, "reasons")
        safe = drift.get("not_drifting") or []
        if safe:
            lines.append("- Not drifting:")
            lines += [_reason(r) for r in safe[:MAX_ITEMS]] + _more(safe, "fields")
    rollout = pool.get("rollout")
    if rollout:
        if rollout.get("never"):
            said = "never: a budget of 0 nodes for Drifted is always active, the change does not roll out"
        else:
            said = rollout.get("summary") or rollout.get("pace") or ""
        lines.append(f"- **Rollout**: {text(said)}")
        details = [f"{k} {text(rollout[k], 200)}" for k in ("pace", "windows") if rollout.get(k)]
        if isinstance(rollout.get("nodes"), int):
            details.append(f"assuming {rollout['nodes']} nodes")
        budgets = rollout.get("budgets")
        if budgets:
            details.append("budgets " + ", ".join(f"{text(b)}" for b in budgets[:MAX_ITEMS]))
        if details:
            lines.append(f"  - {'; '.join(details)}")
    capacity = pool.get("capacity")
    if capacity:
        lines.append(f"- **Capacity**: {text(capacity.get('summary', ''))}")
        for key, noun in (("lost", "lost"), ("gained", "gained")):
            names = capacity.get(key) or []
            count = capacity.get(f"{key}_count", len(names))
            if names:
                shown = ", ".join(text(n, 100) for n in names[:MAX_ITEMS])
                rest = f" and {count - len(names[:MAX_ITEMS])} more" if count > len(names[:MAX_ITEMS]) else ""
                lines.append(f"  - instance types {noun}: {shown}{rest}")
        workloads = capacity.get("workloads") or {}
        for key, said in (("unschedulable", "no longer schedulable"), ("schedulable", "newly schedulable")):
            items = workloads.get(key) or []
            for w in items[:MAX_ITEMS]:
                lines.append(f"  - {said}: {text(w.get('workload', ''), 300)}"
                             + (f" ({text(w['file'], 300)}:{int(w.get('line') or 0)})" if w.get("file") else "")
                             + (f": {text(w['why'])}" if w.get("why") else ""))
            lines += _more(items, "workloads")
        limits = capacity.get("limits")
        if limits:
            lines.append(f"  - limits: {_value(limits.get('before'))} → {_value(limits.get('after'))}")
    behaviour = pool.get("behaviour") or []
    if behaviour:
        lines.append("- **Behaviour**:")
        for b in behaviour[:MAX_ITEMS]:
            source = f" (source: {text(b['source'], 200)})" if b.get("source") else ""
            lines.append(f"  - {text(b.get('field', ''), 300)}: {_value(b.get('before'))} → "
                         f"{_value(b.get('after'))}: {text(b.get('meaning', ''))}{source}")
        lines += _more(behaviour, "changes")
    return lines + _changes(pool.get("changes") or [])


def _nodeclass(nc: dict) -> list[str]:
    used = nc.get("used_by") or []
    used_by = ("; used by NodePool" + ("s " if len(used) > 1 else " ")
               + ", ".join(text(u, 253) for u in used[:MAX_ITEMS])
               + (f" and {len(used) - MAX_ITEMS} more" if len(used) > MAX_ITEMS else "")) if used else ""
    lines = ["", f"### EC2NodeClass {text(nc.get('name', ''), 253)}", "",
             f"{text(nc.get('status', ''))}{_where(nc)}{used_by}", ""]
    reasons = nc.get("reasons") or []
    drifting = [r for r in reasons if r.get("drifts") != "none"]
    safe = [r for r in reasons if r.get("drifts") == "none"]
    if drifting:
        lines.append("- **Drifts** the nodes of the pools using it:")
        lines += [_reason(r) for r in drifting[:MAX_ITEMS]] + _more(drifting, "reasons")
    if safe:
        lines.append("- Not drifting:")
        lines += [_reason(r) for r in safe[:MAX_ITEMS]] + _more(safe, "fields")
    return lines + _changes(nc.get("changes") or [])


def _side(side: dict) -> str:
    release = f" (Karpenter {text(side['release'], 50)})" if side.get("release") else ""
    return f"{text(side.get('label', ''), 300)}{release}"


def has_impact(doc: dict) -> bool:
    """Whether the change touches any NodePool or EC2NodeClass (else the comment is not worth creating)."""
    return bool(doc.get("nodepools") or doc.get("nodeclasses"))


def render_markdown(doc: dict, *, limit: int = 65000) -> str:
    """The impact document as Markdown, at most `limit` characters (the last line then says what was left out)."""
    summary = doc.get("summary") or ["Merging this changes no NodePool or EC2NodeClass."]
    lines = ["## karplint diff", "", f"**{text(summary[0])}**"]
    if summary[1:]:
        lines += [""] + [f"- {text(s)}" for s in summary[1:MAX_ITEMS + 1]]
    base, head = doc.get("base") or {}, doc.get("head") or {}
    lines += ["", f"Base: {_side(base)}; head: {_side(head)}"
              + (f"; {int(doc['nodes_assumed'])} nodes per NodePool assumed"
                 if isinstance(doc.get("nodes_assumed"), int) else "") + "."]
    for pool in doc.get("nodepools") or []:
        lines += _nodepool(pool)
    for nc in doc.get("nodeclasses") or []:
        lines += _nodeclass(nc)
    problems = doc.get("problems") or []
    if problems:
        lines += ["", f"### Problems ({len(problems)})", "",
                  "These files could not be read on one side; the impact above leaves them out.", ""]
        lines += [f"- {text(p, 500)}" for p in problems[:MAX_ITEMS]]
        if len(problems) > MAX_ITEMS:
            lines.append(f"- … and {len(problems) - MAX_ITEMS} more problems")
    return _bounded(lines, limit)


def _bounded(lines: list[str], limit: int) -> str:
    out = "\n".join(lines) + "\n"
    if len(out) <= limit:
        return out
    kept, size = [], 0
    reserve = 200  # the closing line
    for line in lines:
        if size + len(line) + 1 > limit - reserve:
            break
        kept.append(line)
        size += len(line) + 1
    left = len(lines) - len(kept)
    note = (f"\n… {left:,} more lines ({len(out) - size:,} characters) left out to stay within {limit:,} "
            "characters: `karplint diff` prints the whole impact.\n")
    return "\n".join(kept) + "\n" + note
