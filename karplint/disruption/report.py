"""A NodePool's disruption-budget timeline as plain data (what `karplint budgets --output-format json` prints, and
what the editor's hover summarises) and its hourly grid (`karplint.disruption.budgets` computes the timelines)."""

from __future__ import annotations

from datetime import datetime

from karplint.disruption.budgets import DAYS


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


def hourly_grid(report: dict, reason: str) -> list[str]:
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
