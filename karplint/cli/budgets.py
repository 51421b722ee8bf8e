"""`karplint budgets PATH [--nodepool NAME] [--nodes N] [--week YYYY-MM-DD] [--output-format text|json]`: the
effective disruption budget of each NodePool, per reason, over a week (`karplint.disruption.budgets`)."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

from karplint.model import Model
from karplint.wording import counted

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKS = (date(2, 1, 1), date(9998, 12, 31))  # --week: datetime's years 1-9999 less the week, and the look-back


def _pools(model: Model, name: str | None):
    return [np for np in model.nodepools() if np.version in ("v1", "v1beta1") and (name is None or np.name == name)]


# What one run reports, all NodePools together: JSON values (ten a segment, plus the budgets it lists; any one
# NodePool fits: a week has 10,080 minutes) and text table rows (slower to print). A NodePool whose timeline would
# pass what is left is reported as too large, not cut short.
MAX_JSON_ENTRIES = 2_000_000
MAX_ROWS = 12_000


def nodepool_report(np, *, start: datetime, nodes: int | None, allowance: list[int] | None = None) -> dict:
    """The JSON-ready timeline of one NodePool. `allowance`: [what the run may still report, of, JSON?], decreased;
    past it the report says "too_large" and holds no timeline."""
    from karplint.disruption.budgets import MAX_BUDGETS, WEEK, clock, read_budgets, timelines

    v1 = np.version == "v1"
    disruption = np.get(("spec", "disruption"))
    budgets = read_budgets(disruption, v1=v1)
    lines = timelines(budgets, v1=v1, start=start)
    where = {"nodepool": np.name, "file": np.doc.source.path if np.doc.source else None,
             "line": np.doc.start.line if np.doc.start else 1, "api_version": np.api_version}
    if allowance is not None:  # [left, of, JSON: count the budgets each segment lists]
        size = sum(len(tl.segments) + (sum(9 + len(s.active) for s in tl.segments) if allowance[2] else 0)
                   for tl in lines.values())
        if size > allowance[0]:
            hint = "--nodepool NAME shows it alone" if size <= allowance[1] else "--output-format json shows it"
            return {**where, "too_large": f"too large: {size:,} {'entries' if allowance[2] else 'rows'}, over the "
                                          f"{allowance[0]:,} this run may still report (of {allowance[1]:,}); "
                                          f"not shown ({hint})"}
        allowance[0] -= size
    out = {
        **where,
        "week_start": start.strftime("%Y-%m-%dT%H:%MZ"),
        "minutes": WEEK,
        "weekly": all(t.weekly for t in lines.values()),
        **({"note": f"{len(budgets)} budgets: only the first {MAX_BUDGETS} are simulated; the CRD allows at most "
                    f"{MAX_BUDGETS}, so the API server rejects this NodePool"} if len(budgets) > MAX_BUDGETS else {}),
        "budgets": [{"index": b.index, "nodes": b.nodes, "reasons": list(b.reasons) if b.reasons is not None else None,
                     "schedule": b.schedule_text, "duration_minutes": b.duration, "error": b.error}
                    for b in budgets],
        "reasons": {},
    }
    for reason, tl in lines.items():
        out["reasons"][reason] = {
            "unlimited_minutes": tl.unlimited_minutes(),
            "segments": [{"start": clock(s.start, start), "end": clock(s.end, start) if s.end < WEEK else "Sun 24:00", "start_minute": s.start,
                          "end_minute": s.end, "limit": s.limit(), "budgets": [b.index for b in s.active],
                          **({"allowed": s.allowed(nodes)} if nodes is not None else {})}
                         for s in tl.segments],
        }
    return out


def _grid(report: dict, reason: str) -> list[str]:
    """Seven lines of 24 hourly cells: `.` unlimited, `0` blocked, `#` limited, `~` mixed within the hour."""
    segs = report["reasons"][reason]["segments"]
    kinds: list[set] = [set() for _ in range(7 * 24)]
    for s in segs:  # (each segment marks the hours it overlaps: linear in segments plus hours)
        lim = s["limit"]
        kind = "." if lim == "unlimited" else "0" if lim.startswith("0") else "#"
        for hour in range(s["start_minute"] // 60, min(7 * 24, (s["end_minute"] + 59) // 60)):
            kinds[hour].add(kind)
    return [f"{DAYS[d]} " + "".join(k.pop() if len(k) == 1 else "~" for k in kinds[d * 24:d * 24 + 24])
            for d in range(7)]


def print_report(report: dict, console, nodes: int | None) -> None:
    from rich.rule import Rule
    from rich.table import Table
    from rich.text import Text

    from karplint.report import escape

    def _t(text: str, style: str | None = None) -> Text:  # names and values come from the checked tree
        return Text(escape.name(str(text)), style=style or "")

    console.print(Rule(_t(f"NodePool/{report['nodepool'] or '<unnamed>'} ({report['api_version']})", style="bold")))
    console.print(_t(f"{report['file']}:{report['line']}", style="dim"))
    if "too_large" in report:
        console.print(_t(report["too_large"], style="yellow"))
        console.print()
        return
    if "note" in report:
        console.print(_t("note: " + report["note"], style="yellow"))
    week = "the week of " + report["week_start"][:10] + " (UTC)"
    if not report["weekly"]:
        week += "; a schedule depends on the day of month or month: other weeks differ"
    console.print(_t(week, style="dim"))
    for b in report["budgets"]:
        d = b["duration_minutes"] or 0
        span = (f"{d // 60}h" if d >= 60 else "") + (f"{d % 60}m" if d % 60 or not d else "")
        when = "always" if b["schedule"] is None else f"for {span} after each `{b['schedule']}`"
        which = "all reasons" if b["reasons"] is None else ", ".join(b["reasons"]) or "no reason"
        idx = "default" if b["index"] is None else f"budgets[{b['index']}]"
        console.print(_t(f"  {idx}: nodes {b['nodes']} - {which} - {when}" + (f" - error: {b['error']}" if b["error"]
                                                                               else "")))
    for reason, data in report["reasons"].items():
        table = Table(title=_t(f"{'all methods' if reason == 'all' else reason}: unlimited "
                               f"{data['unlimited_minutes'] // 60}h{data['unlimited_minutes'] % 60:02d}m of 168h"),
                      title_justify="left", show_edge=False)
        table.add_column("from (UTC)")
        table.add_column("to")
        table.add_column("limit")
        if nodes is not None:
            table.add_column(f"nodes of {nodes}")
        merged: list[list] = []
        for s in data["segments"]:
            if merged and merged[-1][2] == s["limit"]:
                merged[-1][1] = s["end"]
            else:
                merged.append([s["start"], s["end"], s["limit"], s.get("allowed")])
        for start, end, limit, allowed in merged:
            row = [_t(start), _t(end), _t(limit, style="red" if limit == "unlimited" else None)]
            if nodes is not None:
                row.append(_t("unlimited" if allowed is None else str(allowed)))
            table.add_row(*row)
        console.print(table)
        for line in _grid(report, reason):
            console.print(_t("    " + line))
    console.print(_t("    (hourly: . unlimited, # limited, 0 blocked, ~ changes within the hour)", style="dim"))
    console.print()


def budgets_command(paths: list[str], *, nodepool: str | None = None, nodes: int | None = None,
                    week: str | None = None, output_format: str = "text", console=None) -> int:
    """Load `paths` (files, directories, `-` for stdin) and print the timelines; returns the exit code."""
    import sys

    from karplint.cli.inputs import load_model
    from karplint.disruption.budgets import REFERENCE_WEEK
    from karplint.report import escape

    err = escape.console(stderr=True, soft_wrap=True)  # (an error message is one line, never wrapped)
    start = REFERENCE_WEEK
    if week:
        try:
            day = datetime.strptime(week, "%Y-%m-%d")
        except ValueError:
            err.print(f"karplint budgets: --week: {escape.name(week)!r} is not a date (YYYY-MM-DD)", markup=False)
            return 2
        if not WEEKS[0] <= day.date() <= WEEKS[1]:  # (the timeline looks back before and past the week's end)
            err.print(f"karplint budgets: --week: {week} is outside the dates shown, {WEEKS[0]} to {WEEKS[1]}",
                      markup=False)
            return 2
        start = day - timedelta(days=day.weekday())  # the Monday of that week, 00:00 UTC
    loaded = load_model(paths, err, "budgets")
    if loaded is None:
        return 2
    pools = [np for np in _pools(loaded.model, nodepool) if loaded.shows(np)]  # (context: read, not shown)
    if not pools:
        err.print("karplint budgets: no NodePool" + (f" named {escape.name(nodepool)!r}" if nodepool else "")
                  + " found", markup=False)
        return 1
    json_out = output_format == "json"
    allowance = [*[MAX_JSON_ENTRIES if json_out else MAX_ROWS] * 2, json_out]
    reports = [nodepool_report(np, start=start, nodes=nodes, allowance=allowance) for np in pools]
    too_large = sum("too_large" in r for r in reports)
    if output_format == "json":
        sys.stdout.write(json.dumps({"nodepools": reports}, indent=2) + "\n")
    else:
        console = console or escape.console(soft_wrap=True)
        for r in reports:
            print_report(r, console, nodes)
    if too_large:
        err.print(f"karplint budgets: {counted(too_large, 'NodePool')} too large to show in one run; not shown (KPL004)",
                  markup=False)
        return 1
    return 0
