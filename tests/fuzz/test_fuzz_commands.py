"""Fuzz targets, one per command (`check`, `simulate`, `budgets`, `render`): trees of generated NodePools,
EC2NodeClasses (userData included), workloads, PDBs and HelmReleases with hostile leaves (tests/fuzz/fuzz_grammar.py).

The invariant, for every command: no exception escapes (no KPL006 internal-error finding, no traceback, exit codes
0, 1 or 2 only), every finding lies inside its file (line >= 1 and column >= 1, within the file), JSON output is
valid JSON, text output carries no terminal control sequence from the tree, and each example stays within its
time bound. In-process through the commands' functions (a subprocess per example would be too slow), and a few
examples through the real command line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_grammar import (ESCAPES, as_yaml, assert_findings_located, assert_no_terminal_controls,
                          bounded, fuzz_settings, hostile_text, label_value, name, quantity, resources, userdata,
                          yaml_style)

# A generated tree: files of YAML streams (a Markdown file holds its stream in a fenced block).
tree = st.dictionaries(st.sampled_from(["nodepools.yaml", "nodeclasses.yaml", "apps/deploy.yaml", "all.yml",
                                        "docs/README.md"]),
                       st.builds(as_yaml, resources, yaml_style), min_size=1, max_size=3)
# some with an integer field of 4,400 digits (a YAML int, which no dumper writes)
tree = tree | st.builds(lambda files, n: {**files, "huge.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: "
                                          "{name: h}\nspec:\n  replicas: " + "9" * n + "\n"}, tree, st.just(4400))


def _write(root: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))


def _markdown(files: dict[str, str]) -> dict[str, str]:
    """A `.md` file holds its YAML in a fenced block (the embedded reader); the others are YAML already."""
    return {rel: (f"# Example\n\n```yaml\n{text}```\n" if rel.endswith(".md") else text) for rel, text in files.items()}


def _decoded(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------------------------------- check

@fuzz_settings(200)
@given(tree, st.sampled_from([None, "0.37.0", "1.0.0", "1.5.0"]))
def test_check(files, karpenter_version):
    """`check` in-process (karplint.testing's path: the real pipeline without disk): located findings, no internal
    error, a valid JSON report, a text report without control sequences."""
    from karplint.engine import InputFile, check
    from karplint.report import render
    from karplint.testing import make_config

    files = _markdown(files)
    inputs = [InputFile(rel, None, text.encode("utf-8", "surrogatepass")) for rel, text in files.items()]
    texts = {}
    for item in inputs:  # what the reader sees: undecodable bytes make a KPL002 at 1:1
        texts[item.display] = _decoded(item.data)
    with bounded("check"):
        report = check(inputs, make_config(karpenter_version=karpenter_version))
        out = io.StringIO()
        render(report, "json", out)
        text = io.StringIO()
        render(report, "text", text, color=False)
    assert_findings_located(report.findings, texts)
    data = json.loads(out.getvalue())
    assert len(data["findings"]) == len(report.findings)
    assert_no_terminal_controls(text.getvalue())


# ---------------------------------------------------------------------------------------------- simulate

label_text = label_value
instance_types = st.dictionaries(
    st.sampled_from(["m5.large", "x9z.metal", "new.big", "a", ""]) | hostile_text.filter(lambda v: v not in ESCAPES),
    st.fixed_dictionaries({}, optional={
        "labels": st.dictionaries(st.sampled_from(["kubernetes.io/arch", "karpenter.k8s.aws/instance-family",
                                                   "karpenter.sh/capacity-type", "team"]), label_text, max_size=3),
        "allocatable": st.dictionaries(st.sampled_from(["cpu", "memory", "pods", "nvidia.com/gpu"]), quantity,
                                       max_size=3)}), max_size=3)


# `--instance-types` of JSON nested 100,000 deep (a RecursionError in json.loads, before its nesting was bounded)
instance_types_file = st.none() | instance_types | st.just("[" * 100_000)


@fuzz_settings(60)
@given(tree, instance_types_file, st.none() | instance_types)
def test_simulate(files, from_file, from_config):
    """`simulate` in-process: the simulation of a generated tree, with extra instance types from `--instance-types`
    and from the configuration; its JSON and its plain-text rendering."""
    from karplint.cli.simulate import SimulateError, render_text, run_simulation
    from karplint.testing import make_config

    config = make_config({"options": {"instance-types": from_config}} if from_config else None)
    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as root:
        _write(root, _markdown(files))
        types_path = None
        if from_file is not None:
            types_path = os.path.join(root, "types.json")
            with open(types_path, "w", encoding="utf-8") as fh:
                fh.write(from_file if isinstance(from_file, str) else json.dumps(from_file))
        with bounded("simulate", 10.0):
            try:
                data = run_simulation([root], types_path, config)
            except SimulateError:
                return  # (a usage error, exit 2, with its message)
            out = io.StringIO()
            render_text(data, out, color=False)
    json.loads(json.dumps(data, default=str))
    assert_no_terminal_controls(out.getvalue())


# ---------------------------------------------------------------------------------------------- budgets, render

def _console(buf):
    from rich.console import Console

    return Console(file=buf, highlight=False, soft_wrap=True, color_system=None, width=120)


# `budgets --week` of the last week of year 9999 overflowed the calendar, and so did the first week of year 1 (a
# schedule is looked at from before the week's start): both are usage errors now.
week = st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31)) | st.sampled_from([date(9999, 12, 31),
                                                                                          date(1, 1, 5)])


@fuzz_settings(80)
@given(tree, st.none() | st.sampled_from(["default", "a", "missing"]), st.none() | st.integers(0, 10 ** 6),
       st.none() | week.map(date.isoformat) | st.sampled_from(["2024-02-30", "x", "", "²"]))
def test_budgets(files, nodepool, nodes, week_text):
    """`budgets` in-process, text and JSON: exit 0, 1 (no NodePool) or 2 (usage), valid JSON, escaped text."""
    from karplint.cli.budgets import budgets_command

    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as root:
        _write(root, _markdown(files))
        for fmt in ("json", "text"):
            out, err = io.StringIO(), io.StringIO()
            with bounded("budgets", 10.0), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = budgets_command([root], nodepool=nodepool, nodes=nodes, week=week_text, output_format=fmt,
                                       console=_console(out))
            assert code in (0, 1, 2), code
            if fmt == "json" and code == 0:
                json.loads(out.getvalue())
            assert_no_terminal_controls(out.getvalue())
            assert_no_terminal_controls(err.getvalue())


@fuzz_settings(120)
@given(tree, userdata, st.sampled_from(["AL2", "AL2023", "Bottlerocket", "Ubuntu", "Windows2022", "Custom"]),
       st.none() | name, st.none() | st.sampled_from(["0.37.0", "1.0.0", "1.6.0", "x"]))
def test_render(files, user_data, family, nodeclass, version):
    """`render` in-process: every EC2NodeClass (one with the generated userData) rendered with its NodePools."""
    from karplint.cli.render import render_command

    files = dict(files)
    files["userdata.yaml"] = as_yaml([{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
                                      "metadata": {"name": "default"},
                                      "spec": {"amiFamily": family, "role": "r", "userData": user_data,
                                               "amiSelectorTerms": [{"alias": f"{family.lower()}@latest"}]}}],
                                     "block")
    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as root:
        _write(root, _markdown(files))
        out, err = io.StringIO(), io.StringIO()
        with bounded("render", 10.0), contextlib.redirect_stderr(err):
            code = render_command([root], nodeclass=nodeclass if isinstance(nodeclass, str) else None,
                                  karpenter_version=version, console=_console(out))
    assert code in (0, 1, 2), code
    assert "internal error" not in out.getvalue(), out.getvalue()[-2000:]
    assert_no_terminal_controls(out.getvalue())
    assert_no_terminal_controls(err.getvalue())


# ---------------------------------------------------------------------------------------------- the command line

COMMANDS = {
    "check": ["check", "--no-cache", "-j", "1", "--output-format", "json"],
    "check-sarif": ["check", "--no-cache", "-j", "2", "--output-format", "sarif"],
    "simulate": ["simulate", "--output-format", "json"],
    "budgets": ["budgets", "--output-format", "json"],
    "render": ["render"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@fuzz_settings(2)
@given(files=tree)
def test_command_line(command, files):
    """Each command through the real command line (a process per example: few examples): exit 0, 1 or 2, no
    traceback, JSON where JSON was asked for."""
    from karplint.testing import run_cli

    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as root:
        _write(root, _markdown(files))
        with bounded(command, 10.0, children=True):
            proc = run_cli(*COMMANDS[command], root, cwd=root, timeout=60)
    assert proc.returncode in (0, 1, 2), (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    if "json" in COMMANDS[command] or "sarif" in COMMANDS[command]:
        if proc.returncode == 0 or command.startswith("check"):  # (budgets: 1 is "no NodePool found", on stderr)
            json.loads(proc.stdout)
    if command.startswith("check"):
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        if command == "check":
            report = json.loads(proc.stdout)
            assert not [f for f in report["findings"] if f["code"] == "KPL006"], report["findings"]
    assert_no_terminal_controls(proc.stdout)
    assert_no_terminal_controls(proc.stderr)


# ---------------------------------------------------------------------------------------------- check: rendered Helm

def _templated(text: str, holes: list[int]) -> str:
    """`text` as a chart template: the values of some lines replaced by `{{ .Values.x }}`."""
    lines = text.split("\n")
    for h in holes:
        i = h % max(1, len(lines))
        key, sep, _value = lines[i].partition(": ")
        if sep:
            lines[i] = key + ": {{ .Values.x }}"
    return "\n".join(lines)


@fuzz_settings(40)
@given(resources, st.lists(st.integers(0, 200), max_size=6), st.sampled_from(["np.yaml", "a/b.yaml", "x.yaml "]))
def test_check_helm_rendered(docs, holes, template_name):
    """`check` of rendered Helm output: findings moved to the chart's template (readers/helm_rendered.py) name the
    template and a position inside it."""
    from karplint.engine import InputFile, check
    from karplint.readers.helm_rendered import remap
    from karplint.testing import make_config

    body = as_yaml(docs, "block")
    source = f"chart/templates/{template_name}"
    rendered = f"---\n# Source: {source}\n{body}"
    template = _templated(body, holes)
    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as root:
        _write(root, {"rendered.yaml": rendered, source.strip(): template})
        here = os.getcwd()
        os.chdir(root)  # (templates are looked for from the working directory, as the CLI runs)
        try:
            with bounded("check of rendered Helm output"):
                report = remap(check([InputFile("rendered.yaml", os.path.join(root, "rendered.yaml"))],
                                     make_config()))
        finally:
            os.chdir(here)
    texts = {"rendered.yaml": rendered, os.path.normpath(source.strip()): template}
    assert_findings_located(report.findings, texts)
