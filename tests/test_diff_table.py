"""The generated drift table (karplint/diff/drift_table.py, drift_fields.json, docs/diff.md) and its generator.

The facts below are translated from Karpenter's own tests, cited by repository, file, commit and line:
- aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_hash_test.go ("should change hash when static fields are
  updated", "should change hash when instanceProfile is updated", "...volumeSize is updated", "should not change
  hash when behavior/dynamic fields are updated") at v1.0.0 (5bdf9c3) and v1.14.1 (bde0065);
- kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift_test.go ("should detect drift on changes
  to the static fields") and pkg/controllers/nodepool/hash/suite_test.go ("should not update the drift hash when
  NodePool behavior field is updated") at v1.0.0 (92547d1) and 6e7eab7 (the core commit provider v1.14.1 pins);
- aws/karpenter-provider-aws pkg/cloudprovider/suite_test.go ("should return drifted if a statically drifted
  EC2NodeClass.Spec field is updated", "should not return drifted if dynamic fields are updated") at bde0065, and
  pkg/apis/v1beta1/ec2nodeclass_hash_test.go at v0.37.8 (3278dab);
- the "Behavioral Fields" list of website/content/en/docs/concepts/disruption.md at bde0065.
None of these tests needs the upstream mirrors; the last one regenerates the table when they are present.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from karplint.diff import drift_table
from karplint.diff.drift_table import FieldRule, field_rule, table_releases
from karplint.model.versions import BUNDLED_RELEASES, Version

ROOT = Path(__file__).resolve().parents[1]
NP, NC = "NodePool", "EC2NodeClass"
NP_V1, NC_V1 = "karpenter.sh/v1", "karpenter.k8s.aws/v1"
SOURCE = re.compile(r"^(kubernetes-sigs/karpenter|aws/karpenter-provider-aws) [\w/.-]+\.go@[0-9a-f]{7}#L\d+$")
NEWEST = "1.14.1"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_drift_table", ROOT / "scripts" / "gen_drift_table.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_drift_table", module)
    spec.loader.exec_module(module)
    return module


def _doc() -> dict:
    return json.loads(drift_table.TABLE_PATH.read_text(encoding="utf-8"))


def rule(kind, path, release, api=None):
    parts = tuple(int(part) if part.isdigit() else part for part in path.split("."))
    return field_rule(kind, api or (NP_V1 if kind == NP else NC_V1), parts, release)


# --- shape and invariants ------------------------------------------------------------------------------------

def test_releases_sorted_and_cover_the_bundled_schemas_and_every_v1_minor():
    releases = table_releases()
    assert [Version.parse(r) for r in releases] == sorted(Version.parse(r) for r in releases)
    assert len(set(releases)) == len(releases)
    assert set(BUNDLED_RELEASES) <= set(releases)
    assert {f"1.{minor}.0" for minor in range(15)} <= set(releases)
    assert {"0.32.0", "0.37.0"} <= set(releases) and releases[-1] == NEWEST


def test_every_release_names_its_commits_and_api():
    for entry in _doc()["releases"]:
        assert re.fullmatch(r"[0-9a-f]{40}", entry["core"]) and re.fullmatch(r"[0-9a-f]{40}", entry["aws"])
        assert entry["api"] == ("v1beta1" if entry["release"].startswith("0.") else "v1")


def test_ranges_are_ordered_disjoint_and_cited():
    doc = _doc()
    order = [e["release"] for e in doc["releases"]]
    api_of = {e["release"]: e["api"] for e in doc["releases"]}
    assert set(doc["tables"]) == {"NodePool karpenter.sh/v1beta1", "NodePool karpenter.sh/v1",
                                  "EC2NodeClass karpenter.k8s.aws/v1beta1", "EC2NodeClass karpenter.k8s.aws/v1"}
    for name, rows in doc["tables"].items():
        assert rows, name
        for path, ranges in rows.items():
            assert re.fullmatch(r"spec(\.[A-Za-z]\w*(\[\])?)*", path), path
            previous_end = -1
            for rng in ranges:
                start, end = order.index(rng["from"]), order.index(rng["to"])
                assert previous_end < start <= end, (name, path)
                assert api_of[rng["from"]] == api_of[rng["to"]] == name.rpartition("/")[2]
                assert rng["how"] in ("hash", "ignored") or re.fullmatch(r"dynamic:[a-zA-Z]+", rng["how"])
                assert rng["repo"] in ("core", "aws") and rng["file"].endswith(".go")
                assert rng["from"] in rng["lines"]
                assert all(start <= order.index(r) <= end and n > 0 for r, n in rng["lines"].items())
                previous_end = end


def test_every_row_at_every_release_is_cited_with_the_commit_of_that_release():
    doc = _doc()
    for entry in doc["releases"]:
        api = entry["api"]
        for name, rows in doc["tables"].items():
            if not name.endswith(api):
                continue
            kind = name.partition(" ")[0]
            for path in rows:
                found = field_rule(kind, name.partition(" ")[2], path, entry["release"])
                if found.how == "unknown":
                    continue  # the row does not exist at this release
                assert SOURCE.match(found.source), (path, found)
                sha = found.source.split("@")[1][:7]
                assert sha in (entry["core"][:7], entry["aws"][:7]), (path, entry["release"], found)
                assert found.drifts is (found.how != "ignored")


# --- facts from Karpenter's own tests ------------------------------------------------------------------------

# ec2nodeclass_hash_test.go "should change hash when static fields are updated" (5bdf9c3 L128-152, bde0065
# L135-163), "should change hash blockDeviceMapping volumeSize is updated" and "...when instanceProfile is updated";
# the same fields in pkg/cloudprovider/suite_test.go "should return drifted if a statically drifted
# EC2NodeClass.Spec field is updated" (bde0065 L1113-1146).
EC2NODECLASS_HASHED = [
    "spec.userData", "spec.tags", "spec.context", "spec.detailedMonitoring", "spec.instanceStorePolicy",
    "spec.associatePublicIPAddress", "spec.metadataOptions.httpEndpoint", "spec.metadataOptions.httpProtocolIPv6",
    "spec.metadataOptions.httpPutResponseHopLimit", "spec.metadataOptions.httpTokens",
    "spec.blockDeviceMappings[].deviceName", "spec.blockDeviceMappings[].rootVolume",
    "spec.blockDeviceMappings[].ebs.deleteOnTermination", "spec.blockDeviceMappings[].ebs.encrypted",
    "spec.blockDeviceMappings[].ebs.iops", "spec.blockDeviceMappings[].ebs.kmsKeyID",
    "spec.blockDeviceMappings[].ebs.snapshotID", "spec.blockDeviceMappings[].ebs.throughput",
    "spec.blockDeviceMappings[].ebs.volumeType", "spec.blockDeviceMappings[].ebs.volumeSize",
    "spec.instanceProfile",
]
# bde0065 L106-109 / L160-163 add these at v1.14.1
EC2NODECLASS_HASHED_NEWEST = ["spec.connectionTracking.tcpEstablishedTimeout", "spec.connectionTracking.udpTimeout",
                              "spec.connectionTracking.udpStreamTimeout", "spec.cpuOptions.nestedVirtualization"]
# "should not change hash when behavior/dynamic fields are updated" (5bdf9c3 L182, bde0065 L193) and suite_test.go
# "should not return drifted if dynamic fields are updated" (bde0065 L1159-1179); pkg/cloudprovider/drift.go's
# checks decide them instead
EC2NODECLASS_DYNAMIC = {"spec.subnetSelectorTerms": "dynamic:subnets",
                        "spec.securityGroupSelectorTerms": "dynamic:securityGroups",
                        "spec.amiSelectorTerms": "dynamic:ami"}


@pytest.mark.parametrize("release", ["1.0.0", NEWEST])
@pytest.mark.parametrize("path", EC2NODECLASS_HASHED)
def test_ec2nodeclass_static_fields_drift_by_hash(path, release):
    found = rule(NC, path.replace("[]", ".0"), release)
    assert (found.path, found.drifts, found.how) == (path, True, "hash")
    assert found.source.startswith("aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go@")


@pytest.mark.parametrize("path", EC2NODECLASS_HASHED_NEWEST)
def test_ec2nodeclass_fields_added_later_drift_by_hash_from_their_release(path):
    assert rule(NC, path, NEWEST).how == "hash"
    assert rule(NC, path, "1.0.0").how == "unknown"  # no such field in 1.0: not guessed


@pytest.mark.parametrize("release", ["1.0.0", NEWEST])
def test_ec2nodeclass_selectors_are_dynamic(release):
    sha = {"1.0.0": "5bdf9c3", NEWEST: "bde0065"}[release]
    for path, how in EC2NODECLASS_DYNAMIC.items():
        found = rule(NC, path, release)
        assert (found.drifts, found.how) == (True, how)
        assert found.source.startswith(f"aws/karpenter-provider-aws pkg/cloudprovider/drift.go@{sha}#L")
    alias = field_rule(NC, NC_V1, ("spec", "amiSelectorTerms", 0, "alias"), release)
    assert (alias.path, alias.how) == ("spec.amiSelectorTerms[].alias", "dynamic:ami")


def test_ec2nodeclass_capacity_reservations_are_dynamic_from_1_3():
    assert rule(NC, "spec.capacityReservationSelectorTerms", NEWEST).how == "dynamic:capacityReservations"
    assert rule(NC, "spec.capacityReservationSelectorTerms", "1.2.0").how == "unknown"


def test_ec2nodeclass_role_drifts_by_hash_and_ip_prefix_count_does_not():
    # role: no hash tag in EC2NodeClassSpec; ipPrefixCount: hash:"ignore" and no drift check (bde0065 L67)
    assert rule(NC, "spec.role", "1.0.0").how == rule(NC, "spec.role", NEWEST).how == "hash"
    assert rule(NC, "spec.ipPrefixCount", NEWEST) == FieldRule(
        "spec.ipPrefixCount", False, "ignored", "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go@bde0065#L67")


def test_ec2nodeclass_kubelet_is_checked_through_the_compatibility_hash_in_1_0_and_hashed_from_1_1():
    # v1.0.0 tags kubelet hash:"ignore" (5bdf9c3 ec2nodeclass.go L104) and compares it in
    # isKubeletConfigurationDrifted (drift.go L143); v1.1.0 drops the tag
    assert rule(NC, "spec.kubelet.maxPods", "1.0.0") == FieldRule(
        "spec.kubelet.maxPods", True, "dynamic:kubelet",
        "aws/karpenter-provider-aws pkg/cloudprovider/drift.go@5bdf9c3#L143")
    assert rule(NC, "spec.kubelet.maxPods", "1.0.14").how == "dynamic:kubelet"
    assert rule(NC, "spec.kubelet.maxPods", "1.1.0").how == "hash"


def test_ec2nodeclass_ami_family_drifts_through_the_resolved_family_in_the_hash():
    # amiFamily is hash:"ignore" but Hash() hashes in.AMIFamily() (bde0065 ec2nodeclass.go L603)
    assert rule(NC, "spec.amiFamily", NEWEST) == FieldRule(
        "spec.amiFamily", True, "hash", "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go@bde0065#L603")


# drift_test.go "should detect drift on changes to the static fields" (92547d1 L412-420; 6e7eab7 L474-480)
NODEPOOL_HASHED = ["spec.template.metadata.annotations", "spec.template.metadata.labels",
                   "spec.template.spec.taints", "spec.template.spec.startupTaints",
                   "spec.template.spec.nodeClassRef.name", "spec.template.spec.nodeClassRef.kind",
                   "spec.template.spec.nodeClassRef.group", "spec.template.spec.expireAfter",
                   "spec.template.spec.terminationGracePeriod"]
# hash/suite_test.go "should not update the drift hash when NodePool behavior field is updated" (92547d1 L124-132)
NODEPOOL_NOT_HASHED = ["spec.limits", "spec.disruption.consolidationPolicy", "spec.disruption.consolidateAfter",
                       "spec.weight", "spec.disruption.budgets"]


@pytest.mark.parametrize("release", ["1.0.0", NEWEST])
@pytest.mark.parametrize("path", NODEPOOL_HASHED)
def test_nodepool_template_fields_drift_by_hash(path, release):
    found = rule(NP, path, release)
    assert (found.path, found.drifts, found.how) == (path, True, "hash")
    sha = {"1.0.0": "92547d1", NEWEST: "6e7eab7"}[release]
    assert found.source.startswith(f"kubernetes-sigs/karpenter pkg/apis/v1/")
    assert f"@{sha}#L" in found.source


@pytest.mark.parametrize("release", ["1.0.0", NEWEST])
@pytest.mark.parametrize("path", NODEPOOL_NOT_HASHED)
def test_nodepool_behaviour_fields_do_not_drift(path, release):
    # outside what NodePool.Hash() hashes (in.Spec.Template: 92547d1 nodepool.go L281, 6e7eab7 L336)
    line = {"1.0.0": "92547d1#L281", NEWEST: "6e7eab7#L336"}[release]
    assert rule(NP, path, release) == FieldRule(
        path, False, "ignored", f"kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go@{line}")


def test_documented_behavioural_fields_never_drift_at_any_release():
    # aws/karpenter-provider-aws website/content/en/docs/concepts/disruption.md@bde0065 L151-159 "Behavioral
    # Fields ... are not considered for Drift": spec.weight, spec.limits, spec.disruption.*
    for release in table_releases():
        api = "karpenter.sh/" + ("v1beta1" if release.startswith("0.") else "v1")
        for path in _doc()["tables"][f"NodePool {api}"]:
            if path.startswith(("spec.weight", "spec.limits", "spec.disruption")):
                found = field_rule(NP, api, path, release)
                assert found.how in ("ignored", "unknown"), (release, path, found)


def test_nodepool_budget_subfields_do_not_drift():
    found = field_rule(NP, NP_V1, ("spec", "disruption", "budgets", 0, "nodes"), NEWEST)
    assert (found.path, found.drifts, found.how) == ("spec.disruption.budgets[].nodes", False, "ignored")


@pytest.mark.parametrize("release", ["1.0.0", NEWEST])
def test_nodepool_requirements_are_dynamic(release):
    # hash:"ignore" on Requirements; areRequirementsDrifted (drift.go) decides per node
    found = field_rule(NP, NP_V1, ("spec", "template", "spec", "requirements", 2, "values", 0), release)
    assert found.path.startswith("spec.template.spec.requirements")
    assert (found.drifts, found.how) == (True, "dynamic:requirements")
    assert found.source.startswith("kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go@")


@pytest.mark.parametrize("path", EC2NODECLASS_HASHED + ["spec.amiFamily"])
def test_v1beta1_ec2nodeclass_static_fields_drift_by_hash(path):
    # pkg/apis/v1beta1/ec2nodeclass_hash_test.go@3278dab (v0.37.8) L127-162: the same fields, AMIFamily included
    found = field_rule(NC, "karpenter.k8s.aws/v1beta1", tuple(int(p) if p.isdigit() else p
                                                           for p in path.replace("[]", ".0").split(".")), "0.37.8")
    assert (found.path, found.how) == (path, "hash")
    assert found.source.startswith("aws/karpenter-provider-aws pkg/apis/v1beta1/ec2nodeclass.go@3278dab#L")


def test_v1beta1_nodepool_expire_after_is_behaviour_and_kubelet_is_hashed():
    v1beta1 = "karpenter.sh/v1beta1"
    assert rule(NP, "spec.disruption.expireAfter", "0.37.8", v1beta1).how == "ignored"
    assert rule(NP, "spec.template.spec.kubelet.maxPods", "0.37.8", v1beta1).how == "hash"
    assert rule(NC, "spec.amiFamily", "0.32.10", "karpenter.k8s.aws/v1beta1").how == "hash"


# --- lookups -------------------------------------------------------------------------------------------------

def test_release_between_columns_takes_the_newest_column_not_after_it():
    assert rule(NC, "spec.kubelet", "1.0.9").how == "dynamic:kubelet"
    assert rule(NC, "spec.kubelet", "1.1.5").how == "hash"
    assert rule(NC, "spec.kubelet", None) == rule(NC, "spec.kubelet", NEWEST)
    assert rule(NC, "spec.tags", Version.parse("1.14.0")).source.endswith(
        rule(NC, "spec.tags", "1.14.0").source.rpartition("@")[2])


def test_release_before_the_table_or_legacy_kind_is_unknown():
    assert rule(NC, "spec.tags", "0.31.0") == FieldRule("spec.tags", None, "unknown", "")
    assert field_rule("Provisioner", "karpenter.sh/v1alpha5", ("spec", "ttlSecondsAfterEmpty"), None).how == "unknown"


def test_map_keys_and_list_items_share_their_row():
    found = field_rule(NC, NC_V1, ("spec", "tags", "team"), NEWEST)
    assert (found.path, found.how) == ("spec.tags", "hash")
    found = field_rule(NP, NP_V1, ("spec", "template", "spec", "taints", 0, "effect"), NEWEST)
    assert (found.path, found.how) == ("spec.template.spec.taints", "hash")


def test_unknown_field_of_a_known_struct_is_unknown_at_a_known_release():
    # pruned by the API server at that release: not claimed to drift
    assert rule(NP, "spec.template.spec.kubelet", NEWEST).how == "unknown"
    assert rule(NC, "spec.metadataOptions.httpNewThing", NEWEST).drifts is None
    assert rule(NP, "spec.newTopLevel", NEWEST).how == "unknown"


def test_new_subfield_of_a_hashed_struct_after_the_table_is_hashed():
    found = rule(NC, "spec.metadataOptions.httpNewThing", "1.15.0")
    assert (found.path, found.drifts, found.how) == ("spec.metadataOptions", True, "hash")
    found = rule(NP, "spec.disruption.newKnob", "1.15.0")
    assert (found.path, found.drifts, found.how) == ("spec.disruption", False, "ignored")


def test_v1beta1_object_on_a_v1_release_is_judged_by_the_v1_types():
    assert rule(NC, "spec.tags", "1.0.0", "karpenter.k8s.aws/v1beta1") == rule(NC, "spec.tags", "1.0.0")
    assert rule(NP, "spec.disruption.expireAfter", "1.0.0", "karpenter.sh/v1beta1").how == "unknown"


def test_drift_gate_off_by_default_in_0_32_only():
    gate = drift_table.drift_gate("0.32.5")
    assert gate["default"] is False
    assert gate["gate"].startswith("kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go@")
    assert drift_table.drift_gate("0.33.0")["default"] is True
    assert drift_table.drift_gate("1.0.0") is None and drift_table.drift_gate(None) is None


def test_v1_object_on_a_0_37_release_is_judged_by_the_v1beta1_types():
    # 0.33.6-0.37.x serve v1 for the upgrade path but hash their own v1beta1 types
    assert rule(NC, "spec.tags", "0.37.8") == rule(NC, "spec.tags", "0.37.8", "karpenter.k8s.aws/v1beta1")
    assert rule(NP, "spec.template.spec.expireAfter", "0.37.8").how == "unknown"


def test_hash_versions_per_release():
    # NodePoolHashVersion / EC2NodeClassHashVersion constants (6e7eab7 nodepool.go L334, bde0065 ec2nodeclass.go
    # L595); areStaticFieldsDrifted compares hashes only between equal versions
    assert drift_table.hash_version(NP, NEWEST) == {
        "version": "v3", "source": "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go@6e7eab7#L334"}
    assert drift_table.hash_version(NC, None)["version"] == "v5"
    assert drift_table.hash_version(NC, "1.0.2")["version"] == "v3"
    assert drift_table.hash_version(NC, "1.1.0")["version"] == "v4"
    assert drift_table.hash_version(NP, "0.34.0") is None  # no constant yet: every hash compares
    assert drift_table.hash_options() == ["IgnoreZeroValue", "SlicesAsSets", "ZeroNil"]


# --- the docs ------------------------------------------------------------------------------------------------

def test_docs_section_is_what_the_committed_table_renders():
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    start = text.index(drift_table.DOCS_BEGIN)
    end = text.index(drift_table.DOCS_END) + len(drift_table.DOCS_END)
    assert text[start:end] == drift_table.render_docs()


def test_docs_rows_cover_every_field():
    rendered = drift_table.render_docs()
    for rows in _doc()["tables"].values():
        for path in rows:
            assert f"| `{path}` |" in rendered
    assert re.search(r"\| `spec.tags` \| yes \[ec2nodeclass.go#L\d+\]\[", rendered)
    assert "| `spec.subnetSelectorTerms` | dynamic: subnets [drift.go#L" in rendered


def test_replace_docs_section_keeps_the_rest():
    text = f"# t\n\nbefore\n{drift_table.DOCS_BEGIN}\nold\n{drift_table.DOCS_END}\nafter\n"
    out = drift_table.replace_docs_section(text)
    assert out.startswith("# t\n\nbefore\n" + drift_table.DOCS_BEGIN)
    assert out.endswith(drift_table.DOCS_END + "\nafter\n")
    assert "\nold\n" not in out
    with pytest.raises(ValueError):
        drift_table.replace_docs_section("no markers")


# --- the generator, on a small synthetic pair of repositories ------------------------------------------------

CORE_NODEPOOL = '''package v1
import "github.com/mitchellh/hashstructure/v2"
type NodePoolSpec struct {
	Template NodeClaimTemplate `json:"template"`
	// +optional
	Weight *int32 `json:"weight,omitempty"`
}
type NodeClaimTemplate struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec NodeClaimTemplateSpec `json:"spec"`
}
type ObjectMeta struct {
	Labels map[string]string `json:"labels,omitempty"`
}
type NodeClaimTemplateSpec struct {
	Taints []v1.Taint `json:"taints,omitempty"`
	Requirements []Req `json:"requirements" hash:"ignore"`
	ExpireAfter NillableDuration `json:"expireAfter"`
	internal string
	Hidden *string `json:"-"`
}
type Req struct {
	v1.NodeSelectorRequirement `json:",inline"`
	MinValues *int `json:"minValues,omitempty"`
}
type NillableDuration struct {
	*time.Duration
	Raw []byte `hash:"ignore"`
}
func (d NillableDuration) MarshalJSON() ([]byte, error) { return nil, nil }
func (in *NodePool) Hash() string {
	return fmt.Sprint(lo.Must(hashstructure.Hash(in.Spec.Template, hashstructure.FormatV2, &hashstructure.HashOptions{
		SlicesAsSets:    true,
		IgnoreZeroValue: true,
		ZeroNil:         true,
	})))
}
'''
CORE_DRIFT = '''package disruption
const (
	NodePoolDrifted cloudprovider.DriftReason = "NodePoolDrifted"
)
func areStaticFieldsDrifted(nodePool *v1.NodePool) cloudprovider.DriftReason { return "" }
func areRequirementsDrifted(nodePool *v1.NodePool) cloudprovider.DriftReason { return "" }
'''
AWS_NODECLASS = '''package v1
/* licence
   header */
type EC2NodeClassSpec struct {
	SubnetSelectorTerms []SubnetSelectorTerm `json:"subnetSelectorTerms" hash:"ignore"`
	AMIFamily *string `json:"amiFamily,omitempty" hash:"ignore"`
	IPPrefixCount *int32 `json:"ipPrefixCount,omitempty" hash:"ignore"`
	Tags map[string]string `json:"tags,omitempty"`
}
type SubnetSelectorTerm struct {
	ID string `json:"id,omitempty"`
}
func (in *EC2NodeClass) Hash() string {
	return fmt.Sprint(lo.Must(hashstructure.Hash([]interface{}{
		in.Spec,
		in.AMIFamily(),
	}, hashstructure.FormatV2, &hashstructure.HashOptions{
		SlicesAsSets:    true,
		IgnoreZeroValue: true,
		ZeroNil:         true,
	})))
}
'''
AWS_DRIFT = '''package cloudprovider
const (
	SubnetDrift cloudprovider.DriftReason = "SubnetDrift"
)
func (c *CloudProvider) isSubnetDrifted(instance *instance.Instance) (cloudprovider.DriftReason, error) {
	return "", nil
}
'''


class FakeGit:
    def __init__(self, files: dict[str, str], sha: str):
        self.files, self._sha = files, sha

    def show(self, rev, path):
        return self.files[path]

    def ls(self, rev, directory):
        return [p for p in self.files if p.startswith(directory.rstrip("/") + "/")]

    def sha(self, rev):
        return self._sha


def _fake(core_drift=CORE_DRIFT, aws_drift=AWS_DRIFT, nodepool=CORE_NODEPOOL):
    core = FakeGit({"pkg/apis/v1/nodepool.go": nodepool,
                    "pkg/controllers/nodeclaim/disruption/drift.go": core_drift}, "c" * 40)
    aws = FakeGit({"go.mod": "module x\nrequire (\n\tsigs.k8s.io/karpenter v1.2.0\n)\n",
                   "pkg/apis/v1/ec2nodeclass.go": AWS_NODECLASS,
                   "pkg/cloudprovider/drift.go": aws_drift}, "a" * 40)
    return core, aws


def test_generator_walks_the_hashed_roots_and_honours_the_tags():
    gen = _generator()
    rows = gen.release_rows(*_fake(), "v1.2.0")
    nodepool = {p: r["how"] for p, r in rows["kinds"][NP].items()}
    assert nodepool == {
        "spec.weight": "ignored",  # outside in.Spec.Template
        "spec.template": "hash", "spec.template.metadata": "hash", "spec.template.metadata.labels": "hash",
        "spec.template.spec": "hash", "spec.template.spec.taints": "hash",
        "spec.template.spec.requirements": "dynamic:requirements",
        "spec.template.spec.requirements[].minValues": "dynamic:requirements",
        "spec.template.spec.expireAfter": "hash",  # its own JSON encoding: one value, no .Raw row
    }
    assert rows["kinds"][NP]["spec.template.spec.requirements"]["open"] is True  # inline v1 type's fields
    assert rows["kinds"][NP]["spec.weight"]["line"] == 31  # the Hash() method that leaves it out
    assert rows["kinds"][NP]["spec.template.spec.requirements"]["line"] == 6  # areRequirementsDrifted
    nodeclass = {p: (r["how"], r["line"]) for p, r in rows["kinds"][NC].items()}
    assert nodeclass == {
        "spec": ("hash", 13), "spec.subnetSelectorTerms": ("dynamic:subnets", 5),
        "spec.subnetSelectorTerms[].id": ("dynamic:subnets", 5), "spec.amiFamily": ("hash", 16),
        "spec.ipPrefixCount": ("ignored", 7), "spec.tags": ("hash", 8)}
    assert rows["commits"] == {"core": "c" * 40, "aws": "a" * 40} and rows["drift_gate"] is None
    assert rows["hash_versions"] == {NP: None, NC: None}


@pytest.mark.parametrize("change, message", [
    ({"aws_drift": AWS_DRIFT + "func (c *CloudProvider) isTenancyDrifted() {}\n"}, "isTenancyDrifted is new"),
    ({"aws_drift": AWS_DRIFT.replace("\"SubnetDrift\"", "\"SubnetDrift\"\n\tX cloudprovider.DriftReason = \"X\"")},
     "drift reason X is new"),
    ({"aws_drift": AWS_DRIFT.replace("isSubnetDrifted", "subnetCheck")}, "isSubnetDrifted is gone"),
    ({"nodepool": CORE_NODEPOOL.replace("in.Spec.Template,", "in.Spec,")}, "hashes in.Spec, not"),
    ({"nodepool": CORE_NODEPOOL.replace("ZeroNil:         true,", "")}, "options changed"),
])
def test_generator_fails_loudly_when_upstream_changes(change, message):
    gen = _generator()
    with pytest.raises(gen.UpstreamChanged, match=message):
        gen.release_rows(*_fake(**change), "v1.2.0")


def test_generator_reads_the_core_commit_of_a_pseudo_version():
    gen = _generator()
    core, aws = _fake()
    aws.files["go.mod"] = "require sigs.k8s.io/karpenter v1.14.1-0.20260819221709-6e7eab7a0f48\n"
    asked = []
    core.sha = lambda rev: asked.append(rev) or "d" * 40
    assert gen.core_rev_for(aws, core, "v1.14.1") == "d" * 40 and asked == ["6e7eab7a0f48"]


def test_generator_without_repositories_says_so(tmp_path, capsys):
    gen = _generator()
    missing = str(tmp_path / "missing")
    assert gen.main(["--core", missing, "--aws", missing, "--output", str(tmp_path / "out.json")]) == 1
    assert "gen_drift_table: " in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()


MIRRORS = (Path("/work/.mirror/kubernetes-sigs+karpenter/repo"), Path("/work/.mirror/aws+karpenter-provider-aws/repo"))


@pytest.mark.skipif(not all(p.is_dir() for p in MIRRORS), reason="the upstream mirrors are not on this machine")
@pytest.mark.parametrize("tag", ["v0.32.10", "v1.0.0", "v1.14.1"])
def test_committed_table_is_what_the_generator_reads_at_these_releases(tag):
    # (the whole table takes ~20 s to regenerate: `scripts/gen_drift_table.py --check` does that)
    gen = _generator()
    fresh = gen.release_rows(gen.Git(str(MIRRORS[0])), gen.Git(str(MIRRORS[1])), tag)
    release = tag.lstrip("v")
    for kind, rows in fresh["kinds"].items():
        api = f"{drift_table.GROUPS[kind]}/{fresh['api']}"
        for path, row in rows.items():
            found = field_rule(kind, api, path, release)
            sha = fresh["commits"][row["repo"]][:7]
            repo = gen.CORE_REPO if row["repo"] == "core" else gen.AWS_REPO
            assert (found.how, found.source) == (row["how"], f"{repo} {row['file']}@{sha}#L{row['line']}"), path
        assert drift_table.hash_version(kind, release) == (fresh["hash_versions"][kind] and {
            "version": fresh["hash_versions"][kind]["version"],
            "source": drift_table.hash_version(kind, release)["source"]})
    order = [e["release"] for e in _doc()["releases"]]
    for kind, rows in fresh["kinds"].items():
        table = _doc()["tables"][f"{kind} {drift_table.GROUPS[kind]}/{fresh['api']}"]
        at_release = {path for path, ranges in table.items()
                      if any(order.index(r["from"]) <= order.index(release) <= order.index(r["to"]) for r in ranges)}
        assert at_release == set(rows)
