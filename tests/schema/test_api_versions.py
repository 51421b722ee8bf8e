"""Every Karpenter object is checked against the API it declares: an apiVersion the targeted release does not
serve (v1beta1 or v1alpha5 at 1.14.1) is validated with the schema, CEL and runtime checks of the bundled release
nearest to the target that served it. KPL801 reports the apiVersion in addition when a release is pinned
(configuration, flag, or the release the repository deploys); with none, KPL803 says once per file what the
apiVersion implies, as information."""

from __future__ import annotations

import json

import pytest

from karplint.testing import codes, lint, run_cli

NODEPOOL_V1BETA1 = """\
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    consolidationPolicy: WhenUnderutilized
    expireAfter: 720h
  template:
    spec:
      nodeClassRef:
        apiVersion: karpenter.k8s.aws/v1beta1
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
      kubelet:
        maxPod: 110
"""
NODECLASS_V1BETA1 = """\
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2
  role: KarpenterNodeRole-demo
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  metadataOptions:
    httpTokns: required
"""
PROVISIONER_V1ALPHA5 = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["spot"]
  ttlSecondsAfterEmtpy: 30
  providerRef:
    name: default
"""
# (text, the typo's position, the schema a target that does not serve it is checked against)
TYPOS = {
    "v1beta1-nodepool": (NODEPOOL_V1BETA1, ("KPL104", 20, 9), "1.0.0"),
    "v1beta1-ec2nodeclass": (NODECLASS_V1BETA1, ("KPL104", 13, 5), "1.0.0"),
    "v1alpha5-provisioner": (PROVISIONER_V1ALPHA5, ("KPL104", 10, 3), "0.32.10"),
}
SERVED = {("v1beta1-nodepool", "0.37.0"), ("v1beta1-ec2nodeclass", "0.37.0")}


@pytest.mark.parametrize("version", [None, "0.37.0", "1.14.1"], ids=["default", "pinned-0.37.0", "pinned-1.14.1"])
@pytest.mark.parametrize("name", sorted(TYPOS))
def test_a_typo_is_reported_at_its_line_whatever_the_target(name, version):
    text, at, schema_release = TYPOS[name]
    findings = lint({"old.yaml": text}, karpenter_version=version)
    [typo] = [f for f in findings if (f.code, f.line, f.column) == at]
    assert "did you mean" in typo.message
    served = (name, version) in SERVED
    if served:  # the target's own schema: nothing to say about another release
        assert "bundled release serving" not in typo.message
    else:
        assert f"schema of Karpenter {schema_release}, the newest bundled release serving" in typo.message
    got = {f.code for f in findings}
    assert "KPL129" not in got  # (not an approximation of the target: the API the object declares)
    if version is None:  # no release pinned: one notice, never an error per object
        assert [(f.code, f.line, f.column, f.severity) for f in findings if f.code in ("KPL801", "KPL803")] == [
            ("KPL803", 1, 13, "info")]
    elif served:
        assert not got & {"KPL801", "KPL803"}
    else:  # pinned and not served: KPL801 in addition, never instead
        assert [(f.code, f.line, f.column, f.severity) for f in findings if f.code in ("KPL801", "KPL803")] == [
            ("KPL801", 1, 13, "error")]


def test_not_served_is_reported_once_per_object_when_pinned_and_once_per_file_when_not():
    files = {"pools.yaml": NODEPOOL_V1BETA1 + "---\n" + NODECLASS_V1BETA1, "prov.yaml": PROVISIONER_V1ALPHA5}
    pinned = lint(files, karpenter_version="1.14.1")
    assert [(f.file, f.line, f.column) for f in pinned if f.code == "KPL801"] == [
        ("pools.yaml", 1, 13), ("pools.yaml", 22, 13), ("prov.yaml", 1, 13)]
    [with_schema] = [f for f in pinned if f.code == "KPL801" and f.file == "prov.yaml"]
    assert "its fields are checked against the schema of Karpenter 0.32.10" in with_schema.message
    unpinned = lint(files)
    assert not [f for f in unpinned if f.code == "KPL801"]
    notices = [f for f in unpinned if f.code == "KPL803"]
    assert [(f.file, f.line, f.column, f.severity) for f in notices] == [
        ("pools.yaml", 1, 13, "info"), ("prov.yaml", 1, 13, "info")]
    head, helps, notes = notices[0].parts
    assert head == "2 objects of older apiVersions are not served by Karpenter 1.14.1, and no release is pinned"
    assert "`--karpenter-version`" in helps[0]
    assert notes[1:] == (
        "karpenter.sh/v1beta1 (NodePool) is served by Karpenter 0.32–1.0; checked against the schema of Karpenter "
        "1.0.0, the newest bundled release serving karpenter.sh/v1beta1",
        "karpenter.k8s.aws/v1beta1 (EC2NodeClass) is served by Karpenter 0.32–1.0; checked against the schema of "
        "Karpenter 1.0.0, the newest bundled release serving karpenter.k8s.aws/v1beta1")
    assert "served by Karpenter 0.4–0.32" in notices[1].message


def _helm_release(version: str) -> str:
    return ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karpenter}\nspec:\n"
            f"  chart:\n    spec:\n      chart: karpenter\n      version: {version}\n")


def test_the_release_the_repository_deploys_is_a_pin():
    """No `karpenter-version`: the release read from the repository decides, like a pinned one."""
    serves = lint({"deploy/karpenter.yaml": _helm_release("0.37.0"), "pools/np.yaml": NODEPOOL_V1BETA1})
    assert not [f for f in serves if f.code in ("KPL801", "KPL803")]
    assert ("KPL104", 20, 9) in codes(serves)
    newer = lint({"deploy/karpenter.yaml": _helm_release("1.2.0"), "pools/np.yaml": NODEPOOL_V1BETA1})
    assert [(f.file, f.code, f.line, f.column) for f in newer if f.code in ("KPL801", "KPL803")] == [
        ("pools/np.yaml", "KPL801", 1, 13)]
    assert ("KPL104", 20, 9) in codes(newer)  # (and its fields checked against the release that served it)


OLD_POOL = """\
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    metadata:
      labels:
        spot: true
    spec:
      nodeClassRef:
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: Equals
          values: ["spot"]
      taints:
        - key: dedicated
          effect: NoSchedule
      startupTaints:
        - key: dedicated
          effect: NoSchedule
---
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  labels:
    spot: true
    team: a b
  requirements:
    - key: karpenter.sh/capacity-type
      operator: Equals
      values: ["spot"]
  taints:
    - key: dedicated
      effect: NoSchedule
  startupTaints:
    - key: dedicated
      effect: NoSchedule
  providerRef:
    name: default
"""


@pytest.mark.parametrize("version", [None, "0.32.10", "1.14.1"])
def test_true_problems_of_older_apis_are_reported_whatever_the_target(version):
    """Boolean label values, unknown requirement operators, duplicate taints: v1beta1 at its v1 paths (schema and
    runtime checks), v1alpha5 at its own (its schema is loose: its validating webhook checked operators and label
    values, karplint applies those checks as schema constraints)."""
    got = [c for c in codes(lint(OLD_POOL, karpenter_version=version)) if c[0] in
           ("KPL100", "KPL101", "KPL102", "KPL140")]
    assert got == [("KPL100", 9, 15), ("KPL101", 15, 21), ("KPL140", 21, 11),
                   ("KPL100", 30, 11), ("KPL102", 31, 11), ("KPL101", 34, 17), ("KPL140", 40, 7)]


def test_duplicate_taint_message_says_what_the_older_release_did():
    [beta, alpha] = [f for f in lint(OLD_POOL) if f.code == "KPL140"]
    assert beta.parts[2][-1].startswith("Karpenter's validation rejects this NodePool: its validating webhook")
    assert alpha.parts[2][-1] == "Karpenter's validating webhook rejects this Provisioner"


def test_boolean_taint_value_in_a_v1alpha5_docs_example():
    # From aws/karpenter-provider-aws@2c8f2a50c59ddb412437909062b3fee78ccb9c5f
    # website/content/en/v0.31/concepts/scheduling.md#L273 (Apache-2.0): before, only KPL801 at 1.14.1.
    text = ("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata:\n  name: gpu\nspec:\n  requirements:\n"
            "  - key: karpenter.k8s.aws/instance-family\n    operator: In\n    values:\n      - p3\n  taints:\n"
            "  - key: nvidia.com/gpu\n    value: true\n    effect: \"NoSchedule\"\n")
    assert codes(lint({"scheduling.yaml": text})) == [("KPL803", 1, 13), ("KPL100", 13, 12)]


# From aws-samples/aws-do-eks@f721602f7389b817a74fec8343862733bce638ed
# Container-Root/eks/deployment/karpenter/provisioner-deploy-v1beta1.sh (MIT-0), shortened: the shell fills in
# $CLUSTER_NAME before kubectl reads the heredoc (checked against its v1beta1 schema, it was reported as an invalid
# label value).
DO_EKS = """\
#!/bin/bash
cat <<EOF | kubectl apply -f -
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    metadata:
      labels:
        cluster-name: $CLUSTER_NAME
    spec:
      nodeClassRef:
        apiVersion: karpenter.k8s.aws/v1beta1
        kind: EC2NodeClass
        name: default
      requirements:
        - key: "karpenter.sh/capacity-type"
          operator: In
          values: ["spot", "on-demand"]
EOF
"""


def test_shell_variables_of_an_unquoted_heredoc_are_unknown_values():
    assert [c for c in codes(lint({"deploy.sh": DO_EKS})) if c[0].startswith("KPL1")] == []
    v1 = DO_EKS.replace("karpenter.sh/v1beta1", "karpenter.sh/v1")  # (the same on v1 objects)
    assert [c for c in codes(lint({"deploy.sh": v1})) if c[0] in ("KPL102", "KPL141")] == []
    quoted = DO_EKS.replace("cat <<EOF", "cat <<'EOF'")  # kubectl gets the literal `$CLUSTER_NAME`
    assert ("KPL102", 11, 23) in codes(lint({"deploy.sh": quoted}))


def test_command_line_exit_codes(tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL_V1BETA1)
    unpinned = run_cli("check", "np.yaml", "--no-cache", "--select", "KPL8", "-f", "json", cwd=tmp_path)
    assert unpinned.returncode == 0, unpinned.stderr
    assert [(f["code"], f["severity"]) for f in json.loads(unpinned.stdout)["findings"]] == [("KPL803", "info")]
    pinned = run_cli("check", "np.yaml", "--no-cache", "--select", "KPL8", "--karpenter-version", "1.14.1",
                     "-f", "json", cwd=tmp_path)
    assert pinned.returncode == 1, pinned.stderr
    assert [(f["code"], f["severity"]) for f in json.loads(pinned.stdout)["findings"]] == [("KPL801", "error")]


def test_shell_variables_of_a_documentation_example_are_unknown_values():
    # From aws-samples/aws-do-eks@f721602f7389b817a74fec8343862733bce638ed Container-Root/eks/deployment/
    # horizontal-pod-autoscaler/custom-metrics-autoscaling/README.md#L369 (MIT-0), shortened: "The script generated
    # the following two manifests", with the script's $CLUSTER_NAME in place of its value.
    text = ("Let's look into how the Karpenter configuration was created:\n\n```yaml\n"
            + DO_EKS.split("-f -\n", 1)[1].replace("EOF\n", "```\n"))
    assert [c for c in codes(lint({"README.md": text})) if c[0].startswith("KPL1")] == []
    plain = DO_EKS.split("-f -\n", 1)[1].replace("EOF\n", "")  # a manifest file: kubectl gets `$CLUSTER_NAME`
    assert ("KPL102", 9, 23) in codes(lint({"np.yaml": plain}))


def test_v1alpha5_is_served_from_0_4_1_until_0_33_0():
    """aws/karpenter-provider-aws v0.4.0 has only pkg/apis/provisioning/v1alpha4; v1alpha5 appears in v0.4.1 (its
    pkg/apis/provisioning/v1alpha5 and chart CRD) and is removed in v0.33.0 (the v1beta1 migration guide)."""
    from karplint.model.versions import V, served

    assert served("karpenter.sh", "v1alpha5", "Provisioner", V("0.4.0"))[:2] == (False, None)
    assert "0.4.1" in served("karpenter.sh", "v1alpha5", "Provisioner", V("0.3.0"))[2]
    assert served("karpenter.sh", "v1alpha5", "Provisioner", V("0.4.1"))[0]
    assert served("karpenter.sh", "v1alpha5", "Provisioner", V("0.5.0"))[0]
    assert served("karpenter.sh", "v1alpha5", "Provisioner", V("0.32.10"))[0]
    assert served("karpenter.sh", "v1alpha5", "Provisioner", V("0.33.0"))[:2] == (False, "0.33.0")


def test_pins_none_of_which_clearly_applies_and_none_serves_the_object_are_certain():
    """Two pins as near to the object as each other (no release clearly its own): an apiVersion that neither
    serves is certainly not served (KPL801, an error naming both); one that one of them serves stays KPL803, which
    no longer says that no release is pinned. From jasontsaicc/eks-terraform-karpenter, whose scripts pin
    0.35.0 to 1.6.2 beside a v1alpha5 Provisioner."""
    files = {"a/karpenter.yaml": _helm_release("0.37.0"), "b/karpenter.yaml": _helm_release("1.2.0"),
             "c/provisioner.yaml": PROVISIONER_V1ALPHA5, "d/nodepool.yaml": NODEPOOL_V1BETA1}
    found = lint(files)
    kpl801 = [f for f in found if f.code == "KPL801"]
    assert [(f.file, f.line, f.column, f.severity) for f in kpl801] == [("c/provisioner.yaml", 1, 13, "error")]
    assert "served by none of the releases this repository pins (0.37.0, 1.2.0)" in kpl801[0].message
    kpl803 = [f for f in found if f.code == "KPL803"]
    assert [(f.file, f.severity) for f in kpl803] == [("d/nodepool.yaml", "info")]
    assert "no release clearly applies to this file (the repository pins 0.37.0, 1.2.0)" in kpl803[0].message
