"""What discovery found but the check cannot read, said once per file as extra problems of the run: discovery
problems (KPL003), Karpenter objects in Helm templates and program code (KPL015, KPL016: karplint/readers/foreign.py)
and skipped Helm chart templates (KPL005). Moved here from the command line as it was."""

from __future__ import annotations

import os

from karplint.readers.files import read_regular
from karplint.readers.loader import Problem
from karplint.readers.source import Span


def discovery_notices(found) -> list[tuple[str, Problem]]:
    """(display, problem) for each problem and unreadable file of a `karplint.discover.DiscoveryResult`."""
    extra = [(p.display, Problem("KPL003", p.message, Span.point(1, 1))) for p in found.problems]
    if found.helm_templates or found.code_files:  # Karpenter objects karplint cannot read: one notice per file
        from karplint.readers.foreign import notices

        unreadable = notices(found.helm_templates, found.code_files, read_regular)
        extra.extend(unreadable)
        noticed = {display for display, _ in unreadable}
    else:
        noticed = set()
    for first_template, templates in found.helm_charts.items():
        chart = first_template.split("/templates/")[0] if "/templates/" in first_template else os.path.dirname(first_template)
        templates = [t for t in templates if t not in noticed]  # (those have their own notice, KPL015)
        if not templates:
            continue
        first_template = templates[0]
        extra.append((first_template, Problem(
            "KPL005",
            f"{len(templates)} Helm template file(s) in chart `{chart}` skipped: templates are not YAML until "
            f"rendered; check the rendered chart with `helm template {chart} | karplint check --stdin-filename "
            f"{chart}/rendered.yaml -`", Span.point(1, 1))))
    return extra
