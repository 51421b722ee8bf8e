"""YAML embedded in other files: Terraform heredocs and templates, shell heredocs, Markdown and AsciiDoc code blocks.

A host file (the bytes on disk) holds text regions that are YAML. Each region is extracted into a *virtual*
`SourceFile` whose line N is the host's line N (the lines before the region are empty), with the host's
indentation prefix removed (`<<-` heredocs, indented Markdown fences) and escapes undone (Terraform `$${` and
`%%{`). The normal loader parses it; an `Embedding` attached to the virtual source maps every virtual offset
back to the host file, so that spans (`Embedding.span`) and fix edits (`Embedding.fix`) land on the host's
bytes. The engine maps each verdict once, where it resolves it (`engine._resolve`).

    load_host(src) -> (docs, problems)     every region of a host file, problems already on host positions
    host_kind(path) -> str | None          "terraform", "tftemplate", "shell", "markdown", "asciidoc" or None
    worth_reading(kind, raw) -> bool       the cheap pre-check: no `apiVersion` (Terraform: `kind`), no work

Terraform template syntax (https://developer.hashicorp.com/terraform/language/expressions/strings): `${...}`
interpolations stay in the text as template holes (see `readers.templating`); a line holding only `%{ ... }`
directives is emptied (an `%{ else }` branch is dropped, so `if`/`else` defining the same key stay one
definition), an inline `%{` becomes a hole; `$${` and `%%{` are the literal `${` and `%{`.
Where the regions are: `readers.regions` (shell heredocs), `readers.docblocks` (Markdown fences, AsciiDoc blocks).
"""

from __future__ import annotations

import re

from karplint.readers.docblocks import asciidoc_regions, markdown_regions
from karplint.readers.regions import HostText as _Host, Region, shell_regions
from karplint.readers.source import SourceFile, Span
from karplint.readers.virtual import Embedding, build
from karplint.readers.terraform_regions import hcl_notice, hcl_problem as _hcl_problem, terraform_regions

# host kinds by file name ending (lower case); `.yaml.tpl` ends with `.tpl`
_SUFFIXES = (
    (".tf", "terraform"), (".tftpl", "tftemplate"), (".tpl", "tftemplate"),
    (".sh", "shell"), (".bash", "shell"), (".md", "markdown"), (".markdown", "markdown"),
    (".adoc", "asciidoc"), (".asciidoc", "asciidoc"),
)

# Bounds on the work a hostile host file can cause: each region is parsed separately, from a text whose lines
# before the region are empty (so that lines are the host's): regions parsed, and those empty lines in total.
MAX_REGIONS = 2_000
MAX_PADDING = 10_000_000



# a documentation block that names a Karpenter apiVersion: worth a KPL001 when it does not parse
_KARPENTER_API = re.compile(r"""(?m)^[ \t-]*["']?apiVersion["']?[ \t]*:[ \t]*["']?karpenter\.(?:sh|k8s\.aws)/""")


def host_kind(path: str) -> str | None:
    low = path.lower()
    for suffix, kind in _SUFFIXES:
        if low.endswith(suffix):
            return kind
    return None


def worth_reading(kind: str, raw: bytes) -> bool:
    """False when `raw` cannot hold an embedded Kubernetes object (nor, in Terraform, an HCL one): no work."""
    return b"apiVersion" in raw or (kind == "terraform" and (b"kind" in raw or (
        b"helm_release" in raw and b"karpenter" in raw)))  # (chart values: readers/chart_values.py)


# ---------------------------------------------------------------------------------------------- loading

def regions(src: SourceFile, kind: str) -> list[Region]:
    host = _Host(src)
    if kind == "terraform":
        return terraform_regions(host)
    if kind == "tftemplate":
        return [Region(1, len(host.starts) + 1, 0, terraform=True)]
    if kind == "shell":
        return shell_regions(host, 1, len(host.starts) + 1, None)
    if kind == "markdown":
        return markdown_regions(host)
    if kind == "asciidoc":
        return asciidoc_regions(host)
    return []


def load_host(src: SourceFile, kind: str | None = None):
    """(documents, problems) of every Kubernetes YAML region of a host file, on host positions. One region
    with a syntax error never hides the others."""
    from karplint.readers.loader import Problem, load

    kind = kind or host_kind(src.path)
    docs: list = []
    problems: list = []
    if kind is None:
        return docs, problems
    found = regions(src, kind)
    if any(r.local for r in found):  # manifests in locals nothing in the module uses: dead code, not checked
        from karplint.readers.terraform_locals import ModuleUses

        uses = ModuleUses(src.text, src.abspath)
        found = [r for r in found if not r.local or uses.used(r.local)]
    host = _Host(src)
    index = 0
    covered: list[tuple[int, int]] = []
    parsed = padding = 0
    for r in found:
        vsrc = build(host, r, kind)
        if vsrc is None:
            continue
        parsed += 1
        padding += r.first
        if parsed > MAX_REGIONS or padding > MAX_PADDING:
            problems.append(Problem("KPL004", f"more than {MAX_REGIONS:,} embedded YAML regions, or regions too far "
                                    "into a long file, in one file; the rest is not checked", Span.point(r.first, 1)))
            break
        covered.append((r.first - 1, r.end + 1))
        got, probs = load(vsrc)
        if r.guessed and any(p.code == "KPL001" for p in probs):
            continue  # a bare code block read by its content: not YAML after all (console output, prose)
        if (r.terraform or r.shell) and any(p.code == "KPL001" for p in probs) and "${" in vsrc.text:
            # holes where YAML syntax cannot have them: try again with them quoted (never worse)
            vsrc2 = build(host, r, kind, mask=True)
            got2, probs2 = load(vsrc2) if vsrc2 is not None else ([], [])
            if vsrc2 is not None and not any(p.code == "KPL001" for p in probs2):
                vsrc, got, probs = vsrc2, got2, probs2
        if r.markdown and any(p.code == "KPL001" for p in probs):  # a block showing a Go/Helm template?
            from karplint.readers.gotemplate import block_as_template

            block_text = vsrc.text
            got, probs, vsrc = block_as_template(lambda masker: build(host, r, kind, masker=masker), got, probs, vsrc)
            if any(p.code == "KPL001" for p in probs) and not _KARPENTER_API.search(block_text):
                continue  # documentation of other software (a ConfigMap cut with `[...]`): none of karplint's business
        emb = vsrc.embedding
        for p in probs:
            message = p.message
            if r.unterminated and p.code == "KPL001":
                message += (f"\nnote: the heredoc that starts on line {r.first - 1} has no `{r.unterminated}` line: "
                            "the shell reads it to the end of the file")
            problems.append(Problem(p.code, message, emb.span(p.span, vsrc), p.severity))
        base = index
        for d in got:
            d.index += base
            d.fragment = emb.fragment
            index = max(index, d.index + 1)
        index = max(index, base + 1)
        docs.extend(got)
    if kind == "terraform" and "helm_release" in src.text and "karpenter" in src.text:
        from karplint.readers.chart_values import terraform_values

        more, more_problems = terraform_values(src, index)
        docs.extend(more)
        problems.extend(more_problems)
        index += len(more)
    if kind == "terraform" and '"' in src.text:
        hit = hcl_notice(src, covered)
        if hit is not None:
            what, span = hit
            from karplint.readers import hcl

            if hcl.available():
                try:
                    objs, cut = hcl.load_objects(src, Embedding(host_kind="hcl"), index)
                except Exception as exc:  # noqa: BLE001 - an HCL file the grammar fails on: the notice below
                    objs, cut = [], False
                    problems.append(Problem("KPL009", f"Terraform HCL object with kind \"{what}\" could not be read "
                                            f"({type(exc).__name__})", span))
                docs.extend(objs)
                if cut:
                    problems.append(Problem("KPL004", f"more than {hcl.MAX_NODES:,} HCL nodes in Kubernetes objects "
                                            "of one file; the rest is not checked", span))
                elif not objs and not problems:
                    problems.append(_hcl_problem(what, span, installed=True))
            else:
                problems.append(_hcl_problem(what, span, installed=False))
    return docs, problems


def document_count(path: str, text: str) -> int | None:
    """How many documents the regions of a host file's `text` hold, or None when one does not parse (for the
    fixer's check that a fix keeps the file readable)."""
    docs, problems = load_host(SourceFile(path=path, text=text))
    if any(p.code == "KPL001" for p in problems):
        return None
    return len({d.index for d in docs})
