"""KPL147: a v1alpha5 Provisioner with neither spec.provider nor spec.providerRef (aws/karpenter-provider-aws#3343)."""

from __future__ import annotations

import pytest

from karplint.testing import codes, lint

BARE = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  ttlSecondsAfterEmpty: 30
"""


def run(text: str, release: str | None):
    return lint({"p.yaml": text}, config={"select": ["KPL147"]}, karpenter_version=release)


@pytest.mark.parametrize(("release", "said"), [("0.23.0", "accepts it, then fails to launch"),
                                               ("0.24.0", "the validating webhook rejects it")])
def test_neither_provider_nor_provider_ref(release, said):
    found = run(BARE, release)
    assert codes(found) == [("KPL147", 5, 1)]
    assert found[0].severity == "error"
    assert said in found[0].message


def test_release_that_serves_no_provisioner_leaves_it_to_the_api_version_rules():
    assert run(BARE, None) == []
    assert run(BARE, "0.33.0") == []


@pytest.mark.parametrize("extra", ["  providerRef:\n    name: default\n",
                                   "  provider:\n    subnetSelector:\n      karpenter.sh/discovery: c\n"])
def test_either_one_is_enough(extra):
    assert run(BARE + extra, "0.23.0") == []


def test_releases_before_provider_ref_are_not_judged():
    assert run(BARE, "0.9.1") == []
