"""Template holes in values: opaque values that rules must not judge, because their real value is only known
after Terraform, Helm, envsubst or the karpenter-blueprints `<<VAR>>` convention fill them in.

Three strictnesses, each for the question its callers ask:

* `has_placeholder`: any opening delimiter (`${`, `{{`, `<<`): the loosest, for values a rule compares
  (taints, durations, tolerations): better quiet than wrong.
* `is_placeholder`: also shell variables (`$VAR` at the start, `$(...)`): names and references, where an
  envsubst template is common.
* `is_templated`: a complete hole (`${...}`, `<<...>>`, `{{ ... }}`, `{% ... %}`) or a documentation elision
  (`...`): schema and CEL verdicts, which must not be silenced by a stray `<<` in a legitimate value.
"""

from __future__ import annotations

import re
from typing import Any

from karplint.readers.elision import ELISIONS as _ELISIONS

_SHELL_OR_TEMPLATE = re.compile(r"\$\{|\{\{|<<|^\$[A-Za-z_(]|\$\(")
_COMPLETE_HOLE = re.compile(r"\$\{[^}]*\}|<<[^<>]*>>|\{\{.*?\}\}|\{\{-?\s*\S|\{%.*?%\}", re.S)


def has_placeholder(value: Any) -> bool:
    """A string containing a template hole's opening delimiter anywhere; the value is unknown at lint time."""
    return isinstance(value, str) and ("${" in value or "{{" in value or "<<" in value)


def has_placeholder_within(value: Any) -> bool:
    """`has_placeholder` anywhere in a structure: a string, or any key, value or item of nested mappings and lists."""
    if isinstance(value, dict):
        return any(has_placeholder_within(k) or has_placeholder_within(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_placeholder_within(v) for v in value)
    return has_placeholder(value)


def is_placeholder(value: Any) -> bool:
    """`has_placeholder`, or a shell variable or command substitution (`$NAME...`, `$(...)`)."""
    return isinstance(value, str) and bool(_SHELL_OR_TEMPLATE.search(value))


def is_templated(value: Any) -> bool:
    """A string holding a complete template hole anywhere (`${VAR}`, `<<VAR>>`, `{{ .X }}`, `{% ... %}`), or
    that is only an elision (`...`, as documentation snippets write an omitted value)."""
    if not isinstance(value, str):
        return False
    if value.strip() in _ELISIONS:
        return True
    return ("${" in value or "<<" in value or "{{" in value or "{%" in value) and \
        _COMPLETE_HOLE.search(value) is not None
