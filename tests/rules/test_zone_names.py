"""KPL930: topology.kubernetes.io/zone requirement values that name no Availability Zone
(kubernetes-sigs/karpenter#3272)."""

from __future__ import annotations

from karplint.testing import lint

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: zones
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: topology.kubernetes.io/zone
          operator: In
          values: [ZONES]
"""


def _kpl930(zones: str, **kw):
    return [(f.line, f.column, f.severity, f.message.splitlines()[0])
            for f in lint({"np.yaml": NODEPOOL.replace("ZONES", zones)}, **kw) if f.code == "KPL930"]


def test_impossible_zone_letter_zone_id_and_region_are_reported():
    assert _kpl930("eu-west-2z, use1-az1, us-east-1, usw2-lax1-az1") == [
        (12, 20, "warning", "'eu-west-2z' is not an Availability Zone of eu-west-2: no Region has a zone letter "
                            "past 'f'"),
        (12, 32, "warning", "'use1-az1' is an Availability Zone ID, not a zone name"),
        (12, 42, "warning", "'us-east-1' is a Region, not an Availability Zone"),
        (12, 53, "warning", "'usw2-lax1-az1' is an Availability Zone ID, not a zone name"),
    ]


def test_real_zone_names_are_quiet():
    assert _kpl930("us-east-1a, us-east-1f, us-gov-west-1a, cn-north-1b, us-west-2-lax-1a, "
                   "us-east-1-wl1-bos-wlz-1, \"${zone}\"") == []


def test_the_note_says_whether_the_requirement_still_launches():
    only = [f for f in lint({"np.yaml": NODEPOOL.replace("ZONES", "eu-west-2z")}) if f.code == "KPL930"]
    assert "nothing launches from this NodePool" in only[0].message
    mixed = [f for f in lint({"np.yaml": NODEPOOL.replace("ZONES", "eu-west-2a, eu-west-2z")}) if f.code == "KPL930"]
    assert [f.column for f in mixed] == [32]
    assert "the other values still launch" in mixed[0].message


def test_notin_and_zone_id_label_are_not_judged():
    text = NODEPOOL.replace("operator: In", "operator: NotIn").replace("ZONES", "use1-az1")
    assert [f for f in lint({"np.yaml": text}) if f.code == "KPL930"] == []
    text = NODEPOOL.replace("topology.kubernetes.io/zone", "topology.k8s.aws/zone-id").replace("ZONES", "use1-az1")
    assert [f for f in lint({"np.yaml": text}) if f.code == "KPL930"] == []


def test_provisioner_only_at_a_release_that_serves_it():
    prov = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: topology.kubernetes.io/zone
      operator: In
      values: [use1-az1]
"""
    at = [(f.line, f.column) for f in lint({"p.yaml": prov}, karpenter_version="0.31.0") if f.code == "KPL930"]
    assert at == [(9, 16)]
    assert [f for f in lint({"p.yaml": prov}) if f.code == "KPL930"] == []
