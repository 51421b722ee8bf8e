"""KPL9xx on the fixtures of tests/fixtures/provisioning/: exact codes, lines and columns."""

from __future__ import annotations

import subprocess
import sys

import pytest

from karplint.testing import REPO, codes, lint

FIXTURES = REPO / "tests" / "fixtures" / "provisioning"
OURS = ("KPL9", "KPL605", "KPL607")


def _lint(name: str, **kw):
    path = f"tests/fixtures/provisioning/{name}"
    found = lint({path: (FIXTURES / name).read_text()}, **kw)
    return [f for f in found if f.code.startswith(OURS)]


def test_nodepool_that_launches_nothing():
    found = _lint("empty.yaml")
    assert codes(found) == [("KPL901", 16, 11)]
    msg = found[0].message
    assert msg.startswith("NodePool `arm` can launch no instance type\nhelp: `c5.large` would pass without "
                          "`kubernetes.io/arch In [arm64]`\n")
    assert "(line 13) and `kubernetes.io/arch In [arm64]` (line 16) together leave none" in msg


def test_values_that_match_nothing():
    found = _lint("values.yaml")
    assert codes(found) == [
        ("KPL902", 15, 26), ("KPL902", 15, 33), ("KPL902", 15, 38), ("KPL905", 15, 50), ("KPL905", 15, 58),
        ("KPL902", 18, 20), ("KPL902", 24, 20), ("KPL605", 32, 11)]
    first = [f.message.split("\n")[0] for f in found]
    assert first[0] == "`M6i` matches no instance family"
    assert found[0].message.split("\n")[1] == "help: label values are case-sensitive: `m6i`"
    assert first[1] == "`c` is an instance category, not an instance family"
    assert found[1].message.split("\n")[1] == "help: use `key: karpenter.k8s.aws/instance-category`"
    assert first[2].startswith("`m5.large` is an instance type, not an instance family")
    assert first[3] == "`c6gx` is unknown to the bundled catalog (v1.14 docs, aws/karpenter-provider-aws@1d927085)"
    assert first[5] == "`m5.xlareg` matches no instance type"
    assert found[5].message.split("\n")[1] == "help: did you mean `m5.xlarge`?"
    assert first[6] == "`karpenter.k8s.aws/instance-memory` takes integers, not `16Gi`"
    assert [f.severity for f in found[:3]] == ["warning"] * 3


def test_a_requirement_whose_only_values_match_nothing_is_an_error():
    text = (FIXTURES / "empty.yaml").read_text().replace('values: ["m5", "c5"]', 'values: ["c", "m"]')
    found = [f for f in lint({"np.yaml": text}) if f.code.startswith("KPL9")]
    assert codes(found) == [("KPL902", 15, 20), ("KPL902", 15, 25)]
    assert {f.severity for f in found} == {"error"}


# The Provisioner of aws/karpenter-provider-aws's "migrating from Cluster Autoscaler" guide before PR #3079
# (website/content/en/v0.20.0/getting-started/migrating-from-cas/scripts/step11-create-provisioner.sh, Apache-2.0).
_CATEGORIES_AS_FAMILIES_PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: karpenter.k8s.aws/instance-family
      operator: In
      values: [c, m, r]
  providerRef:
    name: default
"""


def test_provisioner_values_that_match_nothing_at_a_release_that_serves_it():
    found = [f for f in lint({"p.yaml": _CATEGORIES_AS_FAMILIES_PROVISIONER}, karpenter_version="0.20.0")
             if f.code.startswith("KPL9")]
    assert codes(found) == [("KPL902", 9, 16), ("KPL902", 9, 19), ("KPL902", 9, 22)]
    assert {f.severity for f in found} == {"error"}
    assert "the Provisioner launches nothing" in found[0].message
    # not served by the default release: not judged (KPL803 says so)
    assert not [f for f in lint({"p.yaml": _CATEGORIES_AS_FAMILIES_PROVISIONER}) if f.code == "KPL902"]


def test_dead_values_and_min_values():
    found = _lint("dead.yaml")
    assert codes(found) == [("KPL903", 15, 46), ("KPL903", 15, 52), ("KPL904", 16, 11)]
    assert found[0].message.split("\n")[1] == "help: remove `c4`, or relax `karpenter.k8s.aws/instance-hypervisor In [nitro]`"
    assert found[2].parts[0] == ("minValues 5 cannot be met: 4 distinct value(s) of "
                                 "`karpenter.k8s.aws/instance-family` remain")
    assert "note: what remains: c5, c5d, m5, m5d" in found[2].message


def test_workloads_no_nodepool_can_host():
    found = _lint("workloads/workloads.yaml")
    assert codes(found) == [("KPL910", 46, 9), ("KPL910", 82, 9), ("KPL910", 94, 9)]
    too_big, untolerated, gpu = found
    assert too_big.severity == "error" and untolerated.severity == "warning" and gpu.severity == "error"
    assert too_big.message.split("\n")[1] == (
        "help: closest is NodePool `general`: requests cpu 3500m plus 500m for DaemonSets, more than any of its 2 "
        "compatible instance types offers (largest: m5.xlarge with 3920m allocatable)")
    assert "did not tolerate taint `dedicated=web:NoSchedule`" in untolerated.message
    assert "`karpenter.k8s.aws/instance-gpu-count Exists`" in gpu.message


def test_workloads_of_unrelated_directories_are_not_judged():
    text = (FIXTURES / "workloads" / "workloads.yaml").read_text()
    pool, _, rest = text.partition("---\n")
    found = lint({"a/pool.yaml": pool, "b/apps.yaml": rest})
    assert not [f for f in found if f.code == "KPL910"]
    found = lint({"a/pool.yaml": pool, "a/apps/apps.yaml": rest})
    assert codes([f for f in found if f.code == "KPL910"]) == [("KPL910", 20, 9), ("KPL910", 56, 9),
                                                                 ("KPL910", 68, 9)]


def test_templated_pools_say_nothing():
    found = [f for f in lint({"np.yaml": (FIXTURES / "templated" / "templated.yaml").read_text()}) if f.code == "KPL901"]
    assert found == []  # `templated` has a Helm value: cannot tell


def test_selecting_a_nodepool_no_checked_file_defines_is_a_warning():
    """Issue 26: a pod selecting `karpenter.sh/nodepool: other` where the NodePools in scope have other names was
    passed as "defined elsewhere"; it is a warning that names the scope (it may be defined in files not checked)."""
    text = (FIXTURES / "workloads" / "workloads.yaml").read_text().replace("karpenter.sh/nodepool: general",
                                                             "karpenter.sh/nodepool: other")
    found = [f for f in lint({"w.yaml": text}) if f.code == "KPL910" and "selects NodePool" in f.message]
    assert [(f.line, f.column, f.severity) for f in found] == [(46, 9, "warning"), (64, 9, "warning")]
    assert found[0].message.splitlines() == [
        "Deployment `too-big` selects NodePool `other`, and no NodePool of the checked files has that name",
        "help: name one of the NodePools in scope, or check the files that define it",
        "note: judged on every NodePool of the checked files: `general`",
        "note: only a node of the NodePool of that name carries `karpenter.sh/nodepool` with that value: if the "
        "cluster has none, Karpenter leaves the pods Pending; it may be defined in files not checked"]
    typo = text.replace("karpenter.sh/nodepool: other", "karpenter.sh/nodepool: genral")
    found = [f for f in lint({"w.yaml": typo}) if f.code == "KPL910" and "selects NodePool" in f.message]
    assert found[0].message.splitlines()[1] == "help: did you mean `general`?"
    strict = [f for f in lint({"w.yaml": text}, config={"cluster": {"karpenter-only": True}})
              if f.code == "KPL910" and "selects NodePool" in f.message]
    assert [f.severity for f in strict] == ["error", "error"]
    assert "files not checked" not in strict[0].message


@pytest.mark.parametrize("option", [
    {"m9z.large": {"labels": {"kubernetes.io/arch": "amd64"}, "allocatable": {"cpu": "1930m"}}},
])
def test_instance_types_option_extends_the_catalog(option):
    text = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n"
            "      requirements:\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m9z]}\n"
            "        - {key: kubernetes.io/arch, operator: In, values: [arm64]}\n")
    assert codes([f for f in lint({"np.yaml": text}) if f.code.startswith("KPL9")]) == [("KPL905", 8, 75)]
    found = [f for f in lint({"np.yaml": text}, config={"options": {"instance-types": option}})
             if f.code.startswith("KPL9")]
    assert codes(found) == [("KPL901", 9, 11)]


def test_a_run_without_requirements_never_loads_the_catalog():
    code = ("import sys\nfrom karplint.testing import lint\n"
            "lint({'d.yaml': 'apiVersion: apps/v1\\nkind: Deployment\\nmetadata: {name: x}\\nspec:\\n  template:\\n"
            "    spec:\\n      nodeSelector: {karpenter.sh/nodepool: x}\\n      containers: [{name: a}]\\n'})\n"
            "print('karplint.provisioning.catalog' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_karpenter_only_cluster_judges_every_workload():
    text = (FIXTURES / "workloads" / "workloads.yaml").read_text()
    plain = [f for f in lint({"w.yaml": text}) if f.code == "KPL910"]
    assert "elsewhere" not in " ".join(f.message for f in plain)
    strict = [f for f in lint({"w.yaml": text}, config={"cluster": {"karpenter-only": True}}) if f.code == "KPL910"]
    assert codes(strict) == [("KPL910", 46, 9), ("KPL910", 82, 9), ("KPL910", 94, 9), ("KPL910", 117, 9)]
    assert {f.severity for f in strict} == {"error"}
