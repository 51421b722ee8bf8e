import pytest

from karplint.readers.loader import decode, load
from karplint.model import as_resource
from karplint.userdata import content as ct


def _res(spec: str):
    src = decode("t.yaml", f"apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {{name: a}}\nspec:\n{spec}".encode())
    docs, _ = load(src)
    return as_resource(docs[0])


@pytest.mark.parametrize("spec,family,source", [
    ("  amiFamily: AL2\n", "AL2", "amiFamily"),
    ("  amiFamily: custom\n", "Custom", "amiFamily"),
    ("  amiSelectorTerms:\n    - alias: al2023@latest\n", "AL2023", "alias"),
    ("  amiSelectorTerms:\n    - alias: bottlerocket@v1.20.0\n", "Bottlerocket", "alias"),
    ("  amiSelectorTerms:\n    - alias: windows2022@latest\n", "Windows2022", "alias"),
    ("  amiSelectorTerms:\n    - id: ami-1\n", None, "none"),
])
def test_family(spec, family, source):
    assert ct.family_of(_res(spec)) == (family, source)


def test_v1beta1_defaults_to_al2():
    src = decode("t.yaml", b"apiVersion: karpenter.k8s.aws/v1beta1\nkind: EC2NodeClass\nmetadata: {name: a}\nspec: {}\n")
    docs, _ = load(src)
    assert ct.family_of(as_resource(docs[0])) == ("AL2", "default")


def test_alias_family_with_custom():
    res = _res("  amiFamily: Custom\n  amiSelectorTerms:\n    - alias: bottlerocket@latest\n")
    assert ct.family_of(res)[0] == "Custom" and ct.alias_family(res) == "Bottlerocket"


@pytest.mark.parametrize("text,family,kind", [
    ("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=x\n\n", "AL2", ct.MIME),
    ("  Content-Type: multipart/mixed\n", "AL2023", ct.MIME),
    ("#!/bin/bash\necho hi\n", "AL2", ct.SHELL),
    ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n", "AL2023", ct.NODECONFIG),
    ("spec:\n  kubelet: {}\n", "AL2023", ct.NODECONFIG),
    ("#!/bin/bash\necho hi\n", "AL2023", ct.SHELL),
    ("echo a: b: c\n", "AL2023", ct.SHELL),  # not a YAML map
    ("[settings.kubernetes]\n", "Bottlerocket", ct.TOML),
    ("Write-Host hi\n", "Windows2022", ct.POWERSHELL),
    ("#!/bin/bash\n", "Custom", ct.SHELL),
    ("#cloud-config\nruncmd: []\n", "Custom", ct.CLOUD_CONFIG),
    ("[settings.kubernetes]\ncluster-name = 'x'\n", "Custom", ct.TOML),
    ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n", "Custom", ct.NODECONFIG),
    ("hello\n", "Custom", ct.UNKNOWN),
    ("  \n", "AL2", ct.EMPTY),
])
def test_detect(text, family, kind):
    assert ct.detect(text, family).kind == kind


def test_mime_is_detected_even_though_bashlex_accepts_it():
    import bashlex

    text = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n\necho\n--B--\n'
    bashlex.parse(text)  # "parses" as shell ...
    assert ct.detect(text, "AL2").kind == ct.MIME  # ... but it is MIME


def test_part_kind():
    assert ct.part_kind("text/x-shellscript", "") == ct.SHELL
    assert ct.part_kind("application/node.eks.aws", "") == ct.NODECONFIG
    assert ct.part_kind("", "#!/bin/sh\n") == ct.SHELL
    assert ct.part_kind("application/x-unknown", "") == ct.UNKNOWN
