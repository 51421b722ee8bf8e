"""Configuration values with a closed set or a grammar are checked as keys are (issue #27): a misspelt value used
to switch rules off silently (`cni = "cillium"`: no Cilium rule, and the run passed). Exit 2, a did-you-mean,
and the file and line of the value. Instance-type tables (the configuration's and `simulate --instance-types`
files) with misspelt keys likewise."""

from __future__ import annotations

import json

import pytest

from karplint.testing import run_cli

NODEPOOL = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n"


@pytest.mark.parametrize("toml,message", [
    ('fail-on = "warning"\n[cluster]\nnode-repair = true\ncni = "cillium"\n',
     ":4: `cluster.cni`: 'cillium' is not a CNI karplint knows; did you mean `cilium`?"),
    ('[cluster]\nkubernetes-version = "131"\n',
     ':2: `cluster.kubernetes-version`: \'131\' is not a Kubernetes version such as "1.31"'),
    ('[cluster]\ncnii = "cilium"\n', ":2: unknown key `cluster.cnii`; did you mean `cni`?"),
    ('[options]\nmax-termination-grace-period = "7days"\n',
     ':2: `options.max-termination-grace-period`: \'7days\' is not a duration such as "168h" or "90m"'),
    ('[options]\nmin-expire-after = "1 hour"\n', ":2: `options.min-expire-after`: '1 hour' is not a duration"),
    ('[options]\nmax-hop-limit = 0\n', ":2: `options.max-hop-limit` must be between 1 and 64"),
    ('[options]\nrepair-window-seconds = -5\n', ":2: `options.repair-window-seconds` must be 0 or more"),
    ('[options]\nmax-hop-limt = 2\n', ":2: unknown key `options.max-hop-limt`; did you mean `max-hop-limit`?"),
    ('fail-on = "eror"\n', ":1: `fail-on` must be one of info, warning, error (got 'eror'); did you mean `error`?"),
    ('[severity]\nKPL705 = "warn"\n', ":2: `severity.KPL705` must be one of info, warning, error (got 'warn'); "
                                      "did you mean `warning`?"),
    ('selct = ["ALL"]\n', ":1: unknown configuration key `selct`; did you mean `select`?"),
    ('[options.instance-types."m9g.large"]\nlabels = { "kubernetes.io/arch" = "arm64" }\n'
     'allocateable = { cpu = "2" }\n',
     ":3: `options.instance-types`: instance type `m9g.large`: unknown key `allocateable`; did you mean `allocatable`?"),
    ('[options]\ninstance-types = { "m9g.large" = { allocatable = { cpus = "2" } } }\n',
     ":2: `options.instance-types`: instance type `m9g.large`: `allocatable` has no resource `cpus`; "
     "did you mean `cpu`?"),
    ('[options.instance-types."m9g.large".labels]\n"karpenter.k8s.aws/instance-famly" = "m9g"\n',
     ":2: `options.instance-types`: instance type `m9g.large`: unknown label `karpenter.k8s.aws/instance-famly`; "
     "did you mean `karpenter.k8s.aws/instance-family`?"),
])
def test_misspelt_configuration_values_stop_the_run_on_their_line(tmp_path, toml, message):
    (tmp_path / ".karplint.toml").write_text(toml)
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert f"{tmp_path / '.karplint.toml'}{message}" in proc.stderr, proc.stderr


def test_pyproject_lines_count_from_the_karplint_table(tmp_path):
    # another tool's `cni` key comes first: the line is the one under [tool.karplint.cluster]
    (tmp_path / "pyproject.toml").write_text('[tool.other]\ncni = 1\n\n[tool.karplint.cluster]\n'
                                             '# cni = "cilium"\ncni = "calcio"\n')
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}:6: `cluster.cni`: 'calcio' is not a CNI karplint knows; " \
           "did you mean `calico`?" in proc.stderr, proc.stderr


@pytest.mark.parametrize("toml", [
    '[cluster]\ncni = "Cilium"\nkubernetes-version = "v1.31.2"\nnodeclasses = ["a"]\n',
    '[cluster]\ncni = "aws-vpc-cni"\n',
    '[options]\nmax-termination-grace-period = "1h30m"\nmin-expire-after = "0"\nmax-hop-limit = 2\n'
    'repair-window-seconds = 0\n',
    '[options.instance-types."m9g.large"]\nlabels = { "kubernetes.io/arch" = "arm64", "team.example.com/x" = "y", '
    '"karpenter.sh/capacity-type" = "spot" }\nallocatable = { cpu = "2", memory = "8Gi", pods = "29", '
    '"nvidia.com/gpu" = "1", "hugepages-2Mi" = "0" }\n',
])
def test_valid_values_still_run(tmp_path, toml):
    (tmp_path / ".karplint.toml").write_text(toml)
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", cwd=tmp_path)
    assert proc.returncode in (0, 1) and "error:" not in proc.stderr, proc.stderr


def test_cilium_value_misspelt_no_longer_passes_silently(tmp_path):
    """The issue's case end to end: a NodePool without Cilium's startup taint passed with `cni = "cillium"`."""
    (tmp_path / ".karplint.toml").write_text('[cluster]\ncni = "cillium"\n')
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", "--select", "KPL301", cwd=tmp_path)
    assert proc.returncode == 2 and "All checks passed" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("types,message", [
    ({"m9g.large": {"labels": {"kubernetes.io/arch": "arm64"}, "allocatable": {"cpu": "2", "memroy": "8Gi"}}},
     ":8: instance type `m9g.large`: `allocatable` has no resource `memroy`; did you mean `memory`?"),
    ({"m9g.large": {"label": {"kubernetes.io/arch": "arm64"}}},
     ":3: instance type `m9g.large`: unknown key `label`; did you mean `labels`?"),
    ({"m9g.large": {"labels": {"kubernetes.io/arhc": "arm64"}}},
     ":4: instance type `m9g.large`: unknown label `kubernetes.io/arhc`; did you mean `kubernetes.io/arch`?"),
])
def test_instance_types_file_with_misspelt_keys_is_a_usage_error(tmp_path, types, message):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    (tmp_path / "types.json").write_text(json.dumps(types, indent=2))
    proc = run_cli("simulate", "np.yaml", "--instance-types", "types.json", cwd=tmp_path)
    assert proc.returncode == 2 and f"types.json{message}" in proc.stderr, proc.stderr
