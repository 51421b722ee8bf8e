"""Schema rules on fixtures: code, line, column and message of every finding (tests/fixtures/schema/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.testing import lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "schema"


def schema_findings(name: str, karpenter_version: str | None = None):
    text = (FIXTURES / name).read_text()
    return [f for f in lint({name: text}, karpenter_version=karpenter_version) if "KPL100" <= f.code <= "KPL129"]


def triples(findings):
    return [(f.code, f.line, f.column, f.message) for f in findings]


def test_type():
    assert triples(schema_findings("type.yaml")) == [
        ('KPL100', 7, 11, 'spec.weight must be an integer, not the string "10"\nhelp: remove the quotes'),
        ('KPL100', 11, 18, 'spec.template.metadata.labels.spot-ok must be a string, not true\nhelp: quote it'),
        ('KPL100', 22, 5, 'spec.limits must be a mapping, not a list'),
    ]


def test_enum():
    assert triples(schema_findings("enum.yaml")) == [
        ('KPL101', 14, 21, 'spec.template.spec.requirements[0].operator cannot be the string "in"\nhelp: did you mean In?\nnote: allowed: Gte, Lte, In, NotIn, Exists, DoesNotExist, Gt, Lt'),
        ('KPL101', 18, 19, 'spec.template.spec.taints[0].effect cannot be the string "NoSchedul"\nhelp: did you mean NoSchedule?\nnote: allowed: NoSchedule, PreferNoSchedule, NoExecute'),
        ('KPL105', 28, 14, 'amiFamily Ubuntu was removed in karpenter.k8s.aws/v1\nhelp: pin the AMI with amiSelectorTerms and use amiFamily AL2 (or Custom with your own userData)'),
    ]


def test_pattern():
    found = schema_findings("pattern.yaml")
    assert triples(found) == [
        ('KPL102', 9, 16, 'spec.template.spec.nodeClassRef.group "karpenter.k8s.aws/v1" is not valid\nhelp: write an API group without a version (no \'/\'), e.g. karpenter.k8s.aws'),
        ('KPL102', 12, 20, 'spec.template.spec.expireAfter "30d" is not valid\nhelp: write a duration in s, m or h (e.g. 720h, 1h30m) or Never; days (d) are not accepted'),
        ('KPL102', 13, 31, 'spec.template.spec.terminationGracePeriod "Never" is not valid\nhelp: write a duration in s, m or h (e.g. 24h, 1h30m); Never and days (d) are not accepted'),
        ('KPL102', 22, 16, 'spec.disruption.budgets[0].nodes "150%" is not valid\nhelp: write a node count (e.g. 5) or a percentage from 0% to 100%'),
        ('KPL102', 25, 19, 'spec.disruption.budgets[1].duration "30s" is not valid\nhelp: write a duration in hours and minutes (e.g. 8h, 1h30m); seconds are not accepted'),
    ]
    assert found[0].fix is not None and found[0].fix.safety == "safe"
    assert apply(FIXTURES.joinpath("pattern.yaml").read_text(), [found[0]]).splitlines()[8] == \
        "        group: karpenter.k8s.aws"


def test_required():
    assert triples(schema_findings("required.yaml")) == [
        ('KPL103', 8, 7, 'spec.template.spec.nodeClassRef.name is required'),
        ('KPL103', 12, 11, 'spec.template.spec.requirements[0].operator is required'),
        ('KPL103', 16, 5, 'spec.disruption.consolidateAfter is empty; a value is required'),
        ('KPL103', 22, 1, 'spec.securityGroupSelectorTerms is required'),
    ]


def test_unknown_field():
    found = schema_findings("unknown.yaml")
    assert triples(found) == [
        ('KPL104', 10, 5, 'spec.template.requirements is not a NodePool field\nhelp: it belongs at spec.template.spec.requirements\nnote: karpenter.sh/v1 rejects unknown fields'),
        ('KPL104', 16, 7, 'spec.template.spec.requirement is not a NodePool field\nhelp: did you mean requirements?\nnote: karpenter.sh/v1 rejects unknown fields'),
        ('KPL104', 23, 5, 'spec.disruption.consolidateAfterr is not a NodePool field\nhelp: did you mean consolidateAfter?\nnote: karpenter.sh/v1 rejects unknown fields'),
    ]
    # the typo gets an unsafe rename; consolidateAfterr none (consolidateAfter exists already)
    assert [f.fix.safety if f.fix else None for f in found] == [None, "unsafe", None]


def test_moved_fields_and_fixes():
    found = schema_findings("moved.yaml")
    assert triples(found) == [
        ('KPL105', 10, 9, 'spec.template.spec.nodeClassRef.apiVersion was replaced by group and kind in karpenter.sh/v1\nhelp: write group: karpenter.k8s.aws and kind: EC2NodeClass'),
        ('KPL105', 16, 7, 'spec.template.spec.kubelet moved to the EC2NodeClass in karpenter.sh/v1\nhelp: set it as spec.kubelet of the EC2NodeClass this NodePool references (karpenter.k8s.aws/v1)'),
        ('KPL105', 19, 26, 'consolidationPolicy WhenUnderutilized was renamed in karpenter.sh/v1\nhelp: write WhenEmptyOrUnderutilized'),
        ('KPL105', 21, 5, 'spec.disruption.expireAfter moved to spec.template.spec.expireAfter in karpenter.sh/v1\n'
                          'note: kubectl refuses the NodePool (unknown field); a client that does not ask for strict '
                          'field validation gets the field pruned without an error, and the nodes expire after '
                          'spec.template.spec.expireAfter (720h when unset) instead'),
    ]
    assert [bool(f.fix) for f in found] == [True, False, True, True]
    assert all(f.fix.safety == "safe" for f in found if f.fix)
    fixed = apply((FIXTURES / "moved.yaml").read_text(), found)
    assert fixed == (FIXTURES / "moved.fixed.yaml").read_text()
    # the fixed file has only the kubelet move left (no mechanical fix: it belongs to another resource)
    assert [f.code for f in schema_findings("moved.fixed.yaml")] == ["KPL105"]


def test_range():
    assert triples(schema_findings("range.yaml")) == [
        ("KPL106", 6, 11, "spec.weight must be at most 100, not 150"),
        ("KPL106", 17, 22, "spec.template.spec.requirements[0].minValues must be at least 1, not 0"),
        ("KPL106", 28, 21, "spec.amiSelectorTerms needs at least 1 entry (it has 0)"),
        ("KPL106", 34, 34, "spec.kubelet.imageGCHighThresholdPercent must be at most 100, not 120"),
    ]


def test_placeholders_are_unknown_values():
    assert schema_findings("templated.yaml") == []


def test_v1beta1_against_0_37_8():
    assert schema_findings("v1beta1.yaml", "0.37.8") == []
    # at 1.14.1 (which does not serve v1beta1): checked against 1.0.0's v1beta1 schema, and KPL801 in addition
    assert schema_findings("v1beta1.yaml", "1.14.1") == []
    assert {f.code for f in lint((FIXTURES / "v1beta1.yaml").read_text(), karpenter_version="1.14.1")} >= {"KPL801"}


def test_v1alpha5_against_0_32_10():
    assert schema_findings("v1alpha5.yaml", "0.32.10") == []


def test_v1_field_in_v1beta1_document():
    text = (FIXTURES / "v1beta1.yaml").read_text().replace("    expireAfter: 720h\n", "").replace(
        "      kubelet:", "      expireAfter: 720h\n      kubelet:")
    assert triples([f for f in lint(text, karpenter_version="0.37.8") if f.code.startswith("KPL1")]) == [
        ('KPL105', 16, 7, 'spec.template.spec.expireAfter is the karpenter.sh/v1 location\nhelp: in karpenter.sh/v1beta1 it is spec.disruption.expireAfter (or change apiVersion to karpenter.sh/v1)'),
    ]


def test_between_releases_uses_the_since_table_then_says_so_once():
    text = (FIXTURES / "v1beta1.yaml").read_text()
    # 0.33.0: budgets (0.34.0) and AL2023 (0.35.0) are not there yet: real errors, named as such
    found = [f for f in lint(text, karpenter_version="0.33.0") if f.code.startswith("KPL1")]
    assert triples(found) == [
        ('KPL104', 21, 5, 'spec.disruption.budgets is not a NodePool field in Karpenter 0.33.0\nhelp: upgrade Karpenter first, or set karpenter-version to the release you run\nnote: Karpenter 0.34.0 and later have it'),
        ('KPL101', 29, 14, 'spec.amiFamily cannot be the string "AL2023" in Karpenter 0.33.0\nhelp: upgrade Karpenter first, or set karpenter-version to the release you run\nnote: Karpenter 0.35.0 and later accept it; Karpenter 0.33.0 allows AL2, Bottlerocket, Ubuntu, Custom, Windows2019, Windows2022'),
    ]
    # 0.36.0: both exist; 0.32.10 rejects them but the facts table settles it: no finding
    assert [f for f in lint(text, karpenter_version="0.36.0") if f.code.startswith("KPL1")] == []
    # a field the table does not know (instanceStorePolicy: in 0.37.0, not in 0.32.10) is undecided at 0.36.0:
    # not reported, said once per run as information
    both = text.replace("  amiFamily: AL2023\n", "  amiFamily: AL2023\n  instanceStorePolicy: RAID0\n")
    found = [f for f in lint({"a.yaml": both, "b.yaml": both}, karpenter_version="0.36.0") if f.code.startswith("KPL1")]
    assert [(f.code, f.file, f.line, f.column, f.severity) for f in found] == [("KPL129", "a.yaml", 30, 3, "info")]
    assert found[0].message == (
        "Karpenter 0.36.0 has no bundled schema: 2 verdicts not reported\n"
        "help: set karpenter-version to a bundled release for exact results\n"
        "note: they differ between the bundled releases 0.32.10 and 0.37.0 (EC2NodeClass/default "
        "spec.instanceStorePolicy)")
    # an error both releases agree on is still reported
    bad = text.replace("consolidationPolicy: WhenUnderutilized", "consolidationPolicy: Sometimes")
    assert [f.code for f in lint(bad, karpenter_version="0.36.0") if f.code.startswith("KPL1")] == ["KPL101"]


def test_exact_release_has_no_approximation_note():
    assert [f for f in lint((FIXTURES / "v1beta1.yaml").read_text(), karpenter_version="0.32.10")
            if f.code == "KPL129"] == []


@pytest.mark.parametrize("value", ["${X}", "<<X>>", "{{ .Values.x }}", "a-${X}-b", "...", "{{- .Values.x }}"])
def test_is_templated(value):
    from karplint.readers.templating import is_templated

    assert is_templated(value)


@pytest.mark.parametrize("value", ["720h", "a<b", "{x}", "$X", "a << b"])
def test_is_not_templated(value):
    from karplint.readers.templating import is_templated

    assert not is_templated(value)


def apply(text: str, findings) -> str:
    edits = sorted((e for f in findings if f.fix for e in f.fix.edits), key=lambda e: (e.start, e.end), reverse=True)
    last = None
    for e in edits:
        assert last is None or e.end <= last, "overlapping edits"
        text = text[: e.start] + e.replacement + text[e.end:]
        last = e.start
    return text


def test_fixes_keep_crlf_line_endings():
    text = (FIXTURES / "moved.yaml").read_text().replace("\n", "\r\n")
    found = [f for f in lint({"crlf.yaml": text}) if f.code == "KPL105"]
    assert apply(text, found) == (FIXTURES / "moved.fixed.yaml").read_text().replace("\n", "\r\n")


def test_fix_inserts_above_comments_of_the_first_entry():
    text = (FIXTURES / "moved.yaml").read_text().replace(
        "      nodeClassRef:\n", "      # which EC2NodeClass\n      nodeClassRef:\n")
    found = [f for f in lint(text) if f.code == "KPL105"]
    fixed = apply(text, found)
    assert "    spec:\n      expireAfter: 720h # 30 days\n      # which EC2NodeClass\n      nodeClassRef:\n" in fixed
    assert "expireAfter" not in fixed.split("disruption:")[1]


def test_no_fix_when_layout_is_ambiguous():
    flow = (FIXTURES / "moved.yaml").read_text().replace(
        "      nodeClassRef:\n        apiVersion: karpenter.k8s.aws/v1beta1  # the AWS node class\n        name: default\n",
        "      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, name: default}\n").replace(
        "  disruption:\n    consolidationPolicy: WhenUnderutilized\n    consolidateAfter: 1m\n    expireAfter: 720h # 30 days\n",
        "  disruption: {consolidationPolicy: WhenUnderutilized, consolidateAfter: 1m, expireAfter: 720h}\n")
    found = [f for f in lint(flow) if f.code == "KPL105"]
    by_msg = {f.message.split(" ")[0]: f for f in found}
    assert len(found) == 4
    assert by_msg["spec.template.spec.nodeClassRef.apiVersion"].fix is None
    assert by_msg["spec.disruption.expireAfter"].fix is None
    # a scalar rename is still mechanical in flow style
    assert by_msg["consolidationPolicy"].fix is not None
    assert "WhenEmptyOrUnderutilized" in apply(flow, [by_msg["consolidationPolicy"]])


def test_node_class_ref_fix_keeps_existing_kind():
    text = (FIXTURES / "moved.yaml").read_text().replace(
        "        name: default\n", "        kind: EC2NodeClass\n        name: default\n", 1)
    f = next(f for f in lint(text) if f.code == "KPL105" and "apiVersion" in f.message)
    assert "        group: karpenter.k8s.aws  # the AWS node class\n        kind: EC2NodeClass\n        name: default\n" \
        in apply(text, [f])


def test_required_catalog_deferral():
    """A missing v1 disruption.consolidateAfter is KPL401's when that rule is registered, else KPL103's."""
    from karplint.rules.base import REGISTRY

    text = (FIXTURES / "required.yaml").read_text().replace("    consolidateAfter:\n", "")
    hits = [f for f in lint(text) if f.code in ("KPL103", "KPL401") and "consolidateAfter" in f.message]
    assert len(hits) == 1
    assert hits[0].code == ("KPL401" if "KPL401" in REGISTRY else "KPL103")


def test_fallback_to_a_newer_release_is_said_once():
    # v1 is served from 0.36.3, but the first bundled release serving it is 0.37.8
    found = [f for f in lint((FIXTURES / "range.yaml").read_text(), karpenter_version="0.36.3")
             if f.code.startswith("KPL1")]
    assert [f.code for f in found].count("KPL106") == 4
    notes = [f for f in found if f.code == "KPL129"]
    assert len(notes) == 1 and notes[0].message == (
        "Karpenter 0.36.3 has no bundled schema: checked against another release\n"
        "help: set karpenter-version to a bundled release for exact results\n"
        "note: no bundled schema of Karpenter 0.36.3 or older serves karpenter.sh/v1 NodePool, karpenter.k8s.aws/v1 "
        "EC2NodeClass; checked against 0.37.8 instead, so findings may differ on the real release")


def test_catalog_rules_own_budget_reasons_and_schedules():
    """Budget reasons (KPL405) and schedules (KPL403) are checked more precisely by catalog rules: one finding."""
    from karplint.rules.base import REGISTRY

    text = (FIXTURES / "required.yaml").read_text().split("---")[0].replace(
        "        kind: EC2NodeClass\n", "        kind: EC2NodeClass\n        name: default\n").replace(
        "          values: [\"spot\"]\n", "          operator: In\n          values: [\"spot\"]\n").replace(
        "    consolidateAfter:\n",
        "    consolidateAfter: 1m\n    budgets:\n      - nodes: \"1\"\n        reasons: [Expired]\n"
        "      - nodes: \"1\"\n        schedule: every day\n        duration: 1h\n")
    lines = text.splitlines()
    reason = next(i for i, x in enumerate(lines, 1) if "Expired" in x)
    schedule = next(i for i, x in enumerate(lines, 1) if "every day" in x)
    found = [f for f in lint(text) if f.line in (reason, schedule)]
    expect = {reason: "KPL405" if "KPL405" in REGISTRY else "KPL101",
              schedule: "KPL403" if "KPL403" in REGISTRY else "KPL102"}
    assert sorted((f.line, f.code) for f in found) == sorted(expect.items())


def test_a_field_of_another_lists_items_is_not_where_it_belongs():
    """`operator` in a taint (copied from a toleration) is a requirement's field too, but a taint is no
    requirement: no "it belongs at spec.template.spec.requirements[0].operator" (StanleyBundi/terraform-eks-karpenter
    @e745516, a README NodePool). A field of the same branch one level off still gets its place."""
    text = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n      requirements: []\n"
            "      taints:\n        - key: a\n          operator: Exists\n          effect: NoSchedule\n"
            "  expireAfter: 720h\n")
    found = [(f.line, f.column, f.message) for f in lint({"np.yaml": text}) if f.code == "KPL104"]
    assert found == [
        (11, 11, "spec.template.spec.taints[0].operator is not a NodePool field\n"
                 "note: karpenter.sh/v1 rejects unknown fields"),
        (13, 3, "spec.expireAfter is not a NodePool field\nhelp: it belongs at spec.template.spec.expireAfter\n"
                "note: karpenter.sh/v1 rejects unknown fields"),
    ]
