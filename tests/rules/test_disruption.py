"""Disruption rules (KPL401-KPL414) and removed disruption annotations (KPL811)."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import codes, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "disruption"
DISRUPTION = {"select": ["KPL4", "KPL81"]}


def run(name: str, config: dict | None = None, **kw):
    return lint({name: (FIXTURES / name).read_text()}, config=config or DISRUPTION, **kw)


def test_consolidate_after_required():
    found = run("consolidate_after_bad.yaml")
    assert codes(found) == [("KPL401", 8, 3)]
    assert found[0].severity == "error"
    assert found[0].fix is not None and found[0].fix.safety == "safe"


def test_consolidate_after_good():
    assert run("consolidate_after_good.yaml") == []


def test_consolidate_after_empty_flow_block_has_no_fix():
    text = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: x
spec:
  disruption: {consolidationPolicy: WhenEmpty}
"""
    found = lint(text, config=DISRUPTION)
    assert codes(found) == [("KPL401", 6, 3)]
    assert found[0].fix is None


def test_budgets_bad():
    found = run("budgets_bad.yaml")
    assert codes(found) == [
        ("KPL403", 11, 19),  # hour 25
        ("KPL403", 14, 19),  # @fortnightly
        ("KPL404", 17, 9),  # schedule without duration
        ("KPL404", 19, 9),  # duration without schedule
        ("KPL406", 20, 16),  # nodes "0" without schedule
        ("KPL405", 21, 30),  # "underutilized"
        ("KPL403", 23, 19),  # six fields
    ]
    assert "did you mean 'Underutilized'" in found[5].message
    assert found[4].severity == "info"


def test_budgets_good():
    assert run("budgets_good.yaml") == []


def test_do_not_disrupt_bad():
    found = run("do_not_disrupt_bad.yaml")
    assert codes(found) == [
        ("KPL414", 11, 38),  # NodePool template: only "true"
        ("KPL411", 12, 5),  # default expireAfter, no TGP, StatefulSet/training lands on `batch`
        ("KPL412", 36, 31),  # 10m < Deployment/api's 900s
        ("KPL413", 50, 31),  # 720h > 168h
        ("KPL410", 60, 9),  # StatefulSet/training on `batch` without TGP
        ("KPL811", 83, 9),  # do-not-evict
        ("KPL414", 98, 38),  # "forever"
    ]
    by_code = {f.code: f for f in found}
    assert "without terminationGracePeriod (batch)" in by_code["KPL410"].parts[0]
    assert "default expireAfter 720h" in by_code["KPL411"].message
    assert by_code["KPL811"].category == "deprecation"
    assert by_code["KPL811"].fix is None  # do-not-disrupt is already there: renaming would duplicate the key


def test_do_not_disrupt_good():
    assert run("do_not_disrupt_good.yaml") == []


def test_tgp_bound_is_an_option():
    found = run("do_not_disrupt_bad.yaml", config={"select": ["KPL413"],
                                                  "options": {"max-termination-grace-period": "1000h"}})
    assert found == []


def test_duration_form_needs_1_12():
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    karpenter.sh/do-not-disrupt: "30m"
spec:
  containers: [{name: c, image: x}]
"""
    assert codes(lint(text, config=DISRUPTION, karpenter_version="1.11.0")) == [("KPL414", 6, 34)]
    assert lint(text, config=DISRUPTION, karpenter_version="1.12.0") == []


def test_removed_annotation_only_from_1_0():
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    karpenter.sh/do-not-evict: "true"
spec:
  containers: [{name: c, image: x}]
"""
    found = lint(text, config=DISRUPTION)
    assert codes(found) == [("KPL811", 6, 5)]
    assert found[0].fix is not None and found[0].fix.safety == "safe"
    assert lint(text, config=DISRUPTION, karpenter_version="0.37.0") == []


NO_DISRUPTION = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
"""


def test_known_buggy_release_explicit_version():
    found = lint(NO_DISRUPTION, config={"select": ["KPL402"]}, karpenter_version="1.0.2")
    assert codes(found) == [("KPL402", 5, 1)]
    assert "upgrade to 1.0.4" in found[0].message
    assert lint(NO_DISRUPTION, config={"select": ["KPL402"]}, karpenter_version="1.0.4") == []
    # The default target is not a fact about the cluster: quiet.
    assert lint(NO_DISRUPTION, config={"select": ["KPL402"]}) == []


@pytest.mark.parametrize("files", [
    {"charts/platform/Chart.yaml": "apiVersion: v2\nname: platform\nversion: 0.1.0\ndependencies:\n"
                                   "  - name: karpenter\n    version: 1.0.3\n    repository: oci://public.ecr.aws/karpenter\n"},
    {"flux/karpenter.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: karpenter\n"
                            "spec:\n  chart:\n    spec:\n      chart: karpenter\n      version: \"1.0.1\"\n"},
    {"argo/karpenter.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: karpenter\n"
                            "spec:\n  source:\n    repoURL: public.ecr.aws/karpenter\n    chart: karpenter\n"
                            "    targetRevision: 1.0.0\n"},
    {"deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: karpenter\nspec:\n  template:\n"
                    "    spec:\n      containers:\n        - name: controller\n"
                    "          image: public.ecr.aws/karpenter/controller:1.0.2@sha256:abc\n"},
])
def test_known_buggy_release_found_in_run(files):
    found = lint({**files, "np.yaml": NO_DISRUPTION}, config={"select": ["KPL402"]})
    assert [(f.file, *c) for f, c in zip(found, codes(found))] == [("np.yaml", "KPL402", 5, 1)]
    assert " from " in found[0].message


def test_kubelet_quoting_bug_0_27_3():
    text = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  kubeletConfiguration:
    evictionHard:
      memory.available: 5%
"""
    found = lint(text, config={"select": ["KPL402"]}, karpenter_version="0.27.3")
    assert codes(found) == [("KPL402", 7, 5)]
    assert "0.28.0" in found[0].message


def test_known_buggy_release_skips_eks_auto_mode():
    auto = NO_DISRUPTION.replace("group: karpenter.k8s.aws, kind: EC2NodeClass", "group: eks.amazonaws.com, kind: NodeClass")
    assert lint(auto, config={"select": ["KPL402"]}, karpenter_version="1.0.2") == []


def test_do_not_disrupt_on_workload_metadata():
    text = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  annotations:
    karpenter.sh/do-not-disrupt: "true"
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: c, image: x}]
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    karpenter.sh/do-not-disrupt: "true"
spec:
  containers: [{name: c, image: x}]
"""
    found = lint(text, config={"select": ["KPL415"]})
    assert codes(found) == [("KPL415", 6, 5)]
    assert "spec.jobTemplate.spec.template.metadata.annotations" in found[0].message


def test_jobs_with_do_not_disrupt_finish_and_are_not_reported():
    text = NO_DISRUPTION + """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: training
spec:
  template:
    metadata:
      annotations:
        karpenter.sh/do-not-disrupt: "true"
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x}]
---
apiVersion: v1
kind: Pod
metadata:
  name: once
  annotations:
    karpenter.sh/do-not-disrupt: "true"
spec:
  restartPolicy: OnFailure
  containers: [{name: c, image: x}]
"""
    assert lint(text, config={"select": ["KPL410", "KPL411"]}) == []


def test_known_buggy_release_from_deployed_controller_image():
    """No karpenter-version: the release comes from the controller image of a Deployment in the run."""
    found = run("deployed-controller-1.0.2.yaml")
    assert codes(found) == [("KPL402", 23, 1)]
    assert found[0].parts[0].startswith("Karpenter 1.0.2 has a known bug")
    assert "the release comes from controller image of Deployment kube-system/karpenter" in found[0].message
    # in another file of the run: the Deployment is still read (it is a cross-file fact)
    deployment, pool = (FIXTURES / "deployed-controller-1.0.2.yaml").read_text().split("---\n")
    split = lint({"karpenter.yaml": deployment, "pool.yaml": pool}, config=DISRUPTION)
    assert [(f.file, f.code) for f in split] == [("pool.yaml", "KPL402")]
