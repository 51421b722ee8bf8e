"""Test-only rules with fixes, for exercising the fix machinery independently of the real rules.

`register()` adds them to the registry and returns a function that removes them again (the real rule set,
and the docs tests that walk it, never see them). `python tests/fix/fixrules.py check ...` runs the CLI
with them registered, for subprocess tests.
"""

from __future__ import annotations

from karplint.fix import yamledit
from karplint.findings import Edit, Fix
from karplint.rules.base import REGISTRY, rule

CODES = ("KPL991", "KPL992", "KPL993", "KPL994", "KPL996")


def _rules():
    @rule("KPL991", "test-rename-policy", category="disruption", severity="error",
          summary="test: WhenUnderutilized -> WhenEmptyOrUnderutilized", kinds=("NodePool",), fix="safe")
    def rename_policy(res, ctx):
        path = ("spec", "disruption", "consolidationPolicy")
        if res.get(path) == "WhenUnderutilized":
            edits = yamledit.replace_scalar(res.doc, path, "WhenEmptyOrUnderutilized")
            yield ctx.violation(res, path, "WhenUnderutilized was renamed",
                                fix=Fix("rename to WhenEmptyOrUnderutilized", "safe", edits) if edits else None)

    @rule("KPL992", "test-consolidate-after", category="disruption", severity="error",
          summary="test: add consolidateAfter", kinds=("NodePool",), fix="unsafe")
    def consolidate_after(res, ctx):
        d = res.get(("spec", "disruption"))
        if isinstance(d, dict) and "consolidateAfter" not in d:
            edits = yamledit.insert_entry(res.doc, ("spec", "disruption"), "consolidateAfter", "0s",
                                          after="consolidationPolicy" if "consolidationPolicy" in d else None)
            yield ctx.violation(res, ("spec", "disruption"), "consolidateAfter missing", on="key",
                                fix=Fix("add consolidateAfter: 0s", "unsafe", edits) if edits else None)

    @rule("KPL993", "test-broken-fix", category="disruption", severity="error",
          summary="test: a fix that breaks the YAML", kinds=("NodePool",), fix="safe")
    def broken(res, ctx):
        if res.name == "break-me":
            span = res.doc.span(("metadata", "name"))
            yield ctx.violation(res, ("metadata", "name"), "broken fix",
                                fix=Fix("break it", "safe", (Edit(span.offset, span.end_offset, "[unclosed"),)))

    @rule("KPL994", "test-move-expire", category="disruption", severity="error",
          summary="test: move expireAfter", kinds=("NodePool",), fix="safe")
    def move_expire(res, ctx):
        if res.get(("spec", "disruption", "expireAfter")) is not None:
            edits = yamledit.move_entry(res.doc, ("spec", "disruption", "expireAfter"), ("spec", "template", "spec"))
            yield ctx.violation(res, ("spec", "disruption", "expireAfter"), "moved", on="key",
                                fix=Fix("move expireAfter", "safe", edits) if edits else None)


    @rule("KPL996", "test-raw-unsafe", category="disruption", severity="error",
          summary="test: a hand-written unsafe edit", kinds=("NodePool",), fix="unsafe")
    def raw_unsafe(res, ctx):
        if res.name == "raw":
            span = res.doc.span(("metadata", "name"))
            yield ctx.violation(res, ("metadata", "name"), "rename",
                                fix=Fix("rename", "unsafe", (Edit(span.end_offset, span.end_offset, "-2"),)))


def register():
    saved = {c: REGISTRY.get(c) for c in CODES}
    from karplint.rules import all_rules

    all_rules()
    _rules()

    def unregister():
        for c, r in saved.items():
            if r is None:
                REGISTRY.pop(c, None)
            else:
                REGISTRY[c] = r
    return unregister


if __name__ == "__main__":
    import sys

    register()
    from karplint.cli import main

    sys.argv[0] = "karplint"
    main()
