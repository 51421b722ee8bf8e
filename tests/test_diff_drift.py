"""karplint's own drift verdicts (`karplint.diff.drift`): what the text can tell about the dynamic checks, the
combined verdict, release changes, and the sources every reason cites. (Karpenter's own tests, translated, are in
test_diff_drift_upstream.py.)"""

from __future__ import annotations

import re

import pytest

from diff_drift_support import Pair, field_rule, nodeclass, nodepool, top
from karplint.diff.drift import combine, hash_version, nodeclass_drift, nodepool_drift
from karplint.model.versions import V
from karplint.provisioning.catalog import load

R = V("1.14.1")
FAMILY, CT, ZONE = "karpenter.k8s.aws/instance-family", "karpenter.sh/capacity-type", "topology.kubernetes.io/zone"
SOURCE = re.compile(r"^(kubernetes-sigs/karpenter|aws/karpenter-provider-aws) [\w./-]+@[0-9a-f]{7}#L\d+$")


def _req(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)}


def _class(before, after, **kw):
    kw.setdefault("release", R)
    return nodeclass_drift(before, after, rules=field_rule, **kw)


def _pool(before, after, nodeclass_reasons=(), **kw):
    kw.setdefault("release", R)
    return nodepool_drift(Pair("NodePool", "general", None, before, after), nodeclass_reasons=list(nodeclass_reasons),
                          catalog=load(), rules=field_rule, **kw)


def _fields(reasons):
    return [(top(r["field"]), r["drifts"]) for r in reasons]


# ------------------------------------------------------------------------------------------------------- AMIs
@pytest.mark.parametrize("before,after,drifts", [
    ("al2023@v20240701", "al2023@v20240807", "all"),     # pinned -> pinned: the old version's images go
    ("al2023@latest", "al2023@v20240807", "unknown"),    # no drift if v20240807 is the newest
    ("al2023@v20240807", "al2023@latest", "unknown"),
    ("al2023@latest", "al2023@latest", None),
])
def test_alias_versions(before, after, drifts):
    reasons = _class(nodeclass(amiSelectorTerms=[{"alias": before}]), nodeclass(amiSelectorTerms=[{"alias": after}]))
    assert _fields(reasons) == ([("spec.amiSelectorTerms", drifts)] if drifts else [])


def test_alias_family_change_drifts_by_the_hash_and_the_images():
    reasons = _class(nodeclass(amiSelectorTerms=[{"alias": "al2@latest"}]),
                     nodeclass(amiSelectorTerms=[{"alias": "al2023@latest"}]))
    assert _fields(reasons) == [("spec.amiFamily", "all"), ("spec.amiSelectorTerms", "all")]
    assert "ec2nodeclass.go@bde0065#L597" in reasons[0]["source"]


def test_stating_the_alias_family_is_no_drift():
    """ec2nodeclass.go `Hash` (L597-610): the resolved family is hashed "so that changing the field from nil to
    AL2023 with the alias al2023@latest doesn't trigger drift"."""
    reasons = _class(nodeclass(), nodeclass(amiFamily="AL2023"))
    assert _fields(reasons) == [("spec.amiFamily", "none")]


@pytest.mark.parametrize("before,after,drifts", [
    (["ami-1", "ami-2"], ["ami-1"], ["some"]),
    (["ami-1"], ["ami-2"], ["all"]),
    (["ami-1"], ["ami-1", "ami-2"], ["unknown"]),  # drifts where the added image is newer (MapToInstanceTypes)
    (["ami-1", "ami-2"], ["ami-2", "ami-1"], []),  # reordered
])
def test_ami_ids(before, after, drifts):
    reasons = _class(nodeclass(amiFamily="AL2023", amiSelectorTerms=[{"id": i} for i in before]),
                     nodeclass(amiFamily="AL2023", amiSelectorTerms=[{"id": i} for i in after]))
    assert [r["drifts"] for r in reasons] == drifts


def test_ssm_parameter_change_is_resolved_in_the_account():
    reasons = _class(nodeclass(amiFamily="AL2023", amiSelectorTerms=[{"ssmParameter": "/a"}]),
                     nodeclass(amiFamily="AL2023", amiSelectorTerms=[{"ssmParameter": "/b"}]))
    assert _fields(reasons) == [("spec.amiSelectorTerms", "unknown")]
    assert "ssmParameter" in reasons[0]["why"] and "resolved in the account" in reasons[0]["why"]


def test_templated_ami_selection_is_unknown():
    reasons = _class(nodeclass(amiSelectorTerms=[{"alias": "al2023@${var.v1}"}]),
                     nodeclass(amiSelectorTerms=[{"alias": "al2023@${var.v2}"}]))
    assert _fields(reasons) == [("spec.amiSelectorTerms", "unknown")]


# ------------------------------------------------------------------------------- subnets, security groups
@pytest.mark.parametrize("before,after,drifts", [
    ([{"id": "subnet-1"}], [{"id": "subnet-1"}, {"id": "subnet-2"}], "none"),
    ([{"id": "subnet-1"}, {"id": "subnet-2"}], [{"id": "subnet-2"}], "some"),
    ([{"id": "subnet-1"}], [{"id": "subnet-2"}], "all"),
    ([{"tags": {"a": "1"}}], [{"tags": {"a": "1"}}, {"tags": {"b": "2"}}], "none"),  # terms are ORed
    ([{"tags": {"a": "1"}}], [{"tags": {"a": "1", "b": "2"}}], "unknown"),  # narrowed, resolved in the account
])
def test_subnets(before, after, drifts):
    assert _fields(_class(nodeclass(subnetSelectorTerms=before), nodeclass(subnetSelectorTerms=after))) == [
        ("spec.subnetSelectorTerms", drifts)]


@pytest.mark.parametrize("before,after,drifts", [
    ([{"id": "sg-1"}], [{"id": "sg-1"}, {"id": "sg-2"}], "all"),  # a set compared for equality: adding drifts
    ([{"tags": {"a": "1"}}], [{"tags": {"a": "1"}}, {"tags": {"b": "2"}}], "unknown"),
])
def test_security_groups(before, after, drifts):
    assert _fields(_class(nodeclass(securityGroupSelectorTerms=before),
                          nodeclass(securityGroupSelectorTerms=after))) == [("spec.securityGroupSelectorTerms", drifts)]


def test_capacity_reservations_only_added_drift_nothing():
    reasons = _class(nodeclass(capacityReservationSelectorTerms=[{"id": "cr-1"}]),
                     nodeclass(capacityReservationSelectorTerms=[{"id": "cr-1"}, {"id": "cr-2"}]))
    assert _fields(reasons) == [("spec.capacityReservationSelectorTerms", "none")]


# ------------------------------------------------------------------------------- the hash, as the API stores it
def test_a_default_written_out_is_no_change():
    """The CRD's defaults are what the API server stores: metadataOptions and expireAfter written as their
    defaults change nothing."""
    written = {"httpTokens": "required", "httpPutResponseHopLimit": 1}
    assert _class(nodeclass(), nodeclass(metadataOptions=written)) == []
    doc = _pool(nodepool([]), nodepool([], expireAfter="720h"))
    assert (doc["verdict"], doc["reasons"], doc["not_drifting"]) == ("none", [], [])


def test_a_zero_value_from_unset_is_unknown():
    """hashstructure's IgnoreZeroValue skips nil pointers, not pointers to false: unset -> false may or may not
    change the hash, so karplint does not claim it."""
    reasons = _class(nodeclass(), nodeclass(detailedMonitoring=False))
    assert _fields(reasons) == [("spec.detailedMonitoring", "unknown")]


def test_templated_hash_field_is_unknown():
    reasons = _class(nodeclass(userData="${file.a}"), nodeclass(userData="${file.b}"))
    assert _fields(reasons) == [("spec.userData", "unknown")]


USERDATA = "#!/bin/bash\ncat > /etc/x.conf << 'EOF'\n[Service]\nEOF\n/etc/eks/bootstrap.sh ${CLUSTER}\n"


def test_literal_text_added_around_template_holes_drifts_every_node():
    """aws-samples/eks-workshop-v2 65aa363 (tests/fixtures/diff/history): lines added to a userData that holds a
    heredoc (`<<`) and envsubst holes elsewhere: the rendered value changes whatever the holes expand to."""
    reasons = _class(nodeclass(userData=USERDATA, role="${ROLE}"),
                     nodeclass(userData=USERDATA + "systemctl daemon-reload\n", role="${ROLE}"))
    assert _fields(reasons) == [("spec.userData", "all")]


@pytest.mark.parametrize("before, after", [
    (USERDATA, USERDATA.replace("${CLUSTER}", "${OTHER}")),  # (only a hole changed)
    ("{{ if .Values.x }}\necho a\n{{ end }}\n", "{{ if .Values.x }}\necho b\n{{ end }}\n"),  # (helm: may be dropped)
])
def test_a_change_only_inside_template_holes_or_helm_blocks_is_unknown(before, after):
    reasons = _class(nodeclass(userData=before), nodeclass(userData=after))
    assert _fields(reasons) == [("spec.userData", "unknown")]


def test_reordered_lists_and_maps_are_no_change():
    reqs = [_req(FAMILY, "In", "m5", "c5"), _req(CT, "In", "spot", "on-demand")]
    doc = _pool(nodepool(reqs, labels={"a": "1", "b": "2"}),
                nodepool(list(reversed(reqs)), labels={"b": "2", "a": "1"}))
    assert (doc["verdict"], doc["reasons"], doc["not_drifting"]) == ("none", [], [])


def test_field_missing_from_the_table_is_unknown():
    reasons = _class(nodeclass(), nodeclass(someNewField="x"))
    assert _fields(reasons) == [("spec.someNewField", "unknown")]
    assert "no verdict" in reasons[0]["why"]


# ------------------------------------------------------------------------------------------- requirements
@pytest.mark.parametrize("before,after,verdict", [
    ([_req(FAMILY, "In", "m5")], [_req(FAMILY, "In", "m5", "c5")], "none"),
    ([_req(FAMILY, "In", "m5", "c5")], [_req(FAMILY, "In", "m5")], "some"),
    ([_req(FAMILY, "In", "m5")], [_req(FAMILY, "In", "c5")], "all"),
    ([_req(CT, "In", "spot", "on-demand")], [_req(CT, "In", "on-demand")], "some"),
    ([], [_req(CT, "In", "on-demand")], "some"),  # (spot nodes, if any)
    ([_req("kubernetes.io/arch", "In", "amd64")], [_req("kubernetes.io/arch", "In", "arm64")], "all"),
    ([], [_req("team", "In", "a")], "all"),  # a custom label no node has
    ([], [_req("team", "NotIn", "a")], "none"),
    ([_req("team", "In", "a", "b")], [_req("team", "In", "a")], "some"),
    ([_req(ZONE, "In", "eu-west-1a", "eu-west-1b")], [_req(ZONE, "In", "eu-west-1a")], "some"),
    ([], [_req(ZONE, "In", "eu-west-1a")], "unknown"),  # which zones nodes are in: the cluster knows
    ([_req(FAMILY, "In", "m5")], [_req(FAMILY, "In", "m5"), _req(CT, "In", "spot", "on-demand")], "none"),
])
def test_requirements(before, after, verdict):
    doc = _pool(nodepool(before), nodepool(after))
    assert doc["verdict"] == verdict
    if verdict == "none":
        assert _fields(doc["not_drifting"]) == [("spec.template.spec.requirements", "none")]


def test_template_labels_count_as_the_nodes_values():
    doc = _pool(nodepool([], labels={"team": "a"}), nodepool([_req("team", "In", "a", "b")], labels={"team": "a"}))
    assert doc["verdict"] == "none"


def test_narrowed_families_name_the_instance_types_lost():
    doc = _pool(nodepool([_req(FAMILY, "In", "m5", "c5")]), nodepool([_req(FAMILY, "In", "m5")]))
    (r,) = doc["reasons"]
    assert (r["lost_instance_types"], r["lost_count"]) == (9, 9) and r["lost"][0] == "c5.12xlarge"
    assert doc["summary"] == "nodes of 9 instance types no longer allowed are replaced"


def test_templated_requirements_are_unknown():
    doc = _pool(nodepool([_req(FAMILY, "In", "${var.a}")]), nodepool([_req(FAMILY, "In", "${var.b}")]))
    assert doc["verdict"] == "unknown"
    assert "templated" in doc["reasons"][0]["why"]


# ----------------------------------------------------------------------------------------------- the verdict
def test_combined_verdict_order():
    assert combine([]) == "none"
    assert combine(["none", "unknown"]) == "unknown"
    assert combine(["unknown", "some", "none"]) == "some"
    assert combine(["some", "all", "unknown"]) == "all"


def test_nodeclass_reasons_join_the_pools_verdict():
    class_reasons = _class(nodeclass(subnetSelectorTerms=[{"id": "subnet-1"}, {"id": "subnet-2"}]),
                           nodeclass(subnetSelectorTerms=[{"id": "subnet-1"}]))
    doc = _pool(nodepool([]), nodepool([], spec={"weight": 10}), nodeclass_reasons=class_reasons)
    assert doc["verdict"] == "some"
    assert _fields(doc["reasons"]) == [("spec.subnetSelectorTerms", "some")]
    assert _fields(doc["not_drifting"]) == [("spec.weight", "none")]
    assert doc["reasons"][0]["object"] == "EC2NodeClass/default"


def test_behavioural_fields_say_no_node_is_replaced():
    doc = _pool(nodepool([]), nodepool([], spec={"weight": 10, "limits": {"cpu": "100"},
                                                 "disruption": {"consolidationPolicy": "WhenEmpty"}}))
    assert (doc["verdict"], doc["summary"], doc["reasons"]) == ("none", "no node is replaced", [])
    assert {top(r["field"]): r["drifts"] for r in doc["not_drifting"]} == {
        "spec.disruption": "none", "spec.limits": "none", "spec.weight": "none"}


def test_node_class_ref_to_another_class_replaces_every_node():
    other = nodepool([], nodeClassRef={"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"})
    doc = _pool(nodepool([]), other)
    assert doc["verdict"] == "all"
    assert "EC2NodeClass/gpu instead of EC2NodeClass/default" in doc["reasons"][0]["why"]


def test_added_and_removed_pools():
    added = _pool(None, nodepool([]))
    assert (added["verdict"], added["reasons"]) == ("new", [])
    removed = _pool(nodepool([]), None)
    assert removed["verdict"] == "removed"
    assert removed["summary"] == "the NodePool is removed: its nodes are deleted, not replaced"


def test_added_and_removed_nodeclasses_drift_nothing():
    assert [r["drifts"] for r in nodeclass_drift(None, nodeclass(), release=R)] == ["none"]
    removed = nodeclass_drift(nodeclass(), None, release=R)
    assert [r["drifts"] for r in removed] == ["none"] and "finalizer" in removed[0]["why"]


# ------------------------------------------------------------------------------------------------- releases
@pytest.mark.parametrize("kind,release,version", [
    ("NodePool", "0.35.0", None), ("NodePool", "0.35.4", "v1"), ("NodePool", "0.36.3", "v2"),
    ("NodePool", "0.37.7", "v2"),  # (the v1 API of 0.37.1+ says v3, but the controller compares v1beta1's)
    ("NodePool", "1.0.0", "v3"), ("NodePool", "1.14.1", "v3"), ("EC2NodeClass", "0.37.1", "v2"),
    ("EC2NodeClass", "1.0.0", "v3"), ("EC2NodeClass", "1.1.0", "v4"), ("EC2NodeClass", "1.11.2", "v4"),
    ("EC2NodeClass", "1.12.0", "v5"),
])
def test_hash_versions(kind, release, version):
    assert hash_version(kind, V(release)) == version


def test_release_with_the_same_hash_version_keeps_hash_drift():
    doc = _pool(nodepool([], labels={"a": "1"}), nodepool([], labels={"a": "2"}), base_release=V("1.1.0"))
    assert doc["verdict"] == "all"
    assert "stays v3" in doc["not_drifting"][0]["why"]


def test_nodeclass_hash_version_change_makes_hash_drift_unknown():
    reasons = _class(nodeclass(tags={"a": "1"}), nodeclass(tags={"a": "2"}), base_release=V("1.11.0"),
                     release=V("1.12.0"))
    assert _fields(reasons) == [(None, "unknown"), ("spec.tags", "unknown")]
    assert "from v4 to v5" in reasons[0]["why"]
    assert "nodeclass/hash/controller.go@bde0065#L88" in reasons[0]["source"]


# -------------------------------------------------------------------------------------------------- sources
def test_every_reason_cites_upstream_code():
    """Every reason's source is an upstream file:line@sha7 (with the real table, a row's citation)."""
    reasons = []
    reasons += _class(nodeclass(amiSelectorTerms=[{"alias": "al2@v1"}]),
                      nodeclass(amiSelectorTerms=[{"alias": "al2023@v2"}], tags={"a": "b"},
                                subnetSelectorTerms=[{"id": "s"}], securityGroupSelectorTerms=[{"id": "g"}],
                                capacityReservationSelectorTerms=[{"id": "c"}]),
                      base_release=V("1.0.0"))
    for before, after in [(nodepool([]), nodepool([_req(FAMILY, "In", "m5")], taints=[{"key": "a",
                                                                                       "effect": "NoSchedule"}])),
                          (None, nodepool([])), (nodepool([]), None)]:
        doc = _pool(before, after)
        reasons += doc["reasons"] + doc["not_drifting"]
    assert len(reasons) >= 10
    for r in reasons:
        assert SOURCE.match(r["source"]), r
        assert set(r) >= {"object", "field", "drifts", "why", "source"}


def test_drift_behind_the_alpha_feature_gate_is_unknown():
    """At 0.32 the Drift feature gate is off by default: a hash change drifts only where it was turned on."""
    doc = _pool(nodepool([], labels={"a": "1"}), nodepool([], labels={"a": "2"}), release=V("0.32.10"))
    assert doc["verdict"] == "unknown"
    assert [r["drifts"] for r in doc["reasons"]] == ["unknown", "unknown"]
    assert "options.go@14dda61#L99" in doc["reasons"][-1]["source"]
    assert _pool(nodepool([], labels={"a": "1"}), nodepool([], labels={"a": "2"}), release=V("0.33.0"))[
        "verdict"] == "all"


def test_api_version_change_makes_hash_changes_unknown():
    before = nodeclass(api_version="karpenter.k8s.aws/v1beta1", amiFamily="AL2023", amiSelectorTerms=None,
                       tags={"a": "1"})
    after = nodeclass(amiFamily="AL2023", amiSelectorTerms=[{"alias": "al2023@latest"}], tags={"a": "2"})
    reasons = _class(before, after)
    assert ("spec.tags", "unknown") in _fields(reasons)
    assert "apiVersion changes" in next(r for r in reasons if r["field"] == "spec.tags")["why"]


def test_a_spec_that_is_no_mapping_is_unknown():
    from diff_drift_support import resource

    def templated(expr):
        return resource({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
                         "spec": expr})
    doc = _pool(templated("${jsonencode(var.a)}"), templated("${jsonencode(var.b)}"))
    assert (doc["verdict"], _fields(doc["reasons"])) == ("unknown", [("spec", "unknown")])
    assert _pool(templated("${x}"), templated("${x}"))["verdict"] == "none"


def test_a_field_outside_the_table_cites_the_hash_function():
    reasons = _class(nodeclass(), nodeclass(someNewField="x"))
    assert "ec2nodeclass.go@bde0065#L597" in reasons[0]["source"]


# ------------------------------------------------------------------------------------------- real history
# aws/karpenter-provider-aws commit 66019a6e7eb35b9ab81f98bbb4b2ec2a66114c82 ("docs: Update v1beta1 to v1
# examples", #6609), examples/v1beta1/general-purpose.yaml -> examples/v1/general-purpose.yaml (Apache-2.0),
# excerpts: the v1beta1 EC2NodeClass used amiFamily AL2, the v1 one the alias al2023@latest.
GENERAL_PURPOSE_BEFORE = {
    "apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
    "spec": {"amiFamily": "AL2", "role": "KarpenterNodeRole-${CLUSTER_NAME}",
             "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "${CLUSTER_NAME}"}}],
             "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "${CLUSTER_NAME}"}}]}}
GENERAL_PURPOSE_AFTER = {
    "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
    "spec": {"role": "KarpenterNodeRole-${CLUSTER_NAME}",
             "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "${CLUSTER_NAME}"}}],
             "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "${CLUSTER_NAME}"}}],
             "amiSelectorTerms": [{"alias": "al2023@latest"}]}}


def test_moving_from_al2_to_the_al2023_alias_replaces_every_node():
    """The hash comparison across apiVersions is unknown, but the images are certain: AL2's images are not among
    AL2023's, so every node drifts (isAMIDrifted)."""
    from diff_drift_support import resource

    reasons = _class(resource(GENERAL_PURPOSE_BEFORE), resource(GENERAL_PURPOSE_AFTER), release=V("1.0.0"))
    assert _fields(reasons) == [("spec.amiFamily", "unknown"), ("spec.amiSelectorTerms", "all")]
    assert "from the AL2023 family instead of AL2" in reasons[1]["why"]
    pool = nodepool([_req("kubernetes.io/arch", "In", "amd64")])
    doc = _pool(pool, pool, nodeclass_reasons=reasons, release=V("1.0.0"))
    assert (doc["verdict"], doc["summary"]) == ("all", "every node is replaced")


def test_family_change_with_images_by_id_keeps_the_images():
    """amiFamily only picks the bootstrap when ids pick the images: the hash decides (v1: the resolved family),
    the images stay."""
    before = nodeclass(amiFamily="AL2", amiSelectorTerms=[{"id": "ami-1"}])
    after = nodeclass(amiFamily="AL2023", amiSelectorTerms=[{"id": "ami-1"}])
    assert _fields(_class(before, after)) == [("spec.amiFamily", "all")]


def test_no_requirements_list_reads_as_none():
    from diff_drift_support import resource

    bare = resource({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
                     "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws",
                                                                     "kind": "EC2NodeClass", "name": "default"}}}}})
    doc = _pool(bare, nodepool([_req(CT, "In", "on-demand")]))
    assert doc["verdict"] == "some"
    assert doc["reasons"][0]["lost"] == ["spot"]


def test_the_same_duration_written_otherwise_is_no_change():
    """NillableDuration hashes the parsed duration (its `Raw` text is hash:"ignore")."""
    doc = _pool(nodepool([], expireAfter="24h", terminationGracePeriod="1h"),
                nodepool([], expireAfter="1440m", terminationGracePeriod="60m"))
    assert (doc["verdict"], doc["reasons"]) == ("none", [])
    assert _pool(nodepool([], expireAfter="24h"), nodepool([], expireAfter="25h"))["verdict"] == "all"


def test_a_table_without_that_column_is_unknown():
    def no_column(kind, api_version, path, release):
        raise KeyError(api_version)

    reasons = nodeclass_drift(nodeclass(), nodeclass(tags={"a": "b"}), release=R, rules=no_column)
    assert _fields(reasons) == [("spec.tags", "unknown")]


def test_without_a_catalog_the_bundled_one_is_used():
    doc = nodepool_drift(Pair("NodePool", "general", None, nodepool([_req(FAMILY, "In", "m5", "c5")]),
                              nodepool([_req(FAMILY, "In", "m5")])),
                         release=R, nodeclass_reasons=[], catalog=None, rules=field_rule)
    assert doc["summary"] == "nodes of 9 instance types no longer allowed are replaced"


def test_a_dynamically_checked_field_of_the_table_is_unknown():
    """At 1.0.0 the EC2NodeClass's kubelet is left out of the hash and checked at runtime (the table's
    dynamic:kubelet); from 1.1 it is hashed."""
    before, after = nodeclass(kubelet={"maxPods": 110}), nodeclass(kubelet={"maxPods": 58})
    assert _fields(_class(before, after, release=V("1.0.0"))) == [("spec.kubelet", "unknown")]
    assert _fields(_class(before, after, release=V("1.14.1"))) == [("spec.kubelet", "all")]
