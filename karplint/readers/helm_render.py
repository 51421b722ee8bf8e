"""Helm charts rendered with `helm template` when a `helm` binary is on the PATH: each chart template is then
checked as Helm renders it with the chart's values.yaml, its findings on the template's lines
(karplint/readers/chart_templates.py; the line mapping of karplint/readers/helm_rendered.py).

Rendered once per chart and run, before the check (the renderings are in the cache key). Only a chart with a
`Chart.yaml` (what helm loads) whose files all lie inside its project (karplint/discover/boundary.py: no link out of
it) is rendered, offline: `helm template` with the chart's own values.yaml, `--skip-tests`, no dependency fetch
(a chart whose dependencies are not vendored fails, and is read without rendering), under a timeout. A chart
helm fails on, or any template missing from the rendering (off by default: `{{- if .Values.x.enabled }}`), is read
as a template without rendering. `KARPLINT_NO_HELM=1` turns rendering off.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from karplint.discover.boundary import inside, project_root

TIMEOUT_SECONDS = 60  # per chart
MAX_RENDERED_BYTES = 20 << 20
MAX_CHART_ENTRIES = 5_000  # files and directories of a chart looked at for links out of the project
MAX_CHARTS = 200  # charts rendered per run


def helm_binary() -> str | None:
    if os.environ.get("KARPLINT_NO_HELM", "") not in ("", "0"):
        return None
    return shutil.which("helm")


def _stays_inside(chart: str, project: str) -> bool:
    """No file or directory of the chart resolves outside `project` (helm follows links)."""
    if not inside(os.path.realpath(chart), project):
        return False
    count = 0
    for directory, dirs, files in os.walk(chart):
        for name in dirs + files:
            count += 1
            full = os.path.join(directory, name)
            if count > MAX_CHART_ENTRIES or (os.path.islink(full) and not inside(os.path.realpath(full), project)):
                return False
    return True


def render_charts(charts: list[str], config_root: str | None = None) -> dict:
    """{chart directory: rendered text} for the `charts` (absolute directories with a Chart.yaml) that helm renders
    (see the module docstring)."""
    helm = helm_binary() if charts else None
    if helm is None:
        return {}
    out: dict = {}
    for chart in charts[:MAX_CHARTS]:
        if not _stays_inside(chart, project_root(chart, config_root)):
            continue
        try:
            proc = subprocess.run([helm, "template", "karplint", chart, "--skip-tests"], capture_output=True,
                                  timeout=TIMEOUT_SECONDS, stdin=subprocess.DEVNULL, cwd=chart)
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode != 0 or len(proc.stdout) > MAX_RENDERED_BYTES:
            continue
        out[chart] = proc.stdout.decode("utf-8", "replace")
    return out
