"""Findings of the embedded-YAML readers (karplint/readers/embedded.py): Terraform, templates, shell, Markdown."""

from __future__ import annotations

from karplint.rules.base import declare

declare("KPL009", "terraform-object-not-read", category="input", severity="warning",
        summary="A Terraform file holds a Karpenter object in an HCL form karplint does not read "
                "(kubernetes_manifest, yamlencode)")
