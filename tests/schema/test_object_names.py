"""KPL149: Karpenter's custom resources are named as DNS-1123 subdomains, or the API server rejects them
(apiextensions-apiserver customresource validator: NameIsDNSSubdomain; awsdocs/amazon-eks-user-guide#1000)."""

from __future__ import annotations

import pytest

from karplint.testing import lint

NODECLASS = """\
apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: {name}
spec:
  role: MyNodeRole
"""
NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: []
"""


def kpl149(text: str):
    return [f for f in lint({"x.yaml": text}) if f.code == "KPL149"]


def test_upper_case_nodeclass_name_is_an_error_at_the_name():
    [f] = kpl149(NODECLASS.format(name="MyNodeClass"))
    assert (f.severity, f.line, f.column) == ("error", 4, 9)
    assert f.message.splitlines()[0] == "metadata.name `MyNodeClass` is not a lowercase RFC 1123 subdomain"
    assert "note: the API server rejects this NodeClass" in f.message
    assert "(e.g. `mynodeclass`)" in f.message


@pytest.mark.parametrize("name", ["gpu_pool", "-pool", "pool-", "Pool", '"a b"', "a" * 254])
def test_invalid_nodepool_names(name):
    [f] = kpl149(NODEPOOL.format(name=name))
    assert f.line == 4


@pytest.mark.parametrize("name", ["default", "gpu-pool.v2", "a" * 253, "${pool_name}", "'{{ .Values.name }}'",
                                  "<<NAME>>", "$NAME", "<NODEPOOL_NAME>", "'...'"])
def test_valid_or_templated_names_are_silent(name):
    assert kpl149(NODEPOOL.format(name=name)) == []


def test_other_kinds_and_groups_are_not_judged():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: My_Config\n"
    assert kpl149(text) == []
    text = "apiVersion: example.com/v1\nkind: NodePool\nmetadata:\n  name: My_Pool\n"
    assert kpl149(text) == []
