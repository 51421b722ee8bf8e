"""KPL145: consolidateAfter/expireAfter values the API server stores but Karpenter cannot decode
(kubernetes-sigs/karpenter#2055)."""

from __future__ import annotations

import pytest

from karplint.rules.decoding import suggestion
from karplint.testing import codes, lint

V1 = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: malformed
spec:
  disruption:
    consolidateAfter: 1hr
    consolidationPolicy: WhenEmpty
  template:
    spec:
      expireAfter: 1h30
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
"""

V1BETA1 = """\
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: legacy
spec:
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5min
    expireAfter: Never
  template:
    spec:
      nodeClassRef: {name: default}
      requirements: []
"""


def run(text: str, release: str | None, select=("KPL145",)):
    return lint({"np.yaml": text}, config={"select": list(select)}, karpenter_version=release)


def test_v1_before_1_4_is_accepted_then_undecodable():
    found = run(V1, "1.3.1")
    assert codes(found) == [("KPL145", 7, 23), ("KPL145", 11, 20)]
    assert "consolidateAfter '1hr' is not a Go duration" in found[0].message
    assert "help: write '1h'" in found[0].message
    assert "help: write a Go duration" in found[1].message  # 1h30: no unit word to replace


def test_v1_from_1_4_is_left_to_the_schema_check():
    assert run(V1, "1.4.0") == []
    assert codes(run(V1, None, select=("KPL145", "KPL102"))) == [("KPL102", 7, 23), ("KPL102", 11, 20)]


@pytest.mark.parametrize("release", ["0.35.0", None])
def test_v1beta1_keeps_the_loose_pattern(release):
    found = run(V1BETA1, release)
    assert codes(found) == [("KPL145", 8, 23)]
    assert "help: write '5m'" in found[0].message


@pytest.mark.parametrize(("value", "expected"), [("1hr", "1h"), ("720hrs", "720h"), ("1hr30mins", "1h30m"),
                                                 ("2hours", "2h"), ("1h30", None), ("5m", None)])
def test_suggestion(value, expected):
    assert suggestion(value) == expected


EC2NODECLASS_V1BETA1 = """\
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2
  role: KarpenterNodeRole-my-cluster
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs:
        volumeSize: 80
    - deviceName: /dev/xvdb
      ebs:
        volumeSize: "100"
    - deviceName: /dev/xvdc
      ebs:
        volumeSize: 100Gi
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: my-cluster}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: my-cluster}
"""


def test_bare_volume_size_before_0_37_is_bytes():
    found = lint({"nc.yaml": EC2NODECLASS_V1BETA1}, config={"select": ["KPL146"]}, karpenter_version="0.36.1")
    assert codes(found) == [("KPL146", 11, 21), ("KPL146", 14, 21)]
    assert found[0].message.startswith("volumeSize 80 has no unit: Karpenter reads it as 80 bytes")
    assert "help: write '80Gi'" in found[0].message


def test_bare_volume_size_from_0_37_is_the_schema_checks():
    assert lint({"nc.yaml": EC2NODECLASS_V1BETA1}, config={"select": ["KPL146"]}, karpenter_version="0.37.0") == []
    found = lint({"nc.yaml": EC2NODECLASS_V1BETA1}, config={"select": ["KPL100", "KPL102"]},
                 karpenter_version="0.37.0")
    assert [(f.code, f.line) for f in found] == [("KPL100", 11), ("KPL102", 14)]
