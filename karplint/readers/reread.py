"""A second reading of a file that does not parse as plain YAML because it is not meant to be plain YAML.

    reread(src, host, docs, problems) -> (docs, problems)    after a KPL001 on `src`; as given otherwise

* A Terraform template, the text `templatefile()` renders
  (https://developer.hashicorp.com/terraform/language/functions/templatefile): a `.tftpl`/`.tpl` file, or a
  `.yaml`/`.yml` file with `%{ ... }` directive lines, or with `${...}` holes where YAML syntax cannot have them
  (`values: [${types}]`). It is read as readers/embedded.py reads templates: directive lines dropped, holes kept
  as unknown values, literal keys at their lines. What still does not read as YAML is "not read" (KPL010, info):
  karplint cannot tell a template construct it does not follow from a mistake, and the rendered text may be valid.
* A shell snippet saved with a YAML name: a `.yaml`/`.yml` file whose first line that is neither blank nor a comment
  opens a heredoc (`cat <<EOF | envsubst | kubectl apply -f -`, `kubectl apply -f - <<EOF`). It is read as
  readers/embedded.py reads a `.sh` file: the objects in its heredocs at their lines.
* A `.json` file that holds no Kubernetes object (no "apiVersion" and "kind" keys): JSON with comments (JSONC:
  tsconfig.json, .eslintrc.json, VS Code settings), valid for the tools that read it, or any other JSON that is
  none of karplint's business; a syntax error in it is not reported. A `.json` manifest keeps its KPL001: kubectl
  rejects comments in JSON.
"""

from __future__ import annotations

import re

from karplint.readers.loader import Problem
from karplint.readers.regions import heredoc_command
from karplint.readers.source import SourceFile

_TF_DIRECTIVE_LINE = re.compile(r"(?m)^[ \t]*%\{")  # `%{ if x }`, `%{ for k, v in tags ~}`, `%{ endif }`
_JSON_OBJECT_KEYS = (re.compile(r'"apiVersion"\s*:'), re.compile(r'"kind"\s*:'))


def reread(src: SourceFile, host: str | None, docs: list, problems: list) -> tuple[list, list]:
    """`(docs, problems)` of `src`, read as `host` (None: a `.yaml`, `.yml` or `.json` file), once that reading
    reported a syntax error (KPL001): the second reading when the file is a template or JSON as above."""
    path = src.path.lower()
    if host is None and path.endswith(".json"):
        if all(rx.search(src.text) for rx in _JSON_OBJECT_KEYS):
            return docs, problems
        return [], []
    if host == "tftemplate":
        return docs, _not_read(problems)
    if host is None and path.endswith((".yaml", ".yml")) and _shell_snippet(src.text):
        from karplint.readers.embedded import load_host

        return load_host(src, "shell")
    if host is None and path.endswith((".yaml", ".yml")):
        directives = _TF_DIRECTIVE_LINE.search(src.text) is not None
        if not directives and "${" not in src.text:
            return docs, problems
        from karplint.readers.embedded import load_host

        template_docs, template_problems = load_host(src, "tftemplate")
        if directives:  # a Terraform template for sure: what it holds (nothing, if no Kubernetes object)
            return template_docs, _not_read(template_problems)
        if template_docs and not any(p.code == "KPL001" for p in template_problems):
            return template_docs, template_problems  # holes quoted, the rest plain YAML: `${...}` was the error
    return docs, problems


def _shell_snippet(text: str) -> bool:
    """Does the text's first line that is neither blank nor a comment open a shell heredoc
    (`cat <<EOF | envsubst | kubectl apply -f -`)?"""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return "<<" in line and heredoc_command(line)
    return False


def _not_read(problems: list) -> list:
    """A template's syntax error (KPL001) as the part of it that is not read (KPL010)."""
    return [Problem("KPL010", (
        "this Terraform template does not read as YAML from here once its `%{ ... }` directive lines are dropped "
        "and its `${...}` holes taken as unknown values: this document and the rest of the file are not checked\n"
        f"note: {p.message.split(chr(10), 1)[0]}\n"
        "help: keep each directive on a line of its own and each hole in place of a whole value, or check the "
        "rendered text (`terraform console`: templatefile(...))"), p.span) if p.code == "KPL001" else p
        for p in problems]
