"""All rules. Each module in this package registers its rules with `@rule`; importing the package loads them.

Code ranges: KPL0xx input and suppression, KPL1xx schema, KPL2xx userdata, KPL3xx taints, KPL4xx disruption,
KPL5xx repair, KPL6xx references, KPL7xx security, KPL8xx deprecation.
"""

from __future__ import annotations

import importlib
import pkgutil

from karplint.rules.base import REGISTRY, Context, Rule, Violation, declare, rule

__all__ = ["REGISTRY", "Context", "Rule", "Violation", "all_rules", "declare", "get_rule", "option_defaults", "rule"]

_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name != "base" and not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


def all_rules() -> list[Rule]:
    _load()
    return sorted(REGISTRY.values(), key=lambda r: r.code)


def get_rule(code_or_slug: str) -> Rule | None:
    _load()
    key = code_or_slug.strip()
    if key.upper() in REGISTRY:
        return REGISTRY[key.upper()]
    for r in REGISTRY.values():
        if r.slug == key.lower():
            return r
    return None


_option_defaults: tuple[int, dict] = (-1, {})


def option_defaults() -> dict:
    """Every rule option (settable in `[tool.karplint.options]`) with its default (a copy; computed again only
    when rules are registered)."""
    global _option_defaults
    _load()
    if _option_defaults[0] != len(REGISTRY):
        _option_defaults = (len(REGISTRY), {name: default for r in all_rules() for name, default in r.options.items()})
    return dict(_option_defaults[1])
