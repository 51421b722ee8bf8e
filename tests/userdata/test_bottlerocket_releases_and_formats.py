"""KPL243 at the target release (what each Karpenter release keeps of Bottlerocket userData), KPL246 (Bottlerocket's
own types outside settings.kubernetes) and KPL247 (userData in another OS's format). Exact code, line and column."""

from __future__ import annotations

import pytest

from karplint.testing import lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: n}}
spec:
{family}
  role: KarpenterNodeRole
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: demo}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: demo}}}}]
  userData: |
{user_data}"""

TEMPLATE = """\
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {{name: n}}
spec:
{family}
  subnetSelector: {{karpenter.sh/discovery: demo}}
  securityGroupSelector: {{karpenter.sh/discovery: demo}}
  userData: |
{user_data}"""


def _doc(user_data: str, family: str = "  amiFamily: Bottlerocket", template: str = NODECLASS) -> str:
    body = "".join(f"    {line}\n" if line else "\n" for line in user_data.splitlines())
    return template.format(family=family, user_data=body)


def _found(text: str, codes: tuple[str, ...], release: str | None = None) -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.column) for f in lint({"n.yaml": text}, karpenter_version=release) if f.code in codes]


# ------------------------------------------------------------------------------------------------ KPL243 by release

CLOUD_PROVIDER = _doc('[settings.kubernetes]\ncloud-provider = "aws"\nmemory-manager-policy = "Static"')


@pytest.mark.parametrize("release, want", [
    ("0.28.0", [("KPL243", 11, 5), ("KPL243", 12, 5)]),  # cloud-provider kept from v0.29.0, memory-manager from 1.10
    ("0.29.0", [("KPL243", 12, 5)]),
    ("1.10.0", []),
    (None, []),  # the newest release keeps both (memory-manager-policy was missing from karplint's table)
])
def test_kubernetes_keys_are_those_the_release_keeps(release, want):
    assert _found(CLOUD_PROVIDER, ("KPL243",), release) == want


def test_a_key_dropped_by_the_release_says_which_release_keeps_it():
    found = [f for f in lint({"n.yaml": CLOUD_PROVIDER}, karpenter_version="0.28.0") if f.line == 11]
    assert found[0].message.startswith("Karpenter 0.28.0 drops settings.kubernetes.cloud-provider\n")
    assert "help: upgrade to Karpenter 0.29.0 or later" in found[0].message


NETWORK = _doc('[settings.network]\nhttps-proxy = "http://proxy"\n[settings.kernel.sysctl]\n"vm.max_map_count" = "1"',
               template=TEMPLATE)


@pytest.mark.parametrize("release, want", [
    ("0.13.1", [("KPL243", 9, 15)]),  # typed settings: [settings.network] dropped, [settings.kernel] kept
    ("0.14.0", []),
    ("0.32.10", []),
])
def test_settings_tables_before_v0_14_are_dropped_on_legacy_objects_too(release, want):
    assert _found(NETWORK, ("KPL243",), release) == want


# ------------------------------------------------------------------------------------------------ KPL246

def test_bottlerocket_model_types_outside_kubernetes():
    text = _doc('[settings.kernel.sysctl]\n"fs.inotify.max_user_watches" = 1048576\n"vm.max_map_count" = "262144"\n'
                '[settings.pki.bundle]\ndata = "eA=="\ntrusted = "true"\n'
                '[settings.container-registry.mirrors]\n"registry" = "r.example.com"\n"docker.io" = ["https://m"]\n'
                '[settings.bootstrap-containers.b]\nsource = "x"\nmode = "sometimes"\nessential = "yes"')
    assert _found(text, ("KPL246",)) == [
        ("KPL246", 11, 5),  # sysctl value is an integer
        ("KPL246", 15, 5),  # trusted = "true"
        ("KPL246", 17, 5),  # table form: "registry" maps to a string, not a list of endpoints
        ("KPL246", 21, 5),  # mode
        ("KPL246", 22, 5),  # essential
    ]
    message = next(f.message for f in lint({"n.yaml": text}) if f.code == "KPL246" and f.line == 11)
    assert message.startswith('"fs.inotify.max_user_watches" is an integer but Bottlerocket expects a string\n')
    assert 'note: the setting is settings.kernel.sysctl."fs.inotify.max_user_watches"' in message
    assert 'help: quote it: "fs.inotify.max_user_watches" = "1048576"' in message


def test_bottlerocket_model_types_right_and_custom():
    good = _doc('[settings.kernel.sysctl]\n"vm.max_map_count" = "262144"\n[settings.pki.bundle]\ntrusted = true\n'
                '[[settings.container-registry.mirrors]]\nregistry = "docker.io"\nendpoint = ["https://m"]\n'
                '[settings.host-containers.admin]\nenabled = true\nsuperpowered = false')
    assert _found(good, ("KPL246",)) == []
    custom = _doc('[settings.kernel.sysctl]\n"vm.max_map_count" = 262144',
                  family="  amiFamily: Custom\n  amiSelectorTerms: [{id: ami-0123456789abcdef0}]")
    assert _found(custom, ("KPL246",)) == [("KPL246", 12, 5)]  # Bottlerocket reads Custom TOML verbatim


# ------------------------------------------------------------------------------------------------ KPL247

NODECONFIG = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 1"


@pytest.mark.parametrize("family, user_data, template, want", [
    ("  amiSelectorTerms: [{alias: al2@latest}]", NODECONFIG, NODECLASS, []),  # an AL2 EC2NodeClass: KPL222's
    ("  amiSelectorTerms: [{alias: windows2019@latest}]", NODECONFIG, NODECLASS, [("KPL247", 10, 5)]),
    ("  amiFamily: Ubuntu", NODECONFIG, NODECLASS, [("KPL247", 10, 5)]),
    ("  amiSelectorTerms: [{alias: al2023@latest}]", NODECONFIG, NODECLASS, []),
    ("  amiSelectorTerms: [{alias: al2023@latest}]", '[settings.kernel.sysctl]\n"a.b" = "1"', NODECLASS,
     [("KPL247", 10, 5)]),
    ("  amiSelectorTerms: [{alias: bottlerocket@latest}]", '[settings.kernel.sysctl]\n"a.b" = "1"', NODECLASS, []),
    ("  amiSelectorTerms: [{alias: windows2022@latest}]", '[settings.kernel.sysctl]\n"a.b" = "1"', NODECLASS,
     [("KPL247", 10, 5)]),
    ("  amiSelector: {aws::name: bottlerocket-*}", '[settings.kernel.sysctl]\n"a.b" = "1"', TEMPLATE,
     [("KPL247", 9, 5)]),  # no amiFamily: AL2 by default
    ("  amiSelectorTerms: [{alias: al2@latest}]", "#!/bin/bash\necho apiVersion: node.eks.aws/v1alpha1", NODECLASS,
     []),
])
def test_userdata_in_another_families_format(family, user_data, template, want):
    assert _found(_doc(user_data, family=family, template=template), ("KPL247",), "0.32.10" if template is TEMPLATE
                  else None) == want


def test_legacy_al2_userdata_is_judged_from_the_release_that_wraps_it_as_a_script():
    text = _doc('[settings.kernel.sysctl]\n"a.b" = "1"', family="  amiSelector: {aws::name: bottlerocket-*}",
                template=TEMPLATE)
    assert _found(text, ("KPL247",), "0.26.0") == [("KPL247", 9, 5)]
    assert _found(text, ("KPL247",), "0.25.0") == []


def test_nodeconfig_in_a_shell_script_part_of_al2023_mime():
    user_data = ('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n'
                 'Content-Type: text/x-shellscript\n\n' + NODECONFIG + '\n--B--')
    text = _doc(user_data, family="  amiSelectorTerms: [{alias: al2023@latest}]")
    found = [f for f in lint({"n.yaml": text}) if f.code == "KPL247"]
    assert [(f.line, f.column) for f in found] == [(16, 5)]
    assert "help: give the part `Content-Type: application/node.eks.aws`" in found[0].message


# ------------------------------------------------------------------------------------------------ KPL231 maxPodsExpression

MAX_PODS_EXPRESSION = ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n"
                       '    maxPodsExpression: "default_enis * (ips_per_eni - 1)"')


@pytest.mark.parametrize("release", ["0.37.0", None])  # before v1.0 too: Karpenter's NodeConfig carries a maxPods
def test_max_pods_expression_is_never_evaluated_under_karpenter(release):
    text = _doc(MAX_PODS_EXPRESSION, family="  amiFamily: AL2023\n  amiSelectorTerms: [{alias: al2023@latest}]")
    found = [f for f in lint({"n.yaml": text}, karpenter_version=release) if f.code == "KPL231"]
    assert [(f.line, f.column, f.severity) for f in found] == [(15, 9, "warning")]
    assert found[0].message.startswith("kubelet.maxPodsExpression is never evaluated")


def test_release_table_ends_where_the_type_table_is():
    """The newest release's kept keys are exactly the typed table (both from bottlerocketsettings.go at v1.14.1)."""
    from karplint.model.versions import LATEST
    from karplint.userdata.bottlerocket import KARPENTER_KUBERNETES_FIELDS
    from karplint.userdata.bottlerocket_releases import kubernetes_keys

    assert kubernetes_keys(LATEST) == frozenset(KARPENTER_KUBERNETES_FIELDS)
