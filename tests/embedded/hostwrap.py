"""Wrap YAML into host files (a Terraform heredoc, a Markdown block, a shell heredoc) and map lines back."""

from __future__ import annotations

TF_HEAD = 'resource "kubectl_manifest" "x" {\n  # wrapped\n  yaml_body = <<-YAML\n'
TF_INDENT = "    "
TF_TAIL = '  YAML\n}\n'
MD_HEAD = "# Example\n\nSome text.\n\n1. Apply it:\n\n   ```yaml\n"
MD_INDENT = "   "
MD_TAIL = "   ```\n\nMore text.\n"
SH_HEAD = "#!/bin/bash\nset -e\ncat <<'EOF' | kubectl apply -f -\n"
SH_TAIL = "EOF\n"

KINDS = {
    "terraform": ("main.tf", TF_HEAD, TF_INDENT, TF_TAIL),
    "markdown": ("README.md", MD_HEAD, MD_INDENT, MD_TAIL),
    "shell": ("apply.sh", SH_HEAD, "", SH_TAIL),
}


def wrap(kind: str, yaml: str) -> tuple[str, str, int, int]:
    """(file name, host text, line offset, column offset) of `yaml` embedded in a `kind` host."""
    name, head, indent, tail = KINDS[kind]
    if kind == "terraform":
        yaml = yaml.replace("${", "$${").replace("%{", "%%{")
    body = "".join(indent + line if line.strip() else line for line in yaml.splitlines(keepends=True))
    if not body.endswith("\n"):
        body += "\n"
    return name, head + body + tail, head.count("\n"), len(indent)
