"""Fuzz targets, one per reader: structured hostile input (tests/fuzz/fuzz_grammar.py) never raises out of a reader,
every position it gives lies inside its input, and each example stays within EXAMPLE_BOUND. Reproducible
(derandomized) and bounded, so that CI runs them on every push; fuzz/fuzz_parsers.py has the open-ended
coverage-guided (atheris) versions of some of them."""

from __future__ import annotations

import json
import math
import os
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_grammar import (NODECONFIG, POWERSHELL, as_yaml, bounded, cron, duration, fuzz_settings, hostile_text,
                          hostile_value, label_key, label_value, mime_userdata, quantity, resources, shell_script, taint,
                          text_lines, toml_settings, yaml_stream, yaml_style)
from karplint.readers.loader import Problem, _yaml_text, decode, load, load_reference
from karplint.readers.source import SourceFile


def _src(text: str, path: str = "fuzz.yaml") -> SourceFile | Problem:
    return decode(path, text.encode("utf-8", "surrogatepass"), None)


def _assert_span_inside(span, src: SourceFile, what) -> None:
    lines = text_lines(src.text)
    assert 1 <= span.line <= len(lines), (what, span, len(lines))
    assert 1 <= span.column <= len(lines[span.line - 1]) + 1, (what, span)


def _assert_loaded(docs, problems, src: SourceFile) -> None:
    for p in problems:
        _assert_span_inside(p.span, src, p.message)
    for d in docs:
        for info in d.nodes.values():
            _assert_span_inside(info.span, src, "node")
            assert info.span.line <= info.span.end_line


# Text that is almost YAML: a generated stream cut short, with a byte dropped or one of YAML's indicators inserted.
def _mutate(text: str, cut: int, at: int, insert: str) -> str:
    text = text[: max(1, len(text) * cut // 100)]
    at = at % (len(text) + 1)
    return text[:at] + insert + text[at:]


near_yaml = st.builds(_mutate, yaml_stream, st.integers(1, 100), st.integers(0, 10 ** 6), st.sampled_from(
    ["", ":", "- ", "[", "{", "}", "\n  ", "\t", "&a ", "*a", "*b ", "<<: *a\n", "!!int ", "%YAML 1.1\n---\n",
     "\n---\n", "\n...\n", "'", '"', "|\n", ">-\n", "? ", "#", "\ufeff", "\x00", "\r"]))


def _norm(x):
    if isinstance(x, float) and math.isnan(x):
        return ("float", "nan")
    if isinstance(x, dict):
        return {repr(_norm(k)): _norm(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_norm(v) for v in x]
    return (type(x).__name__, x)


@fuzz_settings(250)
@given(st.one_of(yaml_stream, near_yaml))
def test_yaml_loaders(text):
    """loader.load (libyaml when it agrees, else ruamel): never raises, positions inside the file; and when the fast
    loader answers, it answers exactly what the reference loader answers (data, positions, problems)."""
    from karplint.readers import fastload

    src = _src(text)
    if isinstance(src, Problem):
        return
    with bounded("load"):
        docs, problems = load(src)
        _assert_loaded(docs, problems, src)
        fast = fastload.load_fast(src, _yaml_text(src.text)) if fastload.ENABLED else None
        if fast is None:
            return
        ref_docs, ref_problems = load_reference(src)
    fast_docs, fast_problems = fast
    assert [(p.code, p.message, p.span) for p in fast_problems] == [(p.code, p.message, p.span) for p in ref_problems]
    assert [(d.index, d.base, d.start) for d in fast_docs] == [(d.index, d.base, d.start) for d in ref_docs]
    for a, b in zip(ref_docs, fast_docs):
        assert _norm(b.data) == _norm(a.data)
        assert dict(b.nodes) == dict(a.nodes)


# ---------------------------------------------------------------------------------------------- host files

def _indent(text: str, prefix: str) -> str:
    return "".join(prefix + ln + "\n" for ln in text.split("\n"))


def _hcl(value, depth: int = 0) -> str:
    """A plain value as an HCL expression (objects with `=`, strings JSON-quoted, which HCL reads alike)."""
    if isinstance(value, dict):
        inner = "".join(f"{'  ' * (depth + 1)}{_hcl_key(k)} = {_hcl(v, depth + 1)}\n" for k, v in value.items())
        return "{\n" + inner + "  " * depth + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_hcl(v, depth) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(str(value))
    return json.dumps(value, ensure_ascii=False)


def _hcl_key(key) -> str:
    key = str(key)
    return key if key.isidentifier() else json.dumps(key, ensure_ascii=False)


TF_BLOCKS = [
    'resource "helm_release" "karpenter" {\n  chart   = "karpenter"\n  version = "1.0.6"\n}\n',
    'resource "helm_release" "karpenter" {\n  chart   = "oci://public.ecr.aws/karpenter/karpenter"\n'
    '  version = var.karpenter_version\n}\nvariable "karpenter_version" {\n  default = "0.37.0"\n}\n',
    'variable "x" {', 'resource "helm_release" "karpenter" {', '}', '"', "<<EOT", "#", "/*",
    'module "addons" {\n  karpenter = { chart_version = "1.1.0" }\n}\n',
]


def _terraform(objects: list, style: int, extras: list[str]) -> str:
    out = []
    for i, obj in enumerate(objects):
        if style == 0:
            out.append(f'resource "kubectl_manifest" "m{i}" {{\n  yaml_body = <<-YAML\n'
                       + _indent(as_yaml([obj], "block"), "    ") + "  YAML\n}\n")
        elif style == 1:
            out.append(f'resource "kubernetes_manifest" "m{i}" {{\n  manifest = yamldecode(<<EOT\n'
                       + as_yaml([obj], "block") + "EOT\n  )\n}\n")
        else:
            out.append(f'resource "kubernetes_manifest" "m{i}" {{\n  manifest = {_hcl(obj, 1)}\n}}\n')
    return "".join(out) + "\n".join(extras)


def _markdown(objects: list, fences: list[str], style: str) -> str:
    out = ["# Title\n\nSome text.\n"]
    for obj, fence in zip(objects, fences):
        out.append(f"{fence}\n{as_yaml([obj], style)}{fence[:3] if fence else ''}\n\nmore text\n")
    return "".join(out)


def _shell(objects: list, forms: list[str]) -> str:
    out = ["#!/bin/bash\nset -e\n"]
    for obj, form in zip(objects, forms):
        out.append(form.replace("BODY", as_yaml([obj], "block")))
    return "".join(out)


terraform_file = st.builds(_terraform, resources, st.integers(0, 2), st.lists(st.sampled_from(TF_BLOCKS), max_size=4))
markdown_file = st.builds(_markdown, resources, st.lists(st.sampled_from(
    ["```yaml", "```yml", "~~~yaml", "````yaml", "   ```yaml", "```", "```json", ""]), min_size=5, max_size=5),
    yaml_style)
shell_file = st.builds(_shell, resources, st.lists(st.sampled_from([
    "cat <<EOF | kubectl apply -f -\nBODY\nEOF\n", "kubectl apply -f - <<'EOF'\nBODY\nEOF\n",
    "kubectl apply -f - <<-EOF\nBODY", "cat <<EOF\nBODY\n", "echo x\n"]), min_size=5, max_size=5))
template_file = st.builds(lambda objs, holes: as_yaml(objs, "block") + "".join(holes), resources, st.lists(
    st.sampled_from(["${var.x}\n", "%{ if x }\n", "%{ endif }\n", "${", "$${x}\n", "%{ for a in b ~}\n"]),
    max_size=3))


@fuzz_settings(120)
@given(st.one_of(st.tuples(st.just("x.md"), markdown_file), st.tuples(st.just("x.tf"), terraform_file),
                 st.tuples(st.just("x.sh"), shell_file), st.tuples(st.just("x.yaml.tpl"), template_file)))
def test_embedded_regions(case):
    """Markdown fences, Terraform heredocs and HCL objects, shell heredocs, templates: documents and problems
    located on the host file's own lines."""
    from karplint.readers.embedded import host_kind, load_host, regions

    path, text = case
    src = _src(text, path)
    if isinstance(src, Problem):
        return
    kind = host_kind(path)
    with bounded("embedded"):
        regions(src, kind)
        docs, problems = load_host(src, kind)
    _assert_loaded(docs, problems, src)


@fuzz_settings(60)
@given(resources)
def test_hcl_objects(objects):
    """Karpenter objects written as HCL objects (readers/hcl.py): converted or skipped, located, never raising."""
    from karplint.readers import hcl
    from karplint.readers.virtual import Embedding

    if not hcl.available():
        pytest.skip("tree-sitter-hcl is not installed")
    text = _terraform(objects, 2, [])
    src = _src(text, "main.tf")
    if isinstance(src, Problem):
        return
    with bounded("hcl"):
        docs, _too_big = hcl.load_objects(src, Embedding(host_kind="hcl"))
    _assert_loaded(docs, [], src)


# ---------------------------------------------------------------------------------------------- Helm, Kustomize

template_line = st.sampled_from([
    "apiVersion: karpenter.sh/v1", "kind: NodePool", "metadata:", "  name: {{ .Values.name }}", "  name: default",
    "spec:", "  template:", "    spec:", "      expireAfter: {{ .Values.expireAfter }}", "      expireAfter: 720h",
    "- key: x", "{{- if .Values.x }}", "{{- end }}", "", "---", "  - {{ . }}", "    - a", "    - b",
]) | hostile_text


@fuzz_settings(150)
@given(st.lists(template_line, max_size=30), st.lists(template_line, max_size=30), st.integers(0, 40),
       st.integers(1, 120))
def test_helm_rendered_alignment(rendered, template, index, column):
    """The line alignment of rendered Helm output with its template: a position mapped into the template is a line
    of the template and a column within it (or just past its end)."""
    from karplint.readers.helm_rendered import has_sources, map_line, matching_blocks

    with bounded("helm alignment"):
        blocks = matching_blocks(rendered, template)
        has_sources("\n".join("# Source: " + ln for ln in rendered))
        if not rendered:
            return
        index %= len(rendered)
        column = min(column, len(rendered[index]) + 1)
        got = map_line(rendered, template, index, column, blocks)
    if got is not None:
        line, col = got
        assert 0 <= line < len(template)
        assert 1 <= col <= max(column, len(template[line]) + 1)


@fuzz_settings(40)
@given(st.lists(st.one_of(
    st.sampled_from(["patch.yaml", "./patch.yaml", "../patch.yaml", "/etc/passwd", "sub/../patch.yaml", "", ".",
                     "patch.yaml\n", "missing.yaml", "a" * 300]),
    st.fixed_dictionaries({"path": st.sampled_from(["patch.yaml", "nodepool.yaml", "x/"])}), hostile_value),
    max_size=5), st.sampled_from(["patches", "patchesStrategicMerge", "patchesJson6902"]), yaml_style)
def test_kustomize_patches(entries, key, style):
    """The patches a kustomization applies (readers/kustomize.py): a subset of the checked files, never raising."""
    from karplint.engine import InputFile, read_regular
    from karplint.readers.kustomize import patch_files

    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as tmp:
        names = ["kustomization.yaml", "patch.yaml", "nodepool.yaml"]
        doc = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", key: entries}
        texts = {"kustomization.yaml": as_yaml([doc], style), "patch.yaml": "kind: NodePool\n",
                 "nodepool.yaml": "kind: NodePool\n"}
        for n, text in texts.items():
            with open(os.path.join(tmp, n), "wb") as fh:
                fh.write(text.encode("utf-8", "surrogatepass"))
        inputs = [InputFile(n, os.path.join(tmp, n)) for n in names]
        with bounded("kustomize"):
            found = patch_files(inputs, read_regular)
    assert found <= set(names) - {"kustomization.yaml"}


# ---------------------------------------------------------------------------------------------- small readers

@fuzz_settings(150)
@given(hostile_value)
def test_templating(value):
    """Template-hole predicates take any value a YAML file can hold."""
    from karplint.readers import templating

    with bounded("templating"):
        for predicate in (templating.has_placeholder, templating.has_placeholder_within, templating.is_placeholder,
                          templating.is_templated):
            assert predicate(value) in (True, False)


suppression_line = st.builds(
    lambda lead, kind, codes, reason: f"{lead}# karplint: {kind}={codes}{reason}",
    st.sampled_from(["", "  ", "key: value ", "- ", "'#' "]), st.sampled_from(["disable", "disable-file", "enable",
                                                                                "disable ", "Disable"]),
    st.lists(st.sampled_from(["KPL101", "kpl2", "ALL", "", " ", "KPL", "x-y", "1"]) | hostile_text, max_size=4)
    .map(",".join), st.sampled_from(["", " -- why", " --", "\r", " -- \x1b[2J"]))


@fuzz_settings(150)
@given(st.lists(suppression_line | hostile_text, max_size=6))
def test_suppression_comments(lines):
    """Suppression comments: every one found is located on its own line, targets a line of the file."""
    from karplint.readers.suppression import from_comments

    src = _src("\n".join(lines))
    if isinstance(src, Problem):
        return
    with bounded("suppression"):
        found = from_comments(src)
    for s in found:
        _assert_span_inside(s.span, src, s.codes)
        assert s.kind in ("line", "file")
        assert s.kind == "file" or 1 <= s.target_line <= len(text_lines(src.text)) + 1


@fuzz_settings(150)
@given(st.one_of(toml_settings, hostile_text))
def test_bottlerocket_toml(text):
    """Bottlerocket's TOML settings: parsed into settings and issues, each issue inside the text."""
    from karplint.userdata import bottlerocket

    with bounded("toml"):
        bottlerocket.looks_like_toml_settings(text)
        settings = bottlerocket.parse_settings(text)
        keys = bottlerocket.locate_keys(text)
        issues = bottlerocket.check(settings, karpenter_merges=True)
        issues += bottlerocket.check_node_taints(settings, karpenter_merges=False)
        issues += bottlerocket.check_node_labels(settings, {"a": "b"}, karpenter_merges=True)
        bottlerocket.registered_taints(settings)
    for start, end in keys.values():
        assert 0 <= start <= end <= len(text)
    for issue in issues:
        assert 0 <= issue.start <= issue.end <= len(text), issue


@fuzz_settings(150)
@given(st.one_of(mime_userdata, hostile_text.map(lambda t: "MIME-Version: 1.0\nContent-Type: multipart/mixed; "
                                                             'boundary="//"\n\n--//\n' + t)))
def test_mime(text):
    """MIME multi-part userData: parts and problems located inside the text."""
    from karplint.userdata.mime import looks_like_mime, parse_mime

    with bounded("mime"):
        looks_like_mime(text)
        doc = parse_mime(text)
    for part in doc.parts:
        assert 0 <= part.start <= part.body_start <= part.body_end <= len(text)
    for problem in doc.problems:
        assert 0 <= problem.start <= problem.end <= len(text)


@fuzz_settings(200)
@given(st.one_of(shell_script, hostile_text))
def test_shell(text):
    """userData shell: the script scan, bootstrap.sh and nodeadm calls, kubelet restarts and file writes."""
    from karplint.userdata import bootstrap, shell

    with bounded("shell"):
        script = shell.parse_script(text)
        for cmd, index in shell.bootstrap_calls(script):
            call = bootstrap.parse_bootstrap(cmd, index, script)
            bootstrap.validation_failures(call)
        shell.nodeadm_calls(script)
        shell.kubelet_restarts(script)
        shell.kubelet_config_writes(script)
        shell.file_writes(script)
    for cmd in script.commands:
        for w in cmd.words:
            assert 0 <= w.start <= w.end <= len(text), (w.start, w.end, len(text))


@fuzz_settings(150)
@given(st.one_of(NODECONFIG, mime_userdata, hostile_text))
def test_nodeadm(text):
    """nodeadm NodeConfig documents (AL2023): decoded, flags and registration read, never raising."""
    from karplint.userdata import nodeadm

    with bounded("nodeadm"):
        nodeadm.looks_like_nodeconfig(text)
        docs = nodeadm.decode_nodeconfigs(text)
        nodeadm.kubelet_argv(docs)
        nodeadm.user_flags(docs)
        nodeadm.registration(docs)
        nodeadm.overridden_by_karpenter(docs, {"maxPods": 3})


systemd_value = st.lists(st.sampled_from([
    "/usr/bin/kubelet", "$KUBELET_ARGS", "${KUBELET_EXTRA_ARGS}", "'--node-labels=a=b c=d'", '"--max-pods=3"', "\\",
    "-", "@/bin/x", ";", "\\;", "'unclosed", '"x\\"y"', "KUBELET_EXTRA_ARGS=--max-pods=5",
    "--register-with-taints=a=b:NoSchedule"])
    | hostile_text, max_size=6).map(" ".join)


@fuzz_settings(150)
@given(systemd_value, st.one_of(POWERSHELL, hostile_text))
def test_systemd_and_windows(value, powershell):
    """systemd ExecStart / Environment splitting (kubelet drop-ins) and Windows PowerShell userData."""
    from karplint.userdata import systemd, windows

    with bounded("systemd and windows"):
        for split in (systemd.split_exec_219(value), systemd.split_exec_252(value)):
            assert split is not None
        systemd.environment_219(value)
        systemd.kubelet_extra_args_219(value)
        issues = windows.check(powershell)
    for issue in issues:
        assert 0 <= issue.start <= issue.end <= len(powershell), issue


kubelet_arg = st.sampled_from([
    "--register-with-taints=a=b:NoSchedule,c:NoExecute", "--node-labels=a=b,c=d", "--max-pods=110", "--max-pods",
    "110", "--node-labels", "--register-with-taints=", "-v=2", "--", "--eviction-hard=memory.available<5%",
    "--kube-reserved=cpu=100m", "--feature-gates=A=true"]) | hostile_text


@fuzz_settings(200)
@given(st.lists(taint.map(lambda t: f"{t.get('key')}={t.get('value')}:{t.get('effect')}" if isinstance(t, dict)
                          else str(t)) | hostile_text, max_size=4).map(",".join),
       st.lists(st.tuples(label_key, label_value).map("=".join), max_size=4).map(",".join),
       st.lists(kubelet_arg, max_size=6))
def test_kubelet_flags(taints, labels, argv):
    """kubelet's --register-with-taints and --node-labels grammars and its argv."""
    from karplint.userdata import kubelet

    with bounded("kubelet"):
        kubelet.parse_taints(taints)
        parsed = kubelet.parse_node_labels(labels)
        kubelet.validate_node_labels(parsed)
        kubelet.parse_kubelet_args(argv)


@fuzz_settings(200)
@given(cron, duration, quantity, st.sampled_from(["expireAfter", "consolidateAfter", "terminationGracePeriod",
                                                  "budgets.duration"]),
       st.one_of(st.sampled_from(["10%", "0", "5", "100%", "-1", "1.5", "%", "٣"]), hostile_text),
       st.integers(0, 10 ** 6))
def test_cron_duration_quantity(schedule, dur, qty, field, nodes, total):
    """The small value grammars: cron schedules, Go durations, quantities, budget node counts, versions."""
    from karplint.disruption import schedule as sched
    from karplint.disruption.budgets import allowed_nodes
    from karplint.model import cron as cronmod
    from karplint.model.durations import format_seconds, parse_field, parse_go_duration
    from karplint.model.versions import Version
    from karplint.provisioning.quantity import parse as parse_quantity

    with bounded("value grammars"):
        if cronmod.validate(schedule) is None:
            assert sched.parse(schedule) is not None
        for text in (dur, str(qty)):
            seconds = parse_go_duration(text)
            if seconds is not None and math.isfinite(seconds):
                format_seconds(seconds)
            parse_field(field, text)
        parse_quantity(qty)
        allowed_nodes(nodes, total)
        try:
            Version.parse(str(qty))
        except ValueError:
            pass


# ---------------------------------------------------------------------------------------------- configuration

toml_key = st.sampled_from(["select", "ignore", "extend-select", "fail-on", "exclude", "karpenter-version",
                            "max-file-size", "project-context", "clusters", "fail-on-nothing-checked", "severity",
                            "per-file-ignores", "cluster", "options", "unknown", "seleкt"])
toml_value = st.sampled_from([
    '["ALL"]', '"KPL101"', '["KPL9"]', '"error"', '"bogus"', "1", "0", "-1", "true", '"1.0.0"', '"v0.37.8"', '"x"',
    '"99.0.0"', "[1, 2]", "{}", '{KPL101 = "info"}', '{"*.yaml" = ["KPL101"]}', '{cni = "cilium"}',
    "{cni = 1}", '{node-repair = "yes"}', '{x = 1}', "1979-05-27", "inf", "nan", "1e400",
    '{instance-types = {"x.large" = {}}}', '{"instance-types" = []}'])
config_text = st.lists(st.one_of(st.tuples(toml_key, toml_value).map(" = ".join),
                                 st.sampled_from(["[tool.karplint]", "[cluster]", "[options]", "[severity]",
                                                  "[[x]]", "a.b.c = 1", "= 1", "[", "\x00"]),
                                 hostile_text), max_size=6).map("\n".join)


@fuzz_settings(150)
@given(config_text, st.sampled_from([".karplint.toml", "pyproject.toml", "karplint.toml"]))
def test_configuration_files(text, filename):
    """A configuration file: a Config, or a ConfigError that names the file; nothing else."""
    from pathlib import Path

    from karplint.config import ConfigError, load_config

    with tempfile.TemporaryDirectory(prefix="karplint-fuzz-") as tmp:
        path = Path(tmp) / filename
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        with bounded("configuration"):
            try:
                load_config(str(path), Path(tmp))
            except ConfigError as exc:
                assert str(path) in str(exc)


# ---------------------------------------------------------------------------------------------- release evidence

@fuzz_settings(100)
@given(st.lists(st.sampled_from(TF_BLOCKS) | hostile_text | st.builds(
    lambda v: f'resource "helm_release" "karpenter" {{\n  chart = "karpenter"\n  version = {json.dumps(v)}\n}}\n',
    st.sampled_from(["1.0.0", "v1.2.3", "1.x", "", "0.0.0", "99999.0.0", "1.0.0-rc.1", "٣.1.0"])), max_size=6),
    st.lists(resources, max_size=2))
def test_release_evidence(tf_parts, yaml_docs):
    """Karpenter versions read from Terraform and from HelmReleases: each names a file and a line of it."""
    from karplint.model import repo_version

    tf = "\n".join(tf_parts)
    with bounded("release evidence"):
        evidence = repo_version.terraform_evidence([("infra/main.tf", tf)])
        docs = []
        for objs in yaml_docs:
            src = _src(as_yaml(objs, "block"), "release.yaml")
            if not isinstance(src, Problem):
                docs += load(src)[0]
        evidence += repo_version.yaml_evidence(docs)
        for e in evidence:
            repo_version.to_version(e)
    for e in evidence:
        assert e.line >= 1
