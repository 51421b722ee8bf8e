"""Every CEL rule of the v1.14.1 NodePool and EC2NodeClass CRDs, one by one: a minimal object that fails it and one
that passes it, evaluated by karplint.schema.cel against the bundled schema (no hand-copied rule text: rules are
found by scope and message in the schema, so a regenerated schema with a changed rule fails loudly here)."""

from __future__ import annotations

import copy
import os
import time

import pytest

from karplint.schema import load_schema
from karplint.schema.cel import cel_coverage, compile_rule, evaluate, rules_of

RELEASE = "1.14.1"

NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "default"},
    "spec": {
        "template": {
            "metadata": {"labels": {"example.com/team": "data", "karpenter.sh/capacity-type": "spot",
                                    "karpenter.k8s.aws/instance-family": "m5"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"],
                     "minValues": 2},
                    {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]},
                    {"key": "karpenter.k8s.aws/instance-category", "operator": "NotIn", "values": ["t"]},
                    {"key": "kubernetes.io/arch", "operator": "Exists"},
                ],
            },
        },
        "limits": {"cpu": "1000"},
        "disruption": {
            "consolidationPolicy": "WhenEmptyOrUnderutilized",
            "consolidateAfter": "1m",
            "budgets": [{"nodes": "10%"}, {"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"}],
        },
        "weight": 10,
    },
}

NODECLASS = {
    "apiVersion": "karpenter.k8s.aws/v1",
    "kind": "EC2NodeClass",
    "metadata": {"name": "default"},
    "spec": {
        "role": "KarpenterNodeRole-c",
        "amiFamily": "AL2023",
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}, {"id": "subnet-0123456789abcdef0"}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}, {"id": "sg-0123456789abcdef0"},
                                       {"name": "nodes"}],
        "capacityReservationSelectorTerms": [{"tags": {"team": "a"}}, {"id": "cr-0123456789abcdef0"}],
        "tags": {"team": "data", "eks:cluster": "c"},
        "blockDeviceMappings": [
            {"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {"volumeSize": "100Gi"}},
            {"deviceName": "/dev/xvdb", "ebs": {"snapshotID": "snap-0123456789abcdef0",
                                                 "volumeInitializationRate": 200}},
        ],
        "kubelet": {
            "imageGCHighThresholdPercent": 85, "imageGCLowThresholdPercent": 80,
            "evictionHard": {"memory.available": "5%"},
            "evictionSoft": {"memory.available": "10%"},
            "evictionSoftGracePeriod": {"memory.available": "1m"},
            "kubeReserved": {"cpu": "100m"},
            "systemReserved": {"memory": "100Mi"},
        },
        "networkInterfaces": [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
                              {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"}],
        "connectionTracking": {"tcpEstablishedTimeout": 3600},
        "placementGroupSelector": {"name": "pg"},
    },
}

BASES = {"NodePool": NODEPOOL, "EC2NodeClass": NODECLASS}
GROUPS = {"NodePool": "karpenter.sh", "EC2NodeClass": "karpenter.k8s.aws"}


# ---------------------------------------------------------------------------------------------- mutations

def _walk(obj, dotted):
    parts = [int(p) if p.isdigit() else p for p in dotted.split(".")]
    for p in parts[:-1]:
        obj = obj[p]
    return obj, parts[-1]


def put(dotted, value):
    def f(o):
        parent, last = _walk(o, dotted)
        parent[last] = copy.deepcopy(value)
    return f


def drop(dotted):
    def f(o):
        parent, last = _walk(o, dotted)
        del parent[last]
    return f


def both(*fs):
    def f(o):
        for g in fs:
            g(o)
    return f


def same(o):
    return None


TPL = "spec.template."
REQ = "spec.template.spec.requirements"
LABELS = "spec.template.metadata.labels"


def label(key, value="x"):
    def f(o):
        o["spec"]["template"]["metadata"]["labels"][key] = value
    return f


def req_key(key):
    return put(REQ + ".2.key", key)


def alias(value, family=None):
    fs = [put("spec.amiSelectorTerms", [{"alias": value}])]
    fs.append(put("spec.amiFamily", family) if family else drop("spec.amiFamily"))
    return both(*fs)


def tag(key, value="x"):
    def f(o):
        o["spec"]["tags"][key] = value
    return f


def kubelet(key, value):
    return put("spec.kubelet." + key, value)


KARPENTER_AWS_ALLOWED = "karpenter.k8s.aws/instance-cpu-manufacturer"

# (kind, scope, message) -> (mutation that fails the rule, mutation that passes it).
CASES = {
    # ---------------- NodePool
    ("NodePool", ".spec", "only 'limits.nodes' is supported on static NodePools"): (
        both(put("spec.replicas", 3), drop("spec.weight")),
        both(put("spec.replicas", 3), drop("spec.weight"), put("spec.limits", {"nodes": "5"}))),
    ("NodePool", ".spec", "'weight' is not supported on static NodePools"): (
        both(put("spec.replicas", 3), put("spec.limits", {})),
        both(put("spec.replicas", 3), put("spec.limits", {}), drop("spec.weight"))),
    ("NodePool", ".spec.disruption.budgets", "'schedule' must be set with 'duration'"): (
        put("spec.disruption.budgets", [{"nodes": "0", "schedule": "@daily"}]),
        put("spec.disruption.budgets", [{"nodes": "0", "schedule": "@daily", "duration": "10m"}])),
    ("NodePool", ".spec.template.metadata.labels", 'label domain "karpenter.sh" is restricted'): (
        label("karpenter.sh/team"), label("example.com/karpenter.sh")),
    ("NodePool", ".spec.template.metadata.labels", 'label "karpenter.sh/nodepool" is restricted'): (
        label("karpenter.sh/nodepool"), label("karpenter.sh/capacity-type", "on-demand")),
    ("NodePool", ".spec.template.metadata.labels", 'label "kubernetes.io/hostname" is restricted'): (
        label("kubernetes.io/hostname"), label("topology.kubernetes.io/zone", "us-east-1a")),
    ("NodePool", ".spec.template.metadata.labels", 'label domain "karpenter.k8s.aws" is restricted'): (
        label("karpenter.k8s.aws/foo"), label(KARPENTER_AWS_ALLOWED, "intel")),
    ("NodePool", ".spec.template.spec.nodeClassRef.group", "group may not be empty"): (
        put(TPL + "spec.nodeClassRef.group", ""), same),
    ("NodePool", ".spec.template.spec.nodeClassRef.kind", "kind may not be empty"): (
        put(TPL + "spec.nodeClassRef.kind", ""), same),
    ("NodePool", ".spec.template.spec.nodeClassRef.name", "name may not be empty"): (
        put(TPL + "spec.nodeClassRef.name", ""), same),
    ("NodePool", ".spec.template.spec.requirements", "requirements with operator 'In' must have a value defined"): (
        put(REQ + ".2", {"key": "a.example.com/x", "operator": "In", "values": []}),
        put(REQ + ".2", {"key": "a.example.com/x", "operator": "In", "values": ["y"]})),
    ("NodePool", ".spec.template.spec.requirements",
     "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"): (
        put(REQ + ".1", {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lte", "values": ["-1"]}),
        put(REQ + ".1", {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lte", "values": ["16"]})),
    ("NodePool", ".spec.template.spec.requirements",
     "requirements with 'minValues' must have at least that many values specified in the 'values' field"): (
        put(REQ + ".0.minValues", 3), put(REQ + ".0.minValues", 1)),
    ("NodePool", ".spec.template.spec.requirements[].key", 'label domain "karpenter.sh" is restricted'): (
        req_key("karpenter.sh/foo"), req_key("karpenter.sh/capacity-type")),
    ("NodePool", ".spec.template.spec.requirements[].key", 'label "karpenter.sh/nodepool" is restricted'): (
        req_key("karpenter.sh/nodepool"), req_key("example.com/nodepool")),
    ("NodePool", ".spec.template.spec.requirements[].key", 'label "kubernetes.io/hostname" is restricted'): (
        req_key("kubernetes.io/hostname"), req_key("kubernetes.io/os")),
    ("NodePool", ".spec.template.spec.requirements[].key", 'label domain "karpenter.k8s.aws" is restricted'): (
        req_key("karpenter.k8s.aws/foo"), req_key("karpenter.k8s.aws/instance-size")),
    # ---------------- EC2NodeClass
    ("EC2NodeClass", ".spec", "must specify exactly one of ['role', 'instanceProfile']"): (
        put("spec.instanceProfile", "p"), both(put("spec.instanceProfile", "p"), drop("spec.role"))),
    ("EC2NodeClass", ".spec", "if set, amiFamily must be 'AL2' or 'Custom' when using an AL2 alias"): (
        alias("al2@latest", "AL2023"), alias("al2@latest", "Custom")),
    ("EC2NodeClass", ".spec", "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias"): (
        alias("al2023@latest", "AL2"), alias("al2023@v20240807")),
    ("EC2NodeClass", ".spec",
     "if set, amiFamily must be 'Bottlerocket' or 'Custom' when using a Bottlerocket alias"): (
        alias("bottlerocket@latest", "AL2023"), alias("bottlerocket@1.20.0", "Bottlerocket")),
    ("EC2NodeClass", ".spec", "if set, amiFamily must be 'Windows2019' or 'Custom' when using a Windows2019 alias"): (
        alias("windows2019@latest", "Windows2022"), alias("windows2019@latest", "Windows2019")),
    ("EC2NodeClass", ".spec", "if set, amiFamily must be 'Windows2022' or 'Custom' when using a Windows2022 alias"): (
        alias("windows2022@latest", "AL2"), alias("windows2022@latest", "Custom")),
    ("EC2NodeClass", ".spec", "if set, amiFamily must be 'Windows2025' or 'Custom' when using a Windows2025 alias"): (
        alias("windows2025@latest", "Windows2022"), alias("windows2025@latest", "Windows2025")),
    ("EC2NodeClass", ".spec", "must specify amiFamily if amiSelectorTerms does not contain an alias"): (
        both(put("spec.amiSelectorTerms", [{"id": "ami-0123456789abcdef0"}]), drop("spec.amiFamily")),
        put("spec.amiSelectorTerms", [{"id": "ami-0123456789abcdef0"}])),
    ("EC2NodeClass", ".spec.amiSelectorTerms",
     "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']"): (
        put("spec.amiSelectorTerms", [{"owner": "amazon"}]),
        put("spec.amiSelectorTerms", [{"ssmParameter": "/aws/service/x"}])),
    ("EC2NodeClass", ".spec.amiSelectorTerms",
     "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"): (
        put("spec.amiSelectorTerms", [{"id": "ami-0123456789abcdef0", "owner": "self"}]),
        put("spec.amiSelectorTerms", [{"id": "ami-0123456789abcdef0"}, {"name": "x", "owner": "self"}])),
    ("EC2NodeClass", ".spec.amiSelectorTerms",
     "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"): (
        put("spec.amiSelectorTerms", [{"alias": "al2023@latest", "owner": "amazon"}]), same),
    ("EC2NodeClass", ".spec.amiSelectorTerms",
     "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"): (
        put("spec.amiSelectorTerms", [{"alias": "al2023@latest"}, {"name": "x"}]),
        put("spec.amiSelectorTerms", [{"name": "y"}, {"name": "x"}])),
    ("EC2NodeClass", ".spec.amiSelectorTerms[].alias",
     "'alias' is improperly formatted, must match the format 'family@version'"): (
        alias("al2023", "AL2023"), same),
    ("EC2NodeClass", ".spec.amiSelectorTerms[].alias",
     "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', "
     "'windows2022', 'windows2025'"): (alias("ubuntu@latest", "Custom"), alias("al2@latest", "AL2")),
    ("EC2NodeClass", ".spec.amiSelectorTerms[].alias", "windows families may only specify version 'latest'"): (
        alias("windows2022@v1", "Windows2022"), alias("windows2022@latest", "Windows2022")),
    ("EC2NodeClass", ".spec.amiSelectorTerms[].tags", "empty tag keys or values aren't supported"): (
        both(put("spec.amiSelectorTerms", [{"tags": {"a": ""}}]), put("spec.amiFamily", "AL2023")),
        put("spec.amiSelectorTerms", [{"tags": {"a": "b"}}])),
    ("EC2NodeClass", ".spec.blockDeviceMappings", "must have only one blockDeviceMappings with rootVolume"): (
        put("spec.blockDeviceMappings.1.rootVolume", True), put("spec.blockDeviceMappings.1.rootVolume", False)),
    ("EC2NodeClass", ".spec.blockDeviceMappings[].ebs", "snapshotID or volumeSize must be defined"): (
        put("spec.blockDeviceMappings.0.ebs", {"volumeType": "gp3"}),
        put("spec.blockDeviceMappings.0.ebs", {"volumeType": "gp3", "volumeSize": 20})),
    ("EC2NodeClass", ".spec.blockDeviceMappings[].ebs",
     "snapshotID must be set when volumeInitializationRate is set"): (
        put("spec.blockDeviceMappings.0.ebs", {"volumeSize": "20Gi", "volumeInitializationRate": 100}), same),
    ("EC2NodeClass", ".spec.capacityReservationSelectorTerms",
     "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']"): (
        put("spec.capacityReservationSelectorTerms", [{"ownerID": "123456789012"}]),
        put("spec.capacityReservationSelectorTerms", [{"instanceMatchCriteria": "open"}])),
    ("EC2NodeClass", ".spec.capacityReservationSelectorTerms",
     "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term"): (
        put("spec.capacityReservationSelectorTerms", [{"id": "cr-0abc", "ownerID": "123456789012"}]),
        put("spec.capacityReservationSelectorTerms", [{"id": "cr-0abc"}])),
    ("EC2NodeClass", ".spec.capacityReservationSelectorTerms[].tags", "empty tag keys or values aren't supported"): (
        put("spec.capacityReservationSelectorTerms.0.tags", {"": "x"}), same),
    ("EC2NodeClass", ".spec.connectionTracking",
     "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set"): (
        put("spec.connectionTracking", {}), put("spec.connectionTracking", {"udpTimeout": 30})),
    ("EC2NodeClass", ".spec.instanceProfile", "instanceProfile cannot be empty"): (
        both(drop("spec.role"), put("spec.instanceProfile", "")),
        both(drop("spec.role"), put("spec.instanceProfile", "p"))),
    ("EC2NodeClass", ".spec.kubelet",
     "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"): (
        kubelet("imageGCHighThresholdPercent", 80), kubelet("imageGCLowThresholdPercent", 10)),
    ("EC2NodeClass", ".spec.kubelet", "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod"): (
        kubelet("evictionSoft", {"memory.available": "10%", "nodefs.available": "10%"}), same),
    ("EC2NodeClass", ".spec.kubelet", "evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft"): (
        kubelet("evictionSoftGracePeriod", {"memory.available": "1m", "pid.available": "1m"}), same),
    ("EC2NodeClass", ".spec.kubelet.evictionHard",
     "valid keys for evictionHard are ['memory.available','nodefs.available','nodefs.inodesFree',"
     "'imagefs.available','imagefs.inodesFree','pid.available']"): (
        kubelet("evictionHard", {"memory.availabe": "5%"}), kubelet("evictionHard", {"nodefs.inodesFree": "5%"})),
    ("EC2NodeClass", ".spec.kubelet.evictionSoft",
     "valid keys for evictionSoft are ['memory.available','nodefs.available','nodefs.inodesFree',"
     "'imagefs.available','imagefs.inodesFree','pid.available']"): (
        both(kubelet("evictionSoft", {"cpu": "5%"}), kubelet("evictionSoftGracePeriod", {"cpu": "1m"})), same),
    ("EC2NodeClass", ".spec.kubelet.evictionSoftGracePeriod",
     "valid keys for evictionSoftGracePeriod are ['memory.available','nodefs.available','nodefs.inodesFree',"
     "'imagefs.available','imagefs.inodesFree','pid.available']"): (
        both(kubelet("evictionSoft", {"x": "5%"}), kubelet("evictionSoftGracePeriod", {"x": "1m"})), same),
    ("EC2NodeClass", ".spec.kubelet.kubeReserved", "valid keys for kubeReserved are ['cpu','memory','ephemeral-storage','pid']"): (
        kubelet("kubeReserved", {"gpu": "1"}), kubelet("kubeReserved", {"pid": "100"})),
    ("EC2NodeClass", ".spec.kubelet.kubeReserved", "kubeReserved value cannot be a negative resource quantity"): (
        kubelet("kubeReserved", {"cpu": "-100m"}), same),
    ("EC2NodeClass", ".spec.kubelet.systemReserved", "valid keys for systemReserved are ['cpu','memory','ephemeral-storage','pid']"): (
        kubelet("systemReserved", {"nvidia.com/gpu": "1"}), kubelet("systemReserved", {"ephemeral-storage": "1Gi"})),
    ("EC2NodeClass", ".spec.kubelet.systemReserved", "systemReserved value cannot be a negative resource quantity"): (
        kubelet("systemReserved", {"memory": "-1Gi"}), same),
    ("EC2NodeClass", ".spec.networkInterfaces",
     "networkInterfaces must include a primary interface with interfaceType='interface'"): (
        put("spec.networkInterfaces", [{"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "interface"}]),
        put("spec.networkInterfaces", [])),
    ("EC2NodeClass", ".spec.networkInterfaces",
     "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one "
     "efa device per network card"): (
        put("spec.networkInterfaces.1.deviceIndex", 0),
        put("spec.networkInterfaces.1", {"networkCardIndex": 1, "deviceIndex": 0, "interfaceType": "efa-only"})),
    ("EC2NodeClass", ".spec.placementGroupSelector", "expected at least one, got none, ['name', 'id']"): (
        put("spec.placementGroupSelector", {}), put("spec.placementGroupSelector", {"id": "pg-0123"})),
    ("EC2NodeClass", ".spec.placementGroupSelector", "'name' and 'id' are mutually exclusive"): (
        put("spec.placementGroupSelector", {"name": "a", "id": "pg-0123"}), same),
    ("EC2NodeClass", ".spec.role", "role cannot be empty"): (put("spec.role", ""), same),
    ("EC2NodeClass", ".spec.securityGroupSelectorTerms", "securityGroupSelectorTerms cannot be empty"): (
        put("spec.securityGroupSelectorTerms", []), same),
    ("EC2NodeClass", ".spec.securityGroupSelectorTerms", "expected at least one, got none, ['tags', 'id', 'name']"): (
        put("spec.securityGroupSelectorTerms.1", {}), same),
    ("EC2NodeClass", ".spec.securityGroupSelectorTerms",
     "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector "
     "term"): (
        put("spec.securityGroupSelectorTerms", [{"id": "sg-0abc", "name": "x"}]),
        # the CRD rule is `!self.all(...)`: one clean term is enough to pass it
        put("spec.securityGroupSelectorTerms", [{"id": "sg-0abc", "name": "x"}, {"id": "sg-0def"}])),
    ("EC2NodeClass", ".spec.securityGroupSelectorTerms",
     "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector "
     "term"): (
        put("spec.securityGroupSelectorTerms", [{"name": "x", "tags": {"a": "b"}}]),
        put("spec.securityGroupSelectorTerms", [{"name": "x"}])),
    ("EC2NodeClass", ".spec.securityGroupSelectorTerms[].tags", "empty tag keys or values aren't supported"): (
        put("spec.securityGroupSelectorTerms.0.tags", {"a": ""}), same),
    ("EC2NodeClass", ".spec.subnetSelectorTerms", "subnetSelectorTerms cannot be empty"): (
        put("spec.subnetSelectorTerms", []), same),
    ("EC2NodeClass", ".spec.subnetSelectorTerms", "expected at least one, got none, ['tags', 'id']"): (
        put("spec.subnetSelectorTerms.0", {}), same),
    ("EC2NodeClass", ".spec.subnetSelectorTerms",
     "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term"): (
        put("spec.subnetSelectorTerms", [{"id": "subnet-0abc", "tags": {"a": "b"}}]),
        put("spec.subnetSelectorTerms", [{"id": "subnet-0abc"}])),
    ("EC2NodeClass", ".spec.subnetSelectorTerms[].tags", "empty tag keys or values aren't supported"): (
        put("spec.subnetSelectorTerms.0.tags", {"": ""}), same),
    ("EC2NodeClass", ".spec.tags", "empty tag keys aren't supported"): (tag(""), tag("a")),
    ("EC2NodeClass", ".spec.tags", "tag contains a restricted tag matching eks:eks-cluster-name"): (
        tag("eks:eks-cluster-name"), tag("eks:eks-cluster")),
    ("EC2NodeClass", ".spec.tags", "tag contains a restricted tag matching kubernetes.io/cluster/"): (
        tag("kubernetes.io/cluster/c", "owned"), tag("kubernetes.io/role")),
    ("EC2NodeClass", ".spec.tags", "tag contains a restricted tag matching karpenter.sh/nodepool"): (
        tag("karpenter.sh/nodepool"), tag("karpenter.sh/discovery")),
    ("EC2NodeClass", ".spec.tags", "tag contains a restricted tag matching karpenter.sh/nodeclaim"): (
        tag("karpenter.sh/nodeclaim"), same),
    ("EC2NodeClass", ".spec.tags", "tag contains a restricted tag matching karpenter.k8s.aws/ec2nodeclass"): (
        tag("karpenter.k8s.aws/ec2nodeclass"), tag("karpenter.k8s.aws/cluster")),
}


def _rules(kind):
    schema = load_schema(RELEASE, GROUPS[kind], "v1", kind)
    return schema, [r for r in rules_of(schema) if not r.transition]


def _params():
    for kind in BASES:
        _schema, rules = _rules(kind)
        for r in rules:
            yield pytest.param(kind, r, id=f"{kind}{r.scope}:{r.message[:50]}")


def _failing(kind, obj):
    schema, _ = _rules(kind)
    return evaluate(obj, schema)


def test_bases_pass_every_rule():
    for kind, base in BASES.items():
        out = _failing(kind, base)
        assert out.failures == [], [f.message for f in out.failures]
        assert not out.unevaluated and not out.unknown


def test_every_rule_has_a_case():
    missing = []
    for kind in BASES:
        for r in _rules(kind)[1]:
            if (kind, r.scope, r.message) not in CASES:
                missing.append((kind, r.scope, r.message))
    assert not missing, missing
    stale = set(CASES) - {(k, r.scope, r.message) for k in BASES for r in _rules(k)[1]}
    assert not stale, stale


@pytest.mark.parametrize("kind,r", list(_params()))
def test_rule(kind, r):
    fail, ok = CASES[(kind, r.scope, r.message)]
    compile_rule(r.rule)  # evaluable: raises Unsupported otherwise
    bad = copy.deepcopy(BASES[kind])
    fail(bad)
    out = _failing(kind, bad)
    hits = [f for f in out.failures if f.rule == r]
    assert hits, f"rule did not fire; failures: {[f.message for f in out.failures]}"
    assert all(f.error is None for f in hits), [f.message for f in hits]  # it returned false, not an error
    good = copy.deepcopy(BASES[kind])
    ok(good)
    out = _failing(kind, good)
    assert not [f for f in out.failures if f.rule == r]
    assert not out.unevaluated


def test_coverage_of_v1_14_1_is_at_least_95_percent():
    rows = {(row["kind"]): row for row in cel_coverage(RELEASE) if row["kind"] in BASES}
    assert set(rows) == set(BASES)
    for kind, row in rows.items():
        assert row["coverage"] >= 0.95, (kind, row["coverage"], [r for r in row["rules"] if r["status"] != "evaluated"])
    assert rows["EC2NodeClass"]["total"] == 54 and rows["NodePool"]["total"] == 20
    assert rows["NodePool"]["transition"] == 3


def test_nodepool_evaluation_costs_milliseconds():
    schema, _ = _rules("NodePool")
    evaluate(NODEPOOL, schema)  # compile once
    n = 50
    t = time.perf_counter()
    for _ in range(n):
        evaluate(NODEPOOL, schema)
    per = (time.perf_counter() - t) / n
    limit = 0.25 if os.environ.get("KARPLINT_CEL_ENGINE") == "celpy" else 0.02
    assert per < limit, f"{per * 1000:.1f} ms per NodePool"
