"""`karplint budgets PATH [--nodepool NAME] [--nodes N] [--week YYYY-MM-DD] [--output-format text|json]`: the
effective disruption budget of each NodePool, per reason, over a week (`karplint.disruption.budgets`)."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

from karplint.disruption.report import hourly_grid, nodepool_report
from karplint.model import Model
from karplint.wording import counted

WEEKS = (date(2, 1, 1), date(9998, 12, 31))  # --week: datetime's years 1-9999 less the week, and the look-back


def _pools(model: Model, name: str | None):
    return [np for np in model.nodepools() if np.version in ("v1", "v1beta1") and (name is None or np.name == name)]


# What one run reports, all NodePools together: JSON values (ten a segment, plus the budgets it lists; any one
# NodePool fits: a week has 10,080 minutes) and text table rows (slower to print). A NodePool whose timeline would
# pass what is left is reported as too large, not cut short.
MAX_JSON_ENTRIES = 2_000_000
MAX_ROWS = 12_000


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
        when = ("always" if b["schedule"] is None else "no schedule" if not b["schedule"]
                else f"after each `{b['schedule']}`, no duration" if b["error"] == "`schedule` without `duration`"
                else f"for {span} after each `{b['schedule']}`")
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
        for line in hourly_grid(report, reason):
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
