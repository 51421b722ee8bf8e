"""Karpenter's own merge fixtures (shared/karpenter/userdata-golden/v1.14.1) against merge.merge_userdata."""

from __future__ import annotations

import pytest

from karplint.userdata.merge import merge_userdata, node_inputs
from .ud_nodes_helpers import golden, golden_input, golden_pattern, indent, model_of

# The cluster values of Karpenter's launch template test suite (pkg/providers/launchtemplate/suite_test.go).
CLUSTER = {"cluster_name": "test-cluster", "endpoint": "https://test-cluster", "ca_bundle": "Y2EtYnVuZGxlCg==",
           "service_cidr": "10.100.0.0/16"}


def _inputs(family: str, *, capacity: str = "on-demand", taints: str = "", user: str | None = None,
            strip: bool = False):
    user_block = ""
    if user is not None:
        user_block = f"  userData: |{'-' if strip else ''}\n" + indent(user if user.endswith("\n") else user + "\n", 4)
    alias = {"AL2": "al2@latest", "AL2023": "al2023@latest", "Bottlerocket": "bottlerocket@latest",
             "Windows2022": "windows2022@latest"}[family]
    text = f"""apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    metadata:
      labels: {{testing/cluster: unspecified}}
    spec:
      requirements:
        - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity}]}}
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
{taints}---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: default}}
spec:
  amiFamily: {family}
  amiSelectorTerms: [{{alias: {alias}}}]
  kubelet: {{maxPods: 110, clusterDNS: [10.0.100.10]}}
{user_block}"""
    model = model_of(text)
    nc = next(model.nodeclasses())
    np = next(model.nodepools())
    inputs = node_inputs(nc, np)
    for k, v in CLUSTER.items():
        setattr(inputs, k, v)
    return inputs, nc.get(("spec", "userData"))


CASES = [
    # (family, input golden or None, merged golden, extra)
    ("AL2", "al2_userdata_input.golden", "al2_userdata_merged.golden", {}),
    ("AL2", "al2_userdata_content_type_first_input.golden", "al2_userdata_merged.golden", {}),
    ("AL2", "al2_no_mime_userdata_input.golden", "al2_userdata_merged.golden", {}),
    ("AL2", None, "al2_userdata_unmerged.golden", {}),
    ("AL2023", "al2023_mime_userdata_input.golden", "al2023_mime_userdata_merged.golden", {}),
    # Karpenter's test feeds these inputs without their final newline (the merged goldens have no blank line
    # before the next boundary / the bootstrap call): a `|-` block reproduces that
    ("AL2023", "al2023_shell_userdata_input.golden", "al2023_shell_userdata_merged.golden", {"strip": True}),
    ("AL2023", "al2023_yaml_userdata_input.golden", "al2023_yaml_userdata_merged.golden", {"strip": True}),
    ("AL2023", None, "al2023_userdata_unmerged.golden", {}),
    ("Windows2022", "windows_userdata_input.golden", "windows_userdata_merged.golden",
     {"capacity": "spot", "strip": True}),
    ("Windows2022", None, "windows_userdata_unmerged.golden", {"capacity": "spot"}),
]


@pytest.mark.parametrize("family,input_name,merged_name,extra", CASES,
                         ids=[f"{c[2]}<-{c[1]}" for c in CASES])
def test_merge_matches_golden(family, input_name, merged_name, extra):
    user = golden_input(input_name) if input_name else None
    inputs, user_text = _inputs(family, capacity=extra.get("capacity", "on-demand"), user=user,
                                strip=extra.get("strip", False))
    merged = merge_userdata(family, user_text, inputs)
    assert merged.error is None
    expected = golden(merged_name)
    assert golden_pattern(expected).fullmatch(merged.text), merged.text


BR_TAINTS = """      taints:
        - {key: foo, value: bar, effect: NoExecute}
        - {key: baz, value: bin, effect: NoExecute}
"""


@pytest.mark.parametrize("input_name,merged_name", [
    ("br_userdata_input.golden", "br_userdata_merged.golden"),
    (None, "br_userdata_unmerged.golden"),
])
def test_bottlerocket_matches_golden(input_name, merged_name):
    user = golden_input(input_name) if input_name else None
    inputs, user_text = _inputs("Bottlerocket", taints=BR_TAINTS, user=user)
    inputs.cluster_name, inputs.endpoint = "test-cluster", "https://test-cluster"
    merged = merge_userdata("Bottlerocket", user_text, inputs)
    assert merged.error is None
    assert golden_pattern(golden(merged_name)).fullmatch(merged.text), merged.text
