"""Commands that ignored or misread their flags (issue #27): `render --karpenter-version` of a release that does
not exist, `simulate --help` and `rules --help` listing formats they refuse, `rules --release` and `-v` ignored
without `--cel-coverage`, `clean` of a path that does not exist emptying the user cache, and `clean` in one
project removing another's entries from a shared cache directory."""

from __future__ import annotations

import json
import os
import re

import pytest

from karplint.testing import run_cli

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: r
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
"""
NODEPOOL = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n"
# Karpenter labels nodes karpenter.sh/do-not-sync-taints from v1.5.0 (karplint/userdata/merge.py)
SYNC_LABEL = "karpenter.sh/do-not-sync-taints=true"


def test_render_refuses_a_release_that_does_not_exist_as_check_does(tmp_path):
    (tmp_path / "nc.yaml").write_text(NODECLASS)
    render = run_cli("render", "nc.yaml", "--karpenter-version", "1.41.1", cwd=tmp_path)
    check = run_cli("check", "nc.yaml", "--no-cache", "--karpenter-version", "1.41.1", cwd=tmp_path)
    why = "--karpenter-version: no Karpenter release 1.41.1 exists (the newest karplint knows is 1.14.1); " \
          "did you mean 1.14.1?"
    assert render.returncode == check.returncode == 2 and render.stdout == ""
    assert render.stderr == f"karplint render: {why}\n" and why in check.stderr


@pytest.mark.parametrize("pin", ["chart", "config"])
def test_render_targets_the_release_the_repository_pins(tmp_path, pin):
    """Regression guard (render follows the project's release evidence since f590048): a repository pinning
    Karpenter 1.4.0 renders without the label 1.5.0 added; the flag still overrides the pin."""
    (tmp_path / ".git").mkdir()  # a marked project: the chart beside the named file is its context
    (tmp_path / "nc.yaml").write_text(NODECLASS)
    if pin == "chart":
        (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: infra\nversion: 0.1.0\ndependencies:\n"
                                             "  - name: karpenter\n    version: 1.4.0\n"
                                             "    repository: oci://public.ecr.aws/karpenter\n")
    else:
        (tmp_path / ".karplint.toml").write_text('karpenter-version = "1.4.0"\n')
    pinned = run_cli("render", "nc.yaml", cwd=tmp_path)
    assert pinned.returncode == 0 and "registers with labels:" in pinned.stdout and SYNC_LABEL not in pinned.stdout
    latest = run_cli("render", "nc.yaml", "--karpenter-version", "1.14.1", cwd=tmp_path)
    assert latest.returncode == 0 and f"  {SYNC_LABEL}\n" in latest.stdout


@pytest.mark.parametrize("command", ["simulate", "rules"])
def test_help_lists_only_the_formats_the_command_writes(command):
    out = run_cli(command, "--help", env={"COLUMNS": "200"})
    line = next(ln for ln in out.stdout.splitlines() if "--output-format" in ln)
    assert out.returncode == 0 and re.search(r"--output-format <text\|json>", line), line
    refused = run_cli(command, "--output-format", "sarif")
    assert refused.returncode == 2 and "'sarif' is not one of 'text', 'json'" in refused.stderr, refused.stderr


def test_rules_release_without_cel_coverage_is_a_usage_error():
    out = run_cli("rules", "--release", "1.0.0")
    assert out.returncode == 2 and out.stdout == ""
    assert "--release needs --cel-coverage" in out.stderr
    cel = run_cli("rules", "--cel-coverage", "--release", "1.0.0", "-f", "json")
    assert cel.returncode == 0 and {r["release"] for r in json.loads(cel.stdout)} == {"1.0.0"}


def test_rules_verbose_adds_scope_kinds_and_options():
    plain, verbose = run_cli("rules"), run_cli("rules", "-v")
    line = next(ln for ln in verbose.stdout.splitlines() if ln.startswith("KPL413\t"))
    assert line.split("\t") == ["KPL413", "tgp-too-long", "disruption", "warning", "", "resource", "NodePool",
                                'max-termination-grace-period="168h"',
                                "NodePool terminationGracePeriod above the configured bound (option "
                                "max-termination-grace-period)"]
    assert len(next(ln for ln in plain.stdout.splitlines() if ln.startswith("KPL413\t")).split("\t")) == 6
    data = {r["code"]: r for r in json.loads(run_cli("rules", "-v", "-f", "json").stdout)}
    assert data["KPL702"]["options"] == {"max-hop-limit": 1} and data["KPL001"]["scope"] == "engine"


def _cache_files(directory):
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []


def test_clean_of_a_path_that_does_not_exist_is_a_usage_error_and_keeps_the_cache(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "KARPLINT_CACHE_DIR": ""}
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "np.yaml").write_text(NODEPOOL)
    run_cli("check", ".", cwd=tmp_path / "proj", env=env)
    before = _cache_files(tmp_path / "xdg" / "karplint")
    assert any(n.endswith(".pack") for n in before)
    out = run_cli("clean", str(tmp_path / "nosuch"), cwd=tmp_path / "proj", env=env)
    assert out.returncode == 2 and out.stderr == f"karplint: error: {tmp_path / 'nosuch'}: no such file or directory\n"
    assert _cache_files(tmp_path / "xdg" / "karplint") == before


@pytest.mark.parametrize("shared", ["user-cache", "KARPLINT_CACHE_DIR"])
def test_clean_in_one_project_keeps_the_others_entries(tmp_path, shared):
    """Two projects whose runs share a cache directory: the user cache (no configuration file), or
    KARPLINT_CACHE_DIR (each with its own configuration file). `clean` in one removes its sets only; `--all`
    removes every set."""
    cache = tmp_path / "xdg" / "karplint" if shared == "user-cache" else tmp_path / "shared"
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "KARPLINT_CACHE_DIR": "" if shared == "user-cache" else str(cache)}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "np.yaml").write_text(NODEPOOL)
        if shared != "user-cache":
            (tmp_path / name / ".karplint.toml").write_text('fail-on = "error"\n')
        run_cli("check", ".", cwd=tmp_path / name, env=env)
    packs = [n for n in _cache_files(cache) if n.endswith(".pack")]
    assert len(packs) == 2
    b_set = next(n[:-len(".project")] for n in _cache_files(cache)
                 if n.endswith(".project") and (cache / n).read_text() == os.path.realpath(tmp_path / "b"))
    out = run_cli("clean", cwd=tmp_path / "a", env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"removed 4 cache files of {os.path.realpath(tmp_path / 'a')} from {cache}\n"
    assert [n for n in _cache_files(cache) if n.endswith((".pack", ".index", ".docs", ".project"))] == \
        sorted(f"{b_set}.{ext}" for ext in ("docs", "index", "pack", "project"))
    out = run_cli("clean", "--all", cwd=tmp_path / "a", env=env)
    assert out.returncode == 0 and not any(n.endswith(".pack") for n in _cache_files(cache))
