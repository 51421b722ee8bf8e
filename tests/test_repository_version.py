"""The Karpenter version read from the repository when `karpenter-version` is not set (issue 13): Terraform
helm_release, Flux HelmRelease, Chart.yaml, controller image; several versions: each file gets the nearest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from karplint.model.repo_version import Evidence, assign, terraform_evidence
from karplint.testing import lint, run_cli, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "versions"
PROD_TF = "clusters/prod/karpenter.tf"
DEV_HR = "clusters/dev/karpenter-helmrelease.yaml"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "repo")
    return tmp_path / "repo"


def _got(report):
    return [(f["code"], f["file"], f["line"], f["column"]) for f in report["findings"]]


def test_terraform_helm_release_version_is_used_and_named(tree: Path):
    code, report, _ = run_json("check", "clusters/prod", "--no-cache", cwd=tree)
    # ipPrefixCount: 1.8.0 and later; (KPL151: webhook.enabled, which chart 1.1.0 no longer has)
    assert _got(report) == [("KPL151", PROD_TF, 20, 7), ("KPL104", "clusters/prod/nodeclass.yaml", 10, 3)]
    assert "Karpenter 1.1.0" in report["findings"][1]["message"]
    summary = report["summary"]
    assert summary["karpenter_version"] == "1.1.0"
    assert summary["karpenter_version_source"] == f'helm_release "karpenter" at {PROD_TF}:9'
    text = run_cli("check", "clusters/prod", "--no-cache", "--output-format", "concise", cwd=tree)
    assert text.stdout.splitlines()[-1].endswith(f'Checked against Karpenter 1.1.0 from helm_release "karpenter" at {PROD_TF}:9.')
    settings = run_cli("check", "clusters/prod", "--show-settings", cwd=tree)
    assert f'karpenter version: 1.1.0 (read from helm_release "karpenter" at {PROD_TF}:9; 2 files)' in settings.stdout  # the .tf file is an input too


def test_an_explicit_version_wins(tree: Path):
    _, report, _ = run_json("check", "clusters/prod", "--no-cache", "--karpenter-version", "1.8.3", cwd=tree)
    assert _got(report) == [("KPL151", PROD_TF, 20, 7)] and report["summary"]["karpenter_versions"] == []
    assert report["summary"]["karpenter_version_source"] == "--karpenter-version"


def test_several_versions_each_file_gets_the_nearest(tree: Path):
    code, report, stderr = run_json("check", ".", "--no-cache", cwd=tree)
    assert _got(report) == [("KPL151", PROD_TF, 20, 7), ("KPL104", "clusters/prod/nodeclass.yaml", 10, 3)]  # dev: 1.8.3 has ipPrefixCount
    assert [(v["version"], v["source"], v["files"]) for v in report["summary"]["karpenter_versions"]] == [
        ("1.1.0", f'helm_release "karpenter" at {PROD_TF}:9', 2),  # nodeclass.yaml and the .tf itself
        ("1.8.3", f"HelmRelease karpenter at {DEV_HR}:2", 2),
    ]
    assert "several Karpenter versions are deployed" in stderr


def test_cached_runs_give_the_same_answer(tree: Path, tmp_path: Path):
    env = {"KARPLINT_CACHE_DIR": str(tmp_path / "cache")}
    first = run_json("check", ".", cwd=tree, env=env)[1]
    again = run_json("check", ".", cwd=tree, env=env)[1]
    assert first == again and _got(first) == [("KPL151", PROD_TF, 20, 7), ("KPL104", "clusters/prod/nodeclass.yaml", 10, 3)]
    tf = tree / PROD_TF
    tf.write_text(tf.read_text().replace('"1.1.0"', '"1.8.3"'))  # an upgrade in Terraform only
    assert _got(run_json("check", ".", cwd=tree, env=env)[1]) == [("KPL151", PROD_TF, 20, 7)]


def test_nothing_found_keeps_the_default(tmp_path: Path):
    (tmp_path / "nc.yaml").write_text((FIXTURES / "clusters" / "prod" / "nodeclass.yaml").read_text())
    _, report, _ = run_json("check", ".", "--no-cache", cwd=tmp_path)
    assert report["summary"]["karpenter_version_source"] == "default" and report["findings"] == []


def test_controller_image_in_the_same_run():
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karpenter, namespace: kube-system}\n"
                  "spec:\n  template:\n    spec:\n      containers:\n"
                  "        - name: controller\n          image: public.ecr.aws/karpenter/controller:1.1.0@sha256:abc\n")
    nodeclass = (FIXTURES / "clusters" / "prod" / "nodeclass.yaml").read_text()
    found = lint({"deploy/karpenter.yaml": deployment, "nodeclass.yaml": nodeclass}, config={"select": ["KPL104"]})
    assert [(f.code, f.file, f.line) for f in found] == [("KPL104", "nodeclass.yaml", 10)]


TF_VAR = '''variable "karpenter_version" {
  type    = string
  default = "v1.0.6"
}

resource "helm_release" "karpenter" {
  chart      = "oci://public.ecr.aws/karpenter/karpenter"
  version    = var.karpenter_version

  set {
    name  = "version"
    value = "9.9.9"
  }
}

resource "helm_release" "cilium" {
  chart   = "cilium"
  version = "1.16.0"
}

module "eks_blueprints_addons" {
  enable_karpenter = true
  karpenter = {
    chart_version       = "0.37.0"
    repository_username = data.aws_ecrpublic_authorization_token.token.user_name
  }
}

resource "helm_release" "karpenter_crd" {
  chart   = "karpenter"
  version = "~> 1.0"
}
'''


def test_terraform_forms():
    assert terraform_evidence([("infra/main.tf", TF_VAR)]) == [
        Evidence("1.0.6", "infra/main.tf", 3, 'variable "karpenter_version" default'),  # (its name says so)
        Evidence("1.0.6", "infra/main.tf", 8, 'helm_release "karpenter" (var.karpenter_version default)'),
        Evidence("0.37.0", "infra/main.tf", 24, "karpenter add-on chart_version"),
    ]


def test_assign_by_cluster_and_directory():
    a = Evidence("1.1.0", "clusters/a/karpenter.tf", 1, "x")
    b = Evidence("1.8.3", "clusters/b/flux/karpenter.yaml", 1, "y")
    got = assign(["clusters/a/pools/np.yaml", "clusters/b/np.yaml", "base/np.yaml"], [a, b])
    assert got == {"clusters/a/pools/np.yaml": a, "clusters/b/np.yaml": b}  # base/: a tie, the default stays
    assert assign(["x.yaml"], [a, a._replace(file="other.tf")]) == {"x.yaml": a}


def test_yaml_forms_argo_application_and_chart_dependency():
    from karplint.engine import InputFile, parse_input
    from karplint.model.repo_version import yaml_evidence

    argo = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: karpenter, namespace: argocd}\n"
            "spec:\n  source:\n    repoURL: public.ecr.aws/karpenter\n    chart: karpenter\n"
            "    targetRevision: 1.0.6\n")
    chart = ("apiVersion: v2\nname: platform\nversion: 0.1.0\ndependencies:\n  - name: cilium\n    version: 1.16.0\n"
             "  - name: karpenter\n    version: \"1.1.0\"\n    repository: oci://public.ecr.aws/karpenter\n"
             "  - name: karpenter\n    version: 1.x\n")
    got = []
    for name, text in (("apps/karpenter.yaml", argo), ("charts/platform/Chart.yaml", chart)):
        fr = parse_input(InputFile(name, None, text.encode()), text.encode())
        got += yaml_evidence(fr.documents)
    assert got == [Evidence("1.0.6", "apps/karpenter.yaml", 1, "Application karpenter"),
                   Evidence("1.1.0", "charts/platform/Chart.yaml", 8, "Chart.yaml")]


def test_assign_by_cluster_setting():
    a = Evidence("1.1.0", "infra/prod.tf", 1, "x")  # outside the clusters: shared
    b = Evidence("1.8.3", "clusters/dev/flux/karpenter.yaml", 1, "y")
    cluster = lambda path: path.split("/")[1] if path.startswith("clusters/") else None  # noqa: E731
    got = assign(["clusters/dev/np.yaml", "clusters/prod/np.yaml", "base/np.yaml"], [a, b], cluster)
    assert got == {"clusters/dev/np.yaml": b, "clusters/prod/np.yaml": a, "base/np.yaml": a}


# Excerpt of kuldeep26/github-action-demo1 @bb6a48a0900f karpenter-helm.tf (no licence file; a few lines, quoted to
# test against): a Windows checkout, every line ends in CRLF.
TF_CRLF = (
    'resource "helm_release" "karpenter" {\r\n'
    '  namespace           = "kube-system"\r\n'
    '  name                = "karpenter"\r\n'
    '  repository          = "oci://public.ecr.aws/karpenter"\r\n'
    '  chart               = "karpenter"\r\n'
    '  version             = "0.37.0"\r\n'
    '  create_namespace    = true\r\n'
    '}\r\n'
    'resource "helm_release" "karpenter_crd" {\r\n'
    '  chart   = "karpenter-crd" # CRDs\r\n'
    '  version = "0.37.0" # pinned\r\n'
    '}\r\n'
)


def test_terraform_pins_in_crlf_files_read_like_lf():
    want = [Evidence("0.37.0", "karpenter-helm.tf", 6, 'helm_release "karpenter"'),
            Evidence("0.37.0", "karpenter-helm.tf", 11, 'helm_release "karpenter_crd"')]
    assert terraform_evidence([("karpenter-helm.tf", TF_CRLF.replace("\r\n", "\n"))]) == want
    assert terraform_evidence([("karpenter-helm.tf", TF_CRLF)]) == want
