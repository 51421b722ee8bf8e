"""KPL002 (duplicate key) as sure as the readers that take the document.

A Kubernetes object with a duplicate key is rejected (kubectl's strict field validation, kustomize): error. Any
other document (a Helm values file) is read by parsers that keep the last value: a warning when the first value
is lost, info when both are equal.

Excerpt: aws-samples/eks-blueprints-for-terraform-workshop @ d4fc0251d4d2b5f7e0cc0fb57e36a1b9ccf3048d,
`gitops/retail-store-app/src/ui/chart/values.yaml` lines 115-123 (MIT-0).
"""

from __future__ import annotations

import pytest

from karplint.readers import fastload
from karplint.testing import lint, run_cli

VALUES = """\
ingresses: []
  # - name: default
  #   className: ""
  #   hosts: []
  #   annotations: {}
  #   tls: []

ingresses:
  []
"""

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
"""


@pytest.fixture(params=["libyaml", "ruamel"])
def loader(request, monkeypatch):
    """Both readers (the fast libyaml one and the ruamel reference) give the same verdicts."""
    monkeypatch.setattr(fastload, "ENABLED", request.param == "libyaml")


def _dups(files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.line, f.column, f.severity) for f in lint(files) if f.code == "KPL002"]


def test_equal_values_in_a_values_file_are_info(loader):
    assert _dups({"values.yaml": VALUES}) == [("KPL002", 8, 1, "info")]


def test_different_values_in_a_values_file_are_a_warning(loader):
    text = "replicaCount: 1\nimage:\n  repository: nginx\nimage:\n  tag: '1.27'\n"
    (f,) = [f for f in lint({"values.yaml": text}) if f.code == "KPL002"]
    assert (f.line, f.column, f.severity) == (4, 1, "warning")
    assert "keep only the last value" in f.message


def test_kubernetes_object_stays_an_error_even_with_equal_values(loader):
    assert _dups({"np.yaml": NODEPOOL}) == [("KPL002", 9, 3, "error")]
    different = NODEPOOL.replace("consolidateAfter: 1m\n  template", "consolidateAfter: 5m\n  template")
    assert _dups({"np.yaml": different}) == [("KPL002", 9, 3, "error")]


def test_each_document_of_a_stream_is_judged_on_its_own(loader):
    assert _dups({"x.yaml": VALUES + "---\n" + NODEPOOL}) == [("KPL002", 8, 1, "info"), ("KPL002", 19, 3, "error")]


def test_values_file_alone_exits_zero(tmp_path):
    (tmp_path / "values.yaml").write_text(VALUES)
    proc = run_cli("check", "--no-cache", str(tmp_path / "values.yaml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "KPL002" in proc.stdout


def test_embedded_document_keeps_its_severity():
    # (readers/embedded.py re-places each problem in the host file: the severity travels with it)
    sh = ("cat <<EOF | kubectl apply -f -\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\n"
          "  name: a\n---\nreplicas: 1\nreplicas: 1\nEOF\n")
    assert _dups({"install.sh": sh}) == [("KPL002", 6, 3, "error"), ("KPL002", 9, 1, "info")]


def test_values_of_different_types_are_not_the_same(loader):
    assert _dups({"values.yaml": "enabled: true\nenabled: 1\n"}) == [("KPL002", 2, 1, "warning")]


# Excerpt of zeeamd/z-eks-v0 @ 5d26d2f62dee2caaec878b8388299a595b0406da,
# istio-v2/istio-1.23.0/manifests/charts/gateways/istio-ingress/values.yaml, lines 3-66 abridged (Istio 1.23.0's
# chart, Apache-2.0, as vendored there): the chart's empty default, then the owner's own block further down.
ISTIO_INGRESS_VALUES = """\
defaults:
  gateways:
    istio-ingressgateway:
      loadBalancerIP: ""
      loadBalancerSourceRanges: []
      serviceAnnotations: {}

      # To generate an internal load balancer:
      # --set serviceAnnotations.cloud.google.com/load-balancer-type=internal
      #serviceAnnotations:
      #    cloud.google.com/load-balancer-type: "internal"

      serviceAnnotations:
        service.beta.kubernetes.io/aws-load-balancer-proxy-protocol: "*"
        service.beta.kubernetes.io/aws-load-balancer-type: "nlb"
"""


def test_an_empty_first_value_in_a_values_file_is_info(loader):
    """Before: a warning ("the first is ignored"): the first is the chart's empty default, the kept one the owner's."""
    (f,) = [f for f in lint({"values.yaml": ISTIO_INGRESS_VALUES}) if f.code == "KPL002"]
    assert (f.line, f.column, f.severity) == (13, 7, "info")
    assert "the first value is empty" in f.message


@pytest.mark.parametrize("empty", ["{}", "[]", '""', "null", ""])
def test_each_empty_first_value_is_info_and_an_empty_later_one_a_warning(loader, empty):
    assert _dups({"values.yaml": f"tolerations: {empty}\ntolerations:\n- key: a\n"}) == [("KPL002", 2, 1, "info")]
    assert _dups({"values.yaml": f"tolerations:\n- key: a\ntolerations: {empty}\n"}) == [("KPL002", 3, 1, "warning")]


def test_an_empty_first_value_in_a_kubernetes_object_stays_an_error(loader):
    text = NODEPOOL.replace("  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 1m\n  dis",
                            "  disruption: {}\n  dis")
    assert _dups({"np.yaml": text}) == [("KPL002", 7, 3, "error")]
