"""What a run could not read: Karpenter objects in files karplint cannot parse (reported by the CLI from
`karplint/readers/foreign.py`)."""

from __future__ import annotations

from karplint.rules.base import declare

declare("KPL015", "helm-template-not-checked", category="input", severity="info",
        summary="A Helm chart template defines a Karpenter object; check the rendered chart instead")
declare("KPL016", "code-not-checked", category="input", severity="info",
        summary="Program code (CDK, cdk8s, Pulumi) defines a Karpenter object that karplint cannot read")
