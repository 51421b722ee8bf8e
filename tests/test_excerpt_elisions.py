"""Plain YAML excerpts of documentation: an elision line (`...`, `…`, `# ...`) stands for fields left out.

Never "invalid YAML" (KPL001) because of the elision, no "required" findings (KPL103) for what it leaves out, and
what the excerpt shows is checked as usual. A `...` that YAML reads as it is (a document end) stays YAML.

Excerpts: aws/karpenter-provider-aws @ 1d927085dd81a9df9301e613f371dac5b4d16bfe (Apache-2.0), as
../shared/corpus/karpenter-docs holds them: `website/content/en/docs/faq.md` line 123 (FAQ),
`website/content/en/docs/concepts/nodeclasses.md` line 1245 (NODECLASS, first 7 lines),
`website/content/en/docs/reference/settings.md` line 72 (SETTINGS, first 15 lines),
`website/content/en/docs/concepts/scheduling.md` line 690 (SCHEDULING).
"""

from __future__ import annotations

import pytest

from karplint.readers import fastload
from karplint.testing import lint

FAQ = """\
apiVersion: karpenter.sh/v1
kind: NodePool
...
spec:
  template:
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-hypervisor
          operator: In
          values:
            - nitro
"""

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: bottlerocket-example
spec:
  ...
  amiFamily: Bottlerocket
"""

SETTINGS = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
\u2026
  disruption:
    budgets:
    - nodes: 10%
    # On Weekdays during business hours, don't do any deprovisioning regarding drift.
    - nodes: "0"
      schedule: "0 9 * * mon-fri"
      duration: 8h
      reasons:
      -\tDrifted
"""

SCHEDULING = """\
apiVersion: karpenter.sh/v1
kind: NodePool
spec:
  template:
    spec:
      requirements:
        - key: company.com/team
          operator: Exists
...
"""


@pytest.fixture(params=["libyaml", "ruamel"], autouse=True)
def loader(request, monkeypatch):
    monkeypatch.setattr(fastload, "ENABLED", request.param == "libyaml")


def _found(text: str, name: str = "excerpt.yaml") -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.column) for f in lint({name: text}) if f.severity != "info"]


def test_elision_after_kind_is_not_invalid_yaml_nor_missing_fields():
    assert _found(FAQ) == []  # was KPL103 at 1:1 (spec is required) and KPL001 at 4:1


def test_indented_elision_is_read_as_a_partial_object():
    assert _found(NODECLASS) == []  # was KPL001 at 7:12


def test_what_the_excerpt_shows_is_still_checked():
    typo = NODECLASS.replace("  amiFamily: Bottlerocket", "  amiFamily: Bottlerocket\n  metadataOptions:\n"
                             "    httpTokens: sometimes")
    assert _found(typo) == [("KPL101", 9, 17)]


def test_a_real_error_after_the_elision_is_reported_where_it_is():
    assert _found(SETTINGS) == [("KPL001", 15, 8)]  # the tab, not the `…` line (was KPL001 at 7:13)


def test_elision_comment_marks_an_excerpt():
    commented = SCHEDULING.replace("...\n", "      # ...\n")
    assert _found(commented) == []


def test_document_end_marker_stays_yaml():
    # a file that parses as it is: its `...` is YAML's document end, and the object is checked as a whole
    assert _found(SCHEDULING) == [("KPL103", 5, 5)]
