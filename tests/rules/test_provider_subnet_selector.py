"""KPL108: a v1alpha5 Provisioner's inline provider without subnetSelector, refused by the webhook (rules/KPL108.md)."""

from karplint.testing import lint

PROVISIONER = """apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  provider:
    launchTemplate: MyLaunchTemplate
{extra}"""


def _found(text: str, version: str | None):
    return [(f.line, f.column, f.severity) for f in lint({"p.yaml": text}, karpenter_version=version)
            if f.code == "KPL108"]


def test_inline_provider_without_subnet_selector():
    assert _found(PROVISIONER.format(extra=""), "0.8.2") == [(6, 3, "error")]
    assert _found(PROVISIONER.format(extra=""), "0.31.0") == [(6, 3, "error")]


def test_subnet_selector_present_or_release_out_of_range():
    with_selector = PROVISIONER.format(extra="    subnetSelector:\n      karpenter.sh/discovery: c\n")
    assert _found(with_selector, "0.8.2") == []
    assert _found(PROVISIONER.format(extra=""), "0.4.1") == []  # (before the provider validation)
    assert _found(PROVISIONER.format(extra=""), None) == []  # (not served by the default target: KPL803)


def test_a_documentation_excerpt_is_not_judged_for_what_it_leaves_out():
    excerpt = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\n...\nspec:\n  provider:\n    amiFamily: Bottlerocket\n"
    assert _found(excerpt, "0.31.0") == []
