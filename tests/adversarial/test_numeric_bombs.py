"""A number chosen by the checked tree, its configuration or the command line is a finding on its file or a usage
error, never an internal error that stops the run: numbers past Python's 4,300-digit int/str limit (versions,
YAML and TOML integers), digits `int()` rejects (`²`), durations past Go's range (infinity), dates past
datetime's, JSON nested past the parser's recursion, a directory where a cache file was. Each test drives the
real command line with a good file beside the bad one, which keeps its findings (karplint/numbers.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from karplint.testing import run_cli

GOOD = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: good
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m
"""
GOOD_FINDING = ("good.yaml", "KPL705", 5, 1)  # no spec.limits
HUGE = "9" * 5000  # past Python's 4,300 digits


def _check(proj: Path, *args: str) -> tuple[int, list[tuple], str]:
    out = run_cli("check", ".", "--no-cache", "--output-format", "json", *args, cwd=proj)
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    findings = [(f["file"], f["code"], f["line"], f["column"]) for f in json.loads(out.stdout)["findings"]]
    assert "KPL006" not in {f[1] for f in findings}, findings  # (an internal error in one rule)
    return out.returncode, findings, out.stderr


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    proj = tmp_path / "proj"
    for name, text in {"good.yaml": GOOD, **files}.items():
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        (proj / name).write_text(text)
    return proj


LONG_VERSIONS = {
    "helm_release": {"main.tf": f'resource "helm_release" "karpenter" {{\n  chart = "karpenter"\n'
                                f'  repository = "oci://public.ecr.aws/karpenter"\n  version = "1.{HUGE}.0"\n}}\n'},
    "variable default": {"main.tf": f'variable "karpenter_version" {{\n  default = "1.{HUGE}.0"\n}}\n'
                                    'resource "helm_release" "karpenter" {\n  chart = "karpenter"\n'
                                    '  repository = "oci://public.ecr.aws/karpenter"\n'
                                    '  version = var.karpenter_version\n}\n'},
    "HelmRelease": {"hr.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: karpenter\n"
                               f"spec:\n  chart:\n    spec:\n      chart: karpenter\n      version: \"1.{HUGE}.0\"\n"},
    "image tag": {"dep.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: karpenter\nspec:\n  template:\n"
                              "    spec:\n      containers:\n      - name: controller\n"
                              f"        image: public.ecr.aws/karpenter/controller:1.{HUGE}.0\n"},
    "Chart.yaml": {"chart/Chart.yaml": f"apiVersion: v2\nname: x\nversion: 1.{HUGE}.0\ndependencies:\n"
                                      f"- name: karpenter\n  version: 1.{HUGE}.0\n"
                                      "  repository: oci://public.ecr.aws/karpenter\n"},
}


@pytest.mark.parametrize("where", list(LONG_VERSIONS))
def test_a_version_of_thousands_of_digits_is_no_version(tmp_path, where):
    proj = _project(tmp_path, LONG_VERSIONS[where])
    code, findings, _ = _check(proj)
    assert code == 0 and GOOD_FINDING in findings, findings
    out = run_cli("check", ".", "--show-settings", cwd=proj)  # (reads the same evidence)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "(from karplint's default" in out.stdout


def test_a_hexadecimal_integer_of_thousands_of_digits_is_a_type_finding(tmp_path):
    bad = GOOD.replace("name: good", "name: bad").replace("spec:\n  template", f"spec:\n  weight: 0x{HUGE}\n  template")
    code, findings, _ = _check(_project(tmp_path, {"bad.yaml": bad}))
    assert code == 1
    assert ("bad.yaml", "KPL100", 6, 11) in findings and GOOD_FINDING in findings, findings


@pytest.mark.parametrize("number", [HUGE, "0x" + "f" * 5000, str(2**64)])
def test_a_configuration_integer_past_64_bits_is_a_usage_error(tmp_path, number):
    proj = _project(tmp_path, {".karplint.toml": f"fail-on = \"info\"\nmax-file-size = {number}\n"})
    for args in ([], ["--show-settings"]):
        out = run_cli("check", ".", "--no-cache", *args, cwd=proj)
        assert out.returncode == 2, (out.stdout, out.stderr)
        assert out.stderr == f"karplint: error: {proj / '.karplint.toml'}:2: invalid TOML: an integer outside 64 bits\n"


CRON = GOOD.replace("name: good", "name: cron") + """\
    budgets:
    - nodes: "²"
      schedule: "² * * * *"
      duration: 1h
    - nodes: "1"
      schedule: "0 */%s * * *"
      duration: 1h
""" % HUGE


def test_a_superscript_digit_in_a_cron_field_is_an_invalid_schedule(tmp_path):
    proj = _project(tmp_path, {"cron.yaml": CRON})
    code, findings, _ = _check(proj)
    assert code == 1
    assert {("cron.yaml", "KPL102", 14, 14), ("cron.yaml", "KPL403", 15, 17), ("cron.yaml", "KPL403", 18, 17),
            GOOD_FINDING} <= set(findings), findings
    out = run_cli("budgets", ".", cwd=proj)
    assert out.returncode == 0 and "internal error" not in out.stderr, out.stderr
    assert "error: nodes '²' is neither a count nor a percentage" in out.stdout


DURATIONS = GOOD.replace("name: good", "name: durations").replace(
    "      requirements: []", f"      requirements: []\n      expireAfter: {'9' * 400}h\n"
    f"      terminationGracePeriod: {'9' * 400}s").replace("consolidateAfter: 1m", f"""consolidateAfter: {'9' * 400}s
    budgets:
    - nodes: "1"
      schedule: "0 0 * * *"
      duration: {'9' * 400}h""")


def test_a_duration_of_hundreds_of_digits_is_past_gos_range(tmp_path):
    """Go's time.ParseDuration rejects a duration past int64 nanoseconds; read as a float, 400 digits were
    infinity, then NaN, and int() of it took down the budget rules and `budgets`."""
    proj = _project(tmp_path, {"durations.yaml": DURATIONS})
    code, findings, _ = _check(proj)
    assert code == 0 and {("durations.yaml", "KPL705", 5, 1), GOOD_FINDING} <= set(findings), findings
    out = run_cli("budgets", ".", cwd=proj)
    assert out.returncode == 0 and "internal error" not in out.stderr, out.stderr
    assert "NodePool/durations" in out.stdout and "NodePool/good" in out.stdout


@pytest.mark.parametrize("week", ["9999-12-31", "0001-01-01"])
def test_budgets_week_outside_datetimes_range_is_a_usage_error(tmp_path, week):
    proj = _project(tmp_path, {"cron.yaml": GOOD.replace("name: good", "name: b") + """\
    budgets:
    - nodes: "1"
      schedule: "0 0 * * *"
      duration: 1h
"""})
    out = run_cli("budgets", ".", "--week", week, cwd=proj)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr == f"karplint budgets: --week: {week} is outside the dates shown, 0002-01-01 to 9998-12-31\n"
    assert run_cli("budgets", ".", "--week", "9998-12-31", cwd=proj).returncode == 0


def test_instance_types_json_nested_100000_deep_is_a_usage_error(tmp_path):
    proj = _project(tmp_path, {})
    (tmp_path / "types.json").write_text("[" * 100_000 + "]" * 100_000)
    out = run_cli("simulate", ".", "--instance-types", str(tmp_path / "types.json"), cwd=proj)
    assert out.returncode == 2, out.stderr
    assert out.stderr == f"karplint simulate: {tmp_path / 'types.json'}:1: JSON nested deeper than 200 levels\n"


def test_instance_types_json_number_of_thousands_of_digits_is_a_usage_error(tmp_path):
    proj = _project(tmp_path, {})
    (tmp_path / "types.json").write_text('{"x.large": {"allocatable": {"pods": %s}}}' % HUGE)
    out = run_cli("simulate", ".", "--instance-types", str(tmp_path / "types.json"), cwd=proj)
    assert out.returncode == 2, out.stderr
    assert out.stderr == (f"karplint simulate: {tmp_path / 'types.json'}: not JSON (a number of 5,000 digits: "
                          "more than 1,000)\n")


def _nodeclass(family: str, alias: str, userdata: str) -> str:
    """An EC2NodeClass whose userData (line 12 on) is `userdata`."""
    body = "".join(f"    {line}\n" for line in userdata.split("\n"))
    return ("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n"
            f"  amiFamily: {family}\n  amiSelectorTerms: [{{alias: {alias}@latest}}]\n  role: r\n"
            "  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n"
            "  userData: |\n" + body)


def test_bottlerocket_toml_integer_past_64_bits_is_invalid_toml(tmp_path):
    nodeclass = _nodeclass("Bottlerocket", "bottlerocket", f'[settings.kubernetes]\nmax-pods = 0x{"f" * 5000}')
    code, findings, _ = _check(_project(tmp_path, {"br.yaml": nodeclass}))
    assert code == 1 and ("br.yaml", "KPL240", 13, 5) in findings and GOOD_FINDING in findings, findings


def _corrupt_cache(proj: Path, with_content: bool) -> list[Path]:
    stores = [p for p in (proj / ".karplint_cache").iterdir() if p.suffix in (".index", ".pack", ".docs")]
    assert len(stores) == 3
    for p in stores:
        p.unlink()
        p.mkdir()
        if with_content:
            (p / "x").write_text("")
    return stores


@pytest.mark.parametrize("with_content", [False, True])
def test_a_directory_where_a_cache_file_was_is_a_miss(tmp_path, with_content):
    proj = _project(tmp_path, {".karplint.toml": ""})
    first = run_cli("check", ".", "--output-format", "concise", cwd=proj)
    stores = _corrupt_cache(proj, with_content)
    out = run_cli("check", ".", "--output-format", "concise", cwd=proj)
    assert (out.returncode, out.stdout) == (first.returncode, first.stdout), out.stderr
    assert "good.yaml:5:1: KPL705" in out.stdout
    if with_content:  # not ours to delete: named, once, and the run goes on without the cache
        index = next(p for p in stores if p.suffix == ".index")  # (the first looked at)
        assert out.stderr == (f"karplint: warning: running without the cache: {index} is not a file and cannot "
                              "be replaced (Directory not empty)\n"), out.stderr
        assert all(p.is_dir() for p in stores)
    else:  # replaced: the next run reads it
        assert out.stderr == ""
        assert all(p.is_file() for p in stores), [os.lstat(p) for p in stores]


@pytest.mark.parametrize("command, prefix", [("check", "karplint: error: "), ("render", "karplint render: ")])
def test_a_karpenter_version_option_of_thousands_of_digits_is_a_usage_error(tmp_path, command, prefix):
    proj = _project(tmp_path, {})
    out = run_cli(command, "--karpenter-version", f"1.{HUGE}.0", ".", cwd=proj)
    assert out.returncode == 2, out.stderr
    assert out.stderr == f"{prefix}--karpenter-version: not a Karpenter version: a component of more than 1,000 digits\n"


def test_a_kubernetes_version_of_thousands_of_digits_in_the_configuration_is_no_version(tmp_path):
    """`[cluster] kubernetes-version` with a minor of 5,000 digits took KPL218 down with an internal error; it is
    now a configuration error (issue #27: values are checked), quoted short. The kubelet flags of the same userData
    are still checked (KPL217: a `--max-pods` past every integer type)."""
    nodeclass = _nodeclass("AL2", "al2", "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args "
                                         f"'--max-pods={HUGE} --node-status-max-images=5'")
    proj = _project(tmp_path, {"nc.yaml": nodeclass, ".karplint.toml": f'[cluster]\nkubernetes-version = "1.{HUGE}"\n'})
    out = run_cli("check", ".", "--no-cache", cwd=proj)
    assert out.returncode == 2 and out.stderr == (
        f"karplint: error: {proj / '.karplint.toml'}:2: `cluster.kubernetes-version`: '1.{'9' * 38}'... "
        "(5,002 characters) is not a Kubernetes version such as \"1.31\"\n")
    (proj / ".karplint.toml").write_text('[cluster]\nkubernetes-version = "1.31"\n')
    code, findings, _ = _check(proj)
    assert code == 1 and ("nc.yaml", "KPL217", 13, 71) in findings and GOOD_FINDING in findings, findings


def test_a_directory_where_the_cache_key_was_runs_without_the_cache(tmp_path):
    proj = _project(tmp_path, {".karplint.toml": ""})
    key = tmp_path / "xdg" / "karplint" / "cache-key"
    key.mkdir(parents=True)
    out = run_cli("check", ".", "--output-format", "concise", cwd=proj, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert out.returncode == 0 and "good.yaml:5:1: KPL705" in out.stdout, out.stderr
    assert out.stderr == (f"karplint: warning: running without the cache: no private cache key could be read or "
                          f"created at {key}\n")


def test_leading_zeros_count_for_nothing(tmp_path):
    """`int()` counts leading zeros against its limit, Go's strconv does not: 5,000 zeros before a 5 are a 5."""
    zeros = "0" * 5000
    pool = GOOD.replace("name: good", "name: zeros") + f"""\
    budgets:
    - nodes: "{zeros}1"
      schedule: "{zeros}5 * * * *"
      duration: 1h
"""
    proj = _project(tmp_path, {"zeros.yaml": pool})
    code, findings, _ = _check(proj)
    assert code == 0 and set(findings) == {("zeros.yaml", "KPL705", 5, 1), GOOD_FINDING}, findings
    out = run_cli("budgets", "zeros.yaml", "--output-format", "json", cwd=proj)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)["nodepools"][0]
    assert report["budgets"][0]["error"] is None
    # (an hour from minute 5 of every hour: the whole week, at the budget's value)
    assert [(s["start"], s["end"], s["limit"]) for s in report["reasons"]["Drifted"]["segments"]] == [
        ("Mon 00:00", "Sun 24:00", f"{zeros}1")]
