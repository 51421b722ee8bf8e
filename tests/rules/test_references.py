"""Reference rules (KPL601-KPL608) on tests/fixtures/catalog/references/ and small inline documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from karplint.model.labels import suggest_label_key
from karplint.testing import codes, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "references"


def _read(*names: str) -> dict[str, str]:
    return {f"deploy/{n}": (FIXTURES / n).read_text(encoding="utf-8") for n in names}


def _found(files, prefix="KPL6", **kw):
    return [(f.file.rsplit("/", 1)[-1], f.code, f.line, f.column) for f in lint(files, **kw)
            if f.code.startswith(prefix)]


def test_pools_against_their_classes():
    assert _found(_read("refs_pools.yaml", "refs_classes.yaml")) == [
        ("refs_classes.yaml", "KPL603", 44, 9),  # orphan
        ("refs_pools.yaml", "KPL601", 12, 15),  # defualt
        ("refs_pools.yaml", "KPL606", 14, 16),  # karpenter.sh/capacity_type
        ("refs_pools.yaml", "KPL602", 26, 16),  # group karpenter.sh
        ("refs_pools.yaml", "KPL607", 49, 11),  # linux on windows2022
        ("refs_pools.yaml", "KPL605", 52, 11),  # label team: search vs NotIn
        ("refs_pools.yaml", "KPL605", 58, 11),  # Gte 8, Lte 4
        ("refs_pools.yaml", "KPL605", 65, 11),  # minValues 2 after NotIn
        ("refs_pools.yaml", "KPL604", 72, 9),  # second `general`
        ("refs_pools.yaml", "KPL608", 72, 9),  # same as wrong-group
        ("refs_pools.yaml", "KPL608", 88, 9),  # same as wrong-group
    ]


def test_without_classes_in_the_run_nothing_is_missing_or_contradicts_a_family():
    codes_seen = {c for _, c, _, _ in _found(_read("refs_pools.yaml"))}
    assert not codes_seen & {"KPL601", "KPL603", "KPL607"}


def test_workloads():
    assert _found(_read("refs_workloads.yaml")) == [
        ("refs_workloads.yaml", "KPL606", 16, 9),  # nodeSelector key
        ("refs_workloads.yaml", "KPL605", 22, 21),  # nodeSelector arm64 vs term amd64
        ("refs_workloads.yaml", "KPL605", 28, 29),  # Gt six
        ("refs_workloads.yaml", "KPL606", 31, 24),  # topologyKey
        ("refs_workloads.yaml", "KPL604", 42, 9),  # same Deployment in the same namespace
    ]


def test_messages():
    findings = {(f.code, f.line): f.message for f in lint(_read("refs_pools.yaml", "refs_classes.yaml"))}
    assert "`defualt`" in findings[("KPL601", 12)] and "default" in findings[("KPL601", 12)]
    assert "did you mean `karpenter.sh/capacity-type`" in findings[("KPL606", 14)]
    assert "Windows2022" in findings[("KPL607", 49)] and "refs_classes.yaml:22" in findings[("KPL607", 49)]
    assert "minValues is 2" in findings[("KPL605", 65)]
    assert "line 5" in findings[("KPL604", 72)]


POOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef:
        group: {group}
        kind: {kind}
        name: {ref}
      requirements:
{requirements}
"""


def pool(name="default", group="karpenter.k8s.aws", kind="EC2NodeClass", ref="default", requirements="        []"):
    return POOL.format(name=name, group=group, kind=kind, ref=ref, requirements=requirements)


def req(key, op, values=None):
    vals = "" if values is None else f"\n          values: {values}"
    return f"        - key: {key}\n          operator: {op}{vals}"


@pytest.mark.parametrize("reqs,expected", [
    ([req("kubernetes.io/arch", "In", '["amd64"]'), req("kubernetes.io/arch", "DoesNotExist")], True),
    ([req("example.com/x", "Exists"), req("example.com/x", "DoesNotExist")], True),
    ([req("kubernetes.io/arch", "In", '["amd64"]'), req("kubernetes.io/arch", "In", '["arm64"]')], True),
    ([req("karpenter.k8s.aws/instance-cpu", "In", '["2", "4"]'),
      req("karpenter.k8s.aws/instance-cpu", "Gt", '["4"]')], True),
    ([req("karpenter.k8s.aws/instance-cpu", "Gt", '["4"]'),
      req("karpenter.k8s.aws/instance-cpu", "Lt", '["6"]')], False),  # 5 is left
    ([req("kubernetes.io/arch", "NotIn", '["arm64"]'), req("kubernetes.io/arch", "DoesNotExist")], False),
    ([req("kubernetes.io/arch", "In", '["amd64", "arm64"]'), req("kubernetes.io/arch", "NotIn", '["arm64"]')],
     False),
    ([req("karpenter.k8s.aws/instance-cpu", "Gt", '["${MIN}"]'),
      req("karpenter.k8s.aws/instance-cpu", "Lt", '["2"]')], False),  # templated: opaque
])
def test_contradictions(reqs, expected):
    found = [c for c in codes(lint(pool(requirements="\n".join(reqs)))) if c[0] == "KPL605"]
    assert bool(found) is expected


@pytest.mark.parametrize("group,kind,expected", [
    ("karpenter.k8s.aws", "EC2NodeClass", []),
    ("eks.amazonaws.com", "NodeClass", []),  # EKS Auto Mode
    ("karpenter.kwok.sh", "KWOKNodeClass", []),
    ("example.com", "MyNodeClass", []),  # a provider karplint does not know
    ("karpenter.sh", "EC2NodeClass", [("KPL602", 9, 16)]),
    ("karpenter.k8s.aws", "NodeClass", [("KPL602", 10, 15)]),
    ("karpenter.k8s.aws", "ec2nodeclass", [("KPL602", 10, 15)]),
    ("eks.amazonaws.com", "EC2NodeClass", [("KPL602", 10, 15)]),
    ("karpenter.k8s.aws/v1", "EC2NodeClass", []),  # `/` in group: the CRD pattern's to report
])
def test_group_and_kind(group, kind, expected):
    assert [c for c in codes(lint(pool(group=group, kind=kind))) if c[0] == "KPL602"] == expected


def test_v1beta1_api_version_form():
    text = pool().replace("group: karpenter.k8s.aws", "apiVersion: karpenter.sh/v1beta1").replace(
        "karpenter.sh/v1\n", "karpenter.sh/v1beta1\n", 1)
    assert [c for c in codes(lint(text)) if c[0] == "KPL602"] == [("KPL602", 9, 21)]


def test_templated_reference_is_opaque():
    files = {"a.yaml": pool(ref="${NODECLASS}"), "b.yaml": (FIXTURES / "refs_classes.yaml").read_text()}
    assert not [f for f in lint(files) if f.code in ("KPL601", "KPL603")]


def test_unreferenced_class_only_in_files_in_use():
    classes = (FIXTURES / "refs_classes.yaml").read_text()
    in_use = {"pools/a.yaml": pool(), "classes/c.yaml": classes}
    assert [(f.file, f.line) for f in lint(in_use) if f.code == "KPL603"] == [
        ("classes/c.yaml", 17), ("classes/c.yaml", 31), ("classes/c.yaml", 44)]
    standalone = {"pools/a.yaml": pool(ref="other"), "classes/c.yaml": classes,
                  "other.yaml": classes.split("---")[0].replace("name: default", "name: other")}
    assert not [f for f in lint(standalone) if f.code == "KPL603"]


def test_duplicates_only_within_one_file():
    assert not [f for f in lint({"dev/np.yaml": pool(), "prod/np.yaml": pool()}) if f.code == "KPL604"]
    assert [c for c in codes(lint(pool() + "---\n" + pool())) if c[0] == "KPL604"] == [("KPL604", 18, 9)]


def test_fragments_without_requirements_do_not_overlap():
    text = pool("a").replace("      requirements:\n        []\n", "") + "---\n" + \
        pool("b").replace("      requirements:\n        []\n", "")
    assert "requirements" not in text
    assert not [f for f in lint(text) if f.code == "KPL608"]


def test_overlap_needs_equal_weight():
    text = pool("a") + "---\n" + pool("b").replace("spec:\n  template", "spec:\n  weight: 10\n  template")
    assert not [f for f in lint(text) if f.code == "KPL608"]


@pytest.mark.parametrize("key,suggestion", [
    ("karpenter.sh/capacity_type", "karpenter.sh/capacity-type"),
    ("karpenter.k8s.aws/instance-familly", "karpenter.k8s.aws/instance-family"),
    ("kubernetes.io/archs", "kubernetes.io/arch"),
    ("Kubernetes.io/Arch", "kubernetes.io/arch"),
    ("topology.kubernets.io/zone", "topology.kubernetes.io/zone"),
    ("karpenter.sh/instance-family", "karpenter.k8s.aws/instance-family"),
    ("kubernetes.io/instance-type", "node.kubernetes.io/instance-type"),
    ("node.kubernetes.io/arch", "kubernetes.io/arch"),
    ("kubernetes.io/arch", None),
    ("node.kubernetes.io/lifecycle", None),
    ("node-role.kubernetes.io/worker", None),
    ("example.com/zone", None),
    ("team", None),
    ("karpenter.sh/discovery", None),
    ("beta.kubernetes.io/arch", None),
])
def test_label_key_suggestions(key, suggestion):
    assert suggest_label_key(key) == suggestion


def test_corpus_regressions_stay_quiet():
    text = (FIXTURES / "corpus_regressions.yaml").read_text(encoding="utf-8")
    assert [c for c in codes(lint(text)) if c[0][:4] in ("KPL5", "KPL6", "KPL7")] == []
