"""KPL150/KPL151: the Karpenter chart's values against the chart of the release (rules/chart_values.py), read from a
Flux HelmRelease, an Argo CD Application (valuesObject, values string, parameters), a Terraform helm_release
(heredocs, set blocks) and a karpenter-values.yaml; and schemas/chart-values.json kept current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from karplint.testing import lint

ROOT = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror/aws+karpenter-provider-aws/repo")


def found(files, version=None, codes=("KPL150", "KPL151")):
    return [(f.code, f.file, f.line, f.column) for f in lint(files, karpenter_version=version) if f.code in codes]


FLUX = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: karpenter}
spec:
  chart:
    spec:
      chart: karpenter
      version: 0.33.0
  values:
    settings:
      aws:
        clusterName: one
      interruptionQueueName: q
    podAnnotations:
      anything: "x"
    affinity:
      nodeAffinity: {}
"""


def test_flux_helmrelease_at_its_chart_version():
    assert found({"hr.yaml": FLUX}) == [("KPL151", "hr.yaml", 12, 9), ("KPL150", "hr.yaml", 13, 7)]
    msg = [f.message for f in lint({"hr.yaml": FLUX}) if f.code == "KPL150"][0]
    assert "did you mean `settings.interruptionQueue`?" in msg
    renamed = [f.message for f in lint({"hr.yaml": FLUX}) if f.code == "KPL151"][0]
    assert "renamed `settings.clusterName`" in renamed


def test_same_values_at_0_32_are_read():
    # chart 0.32.x reads both settings.aws.clusterName and settings.clusterName
    assert found({"hr.yaml": FLUX.replace("0.33.0", "0.32.9").replace("interruptionQueueName", "interruptionQueue")}) == []


TF = '''resource "helm_release" "karpenter" {
  name       = "karpenter"
  repository = "oci://public.ecr.aws/karpenter"
  chart      = "karpenter"
  version    = "1.1.0"
  values = [
    <<-EOT
    settings:
      clusterName: ${var.name}
      featureGate:
        spotToSpotConsolidation: true
    EOT
  ]
  set {
    name  = "settings.featureGates.drift"
    value = "true"
  }
  set {
    name  = "serviceAccount.annotations.eks\\\\.amazonaws\\\\.com/role-arn"
    value = "x"
  }
}

resource "helm_release" "other" {
  chart = "cert-manager"
  set {
    name  = "nothing.of.karpenter"
    value = "x"
  }
}
'''


def test_terraform_helm_release_heredoc_and_set():
    assert found({"main.tf": TF}) == [("KPL150", "main.tf", 10, 7), ("KPL151", "main.tf", 15, 14)]


ARGO = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: karpenter}
spec:
  source:
    chart: karpenter
    repoURL: public.ecr.aws/karpenter
    targetRevision: 1.0.6
    helm:
      parameters:
      - name: settings.clusterName
        value: x
      - name: settings.aws.clusterName
        value: x
      values: |
        settings:
          clusterNme: x
      valuesObject:
        replica: 2
"""


def test_argo_application_parameters_values_and_valuesobject():
    assert found({"app.yaml": ARGO}) == [("KPL151", "app.yaml", 13, 9), ("KPL150", "app.yaml", 17, 11),
                                         ("KPL150", "app.yaml", 19, 9)]


def test_values_file_by_name_only():
    text = "settings:\n  clusterNme: x\nreplicas: 2\n"
    assert found({"karpenter-values.yaml": text}) == [("KPL150", "karpenter-values.yaml", 2, 3)]
    assert found({"values.yaml": text}) == []  # (any values.yaml is not Karpenter's)


def test_other_charts_overlay_for_karpenter_clusters_is_not_read():
    # caipe-io/ai-platform-engineering, charts/ai-platform-engineering/values-karpenter.yaml (commit 1884edc3,
    # Apache-2.0; reduced): an umbrella chart's overlay for clusters that run Karpenter, named like Karpenter's values.
    # None of its top-level keys is a value of any Karpenter chart: it is another chart's, nothing to say about it.
    overlay = "rag-stack:\n  rag-server:\n    nodeSelector: {workload-type: rag}\nmongodb:\n" \
              "  podDisruptionBudget:\n    enabled: true\n"
    assert found({"values-karpenter.yaml": overlay}) == []
    assert found({"values-karpenter.yaml": overlay}, version="1.0.6") == []
    # one key of Karpenter's chart is enough to read it as Karpenter's (a misspelt sibling is still reported)
    mixed = "serviceAccount: {create: true}\nmongodb: {}\n"
    assert found({"values-karpenter.yaml": mixed}) == [("KPL150", "values-karpenter.yaml", 2, 1)]


def test_unknown_release_says_less():
    # a key some release has (settings.aws.clusterName) is not reported without a release
    text = "settings:\n  aws:\n    clusterName: x\n  clusterNme: y\n"
    assert found({"karpenter-values.yaml": text}) == [("KPL150", "karpenter-values.yaml", 4, 3)]
    assert found({"karpenter-values.yaml": text}, version="1.0.6") == [
        ("KPL151", "karpenter-values.yaml", 3, 5), ("KPL150", "karpenter-values.yaml", 4, 3)]


@pytest.mark.skipif(not (MIRROR / "HEAD").exists(), reason="the aws/karpenter-provider-aws mirror is not here")
def test_chart_values_table_is_current():
    out = subprocess.run([sys.executable, "scripts/gen_chart_values.py", "--check"], cwd=ROOT, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr


def test_declared_but_unread_key():
    # chart 0.16.2 declares controller.logEncoding; only the global logEncoding is rendered
    text = "controller:\n  logEncoding: json\n  logLevel: debug\nlogEncoding: json\n"
    assert found({"karpenter-values.yaml": text}, version="0.16.2", codes=("KPL150", "KPL151", "KPL152")) == [
        ("KPL152", "karpenter-values.yaml", 2, 3)]
    msg = [f.message for f in lint({"karpenter-values.yaml": text}, karpenter_version="0.16.2") if f.code == "KPL152"]
    assert "help: the chart reads `logEncoding`" in msg[0]


FIXTURES = ROOT / "tests" / "fixtures" / "chart_values" / "umbrella"


def test_umbrella_chart_dependency_values():
    files = {f"addons/{p.name}": p.read_text(encoding="utf-8") for p in sorted(FIXTURES.iterdir())}
    got = [(f.code, f.file, f.line, f.column) for f in lint(files) if f.code.startswith("KPL15")]
    assert got == [("KPL153", "addons/values.yaml", 5, 7), ("KPL153", "addons/values.yaml", 6, 3)]
    # the same values.yaml without the Chart.yaml: any chart's values, not read as Karpenter's
    assert [f for f in lint({"addons/values.yaml": files["addons/values.yaml"]}) if f.code.startswith("KPL15")] == []


def test_chart_version_tag_form_on_the_oci_registry():
    tf = ('resource "helm_release" "karpenter" {\n  repository = "oci://public.ecr.aws/karpenter"\n'
          '  chart      = "karpenter"\n  version    = "v1.0.5"\n}\n'
          'resource "helm_release" "crd" {\n  repository = "oci://public.ecr.aws/karpenter"\n'
          '  chart      = "karpenter-crd"\n  version    = "0.34.0"\n}\n'
          'resource "helm_release" "right" {\n  repository = "oci://public.ecr.aws/karpenter"\n'
          '  chart      = "karpenter"\n  version    = "v0.34.0"\n}\n'
          'resource "helm_release" "http" {\n  repository = "https://charts.karpenter.sh"\n'
          '  chart      = "karpenter"\n  version    = "v0.16.3"\n}\n')
    assert found({"main.tf": tf}, codes=("KPL154",)) == [("KPL154", "main.tf", 4, 17), ("KPL154", "main.tf", 9, 17)]
    msgs = [f.message for f in lint({"main.tf": tf}) if f.code == "KPL154"]
    assert "help: write `1.0.5`" in msgs[0] and "help: write `v0.34.0`" in msgs[1]


def test_terraform_yamlencode_values():
    tf = ('resource "helm_release" "karpenter" {\n  repository = "oci://public.ecr.aws/karpenter"\n'
          '  chart      = "karpenter"\n  version    = "1.0.5"\n  values = [\n    yamlencode({\n'
          '      settings = {\n        clusterName = var.cluster_name\n        aws = {\n'
          '          enablePodENI = true\n        }\n      }\n      replica = 2\n    })\n  ]\n}\n')
    assert found({"main.tf": tf}) == [("KPL151", "main.tf", 10, 11), ("KPL150", "main.tf", 13, 7)]
