"""Findings of the CEL rule (KPL130) and the runtime checks (KPL140-143) on fixtures, one per rule family, through
the real pipeline (karplint.testing.lint): code, severity, line, column and message."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cel"
CODES = {"KPL130", "KPL131", "KPL140", "KPL141", "KPL142", "KPL143"}

EXPECTED = {
    ('nodeclass_identity.yaml', None): [
        ('KPL130', 'error', 6, 1, "spec: if set, amiFamily must be 'Bottlerocket' or 'Custom' when using a Bottlerocket alias"),
        ('KPL130', 'error', 6, 1, "spec: must specify exactly one of ['role', 'instanceProfile']"),
    ],
    ('nodeclass_ami_terms.yaml', None): [
        ('KPL130', 'error', 7, 3, "spec.amiSelectorTerms: 'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"),
        ('KPL130', 'error', 7, 3, "spec.amiSelectorTerms: 'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"),
        ('KPL130', 'error', 8, 7, "spec.amiSelectorTerms[0].alias: windows families may only specify version 'latest'"),
        ('KPL130', 'error', 11, 7, "spec.amiSelectorTerms[2].alias: 'alias' is improperly formatted, must match the format 'family@version'"),
        ('KPL130', 'error', 11, 7, "spec.amiSelectorTerms[2].alias: family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'"),
    ],
    ('nodeclass_selectors.yaml', None): [
        ('KPL130', 'error', 9, 3, "spec.subnetSelectorTerms: 'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term"),
        ('KPL130', 'error', 13, 3, "spec.securityGroupSelectorTerms: 'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term"),
        ('KPL130', 'error', 13, 3, "spec.securityGroupSelectorTerms: 'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term"),
        ('KPL130', 'error', 16, 3, "spec.capacityReservationSelectorTerms: expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']"),
        ('KPL130', 'error', 18, 3, "spec.placementGroupSelector: 'name' and 'id' are mutually exclusive"),
        ('KPL130', 'error', 21, 3, 'spec.connectionTracking: at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set'),
    ],
    ('nodeclass_tags_devices.yaml', None): [
        ('KPL130', 'error', 13, 3, 'spec.tags: tag contains a restricted tag matching karpenter.sh/nodepool'),
        ('KPL130', 'error', 13, 3, 'spec.tags: tag contains a restricted tag matching kubernetes.io/cluster/'),
        ('KPL130', 'error', 17, 3, 'spec.blockDeviceMappings: must have only one blockDeviceMappings with rootVolume'),
        ('KPL130', 'error', 20, 7, 'spec.blockDeviceMappings[0].ebs: snapshotID or volumeSize must be defined'),
        ('KPL130', 'error', 26, 3, "spec.networkInterfaces: networkInterfaces must include a primary interface with interfaceType='interface'"),
    ],
    ('nodeclass_kubelet.yaml', None): [
        ('KPL130', 'error', 13, 3, 'spec.kubelet: imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent'),
        ('KPL130', 'error', 13, 3, 'spec.kubelet: no such key: evictionSoftGracePeriod evaluating rule: evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod'),
        ('KPL130', 'error', 18, 5, "spec.kubelet.evictionHard: valid keys for evictionHard are ['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available']"),
        ('KPL130', 'error', 20, 5, 'spec.kubelet.kubeReserved: kubeReserved value cannot be a negative resource quantity'),
    ],
    ('nodepool_labels_requirements.yaml', None): [
        ('KPL130', 'error', 8, 7, 'spec.template.metadata.labels: label "kubernetes.io/hostname" is restricted'),
        ('KPL130', 'error', 8, 7, 'spec.template.metadata.labels: label domain "karpenter.sh" is restricted'),
        ('KPL130', 'error', 15, 9, 'spec.template.spec.nodeClassRef.name: name may not be empty'),
        ('KPL130', 'error', 16, 7, "spec.template.spec.requirements: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
        ('KPL130', 'error', 16, 7, "spec.template.spec.requirements: requirements with 'minValues' must have at least that many values specified in the 'values' field"),
        ('KPL130', 'error', 17, 11, 'spec.template.spec.requirements[0].key: label domain "karpenter.k8s.aws" is restricted'),
    ],
    ('nodepool_disruption_static.yaml', None): [
        ('KPL130', 'error', 5, 1, "spec: 'weight' is not supported on static NodePools"),
        ('KPL130', 'error', 5, 1, "spec: only 'limits.nodes' is supported on static NodePools"),
    ],
    ('nodepool_eval_error.yaml', None): [
        ('KPL130', 'error', 13, 7, "spec.template.spec.requirements: no such key: values evaluating rule: requirements with operator 'In' must have a value defined"),
    ],
    ('placeholders.yaml', None): [
    ],
    ('placeholder_elsewhere.yaml', None): [
        ('KPL130', 'error', 6, 1, 'spec: must specify amiFamily if amiSelectorTerms does not contain an alias'),
    ],
    ('nodepool_v1beta1.yaml', '0.37.8'): [
        ('KPL130', 'error', 7, 3, 'spec.disruption: consolidateAfter cannot be combined with consolidationPolicy=WhenUnderutilized'),
    ],
    ('nodepool_k8s_domain.yaml', '1.1.0'): [
        ('KPL130', 'error', 9, 7, 'spec.template.metadata.labels: label domain "kubernetes.io" is restricted'),
    ],
    ('nodepool_k8s_domain.yaml', '1.9.0'): [
    ],
    ('nodepool_k8s_domain.yaml', '1.14.1'): [
    ],
    ('nodeoverlay.yaml', None): [
        ('KPL130', 'error', 5, 1, "spec: cannot set both 'price' and 'priceAdjustment'"),
        ('KPL130', 'error', 12, 3, 'spec.capacity: invalid resource restricted'),
    ],
    ('runtime.yaml', None): [
        ('KPL142', 'error', 9, 9, "invalid label key 'team name'\nhelp: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character\nnote: Karpenter sets ValidationSucceeded=False and provisions nothing from this NodePool"),
        ('KPL141', 'error', 19, 20, "invalid label value 'm5.large,m5.xlarge' for node.kubernetes.io/instance-type\nhelp: a label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character\nnote: Karpenter sets ValidationSucceeded=False and provisions nothing from this NodePool"),
        ('KPL143', 'error', 22, 19, 'no valid karpenter.sh/capacity-type value (got Spot, ondemand)\nhelp: use one of on-demand, reserved, spot\nnote: Karpenter sets ValidationSucceeded=False and provisions nothing from this NodePool'),
        ('KPL140', 'error', 33, 11, 'duplicate taint ebs.csi.aws.com/agent-not-ready:NoExecute\nhelp: keep one; a taint that an agent removes belongs in startupTaints only\nnote: first in spec.template.spec.taints[0]\nnote: Karpenter sets ValidationSucceeded=False and provisions nothing from this NodePool'),
        ('KPL143', 'warning', 52, 28, "'on_demand' is not a karpenter.sh/capacity-type value\nhelp: use one of on-demand, reserved, spot\nnote: Karpenter logs an error and ignores it"),
        ('KPL143', 'error', 55, 19, 'only 1 valid karpenter.sh/capacity-type value(s), but minValues is 2\nhelp: valid values are on-demand, reserved, spot\nnote: Karpenter sets ValidationSucceeded=False and provisions nothing from this NodePool'),
    ],
}


@pytest.mark.parametrize("name,version", list(EXPECTED), ids=lambda v: str(v))
def test_fixture(name, version):
    findings = lint({name: (FIXTURES / name).read_text(encoding="utf-8")}, karpenter_version=version)
    got = [(f.code, f.severity, f.line, f.column, f.message) for f in findings if f.code in CODES]
    assert got == EXPECTED[(name, version)]


def test_every_fixture_is_checked():
    assert {p.name for p in FIXTURES.glob("*.yaml")} == {name for name, _ in EXPECTED}



def test_runtime_checks_follow_the_served_api_versions():
    text = (FIXTURES / "runtime.yaml").read_text(encoding="utf-8").replace("karpenter.sh/v1\n", "karpenter.sh/v1beta1\n")
    # v1beta1 is not served by 1.14.1: checked against its own API all the same (its webhook and runtime ran
    # these checks); KPL143 only where the target serves it (which capacity types an older release knew is
    # not recorded)
    for version in (None, "1.14.1"):
        assert {f.code for f in lint({"beta.yaml": text}, karpenter_version=version) if f.code in CODES} \
            == {"KPL140", "KPL141", "KPL142"}
    codes = {f.code for f in lint({"beta.yaml": text}, karpenter_version="0.37.8") if f.code in CODES}
    assert {"KPL140", "KPL141", "KPL142", "KPL143"} <= codes


def test_cel_python_fallback_gives_the_same_findings(monkeypatch):
    """Python 3.10 has no wheel of the Rust bindings: the cel-python engine must report the same."""
    import karplint.rules.cel as rules_cel
    import karplint.schema.cel as cel

    if cel._engine() is None or cel._engine().name != "common-expression-language":
        pytest.skip("already running on cel-python")
    try:
        py = cel._CelpyEngine()
    except ImportError:
        pytest.skip("cel-python not installed")
    names = ["nodeclass_ami_terms.yaml", "nodeclass_kubelet.yaml", "nodepool_labels_requirements.yaml",
             "nodepool_eval_error.yaml", "placeholders.yaml"]
    want = {n: [t for t in EXPECTED[(n, None)] if t[0] == "KPL130"] for n in names}
    cel.compile_rule.cache_clear()
    rules_cel._outcome.cache_clear()
    monkeypatch.setattr(cel, "_engine", lambda: py)
    try:
        for n in names:
            got = [(f.code, f.severity, f.line, f.column, f.message)
                   for f in lint({n: (FIXTURES / n).read_text(encoding="utf-8")}) if f.code == "KPL130"]
            assert got == want[n], n
    finally:
        cel.compile_rule.cache_clear()
        rules_cel._outcome.cache_clear()
