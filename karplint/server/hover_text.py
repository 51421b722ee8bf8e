"""The Markdown of the editor's hovers (karplint/server/hover.py finds what is under the cursor): a rule's
documentation, a NodePool's simulation, a disruption budget's week, an EC2NodeClass's rendered userData.

Everything from the checked tree (names, values, userData) is untrusted: it goes into inline code or fenced blocks
whose backtick runs are longer than any in the text, with control characters shown as escapes
(`karplint.report.escape`), so that a value can neither close its block nor format the rest of the hover.
"""

from __future__ import annotations

from karplint.report import escape
from karplint.wording import counted

SHOWN_NAMES = 12  # families, sizes, labels listed before "+N"
SHOWN_ROWS = 12  # rows of a budget's timeline table
USER_DATA_LINES = 60  # lines of rendered userData shown; `karplint render` shows all
LINE_CHARS = 300  # characters of one line of userData or argv shown


def code(value: object) -> str:
    """`value` as inline code: a backtick run longer than any inside it, spaces where it starts or ends with one."""
    s = escape.line(str(value))
    run = longest_run(s, "`")
    fence = "`" * (run + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def block(text: str, lang: str = "") -> str:
    """`text` as a fenced block no line of it can close."""
    fence = "`" * max(3, longest_run(text, "`") + 1)
    return f"{fence}{lang}\n{escape.text(text)}\n{fence}"


def longest_run(s: str, ch: str) -> int:
    best = cur = 0
    for c in s:
        cur = cur + 1 if c == ch else 0
        best = max(best, cur)
    return best


def _names(items: list[str], n: int = SHOWN_NAMES) -> str:
    if not items:
        return "-"
    return ", ".join(code(i) for i in items[:n]) + (f" +{len(items) - n}" if len(items) > n else "")


def _cell(text: str) -> str:
    """A table cell: a `|` (in a configured instance type's label, say) would end it."""
    return text.replace("|", "\\|")


def _range(pair) -> str:
    return "-" if not pair else (code(pair[0]) if pair[0] == pair[1] else f"{code(pair[0])} - {code(pair[1])}")


# ---------------------------------------------------------------------------------------------- rule codes

def rule(code_text: str) -> str | None:
    """A rule's header (slug, category, severity, fix), summary, "Why it breaks" and "Fix" (`rules/KPLnnn.md`)."""
    from karplint.docs import rule_doc
    from karplint.rules import get_rule

    doc = rule_doc(code_text)
    r = get_rule(code_text)
    if doc is None and r is None:
        return None
    slug = r.slug if r is not None else doc.slug
    parts = [f"**{code_text}** ({slug})" + (f": {r.category}, default severity {r.severity}"
                                            + (f", {r.fix} fix" if r.fix else "") if r is not None else "")]
    parts.append(doc.summary if doc is not None and doc.summary else (r.summary if r is not None else ""))
    for section in ("Why it breaks", "Fix"):
        body = doc.sections.get(section) if doc is not None else None
        if body:
            parts.append(f"**{section}**\n\n{body}")
    parts.append(f"`karplint explain {code_text}` shows the examples.")
    return "\n\n".join(p for p in parts if p)


# ---------------------------------------------------------------------------------------------- NodePools

def cannot_simulate(np, why: str) -> str:
    return f"**NodePool {code(np.name or '?')}**: not simulated: {escape.line(why)}."


def simulation(report: dict, sim, catalog) -> str:
    """What `karplint simulate` says of one NodePool (`report`: `provisioning.simulate.pool_report`)."""
    name = f"**NodePool {code(report['name'])}**"
    src = catalog.source
    catalog_text = (f"{len(catalog.types):,} instance types of the catalog ({escape.line(str(src.get('version')))}"
                    + (", extended by the configuration" if src.get("extended") else "") + ")")
    if "unknown" in report:
        return f"{name}: cannot tell which instance types it launches: {escape.line(report['unknown'])}."
    n = report["instance_types"]
    lines = [f"{name} can launch **{n:,}** of the {catalog_text}." if n else
             f"{name} can launch **no** instance type of the {catalog_text}: Karpenter skips it "
             "(\"nodepool requirements filtered out all instance types\")."]
    if report.get("emptied_by"):
        ex = report["example"]
        why = "emptied by " + ", ".join(code(k) for k in report["emptied_by"])
        if ex.get("instance_type"):
            why += (f"; {code(ex['instance_type'])} passes without "
                    + ", ".join(code(k) for k in ex["passes_without"]))
        lines.append(f"- {why}")
    for key, mv in (report.get("min_values_short") or {}).items():
        lines.append(f"- minValues {mv['min_values']} on {code(key)}: only {counted(mv['distinct'], 'distinct value')}")
    if n:
        rows = [("families", _names(report["families"])), ("sizes", _names(report["sizes"])),
                ("cpu", _range(report["cpu"])), ("memory", _range(report["memory"])),
                ("architectures", _names(report["arch"])), ("capacity types", _names(report["capacity_types"]))]
        zones = _zones(sim)
        if zones:
            rows.append(("zones", zones))
        lines.append("\n| | |\n|---|---|\n" + "\n".join(f"| {k} | {_cell(v)} |" for k, v in rows))
    ref = sim.nodepool.get(("spec", "template", "spec", "nodeClassRef", "name"))
    if sim.facts.name is not None:
        family = report.get("ami_family")
        lines.append(f"\nEC2NodeClass {code(sim.facts.name)}" + (f" ({code(family)})" if family else ""))
    elif ref is not None:
        lines.append(f"\nEC2NodeClass {code(ref)}: not in the project (or several of that name): nothing it "
                     "restricts (AMI family, capacity reservations) is applied.")
    lines.append("\n`karplint simulate` shows the workloads it can host.")
    return "\n".join(lines)


def _zones(sim) -> str | None:
    """Zones come from the account's subnets, unknown offline: only what the requirements say of them."""
    for key in ("topology.kubernetes.io/zone", "topology.k8s.aws/zone-id"):
        if not sim.requirements.has(key):
            continue
        r = sim.requirements.get(key)
        if not r.complement:
            return _names(sorted(r.values)) + " (from its requirements)"
        if r.values:
            return "any but " + _names(sorted(r.values)) + " (from its requirements)"
    return None


# ---------------------------------------------------------------------------------------------- budgets

def budget(np, index: int) -> str | None:
    """One budget of a NodePool: when in the week it is active, and the NodePool's effective limit (all budgets
    together) per reason, as `karplint budgets` computes them (the reference week, UTC)."""
    from karplint.disruption.budgets import REFERENCE_WEEK, WEEK, active_intervals, hours, read_budgets, span
    from karplint.disruption.report import hourly_grid, nodepool_report

    report = nodepool_report(np, start=REFERENCE_WEEK, nodes=None)
    b = next((b for b in read_budgets(np.get(("spec", "disruption")), v1=np.version == "v1") if b.index == index),
             None)
    if b is None:
        return None
    reasons = "every reason" if b.reasons is None else (", ".join(code(r) for r in b.reasons) or "no reason")
    when = "always" if b.always else f"for {hours(b.duration or 0)} after each {code(b.schedule_text)} (UTC)"
    out = [f"**NodePool {code(np.name or '?')}, budgets[{index}]**: nodes {code(b.nodes)}, {reasons}, {when}"]
    if report.get("note"):
        out.append(f"\nnote: {escape.line(report['note'])}")
    if b.error:
        out.append(f"\n{escape.line(b.error)}: Karpenter fails closed, no node of this NodePool is disrupted "
                   "by any reason at any time.")
    elif not b.always:
        windows = active_intervals(b, REFERENCE_WEEK, WEEK)
        total = sum(hi - lo for lo, hi in windows)
        shown = ", ".join(span(lo, hi) for lo, hi in windows[:SHOWN_ROWS])
        more = f" and {len(windows) - SHOWN_ROWS} more" if len(windows) > SHOWN_ROWS else ""
        out.append(f"\nActive {hours(total)} of 168h: {shown or 'never'}{more}.")
    week = f"the week of {report['week_start'][:10]}, UTC"
    if not report["weekly"]:
        week += "; a schedule depends on the day of month or month: other weeks differ"
    groups: dict[tuple, list[str]] = {}  # reasons with the same timeline are shown once
    for reason, data in report["reasons"].items():
        rows = tuple(_merged(data["segments"]))
        groups.setdefault(rows, []).append(reason)
    for rows, reasons_of in groups.items():
        label = "every reason" if len(reasons_of) == len(report["reasons"]) and len(reasons_of) > 1 else \
            ", ".join(reasons_of)
        label = "every disruption method" if label == "all" else label
        table = "\n".join(f"| {a} | {z} | {_cell(escape.line(limit))} |" for a, z, limit in rows[:SHOWN_ROWS])
        more = f"\n\n... and {len(rows) - SHOWN_ROWS} more rows (`karplint budgets` shows all)" \
            if len(rows) > SHOWN_ROWS else ""
        grid = hourly_grid(report, reasons_of[0])
        out.append(f"\n**The NodePool's limit for {label}** ({week}):\n\n| from | to | nodes |\n|---|---|---|\n"
                   f"{table}{more}\n\n" + block("\n".join(grid) + "\n(hourly: . unlimited, # limited, 0 blocked, "
                                                                  "~ changes within the hour)"))
    return "\n".join(out)


def _merged(segments: list[dict]) -> list[tuple[str, str, str]]:
    """Consecutive segments of the same limit joined, as `karplint budgets` prints its table."""
    merged: list[list] = []
    for s in segments:
        if merged and merged[-1][2] == s["limit"]:
            merged[-1][1] = s["end"]
        else:
            merged.append([s["start"], s["end"], s["limit"]])
    return [tuple(m) for m in merged]


# ---------------------------------------------------------------------------------------------- userData

def rendered(node, more_pools: list[str], version) -> str:
    """What `karplint render` shows of one (EC2NodeClass, NodePool) pair, the userData trimmed."""
    nc, np = node.nodeclass, node.nodepool
    title = f"**EC2NodeClass {code(nc.name or '?')}** ({escape.line(node.family or 'unknown family')})"
    if np is not None:
        title += f" with NodePool {code(np.name or '?')}"
    out = [title + (f", Karpenter {escape.line(str(version))}" if version is not None else "")
           + ": what the node runs"]
    out.extend(f"- note: {escape.line(n)}" for n in node.notes)
    merged = node.merged
    if merged.text is not None:
        lines = merged.text.rstrip("\n").split("\n")
        shown = [ln if len(ln) <= LINE_CHARS else ln[:LINE_CHARS] + " ..." for ln in lines[:USER_DATA_LINES]]
        more = (f"\n... and {len(lines) - USER_DATA_LINES:,} more lines (`karplint render` shows all)"
                if len(lines) > USER_DATA_LINES else "")
        out.append("\n**userData Karpenter renders:**\n\n" + block("\n".join(shown)) + more)
    elif merged.error or merged.too_large:
        out.append(f"\nuserData: {escape.line(merged.error or merged.too_large)}")
    if node.kubelet_argv is not None:
        argv = [w if len(w) <= LINE_CHARS else w[:LINE_CHARS] + " ..." for w in node.kubelet_argv]
        out.append("\n**kubelet argv:**\n\n" + block("\n".join(argv)))
    if node.kubelet_config:
        import json

        out.append("\n**kubelet configuration set through userData:** "
                   + ", ".join(f"{code(k)}: {code(json.dumps(node.kubelet_config[k]))}"
                               for k in sorted(node.kubelet_config)[:SHOWN_NAMES]))
    if node.taints is not None:
        out.append("\n**registers with taints:** " + (_names([str(t) for t in node.taints]) if node.taints else "none"))
    if node.labels is not None:
        out.append("\n**registers with labels:** " + (
            _names([f"{k}={node.labels[k]}" for k in sorted(node.labels)]) if node.labels else "none"))
    if more_pools:
        out.append(f"\nAlso used by NodePool {_names(more_pools)}: `karplint render --nodepool NAME` renders each.")
    return "\n".join(out)
