"""Release evidence from everything that pins it (issue 25): `repo_version.collect` over every file of a project —
scripts, Makefiles, `.env`, CI variables, Markdown docs, gitops add-on values, helmfile, Terraform with a chart
variable, `.tfvars`, Terragrunt — each pin with its file, line and a `what` that names it; and the near misses that
pin nothing (another chart's `--version`, a variable without an exact value, `1.2.x`, a commented-out line)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from karplint.model.repo_version import Evidence, collect
from karplint.readers.files import read_regular
from karplint.testing import run_json

LIMIT = 5 << 20


def _collect(tmp_path: Path, files: dict[str, str]) -> list[Evidence]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return collect([(name, str(tmp_path / name)) for name in sorted(files)], read_regular, LIMIT)


# ------------------------------------------------------------------------------------------------ scripts and docs

# aws/karpenter-provider-aws@002856721e612ded9f3f09821ed9ec2823d8af06,
# website/content/en/v1.0/getting-started/getting-started-with-karpenter/_index.md (Apache-2.0), lines 44-50
GETTING_STARTED_MD = '''### 2. Set environment variables

After setting up the tools, set the Karpenter and Kubernetes version:

```bash
export KARPENTER_NAMESPACE="kube-system"
export KARPENTER_VERSION="1.0.2"
export K8S_VERSION="1.30"
```
'''
# aws/karpenter-provider-aws@0ae48ea3350e28a2e22f09531e8b2a248c409efa,
# website/content/en/v0.32/getting-started/getting-started-with-karpenter/scripts/step08-apply-helm-chart.sh
# (Apache-2.0), first lines
STEP08_SH = '''# Logout of helm registry to perform an unauthenticated pull against the public ECR
helm registry logout public.ecr.aws

helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version "${KARPENTER_VERSION}" --namespace "${KARPENTER_NAMESPACE}" --create-namespace \\
  --set "settings.clusterName=${CLUSTER_NAME}" \\
  --wait
'''
# JacobGabrielson/karpond@3573bd9eb677467cc4edbb189b81f8a0b366f3be, install-helm-chart.sh (Apache-2.0); the cilium
# and eksctl lines are added: another chart's --version and a Kubernetes version are not Karpenter's
KARPOND_SH = '''#!/bin/bash

. ./common.sh

helm upgrade --install cilium cilium/cilium --version 1.16.0 --namespace kube-system
eksctl create cluster --name demo --version 1.30
helm repo add karpenter https://awslabs.github.io/karpenter/charts
helm repo update
helm upgrade --install karpenter karpenter/karpenter --namespace karpenter \\
  --create-namespace --set serviceAccount.create=false --version 0.3.0
'''


def test_getting_started_docs_export_and_the_script_using_it(tmp_path: Path):
    got = _collect(tmp_path, {"docs/getting-started.md": GETTING_STARTED_MD, "scripts/step08.sh": STEP08_SH})
    assert got == [Evidence("1.0.2", "docs/getting-started.md", 7, "KARPENTER_VERSION")]
    assert got[0].where == "KARPENTER_VERSION at docs/getting-started.md:7"


def test_literal_helm_version_of_the_karpenter_chart_only(tmp_path: Path):
    assert _collect(tmp_path, {"install-helm-chart.sh": KARPOND_SH}) == [
        Evidence("0.3.0", "install-helm-chart.sh", 10, "helm upgrade karpenter/karpenter --version")]


def test_helm_version_from_a_variable_of_the_same_file(tmp_path: Path):
    script = ('#!/bin/bash\nexport VERSION=0.16.3\nexport CLUSTER_NAME=personal-eks\n\n'
              'helm upgrade --install --namespace karpenter --create-namespace \\\n'
              '  karpenter karpenter/karpenter \\\n  --version ${VERSION} \\\n  --set clusterName=${CLUSTER_NAME}\n')
    assert _collect(tmp_path, {"deploy.sh": script}) == [
        Evidence("0.16.3", "deploy.sh", 2, "VERSION for helm upgrade karpenter/karpenter")]


def test_karpenter_crd_chart_and_version_equals_form(tmp_path: Path):
    script = ("helm template karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version=v1.0.6 > crds.yaml\n"
              "helm install karpenter oci://public.ecr.aws/karpenter/karpenter \\\n"
              "  --version \\\n  1.0.6 -n kube-system\n")
    assert _collect(tmp_path, {"crds.sh": script}) == [
        Evidence("1.0.6", "crds.sh", 1, "helm template oci://public.ecr.aws/karpenter/karpenter-crd --version"),
        Evidence("1.0.6", "crds.sh", 3, "helm install oci://public.ecr.aws/karpenter/karpenter --version"),
    ]


def test_ci_variables_makefile_env_file_and_terragrunt(tmp_path: Path):
    got = _collect(tmp_path, {
        ".github/workflows/deploy.yml": ("name: deploy\non: push\nenv:\n  AWS_REGION: eu-west-1\n"
                                         "  KARPENTER_VERSION: 1.0.6\njobs: {}\n"),
        "Makefile": "CLUSTER ?= dev\nKARPENTER_VERSION ?= v1.0.6\n\ninstall:\n\thelm upgrade --install karpenter "
                    "oci://public.ecr.aws/karpenter/karpenter --version $(KARPENTER_VERSION)\n",
        ".env": 'CLUSTER_NAME=dev\nKARPENTER_VERSION="1.0.6"\n',
        "live/prod/terragrunt.hcl": 'inputs = {\n  cluster_name            = "prod"\n'
                                    '  karpenter_chart_version = "1.0.6"\n}\n',
        "config.json": '{"cluster": "dev", "karpenterVersion": "1.0.6"}\n',
    })
    assert [(e.file, e.line, e.what) for e in got] == [
        (".env", 2, "KARPENTER_VERSION"),
        (".github/workflows/deploy.yml", 5, "KARPENTER_VERSION"),
        ("Makefile", 2, "KARPENTER_VERSION"),
        ("live/prod/terragrunt.hcl", 3, "karpenter_chart_version"),
    ] and {e.version for e in got} == {"1.0.6"}  # (a JSON key mid-line is not an assignment at a line's start)


def test_cdk_constructs(tmp_path: Path):
    ts = ('import * as blueprints from "@aws-quickstart/eks-blueprints";\n'
          "const karpenter = new blueprints.addons.KarpenterAddOn({\n  version: 'v0.33.1',\n  nodePoolSpec: {},\n});\n"
          "const later = new blueprints.addons.KarpenterAddOn({\n  nodePoolSpec: { version: '9.9.9' },\n"
          "  version: '1.0.0',\n});\n"  # (after a nested object: not read, the nested one could be anything)
          "new Karpenter(this, 'Karpenter', {\n  cluster,\n  version: 'v0.34.0',\n});\n")
    assert _collect(tmp_path, {"lib/stack.ts": ts}) == [
        Evidence("0.33.1", "lib/stack.ts", 3, "KarpenterAddOn version"),
        Evidence("0.34.0", "lib/stack.ts", 12, "new Karpenter version")]


def test_near_misses_pin_nothing(tmp_path: Path):
    assert _collect(tmp_path, {
        "a.sh": ("# export KARPENTER_VERSION=0.37.0\n"  # commented out
                 'KARPENTER_VERSION="$(curl -s https://api.github.com/repos/aws/karpenter/releases/latest)"\n'
                 "export KARPENTER_CRD_VERSION=1.2.x\n"
                 "helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version \"${OTHER}\"\n"
                 "helm upgrade --install karpenter karpenter/karpenter --version '~1.0'\n"
                 "helm upgrade --install cilium cilium/cilium --version 1.16.0\n"
                 "helm upgrade --install karpenter ./charts/karpenter --version 1.0.6\n"  # a local chart
                 "helm upgrade --install karpenter karpenter --version 1.0.6\n"  # a directory, no --repo
                 "kubectl version --client\nK8S_VERSION=1.30.0\n"),
        "values.yaml": "cilium:\n  chart: cilium/cilium\n  version: 1.16.0\nkarpenter:\n  image:\n    tag: 1.0.6\n"
                       "  targetRevision: 1.2.x\n",
        "main.tf": ('resource "helm_release" "cilium" {\n  chart      = var.chart\n'
                    '  repository = "https://helm.cilium.io"\n  version    = "1.16.0"\n}\n'
                    'resource "helm_release" "karpenter" {\n  chart   = "karpenter"\n  version = var.unset\n}\n'
                    'variable "unset" {\n  type = string\n}\n'),
    }) == []


def test_docs_pin_only_when_nothing_else_does(tmp_path: Path):
    upgrade_note = "```bash\nexport KARPENTER_VERSION=0.37.7\n```\n"
    tf = ('resource "helm_release" "karpenter" {\n  chart   = "oci://public.ecr.aws/karpenter/karpenter"\n'
          '  version = "1.0.2"\n}\n')
    assert _collect(tmp_path, {"docs/upgrade.md": upgrade_note, "infra/karpenter.tf": tf}) == [
        Evidence("1.0.2", "infra/karpenter.tf", 3, 'helm_release "karpenter"')]
    assert _collect(tmp_path / "only-docs", {"docs/upgrade.md": upgrade_note}) == [
        Evidence("0.37.7", "docs/upgrade.md", 2, "KARPENTER_VERSION")]


# ------------------------------------------------------------------------------------------------ YAML values

# aws-samples/eks-blueprints-for-terraform-workshop@d4fc0251d4d2b5f7e0cc0fb57e36a1b9ccf3048d,
# gitops/addons/charts/gitops-bridge/values.yaml (MIT-0), lines 58 and 148-158, shortened
GITOPS_BRIDGE_VALUES = '''addons:
  karpenter:
    enabled: false
    releaseName: karpenter
    namespace: '{{ default "kube-system" (index .metadata.annotations "karpenter_namespace") }}'
    chart: karpenter/karpenter
    repoUrl: public.ecr.aws
    targetRevision: "1.0.4"
    selector:
      matchExpressions:
        - key: enable_karpenter
          operator: In
          values: ['true']
'''


def test_gitops_bridge_addon_values(tmp_path: Path):
    assert _collect(tmp_path, {"gitops/addons/charts/gitops-bridge/values.yaml": GITOPS_BRIDGE_VALUES}) == [
        Evidence("1.0.4", "gitops/addons/charts/gitops-bridge/values.yaml", 8, "addons.karpenter.targetRevision")]


def test_addon_keys_helmfile_kustomize_and_cluster_api(tmp_path: Path):
    got = _collect(tmp_path, {
        "clusters/prod/addons.yaml": "addons:\n  karpenter:\n    enabled: true\n    chartVersion: 1.0.6\n",
        "helmfile.yaml": ("releases:\n  - name: cilium\n    chart: cilium/cilium\n    version: 1.16.0\n"
                          "  - name: karpenter\n    namespace: kube-system\n"
                          "    chart: oci://public.ecr.aws/karpenter/karpenter\n    version: 1.0.6\n"),
        "kustomization.yaml": ("helmCharts:\n  - name: karpenter\n    repo: oci://public.ecr.aws/karpenter\n"
                               "    version: 1.0.6\n    releaseName: karpenter\n"),
        "capi/karpenter.yaml": ("apiVersion: addons.cluster.x-k8s.io/v1alpha1\nkind: HelmChartProxy\n"
                                "metadata:\n  name: karpenter\nspec:\n  repoURL: oci://public.ecr.aws/karpenter\n"
                                "  chartName: karpenter\n  version: 1.0.6\n"),
    })
    assert [(e.file, e.line, e.what) for e in got] == [
        ("capi/karpenter.yaml", 8, "spec.version"),
        ("clusters/prod/addons.yaml", 4, "addons.karpenter.chartVersion"),
        ("helmfile.yaml", 8, "releases[1].version"),
        ("kustomization.yaml", 4, "helmCharts[0].version"),
    ] and {e.version for e in got} == {"1.0.6"}


# aws-samples/eks-blueprints-add-ons@c086b79a760fb13f0d0f0cd6450f008e33bd6432,
# argocd/bootstrap/control-plane/addons/aws/addons-aws-oss-karpenter-appset.yaml (MIT-0), lines 1-20 and 42-50,
# shortened
ADDONS_APPSET = """---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: addons-aws-karpenter
spec:
  generators:
    - merge:
        mergeKeys: [server]
        generators:
          - clusters:
              values:
                addonChart: karpenter
                # anything not staging or prod use this version
                addonChartVersion: v0.30.0
                addonChartRepository: public.ecr.aws
  template:
    spec:
      sources:
        - chart: '{{values.addonChart}}/{{values.addonChart}}'
          repoURL: '{{values.addonChartRepository}}'
          targetRevision: '{{values.addonChartVersion}}'
"""


def test_gitops_bridge_applicationset_generator_values(tmp_path: Path):
    assert _collect(tmp_path, {"addons/karpenter-appset.yaml": ADDONS_APPSET}) == [
        Evidence("0.30.0", "addons/karpenter-appset.yaml", 15, "clusters.values.addonChartVersion")]


def test_yaml_without_a_pin_form_is_not_parsed(tmp_path: Path, monkeypatch):
    from karplint.model import repo_version

    parsed = []
    real = repo_version._parsed_yaml_evidence
    monkeypatch.setattr(repo_version, "_parsed_yaml_evidence", lambda *a: parsed.append(a[0]) or real(*a))
    nodepool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  template:\n"
                "    metadata:\n      labels:\n        karpenter.sh/discovery: dev\n")
    assert _collect(tmp_path, {"np.yaml": nodepool, "values.yaml": GITOPS_BRIDGE_VALUES})[0].version == "1.0.4"
    assert parsed == ["values.yaml"]  # (the NodePool mentions karpenter, but no form that pins a release)


# ------------------------------------------------------------------------------------------------ Terraform

def test_helm_release_with_a_chart_variable_a_local_and_tfvars(tmp_path: Path):
    main = ('locals {\n  karpenter = {\n    version = "0.1.0"\n  }\n  chart_version = "v1.0.8"\n}\n\n'
            'resource "helm_release" "karpenter" {\n  name       = "karpenter"\n'
            '  repository = "oci://public.ecr.aws/karpenter"\n'
            '  chart      = var.karpenter_chart\n  version    = local.chart_version\n}\n\n'
            'resource "helm_release" "crds" {\n  name       = "karpenter-crd"\n  chart      = local.crd_chart\n'
            '  version    = var.karpenter_crd_version\n}\n')
    variables = ('variable "karpenter_chart" {\n  type    = string\n  default = "karpenter"\n}\n'
                 'variable "karpenter_crd_version" {\n  type    = string\n  default = "0.37.0"\n}\n')
    got = _collect(tmp_path, {"infra/main.tf": main, "infra/variables.tf": variables,
                              "infra/terraform.tfvars": 'karpenter_crd_version = "1.0.8"\n'})
    assert got == [
        Evidence("1.0.8", "infra/main.tf", 12, 'helm_release "karpenter" (local.chart_version)'),
        Evidence("1.0.8", "infra/main.tf", 18, 'helm_release "crds" (var.karpenter_crd_version in terraform.tfvars)'),
        Evidence("1.0.8", "infra/terraform.tfvars", 1, "karpenter_crd_version"),
    ]  # (the variable's default 0.37.0 is overridden by terraform.tfvars: not a pin of its own)


# aws-samples/eks-workshop-v2@bb1b30007ba61a406d5efc18e48dff87ea879a36,
# manifests/modules/autoscaling/compute/karpenter/.workshop/terraform/vars.tf (Apache-2.0), lines 37-42
WORKSHOP_VARS_TF = '''variable "karpenter_version" {
  description = "The version of Karpenter to use"
  type        = string
  # renovate: datasource=github-releases depName=aws/karpenter-provider-aws
  default = "1.9.0"
}
'''


def test_a_variable_named_for_karpenter_with_a_default(tmp_path: Path):
    assert _collect(tmp_path, {"terraform/vars.tf": WORKSHOP_VARS_TF}) == [
        Evidence("1.9.0", "terraform/vars.tf", 5, 'variable "karpenter_version" default')]


def test_eks_blueprints_v4_karpenter_helm_config(tmp_path: Path):
    tf = ('module "eks_blueprints_kubernetes_addons" {\n  enable_karpenter = true\n'
          '  karpenter_helm_config = {\n    name    = "karpenter"\n    version = "v0.27.0"\n  }\n}\n')
    assert _collect(tmp_path, {"addons.tf": tf}) == [
        Evidence("0.27.0", "addons.tf", 5, "karpenter_helm_config version")]


# ------------------------------------------------------------------------------------------------ bounds

def test_hostile_helm_commands_stay_cheap(tmp_path: Path):
    unclosed = 'helm upgrade --install karpenter karpenter/karpenter "x ' + "'y " * 3000 + "--version 1.0.6 \\\n"
    last = "helm upgrade --install karpenter karpenter/karpenter --version 1.0.7\n"
    started = time.process_time()
    got = _collect(tmp_path, {"big.sh": unclosed * 150 + "KARPENTER_VERSION=" + "9" * 5000 + ".0.0\n" + last})
    assert time.process_time() - started < 10
    # (the unclosed quotes make the first commands unreadable: nothing; 5,000 digits are no version)
    assert got == [Evidence("1.0.7", "big.sh", 152, "helm upgrade karpenter/karpenter --version")]


def test_evidence_per_file_is_bounded(tmp_path: Path):
    got = _collect(tmp_path, {"pins.env": "KARPENTER_VERSION=1.0.6\n" * 5000,
                              "releases.yaml": "releases:\n" + "  - {chart: karpenter/karpenter, version: 1.0.6}\n" * 5000})
    assert len([e for e in got if e.file == "pins.env"]) == 100
    assert len([e for e in got if e.file == "releases.yaml"]) == 100


# ------------------------------------------------------------------------------------------------ end to end

NODEPOOL_V1BETA1 = '''apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
  limits:
    cpu: 100
  disruption:
    consolidationPolicy: WhenUnderutilized
'''


def test_a_script_pin_reaches_the_check(tmp_path: Path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "karpenter").mkdir()
    (tmp_path / "scripts" / "install.sh").write_text(
        "#!/bin/bash\nhelm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version 0.37.0 \\\n"
        "  --namespace kube-system --wait\n")
    (tmp_path / "karpenter" / "nodepool.yaml").write_text(NODEPOOL_V1BETA1)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for args in (("check", "."), ("check", "karpenter")):
        _code, report, _stderr = run_json(*args, "--no-cache", cwd=tmp_path)
        assert [f for f in report["findings"] if f["code"] == "KPL801"] == []
        assert report["summary"]["karpenter_version"] == "0.37.0"
        assert report["summary"]["karpenter_version_source"] == (
            "helm upgrade oci://public.ecr.aws/karpenter/karpenter --version at scripts/install.sh:2")


def test_a_docs_pin_gives_way_to_a_yaml_pin_of_another_file(tmp_path: Path):
    """A stale install note in the README must not make the Flux pin of the same repository unclear: documentation
    pins only when nothing else does, whichever stage found the other pin (here the per-file stage: YAML)."""
    (tmp_path / "karpenter").mkdir()
    (tmp_path / "flux").mkdir()
    (tmp_path / "README.md").write_text("# Install\n\n```bash\nexport KARPENTER_VERSION=1.0.6\n```\n")
    (tmp_path / "flux" / "karpenter.yaml").write_text(
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karpenter}\nspec:\n"
        "  chart:\n    spec:\n      chart: karpenter\n      version: 0.37.0\n")
    (tmp_path / "karpenter" / "nodepool.yaml").write_text(NODEPOOL_V1BETA1)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for args in (("check", "."), ("check", "karpenter")):
        _code, report, stderr = run_json(*args, "--no-cache", cwd=tmp_path)
        assert [v["version"] for v in report["summary"]["karpenter_versions"]] == ["0.37.0"], stderr
        assert "several Karpenter versions" not in stderr


def test_karplints_own_setting_in_documentation_pins_nothing(tmp_path: Path):
    """`karpenter-version = "1.0.2"` in a Markdown example is karplint's configuration (read where it belongs, in
    .karplint.toml or pyproject.toml), not a release a script installs."""
    from karplint.model.release_scripts import text_evidence

    assert text_evidence("docs/config.md", '```toml\nkarpenter-version = "1.0.2"\n```\n') == []
    assert [e.line for e in text_evidence("ci.env", "KARPENTER_VERSION=1.0.2\n")] == [1]


HELMRELEASE_IN_DOCS = """# A rule's documentation

```yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: karpenter
spec:
  chart:
    spec:
      chart: karpenter
      version: 0.33.0
      sourceRef: {kind: HelmRepository, name: karpenter}
```
"""


def test_a_yaml_example_in_documentation_installs_nothing(tmp_path: Path):
    """A Markdown block showing a HelmRelease is an example, not the repository's deployment: it pins no release
    (karplint's own rules/*.md showed four releases as 'deployed' when the Quickstart was checked in its checkout)."""
    from karplint.testing import run_json

    (tmp_path / ".git").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "KPL999.md").write_text(HELMRELEASE_IN_DOCS)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "np.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
        "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n      requirements: []\n")
    code, report, err = run_json("check", "--no-cache", "deploy", cwd=tmp_path)
    assert "several Karpenter versions" not in err and "0.33.0" not in err
    assert all("0.33.0" not in f["message"] for f in report["findings"])
