"""Karpenter's own drift tests, translated: the specification of `karplint.diff.drift`.

Every upstream test whose input is static (two versions of a NodePool or EC2NodeClass, or a NodeClaim's labels
against requirements) is a case here, citing its name and file:line@commit. Sources (Apache-2.0):

- C: kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift_test.go@6e7eab7 (tag v1.14.1)
- H: kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/suite_test.go@6e7eab7
- E: aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_hash_test.go@bde0065 (tag v1.14.1)
- P: aws/karpenter-provider-aws pkg/cloudprovider/suite_test.go@bde0065, Context "NodeClaim Drift"
- A: aws/karpenter-provider-aws test/suites/drift/suite_test.go@bde0065 (end-to-end: the change applied to a cluster)
- G: kubernetes-sigs/karpenter test/suites/regression/drift_test.go@6e7eab7 (end-to-end)
- N: aws/karpenter-provider-aws pkg/controllers/nodeclass/hash/suite_test.go@bde0065

Translated: C 18, H 2, E 60, P 31, A 16, G 5, N 8 (140 cases).

Left out (input is cluster or in-flight state, not two versions of a file), 57:
- C (19): L83-84 managed/unmanaged NodeClaims (which Karpenter owns the node class); L86, L95, L104, L116 stale
  instance types and offerings (the cloud provider's live instance types); L134, L151 static/requirements drift
  found before cloud-provider drift (the order checks run in, not a verdict); L166, L178, L198 the Launched and
  Drifted conditions (in-flight state); L482, L489, L512 hash annotations missing on the objects (cluster state;
  the hash-version mismatch of L498 is translated as a release change); L566-L570 reserved-capacity offerings (5).
- H (5): L96 unmanaged NodePools; L149, L163, L200, L228 the hash controller's bookkeeping of hash versions on
  objects in the cluster (what `drift._release_reasons` cites).
- E (0).
- P (15): L817, L823 missing NodeClass/NodePool; L829 image id in the NodeClaim's status; L835 several reasons with
  a forged hash annotation; L861, L873 empty status lists (errors); L949 a reservation falling back to on-demand;
  L994, L999, L1004, L1010 errors on missing NodeClaim data; L1181, L1193, L1207, L1224 hash annotations.
- A (3): L115 deprecated AMIs (the account's images); L475 hash-version annotations; L578 a reserved node demoted
  to on-demand (in-flight).
- G (9): L66, L119, L188, L249, L270 budgets (the pace of the rollout, not whether nodes drift: `rollout`'s part);
  L374 hash-version annotations; L423, L473, L528 replacements that never come up, unhealthy PDBs.
- N (5): L145 the cluster's CA bundle changing (hashed since 1.12, but no file of the repository holds it);
  L193, L208, L260, L296 hash-version annotations on objects in the cluster.
"""

from __future__ import annotations

import copy

import pytest

from diff_drift_support import Pair, field_rule, nodepool, resource, top
from karplint.diff.drift import nodeclass_drift, nodepool_drift
from karplint.diff.drift_requirements import node_drifts
from karplint.model.versions import V
from karplint.provisioning.catalog import load

C = "kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift_test.go@6e7eab7"
H = "kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/suite_test.go@6e7eab7"
E = "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_hash_test.go@bde0065"
P = "aws/karpenter-provider-aws pkg/cloudprovider/suite_test.go@bde0065"
R = V("1.14.1")


def _merge(base, changes):
    """mergo.Merge(dst, src, WithOverride, WithSliceDeepCopy) on plain data: maps merged key by key, slices item
    by item, scalars overridden."""
    if isinstance(base, dict) and isinstance(changes, dict):
        out = dict(base)
        for k, v in changes.items():
            out[k] = _merge(base[k], v) if k in base else copy.deepcopy(v)
        return out
    if isinstance(base, list) and isinstance(changes, list):
        out = [copy.deepcopy(x) for x in base]
        for i, v in enumerate(changes):
            if i < len(out):
                out[i] = _merge(out[i], v)
            else:
                out.append(copy.deepcopy(v))
        return out
    return copy.deepcopy(changes)


def _nc(spec: dict):
    return resource({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                     "spec": spec})


def _np(template: dict, **spec):
    return resource({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
                     "spec": dict(spec, template=template)})


def _class(before, after, **kw):
    return nodeclass_drift(_nc(before), _nc(after), release=R, rules=field_rule, **kw)


def _pool(before, after, **kw):
    kw.setdefault("nodeclass_reasons", [])
    return nodepool_drift(Pair("NodePool", "default", None, before, after), release=R, catalog=load(),
                          rules=field_rule, **kw)


def _verdict(reasons: list[dict]) -> str:
    from karplint.diff.drift import combine
    return combine(r["drifts"] for r in reasons)


# ---------------------------------------------------------------------------------- C: NodeRequirement Drift
CT, OS, ARCH = "karpenter.sh/capacity-type", "kubernetes.io/os", "kubernetes.io/arch"


def _req(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)}


REQUIREMENT_CASES = [
    # (upstream name, line, old requirements, new requirements, NodeClaim labels, drifted)
    ("should return drifted if the nodePool node requirement is updated", 228,
     [_req(CT, "In", "on-demand"), _req(ARCH, "In", "amd64"), _req(OS, "In", "linux")],
     [_req(CT, "In", "spot")], {CT: "on-demand", ARCH: "amd64", OS: "linux"}, True),
    ("should return drifted if a new node requirement is added", 244,
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux")],
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux"), _req(ARCH, "In", "amd64")],
     {CT: "on-demand", OS: "linux"}, True),
    ("should return drifted if a node requirement is reduced", 261,
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux", "windows")],
     [_req(CT, "In", "on-demand"), _req(OS, "In", "windows")], {CT: "on-demand", OS: "linux"}, True),
    ("should not return drifted if a node requirement is expanded", 277,
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux")],
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux", "windows")], {CT: "on-demand", OS: "linux"}, False),
    ("should not return drifted if a node requirement set to Exists", 293,
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux")],
     [_req(CT, "In", "on-demand"), _req(OS, "Exists")], {CT: "on-demand", OS: "linux"}, False),
    ("should return drifted if a node requirement set to DoesNotExists", 309,
     [_req(CT, "In", "on-demand"), _req(OS, "In", "linux")],
     [_req(CT, "In", "on-demand"), _req(OS, "DoesNotExist")], {CT: "on-demand", OS: "linux"}, True),
    # (upstream names these two "should not return drifted", yet expects drifted: the label is outside the new bound)
    ("should not return drifted if a nodeClaim is greater then node requirement", 325,
     [_req(CT, "In", "on-demand"), _req("test-label", "Gt", "2")],
     [_req(CT, "In", "on-demand"), _req("test-label", "Gt", "10")], {CT: "on-demand", "test-label": "5"}, True),
    ("should not return drifted if a nodeClaim is less then node requirement", 341,
     [_req(CT, "In", "on-demand"), _req("test-label", "Lt", "5")],
     [_req(CT, "In", "on-demand"), _req("test-label", "Lt", "1")], {CT: "on-demand", "test-label": "2"}, True),
]


@pytest.mark.parametrize("name,line,old,new,labels,drifted", REQUIREMENT_CASES, ids=[c[0] for c in REQUIREMENT_CASES])
def test_requirement_drift_of_one_node(name, line, old, new, labels, drifted):
    """C drift_test.go NodeRequirement Drift: a NodeClaim with `labels` against the new requirements."""
    assert node_drifts(old, labels) is False  # (launched under the old ones)
    assert node_drifts(new, labels) is drifted


@pytest.mark.parametrize("name,line,old,new,labels,drifted", REQUIREMENT_CASES, ids=[c[0] for c in REQUIREMENT_CASES])
def test_requirement_drift_of_the_pool(name, line, old, new, labels, drifted):
    """The same cases at the NodePool: a node the upstream test drifts makes the pool's verdict drift (some, all or
    unknown when the value is known only in the cluster); a node it keeps, with the old requirements admitting
    nothing more than its labels, keeps the pool at none."""
    doc = _pool(nodepool(old), nodepool(new))
    if drifted:
        assert doc["verdict"] in ("all", "some", "unknown")
        assert all("drift.go@6e7eab7#L170" in r["source"] for r in doc["reasons"])
    else:
        assert doc["verdict"] == "none"
        assert doc["reasons"] == []


def test_requirements_drift_only_the_nodes_they_no_longer_admit():
    """C drift_test.go:358 should return drifted only on NodeClaims that are drifted from an updated nodePool:
    os In [linux, windows] -> In [linux] drifts the windows node, not the linux one."""
    old = [_req(CT, "In", "on-demand"), _req(OS, "In", "linux", "windows")]
    new = [_req(CT, "In", "on-demand"), _req(OS, "In", "linux")]
    assert node_drifts(new, {CT: "on-demand", OS: "linux"}) is False
    assert node_drifts(new, {CT: "on-demand", OS: "windows"}) is True
    doc = _pool(nodepool(old), nodepool(new))
    assert doc["verdict"] == "some"
    assert [(r["drifts"], r["lost"]) for r in doc["reasons"]] == [("some", ["windows"])]


# ------------------------------------------------------------------------------------- C: NodePool Static Drift
STATIC_TEMPLATE = {
    "metadata": {"annotations": {"keyAnnotation": "valueAnnotation", "keyAnnotation2": "valueAnnotation2"},
                 "labels": {"keyLabel": "valueLabel", "keyLabel2": "valueLabel2"}},
    "spec": {"requirements": [],
             "nodeClassRef": {"group": "karpenter.test.sh", "kind": "TestNodeClass", "name": "default"},
             "taints": [{"key": "keyvalue1", "effect": "NoExecute"}],
             "startupTaints": [{"key": "startupkeyvalue1", "effect": "NoExecute"}],
             "expireAfter": "5m", "terminationGracePeriod": "5m"},
}
STATIC_CASES = [  # drift_test.go:474-480 DescribeTable "should detect drift on changes to the static fields"
    ("Annoations", 474, {"metadata": {"annotations": {"keyAnnotationTest": "valueAnnotationTest"}}},
     "spec.template.metadata.annotations"),
    ("Labels", 475, {"metadata": {"labels": {"keyLabelTest": "valueLabelTest"}}}, "spec.template.metadata.labels"),
    ("Taints", 476, {"spec": {"taints": [{"key": "keytest2taint", "effect": "NoExecute"}]}},
     "spec.template.spec.taints"),
    ("StartupTaints", 477, {"spec": {"startupTaints": [{"key": "keytest2taint", "effect": "NoExecute"}]}},
     "spec.template.spec.startupTaints"),
    ("NodeClassRef Name", 478, {"spec": {"nodeClassRef": {"name": "testName"}}}, "spec.template.spec.nodeClassRef"),
    ("ExpireAfter", 479, {"spec": {"expireAfter": "100m"}}, "spec.template.spec.expireAfter"),
    ("TerminationGracePeriod", 480, {"spec": {"terminationGracePeriod": "100m"}},
     "spec.template.spec.terminationGracePeriod"),
]


@pytest.mark.parametrize("name,line,changes,row", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
def test_nodepool_static_fields_drift_every_node(name, line, changes, row):
    doc = _pool(_np(STATIC_TEMPLATE), _np(_merge(STATIC_TEMPLATE, changes)))
    assert doc["verdict"] == "all"
    assert [(top(r["field"]), r["drifts"]) for r in doc["reasons"]] == [(row, "all")]
    assert doc["summary"] == "every node is replaced"


def test_a_missing_nodepool_is_no_drift():
    """C drift_test.go:190 should not detect drift if the nodePool does not exist: a removed NodePool's nodes are
    deleted with it (owner references), not drifted."""
    doc = _pool(_np(STATIC_TEMPLATE), None)
    assert doc["verdict"] == "removed" and doc["reasons"] == []
    assert "nodeclaimtemplate.go@6e7eab7#L157" in doc["not_drifting"][0]["source"]


def test_hash_version_mismatch_is_no_static_drift():
    """C drift_test.go:498 should not return drifted if the NodeClaim's nodepool-hash-version annotation does not
    match the NodePool's: a hash change applied with an upgrade that changes the hash version (0.37.0: v2 ->
    1.0.0: v3) is not known to drift."""
    doc = nodepool_drift(Pair("NodePool", "default", None, _np(STATIC_TEMPLATE),
                              _np(_merge(STATIC_TEMPLATE, STATIC_CASES[1][2]))),
                         release=V("1.0.0"), base_release=V("0.37.0"), nodeclass_reasons=[], catalog=load(),
                         rules=field_rule)
    assert doc["verdict"] == "unknown"
    assert {r["drifts"] for r in doc["reasons"]} == {"unknown"}
    assert any("hash/controller.go@6e7eab7#L97" in r["source"] for r in doc["reasons"])


# -------------------------------------------------------------------------------------- H: static drift hash
HASH_TEMPLATE = {
    "metadata": {"annotations": {"keyAnnotation": "valueAnnotation", "keyAnnotation2": "valueAnnotation2"},
                 "labels": {"keyLabel": "valueLabel"}},
    "spec": {"requirements": [], "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                  "name": "default"},
             "taints": [{"key": "key", "effect": "NoExecute"}],
             "startupTaints": [{"key": "key", "effect": "NoExecute"}],
             "expireAfter": "5m", "terminationGracePeriod": "5m"},
}


def test_static_field_update_changes_the_hash():
    """H suite_test.go:109 should update the drift hash when NodePool static field is updated (labels replaced,
    annotations reordered: the labels drift, the reordering does not)."""
    after = copy.deepcopy(HASH_TEMPLATE)
    after["metadata"] = {"labels": {"keyLabeltest": "valueLabeltest"},
                         "annotations": {"keyAnnotation2": "valueAnnotation2", "keyAnnotation": "valueAnnotation"}}
    doc = _pool(_np(HASH_TEMPLATE), _np(after))
    assert doc["verdict"] == "all"
    assert [r["field"] for r in doc["reasons"]] == ["spec.template.metadata.labels"]


def test_behaviour_fields_do_not_change_the_hash():
    """H suite_test.go:126 should not update the drift hash when NodePool behavior field is updated: limits,
    consolidation, weight are no hash field; the requirements are not hashed either but checked against the
    nodes (here zone In [test] and Gt 1 and Lt 1 admit no zone: every node is out of them)."""
    after_template = copy.deepcopy(HASH_TEMPLATE)
    zone = "topology.kubernetes.io/zone"
    after_template["spec"]["requirements"] = [_req(zone, "In", "test"), _req(zone, "Gt", "1"), _req(zone, "Lt", "1")]
    doc = _pool(_np(HASH_TEMPLATE),
                _np(after_template, limits={"cpu": "16"}, weight=80,
                    disruption={"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s"}))
    assert not [r for r in doc["reasons"] + doc["not_drifting"] if r["source"].startswith(
        "kubernetes-sigs/karpenter pkg/apis") and r["drifts"] != "none"]
    behaviour = {top(r["field"]): r["drifts"] for r in doc["not_drifting"]}
    assert behaviour == {"spec.limits": "none", "spec.weight": "none", "spec.disruption": "none"}
    assert [(top(r["field"]), r["drifts"]) for r in doc["reasons"]] == [("spec.template.spec.requirements", "all")]


# ------------------------------------------------------------------------------------- E: EC2NodeClass hash
HASH_CLASS = {
    "role": "role-1", "tags": {"keyTag-1": "valueTag-1", "keyTag-2": "valueTag-2"}, "context": "fake-context",
    "detailedMonitoring": False, "associatePublicIPAddress": False,
    "metadataOptions": {"httpEndpoint": "disabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                        "httpTokens": "optional"},
    "blockDeviceMappings": [
        {"deviceName": "map-device-1", "rootVolume": False,
         "ebs": {"deleteOnTermination": False, "encrypted": False, "iops": 0, "kmsKeyID": "fakeKMSKeyID",
                 "snapshotID": "fakeSnapshot", "throughput": 0, "volumeSize": "2G", "volumeType": "standard"}},
        {"deviceName": "map-device-2"}],
    "userData": "userdata-test-1",
    # (not in the upstream object, which no API server would take: without them an added term reads as "more
    # subnets", which no node drifts for)
    "subnetSelectorTerms": [{"tags": {"k": "v"}}], "securityGroupSelectorTerms": [{"tags": {"k": "v"}}],
}
FIELD_CHANGES = [  # (entry name, line in the "match static hash" table, line in the "change hash" table, changes, row)
    ("UserData", 87, 141, {"userData": "userdata-test-2"}, "spec.userData"),
    ("Tags", 88, 142, {"tags": {"keyTag-test-3": "valueTag-test-3"}}, "spec.tags"),
    ("Context", 89, 143, {"context": "context-2"}, "spec.context"),
    ("DetailedMonitoring", 90, 144, {"detailedMonitoring": True}, "spec.detailedMonitoring"),
    ("InstanceStorePolicy", 91, 145, {"instanceStorePolicy": "RAID0"}, "spec.instanceStorePolicy"),
    ("AssociatePublicIPAddress", 92, 146, {"associatePublicIPAddress": True}, "spec.associatePublicIPAddress"),
    ("MetadataOptions HTTPEndpoint", 93, 147, {"metadataOptions": {"httpEndpoint": "enabled"}},
     "spec.metadataOptions"),
    ("MetadataOptions HTTPProtocolIPv6", 94, 148, {"metadataOptions": {"httpProtocolIPv6": "enabled"}},
     "spec.metadataOptions"),
    ("MetadataOptions HTTPPutResponseHopLimit", 95, 149, {"metadataOptions": {"httpPutResponseHopLimit": 10}},
     "spec.metadataOptions"),
    ("MetadataOptions HTTPTokens", 96, 150, {"metadataOptions": {"httpTokens": "required"}}, "spec.metadataOptions"),
    ("BlockDeviceMapping DeviceName", 97, 151, {"blockDeviceMappings": [{"deviceName": "map-device-test-3"}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping RootVolume", 98, 152, {"blockDeviceMappings": [{"rootVolume": True}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping DeleteOnTermination", 99, 153,
     {"blockDeviceMappings": [{"ebs": {"deleteOnTermination": True}}]}, "spec.blockDeviceMappings"),
    ("BlockDeviceMapping Encrypted", 100, 154, {"blockDeviceMappings": [{"ebs": {"encrypted": True}}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping IOPS", 101, 155, {"blockDeviceMappings": [{"ebs": {"iops": 10}}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping KMSKeyID", 102, 156, {"blockDeviceMappings": [{"ebs": {"kmsKeyID": "test"}}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping SnapshotID", 103, 157, {"blockDeviceMappings": [{"ebs": {"snapshotID": "test"}}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping Throughput", 104, 158, {"blockDeviceMappings": [{"ebs": {"throughput": 10}}]},
     "spec.blockDeviceMappings"),
    ("BlockDeviceMapping VolumeType", 105, 159, {"blockDeviceMappings": [{"ebs": {"volumeType": "io1"}}]},
     "spec.blockDeviceMappings"),
    ("ConnectionTracking TCPEstablishedTimeout", 106, 160, {"connectionTracking": {"tcpEstablishedTimeout": 300}},
     "spec.connectionTracking"),
    ("ConnectionTracking UDPStreamTimeout", 107, 161, {"connectionTracking": {"udpStreamTimeout": 120}},
     "spec.connectionTracking"),
    ("ConnectionTracking UDPTimeout", 108, 162, {"connectionTracking": {"udpTimeout": 45}}, "spec.connectionTracking"),
    ("CPUOptions NestedVirtualization", 109, 163, {"cpuOptions": {"nestedVirtualization": "enabled"}},
     "spec.cpuOptions"),
]


@pytest.mark.parametrize("table_line", ["match", "change"])
@pytest.mark.parametrize("name,line_match,line_change,changes,row", FIELD_CHANGES, ids=[c[0] for c in FIELD_CHANGES])
def test_static_field_changes_the_nodeclass_hash(name, line_match, line_change, changes, row, table_line):
    """E :84-109 "should match static hash on field value change" (each entry a new hash) and :135-163 "should
    change hash when static fields are updated": each field drifts every node of the pools using the class."""
    reasons = _class(HASH_CLASS, _merge(HASH_CLASS, changes))
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(row, "all")]


def test_base_nodeclass_has_no_reason():
    """E :84 Base EC2NodeClass (an empty change: the static hash) and :212 two EC2NodeClasses with the same spec
    have the same hash."""
    assert _class(HASH_CLASS, copy.deepcopy(HASH_CLASS)) == []


@pytest.mark.parametrize("line,changes,field", [
    (112, {"amiSelectorTerms": [{"tags": {"": "ami-test-value"}}]}, "spec.amiSelectorTerms"),
    (113, {"subnetSelectorTerms": [{"tags": {"subnet-test-key": "subnet-test-value"}}]}, "spec.subnetSelectorTerms"),
    (114, {"securityGroupSelectorTerms": [{"tags": {"security-group-test-key": "security-group-test-value"}}]},
     "spec.securityGroupSelectorTerms"),
], ids=["Modified AMISelector", "Modified SubnetSelector", "Modified SecurityGroupSelector"])
def test_selector_terms_are_no_hash_field(line, changes, field):
    """E :112-114 the selector terms keep the static hash: no hash verdict; what Karpenter resolves from them is
    checked in the cluster, so karplint says "unknown" (tags are resolved in the account)."""
    after = dict(HASH_CLASS, **changes)  # (mergo WithSliceDeepCopy merges item 0's tags; replacing is the same here)
    reasons = _class(HASH_CLASS, after)
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(field, "unknown")]
    assert "pkg/cloudprovider/drift.go@bde0065" in reasons[0]["source"]


@pytest.mark.parametrize("line", [118, 167])
def test_volume_size_changes_the_hash(line):
    """E :118 should match static hash when updating blockDeviceMapping volumeSize (a new hash) and :167 should
    change hash blockDeviceMapping volumeSize is updated."""
    after = copy.deepcopy(HASH_CLASS)
    after["blockDeviceMappings"][0]["ebs"]["volumeSize"] = "10G"
    assert [(top(r["field"]), r["drifts"]) for r in _class(HASH_CLASS, after)] == [("spec.blockDeviceMappings", "all")]


def test_instance_profile_changes_the_hash():
    """E :122 should match static hash for instanceProfile (role -> instanceProfile) and :173 should change hash
    when instanceProfile is updated."""
    profile = {k: v for k, v in HASH_CLASS.items() if k != "role"}
    with_profile = dict(profile, instanceProfile="test-instance-profile")
    reasons = _class(HASH_CLASS, with_profile)
    assert {(top(r["field"]), r["drifts"]) for r in reasons} == {("spec.role", "all"), ("spec.instanceProfile", "all")}
    other = dict(profile, instanceProfile="other-instance-profile")
    assert [(top(r["field"]), r["drifts"]) for r in _class(with_profile, other)] == [("spec.instanceProfile", "all")]


@pytest.mark.parametrize("line", [127, 181])
def test_reordered_tags_are_no_change(line):
    """E :127 should match static hash when reordering tags, :181 should not change hash when tags are re-ordered."""
    after = dict(HASH_CLASS, tags={"keyTag-2": "valueTag-2", "keyTag-1": "valueTag-1"})
    assert _class(HASH_CLASS, after) == []


@pytest.mark.parametrize("line", [131, 187])
def test_reordered_block_device_mappings_are_no_change(line):
    """E :131 and :187 reordering blockDeviceMappings keeps the hash (slices hash as sets)."""
    after = dict(HASH_CLASS, blockDeviceMappings=list(reversed(HASH_CLASS["blockDeviceMappings"])))
    assert _class(HASH_CLASS, after) == []


def test_dynamic_fields_do_not_change_the_hash():
    """E :193 should not change hash when behavior/dynamic fields are updated (subnet, security group, AMI and
    capacity reservation terms): no hash reason; each dynamic check says what the cluster decides."""
    after = dict(HASH_CLASS, subnetSelectorTerms=[{"tags": {"subnet-test-key": "subnet-test-value"}}],
                 securityGroupSelectorTerms=[{"tags": {"sg-test-key": "sg-test-value"}}],
                 amiSelectorTerms=[{"tags": {"ami-test-key": "ami-test-value"}}],
                 capacityReservationSelectorTerms=[{"tags": {"cr-test-key": "cr-test-value"}}])
    reasons = _class(HASH_CLASS, after)
    assert not [r for r in reasons if "ec2nodeclass.go" in r["source"] and r["drifts"] != "none"]
    assert {top(r["field"]): r["drifts"] for r in reasons if r["drifts"] != "none"} == {
        "spec.subnetSelectorTerms": "unknown", "spec.securityGroupSelectorTerms": "unknown",
        "spec.amiSelectorTerms": "unknown"}
    # (capacity reservations only added: nodes outside reservations are untouched)
    assert {top(r["field"]): r["drifts"] for r in reasons if r["drifts"] == "none"} == {
        "spec.capacityReservationSelectorTerms": "none"}


# --------------------------------------------------------------------------------- P: cloud provider drift
STATIC_CLASS = {
    "subnetSelectorTerms": [{"id": "subnet-1"}, {"id": "subnet-2"}], "securityGroupSelectorTerms": [{"id": "sg-1"}],
    "role": "test-role", "userData": "Fake Userdata", "tags": {"fakeKey": "fakeValue"}, "context": "fake-context",
    "detailedMonitoring": False, "amiSelectorTerms": [{"alias": "al2023@latest"}], "associatePublicIPAddress": False,
    "metadataOptions": {"httpEndpoint": "disabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                        "httpTokens": "optional"},
    "blockDeviceMappings": [{"deviceName": "fakeName", "rootVolume": False, "ebs": {
        "deleteOnTermination": False, "encrypted": False, "iops": 0, "kmsKeyID": "fakeKMSKeyID",
        "snapshotID": "fakeSnapshot", "throughput": 0, "volumeSize": "2G", "volumeType": "standard"}}],
}
SUITE_LINES = dict(zip([c[0] for c in FIELD_CHANGES[:19]], range(1128, 1147)))


@pytest.mark.parametrize("name,line_match,line_change,changes,row", FIELD_CHANGES[:19],
                         ids=[c[0] for c in FIELD_CHANGES[:19]])
def test_statically_drifted_fields(name, line_match, line_change, changes, row):
    """P :1113 "should return drifted if a statically drifted EC2NodeClass.Spec field is updated", entries
    :1128-1146 (NodeClassDrift)."""
    assert SUITE_LINES[name]
    reasons = _class(STATIC_CLASS, _merge(STATIC_CLASS, changes))
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(row, "all")]


def test_volume_size_drifts():
    """P :1150 should return drifted when updating blockDeviceMapping volumeSize."""
    after = copy.deepcopy(STATIC_CLASS)
    after["blockDeviceMappings"][0]["ebs"]["volumeSize"] = "10G"
    assert [(top(r["field"]), r["drifts"]) for r in _class(STATIC_CLASS, after)] == [("spec.blockDeviceMappings", "all")]


def test_ami_terms_with_the_same_resolved_family_are_no_static_drift():
    """P :1174 "AMI Drift" entry of "should not return drifted if dynamic fields are updated": amiFamily AL2023
    with tag terms instead of alias al2023@latest resolves to the same family (no hash change); the images the
    tags select are the cluster's business (upstream keeps the same images: no drift)."""
    after = dict(STATIC_CLASS, amiFamily="AL2023", amiSelectorTerms=[{"tags": {"ami-key-1": "ami-value-1"}}])
    reasons = _class(STATIC_CLASS, after)
    assert "all" not in {r["drifts"] for r in reasons}
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [("spec.amiFamily", "none"),
                                                             ("spec.amiSelectorTerms", "unknown")]


@pytest.mark.parametrize("line,changes,field", [
    (1178, {"subnetSelectorTerms": [{"tags": {"sn-key-1": "sn-value-1"}}]}, "spec.subnetSelectorTerms"),
    (1179, {"securityGroupSelectorTerms": [{"tags": {"sg-key": "sg-value"}}]}, "spec.securityGroupSelectorTerms"),
], ids=["Subnet Drift", "SecurityGroup Drift"])
def test_selector_tags_are_no_static_drift(line, changes, field):
    """P :1178-1179 subnet and security group terms are no static drift; resolved by tags in the cluster."""
    reasons = _class(STATIC_CLASS, dict(STATIC_CLASS, **changes))
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(field, "unknown")]


def test_subnet_no_longer_selected_drifts_its_nodes():
    """P :852 should return drifted if the subnet is not valid (the node's subnet is not among those selected):
    dropping subnet-2 drifts the nodes in it; dropping both drifts all; adding one drifts none (P :868 should not
    return drifted if the NodeClaim is valid)."""
    one = _class(STATIC_CLASS, dict(STATIC_CLASS, subnetSelectorTerms=[{"id": "subnet-1"}]))
    assert [(top(r["field"]), r["drifts"]) for r in one] == [("spec.subnetSelectorTerms", "some")]
    other = _class(STATIC_CLASS, dict(STATIC_CLASS, subnetSelectorTerms=[{"id": "subnet-3"}]))
    assert [r["drifts"] for r in other] == ["all"]
    more = _class(STATIC_CLASS, dict(STATIC_CLASS, subnetSelectorTerms=STATIC_CLASS["subnetSelectorTerms"] + [
        {"id": "subnet-3"}]))
    assert [r["drifts"] for r in more] == ["none"]


@pytest.mark.parametrize("line,terms", [
    (881, [{"id": "sg-2"}]),  # the instance's groups do not match the discovered ones
    (891, []),                # (the instance has more groups than discovered: a group dropped)
    (901, [{"id": "sg-1"}, {"id": "sg-2"}]),  # more discovered than the instance has: a group added
], ids=["doesn't match", "more instance groups", "more discovered groups"])
def test_security_groups_drift_on_any_difference(line, terms):
    """P :881, :891, :901: the security groups are compared as a set: any difference drifts every node."""
    before = dict(STATIC_CLASS, securityGroupSelectorTerms=[{"id": "sg-1"}, {"id": "sg-3"}]) if line == 891 \
        else STATIC_CLASS
    after = dict(STATIC_CLASS, securityGroupSelectorTerms=terms or [{"id": "sg-1"}])
    reasons = _class(before, after)
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [("spec.securityGroupSelectorTerms", "all")]


def test_matching_security_groups_do_not_drift():
    """P :989 should not return drifted if the security groups match (reordered terms: the same set)."""
    before = dict(STATIC_CLASS, securityGroupSelectorTerms=[{"id": "sg-1"}, {"id": "sg-2"}])
    after = dict(STATIC_CLASS, securityGroupSelectorTerms=[{"id": "sg-2"}, {"id": "sg-1"}])
    assert _class(before, after) == []


def test_capacity_reservation_no_longer_selected():
    """P :917 should dynamically drift nodeclaims for capacity reservations: a node in a reservation that is no
    longer selected drifts; only such nodes (not the on-demand and spot ones)."""
    before = dict(STATIC_CLASS, capacityReservationSelectorTerms=[{"id": "cr-foo"}])
    after = dict(STATIC_CLASS, capacityReservationSelectorTerms=[{"id": "cr-bar"}])
    reasons = _class(before, after)
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [("spec.capacityReservationSelectorTerms", "some")]
    assert "drift.go@bde0065#L148" in reasons[0]["source"]


def test_ami_no_longer_selected_for_the_instance_type():
    """P :1017 should return drifted if the AMI no longer matches the existing NodeClaims instance type: amiFamily
    Custom, selection narrowed to the amd64 image: nodes running the arm64 image drift, the others do not."""
    before = dict(STATIC_CLASS, amiFamily="Custom", amiSelectorTerms=[{"id": "ami-arm"}, {"id": "ami-amd"}])
    after = dict(STATIC_CLASS, amiFamily="Custom", amiSelectorTerms=[{"id": "ami-amd"}])
    reasons = _class(before, after)
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [("spec.amiSelectorTerms", "some")]
    assert "ami-arm" in reasons[0]["why"]


# ------------------------------------------------------------------------------ A: provider end-to-end drift
A = "aws/karpenter-provider-aws test/suites/drift/suite_test.go@bde0065"
E2E_CLASS = {"role": "KarpenterNodeRole-test", "amiSelectorTerms": [{"alias": "al2023@latest"}],
             "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
             "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}]}


@pytest.mark.parametrize("line,before,after,field", [
    (94, {"amiFamily": "AL2023", "amiSelectorTerms": [{"id": "ami-old"}]},
     {"amiFamily": "AL2023", "amiSelectorTerms": [{"id": "ami-new"}]}, "spec.amiSelectorTerms"),
    (152, {"amiFamily": "AL2023", "amiSelectorTerms": [{"id": "ami-arm"}]},
     {"amiFamily": "AL2023", "amiSelectorTerms": [{"id": "ami-amd"}]}, "spec.amiSelectorTerms"),
    (173, {"securityGroupSelectorTerms": [{"id": "sg-drift"}, {"id": "sg-1"}]},
     {"securityGroupSelectorTerms": [{"id": "sg-1"}]}, "spec.securityGroupSelectorTerms"),
    (252, {"subnetSelectorTerms": [{"id": "subnet-0"}]}, {"subnetSelectorTerms": [{"id": "subnet-1"}]},
     "spec.subnetSelectorTerms"),
], ids=["AMIs", "AMI for another architecture", "securitygroup", "subnets"])
def test_e2e_selection_changes_drift_the_node(line, before, after, field):
    """A :94 should disrupt nodes that have drifted due to AMIs, :152 should return drifted if the AMI no longer
    matches the existing NodeClaims instance type, :173 ... due to securitygroup, :252 ... due to subnets."""
    reasons = _class(dict(E2E_CLASS, **before), dict(E2E_CLASS, **after))
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(field, "all")]


E2E_ENTRIES = [  # A :273 DescribeTable "EC2NodeClass", entries :291-313
    ("UserData", 291, {"userData": "#!/bin/bash\necho \"Hello, AL2023\""}, "spec.userData"),
    ("Tags", 292, {"tags": {"keyTag-test-3": "valueTag-test-3"}}, "spec.tags"),
    ("MetadataOptions", 293, {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 10}},
     "spec.metadataOptions"),
    ("BlockDeviceMappings", 294, {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
        "volumeSize": "20Gi", "volumeType": "gp3", "encrypted": True}}]}, "spec.blockDeviceMappings"),
    ("DetailedMonitoring", 303, {"detailedMonitoring": True}, "spec.detailedMonitoring"),
    ("AMIFamily", 304, {"amiSelectorTerms": [{"alias": "bottlerocket@latest"}]}, None),
    ("KubeletConfiguration", 307, {"kubelet": {"evictionSoft": {"memory.available": "5%"},
                                               "evictionSoftGracePeriod": {"memory.available": "1m"}}},
     "spec.kubelet"),
    ("NetworkInterfaces", 313, {"networkInterfaces": [{"networkCardIndex": 0, "deviceIndex": 0,
                                                       "interfaceType": "interface"}]}, "spec.networkInterfaces"),
]


@pytest.mark.parametrize("name,line,changes,row", E2E_ENTRIES, ids=[e[0] for e in E2E_ENTRIES])
def test_e2e_nodeclass_fields_drift_the_node(name, line, changes, row):
    reasons = _class(E2E_CLASS, dict(E2E_CLASS, **changes))
    if row is None:  # (the family: by the hash and by the images)
        assert [(top(r["field"]), r["drifts"]) for r in reasons] == [("spec.amiFamily", "all"),
                                                                 ("spec.amiSelectorTerms", "all")]
    else:
        assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(row, "all")]


def test_e2e_instance_profile_and_role_changes_drift():
    """A :319 should drift the EC2NodeClass on InstanceProfile, :350 should drift nodeclaims when spec.role
    changes (and back)."""
    with_profile = {k: v for k, v in E2E_CLASS.items() if k != "role"}
    first = dict(with_profile, instanceProfile="KarpenterNodeInstanceProfile-test")
    second = dict(with_profile, instanceProfile="KarpenterNodeInstanceProfile-Drift-test")
    assert [(top(r["field"]), r["drifts"]) for r in _class(first, second)] == [("spec.instanceProfile", "all")]
    other_role = dict(E2E_CLASS, role="KarpenterNodeRole-test-2")
    assert [(top(r["field"]), r["drifts"]) for r in _class(E2E_CLASS, other_role)] == [("spec.role", "all")]
    assert [(top(r["field"]), r["drifts"]) for r in _class(other_role, E2E_CLASS)] == [("spec.role", "all")]


def test_e2e_volume_size_drifts():
    """A :444 should drift the EC2NodeClass on BlockDeviceMappings volume size update."""
    before = dict(E2E_CLASS, blockDeviceMappings=[{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "20Gi"}}])
    after = dict(E2E_CLASS, blockDeviceMappings=[{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "100Gi"}}])
    assert [(top(r["field"]), r["drifts"]) for r in _class(before, after)] == [("spec.blockDeviceMappings", "all")]


def test_e2e_reservation_no_longer_selected():
    """A :556 should drift nodeclaim when the reservation is no longer selected by the nodeclass (the reserved
    node; nodes outside reservations stay)."""
    before = dict(E2E_CLASS, capacityReservationSelectorTerms=[{"id": "cr-large"}])
    after = dict(E2E_CLASS, capacityReservationSelectorTerms=[{"id": "cr-xlarge"}])
    assert [(top(r["field"]), r["drifts"]) for r in _class(before, after)] == [
        ("spec.capacityReservationSelectorTerms", "some")]


# ------------------------------------------------------------------------------ G: core end-to-end drift
E2E_TEMPLATE = {"spec": {"requirements": [_req(CT, "In", "on-demand"),
                                          _req("karpenter.k8s.aws/instance-category", "In", "c", "m", "r")],
                         "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
                "metadata": {"labels": {"testing/cluster": "unspecified"}}}
E2E_POOL_ENTRIES = [  # G :298 DescribeTable "NodePool Drift", entries :345-365 (test.NodePool merges the template)
    ("Annotations", 345, {"metadata": {"annotations": {"keyAnnotationTest": "valueAnnotationTest"}}},
     "spec.template.metadata.annotations"),
    ("Labels", 350, {"metadata": {"labels": {"keyLabelTest": "valueLabelTest"}}}, "spec.template.metadata.labels"),
    ("Taints", 355, {"spec": {"taints": [{"key": "example.com/another-taint-2", "effect": "PreferNoSchedule"}]}},
     "spec.template.spec.taints"),
    ("Start-up Taints", 360, {"spec": {"startupTaints": [{"key": "example.com/another-taint-2",
                                                          "effect": "PreferNoSchedule"}]}},
     "spec.template.spec.startupTaints"),
    ("NodeRequirements", 365, {"spec": {"requirements": [_req(CT, "In", "spot")]}},
     "spec.template.spec.requirements"),
]


@pytest.mark.parametrize("name,line,changes,row", E2E_POOL_ENTRIES, ids=[e[0] for e in E2E_POOL_ENTRIES])
def test_e2e_nodepool_changes_drift_the_node(name, line, changes, row):
    after = _merge(E2E_TEMPLATE, changes)
    if name == "NodeRequirements":  # (the requirements list is replaced, as the test's comment says)
        after["spec"]["requirements"] = changes["spec"]["requirements"]
    doc = _pool(_np(E2E_TEMPLATE), _np(after))
    assert doc["verdict"] == "all"
    assert [(top(r["field"]), r["drifts"]) for r in doc["reasons"]] == [(row, "all")]


# ---------------------------------------------------------------------- N: provider nodeclass hash controller
N_CLASS = {"role": "test-role", "amiFamily": "Custom", "amiSelectorTerms": [{"tags": {"*": "*"}}],
           "subnetSelectorTerms": [{"tags": {"*": "*"}}], "securityGroupSelectorTerms": [{"tags": {"*": "*"}}]}
N_ENTRIES = [  # N :118 DescribeTable "should update the drift hash when static field is updated", :137-143
    ("UserData Drift", 137, {"userData": "userdata-test-2"}, "spec.userData"),
    ("Tags Drift", 138, {"tags": {"keyTag-test-3": "valueTag-test-3"}}, "spec.tags"),
    ("BlockDeviceMappings Drift", 139, {"blockDeviceMappings": [{"deviceName": "map-device-test-3"}]},
     "spec.blockDeviceMappings"),
    ("DetailedMonitoring Drift", 140, {"detailedMonitoring": True}, "spec.detailedMonitoring"),
    ("MetadataOptions Drift", 141, {"metadataOptions": {"httpEndpoint": "disabled"}}, "spec.metadataOptions"),
    ("Context Drift", 142, {"context": "context-2"}, "spec.context"),
    ("CPUOptions Drift", 143, {"cpuOptions": {"nestedVirtualization": "enabled"}}, "spec.cpuOptions"),
]


@pytest.mark.parametrize("name,line,changes,row", N_ENTRIES, ids=[e[0] for e in N_ENTRIES])
def test_hash_controller_static_fields(name, line, changes, row):
    reasons = _class(N_CLASS, dict(N_CLASS, **changes))
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [(row, "all")]


def test_hash_controller_dynamic_fields():
    """N :164 should not update the drift hash when dynamic field is updated (subnet and security group ids, AMI
    tags): no hash verdict; subnets and security groups by id where tags selected before, resolved in the
    account."""
    after = dict(N_CLASS, subnetSelectorTerms=[{"id": "subnet-test1"}],
                 securityGroupSelectorTerms=[{"id": "sg-test1"}],
                 amiSelectorTerms=[{"tags": {"ami-test-key": "ami-test-value"}}])
    reasons = _class(N_CLASS, after)
    assert not [r for r in reasons if "ec2nodeclass.go" in r["source"]]
    assert [(top(r["field"]), r["drifts"]) for r in reasons] == [
        ("spec.amiSelectorTerms", "unknown"), ("spec.subnetSelectorTerms", "unknown"),
        ("spec.securityGroupSelectorTerms", "unknown")]
