"""The run's Helm charts, worked out once before the check (`chart_context`; its answer is in the cache key): each
chart's values.yaml scalars (the defaults Go templates are read with), and, when a `helm` binary is on the PATH,
the chart rendered with `helm template`: each chart template is then checked as Helm renders it with the chart's
values.yaml, its findings on the template's lines (karplint/readers/chart_templates.py; the line mapping of
karplint/readers/helm_rendered.py). Light to import: a run without charts pays a loop over its file names.

Rendering: only a chart with a `Chart.yaml` (what helm loads) whose files all lie inside its project
(karplint/discover/boundary.py: no link out of it) is rendered, offline: `helm template` with the chart's own values.yaml, `--skip-tests`, no dependency fetch
(a chart whose dependencies are not vendored fails, and is read without rendering), under a timeout. A chart
helm fails on, or any template missing from the rendering (off by default: `{{- if .Values.x.enabled }}`), is read
as a template without rendering. `KARPLINT_NO_HELM=1` turns rendering off.
"""

from __future__ import annotations

import os

from karplint.discover.boundary import inside, project_root

VALUES_FILES = ("values.yaml", "values.yml")
MAX_VALUES_BYTES = 1 << 20

TIMEOUT_SECONDS = 60  # per chart
TOTAL_SECONDS = 120  # all charts of a run: a tree of many slow charts (a pull request is untrusted) is bounded too
MAX_RENDERED_BYTES = 20 << 20  # read as helm writes it: past this the rendering is dropped and helm stopped
MAX_CHART_ENTRIES = 5_000  # files and directories of a chart looked at for links out of the project
MAX_CHARTS = 200  # charts rendered per run


def chart_dir(path: str | None) -> str | None:
    """The chart directory of a file under `<chart>/templates/` (with or without a Chart.yaml: Argo CD and helmfile
    may supply the chart's metadata), as an absolute normalised path."""
    if not path or "templates" not in path:
        return None
    parts = os.path.abspath(path).split(os.sep)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "templates":
            return os.sep.join(parts[:i]) or os.sep
    return None


def _flatten(data, prefix: str, out: dict) -> None:
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(k, str) and k.replace("_", "a").replace("-", "a").isalnum():
                _flatten(v, f"{prefix}.{k}", out)
    elif prefix and not isinstance(data, (list, dict)) and data is not None and data != "":
        out[prefix] = data


# Strings YAML 1.1 reads as booleans: Helm's YAML reader (sigs.k8s.io/yaml, go-yaml v2) may make `enabled: no` false
# where karplint's reader keeps the string "no" (true): not guessed. (`"false"` quoted is a true string in Helm, but a
# reader's quote handling is not worth a wrong branch either.)
_BOOLEAN_LIKE = frozenset("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split())


def _truth(data, prefix: str, truth: dict, mappings: list) -> None:
    """Every node of values.yaml by dotted path -> its truth in a Go template `if` (false, 0, "", null, empty list or
    map are false: https://pkg.go.dev/text/template#hdr-Actions), None when not certain; `mappings`: the paths of the
    maps whose keys are all names (a key missing from one is null, false)."""
    if isinstance(data, dict):
        truth[prefix] = bool(data)
        if all(isinstance(k, str) for k in data):
            mappings.append(prefix)
        for k, v in data.items():
            if isinstance(k, str) and k.replace("_", "a").isalnum():
                _truth(v, f"{prefix}.{k}", truth, mappings)
    elif isinstance(data, str) and data in _BOOLEAN_LIKE:
        truth[prefix] = None
    elif data is None or isinstance(data, (bool, int, float, str, list)):
        truth[prefix] = bool(data)
    else:  # (a date, a tagged value: how Helm reads it is not guessed)
        truth[prefix] = None


def chart_context(inputs, read, config_root: str | None = None) -> dict:
    """{chart directory (absolute): {"values": {".a.b": scalar}, "truth": {".a.b": bool or None}, "mappings": (".a",),
    "rendering": helm's output or None}} for the charts among `inputs`: values.yaml beside a `templates/` directory
    (`chart_values`), and the rendering when helm renders the chart (`render_charts`). `read(abspath, limit)` reads
    a file."""
    out = {chart: {**defaults, "rendering": None} for chart, defaults in chart_values(inputs, read).items()}
    for chart, text in render_charts(_helm_charts(inputs), config_root).items():
        out.setdefault(chart, {"values": {}, "truth": {}, "mappings": (), "rendering": None})["rendering"] = text
    return out


def _helm_charts(inputs) -> list[str]:
    """The chart directories (absolute) of inputs under `<chart>/templates/` whose chart has a Chart.yaml (what
    helm loads)."""
    seen: dict[str, None] = {}
    for i in inputs:
        if i.abspath is None or "templates" not in i.abspath:
            continue
        chart = chart_dir(i.abspath)
        if chart is not None and chart not in seen and os.path.isfile(os.path.join(chart, "Chart.yaml")):
            seen[chart] = None
    return list(seen)


def chart_values(inputs, read) -> dict:
    """{chart directory (absolute): {"values": {".a.b": scalar}, "truth": ..., "mappings": ...}} from the values.yaml
    of every chart among `inputs` (a values.yaml beside a `templates/` directory); `read(abspath, limit)` reads a
    file. "values": the scalars `{{ .Values.x }}` is filled with; empty and null values are left out (a chart's empty
    default is meant to be set at install time, not a value to judge). "truth", "mappings": what an `if` on a value
    makes of it (`_truth`)."""
    from karplint.readers.loader import decode, load
    from karplint.readers.source import SourceFile

    out: dict = {}
    for i in inputs:
        if i.abspath is None or os.path.basename(i.display) not in VALUES_FILES:
            continue
        directory = os.path.dirname(os.path.abspath(i.abspath))
        if not os.path.isdir(os.path.join(directory, "templates")):
            continue
        try:
            raw = read(i.abspath, MAX_VALUES_BYTES)
        except OSError:
            continue
        if len(raw) > MAX_VALUES_BYTES:
            continue
        src = decode(i.display, raw, i.abspath)
        if not isinstance(src, SourceFile):
            continue
        docs, _problems = load(src)
        flat: dict = {}
        truth: dict = {}
        mappings: list = []
        if docs and isinstance(docs[0].data, dict):
            _flatten(docs[0].data, "", flat)
            _truth(docs[0].data, "", truth, mappings)
        if flat or truth:
            out[directory] = {"values": flat, "truth": truth, "mappings": tuple(mappings)}
    return out


def helm_binary() -> str | None:
    if os.environ.get("KARPLINT_NO_HELM", "") not in ("", "0"):
        return None
    import shutil

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
    import time

    out: dict = {}
    deadline = time.monotonic() + TOTAL_SECONDS
    for chart in charts[:MAX_CHARTS]:
        left = deadline - time.monotonic()
        if left <= 0:
            break  # (the charts left are read without rendering)
        if not _stays_inside(chart, project_root(chart, config_root)):
            continue
        text = _rendered(helm, chart, min(TIMEOUT_SECONDS, left))
        if text is not None:
            out[chart] = text
    return out


def _rendered(helm: str, chart: str, timeout: float) -> str | None:
    """`helm template` of one chart, or None when helm fails, takes longer than `timeout` or writes more than
    MAX_RENDERED_BYTES: its output is read as it comes, never held past the cap."""
    import subprocess
    import time

    try:
        proc = subprocess.Popen([helm, "template", "karplint", chart, "--skip-tests"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=chart)
    except OSError:
        return None
    import selectors

    chunks: list[bytes] = []
    size = 0
    end = time.monotonic() + timeout
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while True:
                left = end - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None  # (too slow)
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_RENDERED_BYTES:
                    return None
                chunks.append(chunk)
        if proc.wait(timeout=max(0.1, end - time.monotonic())) != 0:
            return None
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    return b"".join(chunks).decode("utf-8", "replace")
