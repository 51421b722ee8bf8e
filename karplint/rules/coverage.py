"""What a run could not read: Karpenter objects in forms karplint does not parse, reported once per file instead of
a silent pass (KPL009 by `karplint/readers/embedded.py`, KPL010 by `karplint/readers/reread.py`, KPL015/KPL016 by
the CLI from `karplint/readers/foreign.py`)."""

from __future__ import annotations

from karplint.rules.base import declare

declare("KPL009", "terraform-object-not-read", category="input", severity="warning",
        summary="A Terraform file holds a Karpenter object in an HCL form karplint does not read "
                "(kubernetes_manifest, yamlencode)")
declare("KPL015", "helm-template-not-checked", category="input", severity="info",
        summary="No longer reported: Helm chart templates are read as templates (KPL005 for a part not read)")
declare("KPL016", "code-not-checked", category="input", severity="info",
        summary="Program code (CDK, cdk8s, Pulumi) defines a Karpenter object that karplint cannot read")
declare("KPL010", "terraform-template-not-read", category="input", severity="info",
        summary="Part of a Terraform template (templatefile()) does not read as YAML once its directives and holes "
                "are set aside; that part is not checked")
