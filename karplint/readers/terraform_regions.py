"""Where Kubernetes YAML sits in a Terraform file: its heredocs (`yaml_body = <<-YAML`, any `<<EOF`/`<<-EOT`, the
heredocs of a `local-exec` script inside one), each a region readers/embedded.py reads; and the first HCL object
with a Karpenter kind outside them (`kubernetes_manifest`, `yamlencode`: readers/hcl.py reads those), for the
notice when the HCL parser is missing."""

from __future__ import annotations

import re

from karplint.readers.regions import HostText as _Host, Region, min_indent, shell_regions
from karplint.readers.source import SourceFile, Span

_KARPENTER_KINDS = ("NodePool", "EC2NodeClass", "NodeClaim", "Provisioner", "AWSNodeTemplate", "AKSNodeClass")
# `kind = "NodePool"` / `"kind" : "NodePool"` in HCL objects (kubernetes_manifest, yamlencode, jsonencode)
_HCL_KIND = re.compile(r"""(?m)^[ \t]*"?kind"?[ \t]*[=:][ \t]*"(%s)"[ \t]*,?[ \t]*(?:#.*|//.*)?\r?$"""
                       % "|".join(_KARPENTER_KINDS))


_TF_HEREDOC = re.compile(r"<<(-?)([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?$")


def _close(host: _Host, start: int, marker: str) -> int | None:
    """The line closing a Terraform heredoc (the marker alone on a line, indentation allowed)."""
    found = host.candidates(marker, start)
    return found[0] if found else None


def terraform_regions(host: _Host) -> list[Region]:
    from karplint.readers.terraform_locals import LocalsTracker

    out: list[Region] = []
    locals_ = LocalsTracker()  # (a manifest in a local: applied only where `local.NAME` is used)
    n, total = 1, len(host.starts)
    while n <= total:
        line = host.line(n)
        m = _TF_HEREDOC.search(line.rstrip("\n")) if "<<" in line and not line.lstrip().startswith(("#", "//")) \
            else None  # (a commented-out heredoc: its closing line is commented out too)
        if m is None:
            locals_.see(line)
            n += 1
            continue
        end = _close(host, n + 1, m.group(2))
        if end is None:
            n += 1
            continue
        strip = min_indent(host, n + 1, end) if m.group(1) == "-" else 0
        r = Region(n + 1, end, strip, " \t", terraform=True, local=locals_.local_name(line) or "")
        # a shell script with heredocs (local-exec `command = <<-EOT ... kubectl apply -f - <<EOF ... EOF ... EOT`):
        # its heredocs are the regions, not the script
        inner = shell_regions(host, n + 1, end, r)
        out.extend(inner or [r])
        n = end + 1
    return out


def hcl_notice(src: SourceFile, covered: list[tuple[int, int]]):
    """The first `kind = "NodePool"` (an HCL object: kubernetes_manifest, yamlencode) outside the heredocs read."""
    for m in _HCL_KIND.finditer(src.text):
        line, col = src.position_of(m.start(1) - 1)
        if not any(a <= line < b for a, b in covered):
            return m.group(1), Span(line, col, line, col + len(m.group(1)) + 2, m.start(1) - 1, m.end(1) + 1)
    return None


def hcl_problem(what: str, span: Span, installed: bool):
    from karplint.readers.loader import Problem

    why = ("the object is not a literal `{ ... }` with apiVersion and kind keys" if installed else
           "the HCL parser karplint depends on (tree-sitter-hcl) is not installed here, which happens where pip "
           "found no wheel and could not build it: pip install tree-sitter-hcl")
    return Problem("KPL009", f"Terraform HCL object with kind \"{what}\" is not checked\n"
                   f"help: {why}; karplint reads Kubernetes YAML in heredocs (`yaml_body = <<-YAML`) and "
                   "templatefile() templates\nnote: the other Karpenter objects of this file are not checked either; "
                   "one notice per file", span)
