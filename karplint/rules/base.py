"""The rule API.

A rule is a function decorated with `@rule(...)`; it receives one resource (when `kinds` is given), the
documents of one file (`scope="file"`), or the whole run (`scope="run"`), and yields `Violation`s. It never
reads files and never formats output.

A rule that looks across files (`scope="run"`, or a resource rule reading `ctx.model`) declares what it reads:
`reads=(predicate, ...)`, each `predicate(doc, res)` true for the documents it may look at (`res` is None for a
document that is not a resource). The run stage loads only those documents; a run-scope rule without `reads`
makes it load everything. A rule that looks at a little of many documents and never reports on them wraps the
predicate in `model.Parts(predicate, paths)`: only those paths of the documents are kept, without positions.

    @rule("KPL401", "consolidate-after-required", category="disruption", severity="error",
          summary="v1 disruption block without consolidateAfter", kinds=("NodePool",), fix="safe")
    def consolidate_after_required(res, ctx):
        ...
        yield ctx.violation(res, ("spec", "disruption"), "spec.disruption.consolidateAfter is required", on="key")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal

from karplint.readers.document import Document, Path
from karplint.findings import CATEGORIES, SEVERITIES, Fix
from karplint.model import Model, Resource
from karplint.readers.source import Span
from karplint.model.versions import Version


@dataclass(frozen=True)
class Rule:
    code: str
    slug: str
    category: str
    severity: str
    summary: str
    check: Callable | None  # None: emitted by the loader or engine, documented here like any rule
    scope: Literal["resource", "file", "run"] = "resource"
    kinds: tuple[str, ...] = ()
    fix: Literal["safe", "unsafe"] | None = None
    options: dict = field(default_factory=dict)  # option name -> default, settable in [tool.karplint.options]
    reads: tuple[Callable, ...] | None = None  # what a cross-file rule reads (see the module docstring)

    def __post_init__(self):
        assert self.code.startswith("KPL") and len(self.code) == 6 and self.code[3:].isdigit(), self.code
        assert self.category in CATEGORIES, self.category
        assert self.severity in SEVERITIES, self.severity


@dataclass
class Violation:
    """What a rule reports; the engine adds the rule's code, slug, category and configured severity."""

    doc: Document
    span: Span
    message: str
    resource: Resource | None = None
    fix: Fix | None = None
    severity: str | None = None  # override the rule's default for this one (e.g. version-dependent)
    # Reported under another code than the rule's: KPL004 when a budget stopped the rule's work on this input.
    code: str | None = None


@dataclass
class Context:
    """What a rule may know besides the resource: the whole run, the target release, the cluster facts."""

    model: Model
    karpenter_version: Version
    cluster: dict[str, Any]
    options: dict[str, Any]
    version_source: str = "default"  # "default", "config", "cli", or where in the run it was found
    release_candidates: tuple = ()  # the repository's pins when none clearly applies to the file (Config's)
    focus: frozenset | None = None  # (Config.focus) the files whose findings are wanted; None: all

    def in_focus(self, res: Resource) -> bool:
        """Whether a cross-file rule judges `res`: its file's findings are wanted (every file's, but in an editor).
        Only for a rule whose findings on `res` are in `res`'s own file."""
        return self.focus is None or res.doc.source.path in self.focus

    def violation(
        self,
        res: Resource,
        path: Path,
        message: str,
        *,
        on: Literal["value", "key"] = "value",
        fix: Fix | None = None,
        severity: str | None = None,
    ) -> Violation:
        span = res.doc.key_span(path) if on == "key" else res.doc.span(path)
        return Violation(res.doc, span, message, res, fix, severity)

    def too_large(self, res: Resource, path: Path, message: str) -> Violation:
        """KPL004 (input-too-large) from a rule whose budget stopped its work on `res`: what was not judged.
        Rules sharing a budget may each report the same notice; the engine reports it once."""
        return Violation(res.doc, res.doc.span(path), message, res, code="KPL004")

    def at(self, res: Resource | None, doc: Document, span: Span, message: str, *, fix: Fix | None = None,
           severity: str | None = None) -> Violation:
        return Violation(doc, span, message, res, fix, severity)

    def option(self, name: str) -> Any:
        return self.options[name]


REGISTRY: dict[str, Rule] = {}


def rule(
    code: str,
    slug: str,
    *,
    category: str,
    severity: str,
    summary: str,
    kinds: Iterable[str] = (),
    scope: Literal["resource", "file", "run"] | None = None,
    fix: Literal["safe", "unsafe"] | None = None,
    options: dict | None = None,
    reads: Iterable[Callable] | None = None,
):
    """Register a rule. With `kinds`, check(res, ctx) runs per resource of those kinds; else check(model, ctx)
    with the model of one file (`scope="file"`) or of the run."""

    def decorate(fn: Callable | None) -> Callable | None:
        kinds_t = tuple(kinds)
        sc = scope or ("resource" if kinds_t else "run")
        r = Rule(code, slug, category, severity, summary, fn, sc, kinds_t, fix, dict(options or {}),
                 tuple(reads) if reads is not None else None)
        if code in REGISTRY and REGISTRY[code].slug != slug:
            raise ValueError(f"rule code {code} registered twice ({REGISTRY[code].slug}, {slug})")
        if any(o.slug == slug and o.code != code for o in REGISTRY.values()):
            raise ValueError(f"rule slug {slug} registered twice")
        REGISTRY[code] = r
        return fn

    return decorate


def declare(code: str, slug: str, *, category: str, severity: str, summary: str, fix=None) -> None:
    """Register a rule whose findings come from the loader or the engine rather than a check function."""
    rule(code, slug, category=category, severity=severity, summary=summary, fix=fix)(None)
