"""`karplint simulate PATH`: what Karpenter would do with the configuration, offline.

Per NodePool: how many instance types of the catalog it can launch (families, sizes, cpu and memory range,
architectures, capacity types) or why none; per workload: which NodePools can host one of its pods, or why none
can, closest miss first (the first ten, and how many NodePools of each verdict). What the simulation's budgets
left out is printed last ("not simulated"). Rich tables on a terminal, plain lines in a pipe, JSON with
`--output-format json`. Everything printed from the checked tree goes through `karplint.report.escape`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from karplint.report import escape
from karplint.wording import counted


class SimulateError(Exception):
    pass


def _model(paths: list[str], config):
    """The project's documents as `check` sees the cluster (documentation examples left out; the project's other
    files as context), and the named files' problems: a file that cannot be read or parsed is named, never
    silently missing from the simulation."""
    from karplint.engine.load import load
    from karplint.config import ConfigError
    from karplint.discover import MissingPath

    try:
        return load(paths or ["."], config, cluster_state=True)
    except MissingPath as exc:  # (as `check` says it)
        raise SimulateError(f"{exc.args[0]}: no such file or directory") from exc
    except ConfigError as exc:
        raise SimulateError(str(exc)) from exc


def _catalog(instance_types: str | None, config_types: dict | None, mode: str | None = None):
    """The catalog of the run: the bundled one plus the configuration's and the file's types (`mode` "add", the
    default), or those types alone ("replace"; `mode` None: the configuration's `instance-types-mode`)."""
    from karplint.provisioning.catalog import ExtraTypesError, extend, finish, start

    try:
        cat = start(mode)
        if config_types:
            cat = extend(cat, config_types)
        if instance_types:
            with open(instance_types, "rb") as fh:
                raw = fh.read(50 * 1024 * 1024 + 1)
            if len(raw) > 50 * 1024 * 1024:
                raise SimulateError(f"{instance_types}: larger than 50 MiB")
            data = _json(instance_types, raw)
            try:
                cat = extend(cat, data)
            except ExtraTypesError as exc:  # named on its line of the file
                from karplint.config_values import line_of

                line = line_of(raw.decode("utf-8"), exc.key) if exc.key else None
                raise SimulateError(f"{instance_types}{f':{line}' if line else ''}: {exc}") from exc
        if mode == "replace":
            cat = finish(cat)
    except ExtraTypesError as exc:
        raise SimulateError(f"{instance_types or 'configuration'}: {exc}") from exc
    except OSError as exc:
        raise SimulateError(f"{instance_types}: {exc.strerror or exc}") from exc
    return cat


def _json(path: str, raw: bytes):
    """The JSON of `--instance-types`, nesting bounded before json.loads recurses (as YAML's, in the loader)."""
    from karplint.readers.loader import MAX_DEPTH, syntax_depth_over

    from karplint.numbers import integer

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SimulateError(f"{path}: not JSON (not UTF-8 at byte {exc.start})") from exc
    deep = syntax_depth_over(text, MAX_DEPTH)
    if deep is not None:
        raise SimulateError(f"{path}:{text.count(chr(10), 0, deep) + 1}: JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_int=integer)
    except ValueError as exc:
        raise SimulateError(f"{path}: not JSON ({exc})") from exc


def run_simulation(paths: list[str], instance_types: str | None = None, config=None,
                   instance_types_mode: str | None = None) -> dict[str, Any]:
    """The simulation as plain data (what `--output-format json` prints)."""
    from karplint.provisioning.simulate import pool_report, simulate
    from karplint.rules._simulation import nodeclass_facts_resolver

    loaded = _model(paths, config)
    model, problems = loaded.model, loaded.problems
    options = loaded.project.config.options or {}
    catalog = _catalog(instance_types, options.get("instance-types"),
                       instance_types_mode or options.get("instance-types-mode") or "add")
    facts_for = nodeclass_facts_resolver(model)

    # Every NodePool of the project is simulated (a named workload is judged on the NodePools of its scope in the
    # project, `karplint.provisioning.scope`, as KPL910 judges it), and only the named files' workloads: only they
    # are shown, and the context's workloads times the context's NodePools is most of the work in a large repository.
    from karplint.project.clusters import cluster_resolver

    run = simulate(model, catalog, facts_for, only=lambda pod: loaded.shows(pod.res),
                   cluster=cluster_resolver(loaded.project.config))
    not_simulated = [{"file": str(o.resource.doc.path), "line": o.resource.doc.span(o.path).line,
                      "message": o.message} for o in run.omitted if loaded.shows(o.resource)]
    pools = [pool_report(sim) for sim in run.pools if loaded.shows(sim.nodepool)]
    workloads = []
    for w in (w for w in run.workloads if loaded.shows(w.pod.res)):
        res = w.pod.res
        workloads.append({
            "kind": res.kind, "name": res.name, "namespace": res.namespace, "file": str(res.doc.path),
            "hostable": w.hostable,
            "requests": {k: str(v) for k, v in sorted((w.pod.requests or {}).items())} if w.pod.requests else None,
            "nodepools": [{"nodepool": v.pool, "ok": v.ok, "reason": v.reason or None,
                           "instance_types": len(v.types)} for v in w.verdicts],
            # (`nodepools` lists the first SHOWN_VERDICTS: those that can host it, then the closest misses)
            "nodepool_counts": {"can_host": w.counts.get(True, 0), "cannot": w.counts.get(False, 0),
                                "cannot_tell": w.counts.get(None, 0)},
            # (the NodePools it is judged on, as KPL910 judges it: `karplint.provisioning.scope`)
            "scope": {"nodepools": len(w.scope.pools), "where": w.scope.describe()},
        })
    return {"catalog": catalog.source, "instance_types_known": len(catalog.types), "nodepools": pools,
            "workloads": workloads, "problems": problems, "not_simulated": not_simulated,
            "files_read": len(loaded.named)}


def _source(src: dict) -> str:
    """Where the catalog comes from: its release and commit, or that the configured types replace it."""
    if src.get("mode") == "replace" and "repo" not in src:
        return "configured, replacing the bundled catalog"
    shown = f"{src.get('version')}, {src.get('repo')}@{str(src.get('commit', ''))[:8]}"
    return shown + (", configured, replacing the bundled catalog" if src.get("mode") == "replace" else "")


def _range(pair) -> str:
    return "-" if not pair else (pair[0] if pair[0] == pair[1] else f"{pair[0]}-{pair[1]}")


def _short(items: list[str], n: int = 6) -> str:
    return ", ".join(items[:n]) + (f" +{len(items) - n}" if len(items) > n else "")


def render_text(data: dict, out, color: bool) -> None:
    e = escape.line
    if _isatty(out):
        _render_rich(data, out, color)
        return
    out = escape.Escaped(out)  # every line, whatever forgets `e` (labels of configured instance types: arch...)
    out.write(f"catalog: {data['instance_types_known']} instance types ({e(_source(data['catalog']))})\n")
    out.write("\nNodePools\n")
    for p in data["nodepools"]:
        if "unknown" in p:
            out.write(f"  {e(p['name'])} ({e(p['file'])}:{p['line']})\tcannot tell: {e(p['unknown'])}\n")
            continue
        out.write(f"  {e(p['name'])} ({e(p['file'])}:{p['line']})\t{p['instance_types']} types\tfamilies: {e(_short(p['families']))}\t"
                  f"sizes: {e(_short(p['sizes']))}\tcpu: {_range(p['cpu'])}\tmemory: {_range(p['memory'])}\t"
                  f"arch: {e(','.join(p['arch'])) or '-'}\tcapacity: {e(','.join(p['capacity_types'])) or '-'}\n")
        if p.get("emptied_by"):
            ex = p["example"]
            out.write(f"    emptied by: {e(', '.join(p['emptied_by']))}"
                      + (f"; {e(ex['instance_type'])} passes without {e(', '.join(ex['passes_without']))}"
                         if ex.get("instance_type") else "") + "\n")
        for k, mv in (p.get("min_values_short") or {}).items():
            out.write(f"    minValues {mv['min_values']} on {e(k)}: only {counted(mv['distinct'], 'distinct value')}\n")
    out.write("\nWorkloads\n")
    for w in data["workloads"]:
        verdict = {True: "ok", False: "NO NODEPOOL", None: "cannot tell"}[w["hostable"]]
        out.write(f"  {e(w['kind'])}/{e(str(w['name']))}\t{verdict}\n")
        scope = w.get("scope")
        if scope and not scope["nodepools"]:
            out.write(f"    no NodePool {e(scope['where'])}: not judged\n")
        for v in w["nodepools"]:
            state = {True: f"can host ({v['instance_types']} types)", False: "no", None: "cannot tell"}[v["ok"]]
            reason = f": {e(v['reason'])}" if v["reason"] else ""
            out.write(f"    {e(v['nodepool'])}\t{state}{reason}\n")
        more = _more(w)
        if more:
            out.write(f"    {more}\n")
    for p in data["problems"]:
        out.write(f"warning: {e(p)}\n")
    for o in data["not_simulated"]:
        first, *notes = o["message"].split("\n")
        out.write(f"not simulated: {e(o['file'])}:{o['line']}: {e(first)}\n")
        out.writelines(f"  {e(note)}\n" for note in notes)


def _more(w: dict) -> str:
    """The NodePools beyond those listed, counted by verdict."""
    counts = w["nodepool_counts"]
    left = sum(counts.values()) - len(w["nodepools"])
    if left <= 0:
        return ""
    listed = {True: 0, False: 0, None: 0}
    for v in w["nodepools"]:
        listed[v["ok"]] += 1
    parts = [f"{n:,} {what}" for n, what in ((counts["can_host"] - listed[True], "can host"),
                                              (counts["cannot"] - listed[False], "cannot"),
                                              (counts["cannot_tell"] - listed[None], "cannot tell")) if n]
    return f"... and {left:,} more NodePools ({', '.join(parts)})"


def _isatty(out) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def _render_rich(data: dict, out, color: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    e = escape.line
    console = escape.console(file=out, color_system="auto" if color else None)
    src = data["catalog"]
    console.print(Text(f"Instance-type catalog: {data['instance_types_known']} types ({e(_source(src))})"))
    t = Table(title="NodePools", title_justify="left")
    for col in ("NodePool", "types", "families", "sizes", "cpu", "memory", "arch", "capacity", "notes"):
        t.add_column(col, overflow="fold")
    for p in data["nodepools"]:
        if "unknown" in p:
            t.add_row(Text(e(p["name"])), "?", "", "", "", "", "", "", Text(f"cannot tell: {e(p['unknown'])}"))
            continue
        notes = ""
        if p.get("emptied_by"):
            ex = p["example"]
            notes = f"emptied by {', '.join(p['emptied_by'])}" + (
                f"; {ex['instance_type']} passes without {', '.join(ex['passes_without'])}" if ex.get("instance_type")
                else "")
        for k, mv in (p.get("min_values_short") or {}).items():
            notes += f" minValues {mv['min_values']} on {k}: {mv['distinct']} distinct"
        count = Text(str(p["instance_types"]), style="bold red" if p["instance_types"] == 0 else "bold green")
        t.add_row(Text(e(p["name"])) + Text(f"\n{e(p['file'])}:{p['line']}", style="dim"), count, Text(e(_short(p["families"]))), Text(e(_short(p["sizes"]))),
                  _range(p["cpu"]), _range(p["memory"]), Text(e(",".join(p["arch"]))),
                  Text(e(",".join(p["capacity_types"]))), Text(e(notes)))
    console.print(t)
    w = Table(title="Workloads", title_justify="left")
    for col in ("workload", "can run on", "why not (closest first)"):
        w.add_column(col, overflow="fold")
    for item in data["workloads"]:
        hosts = [v["nodepool"] for v in item["nodepools"] if v["ok"]]
        misses = [f"{v['nodepool']}: {v['reason']}" for v in item["nodepools"] if v["ok"] is not True][:3]
        scope = item.get("scope")
        if scope and not scope["nodepools"]:
            misses.append(f"no NodePool {scope['where']}: not judged")
        more = _more(item)
        if more:
            misses.append(more)
        style = {True: "green", False: "bold red", None: "yellow"}[item["hostable"]]
        w.add_row(Text(e(f"{item['kind']}/{item['name']}")),
                  Text(e(", ".join(hosts)) or ("none" if item["hostable"] is False else "?"), style=style),
                  Text(e("; ".join(misses))))
    console.print(w)
    for p in data["problems"]:
        console.print(Text(f"warning: {e(p)}", style="yellow"))
    for o in data["not_simulated"]:
        first, *notes = o["message"].split("\n")
        console.print(Text(f"not simulated: {e(o['file'])}:{o['line']}: {e(first)}", style="bold yellow"))
        for note in notes:
            console.print(Text(f"  {e(note)}", style="yellow"))


def main(paths: list[str], output_format: str, instance_types: str | None, config_path: str | None,
         color: bool, instance_types_mode: str | None = None) -> int:

    from karplint.config import ConfigError
    from karplint.project import configure

    try:
        cfg = configure(config_path, paths or ["."])
    except ConfigError as exc:
        sys.stderr.write(f"karplint simulate: {escape.line(str(exc))}\n")
        return 2
    try:
        data = run_simulation(paths, instance_types, cfg, instance_types_mode)
    except SimulateError as exc:
        sys.stderr.write(f"karplint simulate: {escape.line(str(exc))}\n")
        return 2
    nothing = not data["nodepools"] and not data["workloads"]
    if output_format == "json":
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    elif nothing:  # the problems alone, not empty tables
        for p in data["problems"]:
            sys.stderr.write(f"karplint simulate: warning: {escape.line(p)}\n")
    else:
        render_text(data, sys.stdout, color)
    if nothing:
        # Never empty tables and a pass: nothing was simulated. The exit code is check's for a run that checked
        # no Karpenter object (0; 1 with `fail-on-nothing-checked = true`).
        where = escape.line(", ".join(paths or ["."]))
        sys.stderr.write(f"karplint simulate: no NodePool or workload to simulate in {where} "
                         f"({counted(data['files_read'], 'file')} read)\n")
        return 1 if cfg.fail_on_nothing_checked else 0
    return 0

