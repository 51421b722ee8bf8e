"""Every command's every output escapes what the checked tree, its configuration or a command line chose: no raw
terminal sequence (OSC 52 writes the clipboard, CSI clears the screen), no C1 control, no bidirectional override,
no rich markup acted on, no line a GitHub runner would run as a workflow command (karplint/report/escape.py, whose
`console` every rich output goes through). Each test drives the real command line, per command and format."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from karplint.testing import no_escape_or_command, run_cli

# Clipboard write (OSC 52 ... BEL), screen clear (CSI), a C1 CSI, a right-to-left override, rich markup and a
# hyperlink, then a line that GitHub Actions would run.
HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202e[bold red]x[/][link=http://x]y\n::error::pwned"


def _yaml(s: str) -> str:
    """`s` as a YAML double-quoted scalar (JSON escapes are YAML's)."""
    return json.dumps(s)


def _toml(s: str) -> str:
    return json.dumps(s)  # (TOML basic strings take the same \\uXXXX escapes)


_USERDATA = _yaml("#!/bin/bash\necho " + HOSTILE + "\n")
NODEPOOL = f"""\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {_yaml("np" + HOSTILE)}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: {_yaml("nc" + HOSTILE)}}}
      requirements:
      - {{key: kubernetes.io/arch, operator: In, values: [{_yaml(HOSTILE)}]}}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m
    budgets:
    - nodes: {_yaml("1" + HOSTILE)}
      reasons: [{_yaml(HOSTILE)}]
      schedule: {_yaml("0 0 * * *" + HOSTILE)}
      duration: 1h
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: {_yaml("nc" + HOSTILE)}
spec:
  amiFamily: AL2
  amiSelectorTerms: [{{alias: al2@latest}}]
  role: {_yaml(HOSTILE)}
  userData: {_USERDATA}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {_yaml("web" + HOSTILE)}
spec:
  template:
    spec:
      nodeSelector: {{kubernetes.io/arch: {_yaml(HOSTILE)}}}
      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]
"""

# An instance type whose labels the simulation prints (the configuration's `[options.instance-types]`).
CONFIG = f"""\
[options.instance-types.{_toml("evil" + HOSTILE + ".large")}]
labels = {{ "kubernetes.io/arch" = {_toml(HOSTILE)}, "karpenter.sh/capacity-type" = {_toml("spot" + HOSTILE)} }}
allocatable = {{ cpu = "4", memory = "8Gi", pods = "10" }}
"""


def _project(tmp_path: Path, config: bool = True) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".karplint.toml").write_text(CONFIG if config else "")
    (proj / ("::error file=x::\x1b]52;c;cHduZWQ=\x07[bold]np.yaml")).write_text(NODEPOOL)
    return proj


def _ok(out, *, code: int | tuple = 0, color: bool = False) -> None:
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    assert out.returncode in ((code,) if isinstance(code, int) else code), (out.returncode, out.stdout, out.stderr)
    no_escape_or_command(out.stdout, out.stderr, color=color)
    assert "\\x1b]52" in out.stdout + out.stderr or "\\u001b]52" in out.stdout + out.stderr, \
        "the hostile text is shown, escaped"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_simulate_escapes_configured_instance_type_labels(tmp_path, fmt):
    proj = _project(tmp_path)
    out = run_cli("simulate", ".", "--output-format", fmt, cwd=proj)
    _ok(out)
    if fmt == "json":
        data = json.loads(out.stdout)
        assert HOSTILE in data["nodepools"][0]["arch"]  # the value itself, intact, inside valid JSON
    else:
        assert "arch: \\x1b]52;c;cHduZWQ=" in out.stdout  # (rich drops the BEL: it is escaped before rich sees it)


def test_simulate_escapes_instance_types_file_labels(tmp_path):
    proj = _project(tmp_path, config=False)
    (tmp_path / "types.json").write_text(json.dumps({"evil.large": {
        "labels": {"kubernetes.io/arch": HOSTILE}, "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}))
    out = run_cli("simulate", ".", "--instance-types", str(tmp_path / "types.json"), cwd=proj)
    _ok(out)
    assert "arch: \\x1b]52;c;cHduZWQ=\\x07" in out.stdout


def test_simulate_tables_on_a_terminal_escape_and_take_no_markup(tmp_path):
    """The rich tables `simulate` prints on a terminal: escaped text, markup shown as typed, no colour code but
    karplint's own."""
    from karplint.cli.simulate import render_text

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    pool = {"name": "np" + HOSTILE, "file": "np.yaml", "line": 4, "instance_types": 1, "families": [HOSTILE],
            "sizes": [HOSTILE], "cpu": ("4", "4"), "memory": ("8Gi", "8Gi"), "arch": [HOSTILE],
            "capacity_types": ["spot" + HOSTILE], "emptied_by": [HOSTILE],
            "example": {"instance_type": HOSTILE, "passes_without": [HOSTILE]}}
    data = {"catalog": {"version": HOSTILE, "repo": "r", "commit": "c"}, "instance_types_known": 1,
            "nodepools": [pool], "workloads": [{"kind": "Deployment", "name": HOSTILE, "hostable": False,
                                                "nodepools": [{"nodepool": HOSTILE, "ok": False, "reason": HOSTILE,
                                                               "instance_types": 0}],
                                                "nodepool_counts": {"can_host": 0, "cannot": 3, "cannot_tell": 0}}],
            "problems": [HOSTILE],
            "not_simulated": [{"file": "np" + HOSTILE, "line": 2, "message": HOSTILE + "\n" + HOSTILE}]}
    for color in (False, True):
        out = Terminal()
        render_text(data, out, color)
        no_escape_or_command(out.getvalue(), color=color)
        assert "x[/][link=http://x]y" in out.getvalue()  # markup shown, not acted on


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_budgets_escapes_names_reasons_and_schedules(tmp_path, fmt):
    proj = _project(tmp_path)
    _ok(run_cli("budgets", ".", "--output-format", fmt, cwd=proj))


def test_budgets_escapes_in_colour(tmp_path):
    proj = _project(tmp_path)
    _ok(run_cli("budgets", ".", cwd=proj, env={"FORCE_COLOR": "1"}), color=True)


def test_render_escapes_userdata_names_and_errors(tmp_path):
    proj = _project(tmp_path)
    _ok(run_cli("render", ".", cwd=proj))
    _ok(run_cli("render", ".", cwd=proj, env={"FORCE_COLOR": "1"}), color=True)
    _ok(run_cli("render", ".", "--nodeclass", HOSTILE, cwd=proj), code=1)


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "github", "gitlab", "junit"])
def test_check_escapes_every_format(tmp_path, fmt):
    proj = _project(tmp_path)
    out = run_cli("check", ".", "--no-cache", "--output-format", fmt, cwd=proj)
    assert out.returncode == 1, out.stderr
    no_escape_or_command(out.stdout, out.stderr, github=fmt == "github")


def test_check_show_settings_and_statistics_escape(tmp_path):
    proj = _project(tmp_path)
    # (a top-level key before the tables: after them it would be a key of the instance type, now refused)
    (proj / ".karplint.toml").write_text(f'exclude = [{_toml(HOSTILE)}]\n' + CONFIG)
    _ok(run_cli("check", ".", "--show-settings", cwd=proj))
    out = run_cli("check", ".", "--no-cache", "--statistics", cwd=proj)
    assert out.returncode == 1
    no_escape_or_command(out.stdout, out.stderr)


@pytest.mark.parametrize("command", ["check", "simulate", "budgets", "render"])
def test_usage_errors_quoting_a_hostile_path_escape(tmp_path, command):
    out = run_cli(command, str(tmp_path / HOSTILE.replace("/", "")), cwd=tmp_path)
    _ok(out, code=2)


@pytest.mark.parametrize("args", [["explain", HOSTILE], ["budgets", ".", "--week", HOSTILE],
                                  ["simulate", ".", "--instance-types", HOSTILE.replace("/", "")],
                                  ["check", ".", "--select", HOSTILE], ["clean", HOSTILE.replace("/", "")]])
def test_command_line_values_quoted_in_messages_escape(tmp_path, args):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    out = run_cli(*args, cwd=tmp_path)
    assert "Traceback" not in out.stderr
    no_escape_or_command(out.stdout, out.stderr)


def test_rules_and_explain_print_no_raw_escapes(tmp_path):
    for args in (["rules"], ["rules", "-f", "json"], ["explain", "KPL201"]):
        out = run_cli(*args, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        no_escape_or_command(out.stdout, out.stderr)


@pytest.mark.parametrize("command", ["check", "simulate", "budgets", "render", "rules", "explain"])
def test_command_line_parser_errors_escape(tmp_path, command):
    """typer's own usage errors quote the command line, which may carry a file name a pull request chose."""
    out = run_cli(command, "--\u202e\x1b]52;c;cHduZWQ\x9b", cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert "No such option: --\\u202e\\x1b]52;c;cHduZWQ\\x9b" in out.stderr
    no_escape_or_command(out.stdout, out.stderr)
