"""Issue 13's readers on untrusted input: a rendered Helm stream names files (`# Source:`) that karplint then reads
for positions and code frames; program files and Terraform are scanned by bytes. Each defence has its test."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from karplint.testing import run_cli

SECRET = "TOP-SECRET-7c1d"
RENDERED = """---
# Source: {path}
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: x
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}
      requirements: [{{key: kubernetes.io/arch, operator: In, values: [amd64]}}]
      expireAfter: 30d
"""


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link"])
def test_source_comment_never_reads_outside_the_project(tmp_path: Path, how: str):
    outside = tmp_path / "outside" / "templates"
    outside.mkdir(parents=True)
    secret = outside / "np.yaml"
    secret.write_text("\n".join(f"      expireAfter: {SECRET}" for _ in range(20)) + "\n")
    project = tmp_path / "project"
    project.mkdir()
    if how == "absolute":
        path = str(secret)
    elif how == "dotdot":
        path = "../outside/templates/np.yaml"
    else:
        (project / "chart").mkdir()
        os.symlink(outside, project / "chart" / "templates")
        path = "chart/templates/np.yaml"
    proc = run_cli("check", "-", "--no-cache", "--select", "KPL102", cwd=project, stdin=RENDERED.format(path=path))
    assert SECRET not in proc.stdout + proc.stderr
    assert proc.stdout.startswith("-:12:20: KPL102")  # (kept on the rendered text)


def test_code_scan_is_bounded(tmp_path: Path):
    # A manifest past the first MiB of a 6 MB file is not looked for; the scan stays linear and fast.
    (tmp_path / "big.ts").write_bytes(b"// " + b"x" * (6 << 20) + b"\napiVersion: 'karpenter.sh/v1', kind: 'NodePool'\n")
    (tmp_path / "many.py").write_bytes(b"kind = 'NodePool'\n" * 60_000 + b"karpenter.sh\n")
    started = time.monotonic()
    proc = run_cli("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert time.monotonic() - started < 20
    assert json.loads(proc.stdout)["findings"] == []


def test_terraform_scan_is_bounded(tmp_path: Path):
    # An unclosed helm_release block and braces without end: read once, no version, no hang.
    (tmp_path / "main.tf").write_text('resource "helm_release" "karpenter" {\n  chart = "karpenter"\n'
                                      + "{\n" * 100_000 + '  version = "1.1.0"\n')
    (tmp_path / "np.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    started = time.monotonic()
    proc = run_cli("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert time.monotonic() - started < 20
    assert json.loads(proc.stdout)["summary"]["karpenter_versions"] == []


def test_many_kinds_and_api_versions_stay_linear(tmp_path: Path):
    far = b"\n" * 700
    (tmp_path / "gen.ts").write_bytes((b"apiVersion: 'karpenter.sh/v1'" + far + b"x" + far) * 300
                                      + b"kind: 'NodePool'\n" * 30_000)
    many = ''.join(f'resource "helm_release" "r{i}" {{\n  chart = "karpenter"\n' for i in range(20_000))
    (tmp_path / "many.tf").write_text(many[:1_000_000])
    started = time.monotonic()
    proc = run_cli("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert time.monotonic() - started < 20
    assert json.loads(proc.stdout)["summary"]["karpenter_versions"] == []


def test_rendered_alignment_stays_fast_on_repeated_lines(tmp_path: Path):
    # difflib is cubic on repeated lines: the alignment of a rendered document with its template must not be.
    templates = tmp_path / "c" / "templates"
    templates.mkdir(parents=True)
    body = "".join(f"    - a{i % 2}: 1\n" for i in range(1_900))
    (templates / "np.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  labels:\n" + body)
    stream = ("---\n# Source: c/templates/np.yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n"
              "  name: {{ x }}\n  labels:\n" + "".join(f"    - a{i % 3}: 1\n" for i in range(1_900)) + "spec: 5\n")
    started = time.monotonic()
    proc = run_cli("check", "-", "--no-cache", "--output-format", "json", cwd=tmp_path, stdin=stream)
    assert time.monotonic() - started < 20
    assert json.loads(proc.stdout)["findings"]
