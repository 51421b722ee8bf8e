"""Template holes in values (Terraform `${...}`, Helm `{{ ... }}`, karpenter-blueprints `<<VAR>>`): opaque values
that rules must not judge."""

from __future__ import annotations

from typing import Any


def has_placeholder(value: Any) -> bool:
    """A string containing a template hole anywhere; the value is unknown at lint time."""
    return isinstance(value, str) and ("${" in value or "{{" in value or "<<" in value)
