"""Checks Karpenter runs on a NodePool after the API server accepted it (`NodePool.RuntimeValidate`, core
`pkg/apis/v1/nodepool_validation.go` + `nodeclaim_validation.go`). A failure does not reject the object: the
NodePool gets `ValidationSucceeded=False`, is not Ready, and Karpenter provisions nothing from it.

Only what the CRD schema and its CEL rules cannot see is checked here: the schema puts the label-value pattern of
`requirements[].values` at array level (so only the runtime applies it), has no pattern for label keys (map keys),
and knows nothing of taint pairs across two lists or of the capacity types a cloud provider offers. Restricted
label domains are CEL rules in every bundled NodePool CRD (KPL130 reports them), so they are not repeated here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from karplint.rules import rule
from karplint.schema.validate import format_path, shell_expanded
from karplint.readers.templating import is_templated
from karplint.model.versions import V, served

_TEMPLATE = ("spec", "template")
_SPEC = _TEMPLATE + ("spec",)

# k8s.io/apimachinery/pkg/util/validation
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

# Well-known requirement keys with a closed set of values (core `WellKnownValuesForRequirements`), with the release
# that introduced each value.
CAPACITY_TYPE = "karpenter.sh/capacity-type"
WELL_KNOWN_VALUES = {
    CAPACITY_TYPE: {"on-demand": "0.0.0", "spot": "0.0.0", "reserved": "1.3.0"},
}


def label_value_errors(value: str) -> list[str]:
    """validation.IsValidLabelValue."""
    errs = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_VALUE.match(value):
        errs.append("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")
    return errs


def qualified_name_errors(key: str) -> list[str]:
    """validation.IsQualifiedName (label keys: optional DNS subdomain prefix, '/', name)."""
    parts = key.split("/")
    if len(parts) == 1:
        prefix, name = "", parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return ["prefix part must be non-empty"]
    else:
        return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character, with an optional DNS subdomain prefix and '/'"]
    errs = []
    if prefix:
        if len(prefix) > 253:
            errs.append("prefix part must be no more than 253 characters")
        if not _DNS1123_SUBDOMAIN.match(prefix):
            errs.append("prefix part must be a lowercase RFC 1123 subdomain")
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    elif not _QUALIFIED_NAME.match(name):
        errs.append("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                    "an alphanumeric character")
    return errs


_CONSEQUENCE = "note: Karpenter sets ValidationSucceeded=False and provisions nothing from this NodePool"


@dataclass(frozen=True)
class _Layout:
    """Where an API keeps what these checks read, and what its Karpenter does with a failure."""

    labels: tuple  # the node labels mapping
    spec: tuple  # the parent of taints, startupTaints and requirements
    consequence: str


# The same checks ran on the older APIs, at another path for v1alpha5 (kubernetes-sigs/karpenter v0.32.x
# pkg/apis/v1beta1/nodeclaim_validation.go and nodepool_validation.go, pkg/apis/v1alpha5/provisioner_validation.go:
# validateTaints, ValidateRequirement, validateLabels), in the validating webhook before v1.0.
_LAYOUTS = {
    ("karpenter.sh", "v1", "NodePool"): _Layout(_TEMPLATE + ("metadata", "labels"), _SPEC, _CONSEQUENCE),
    ("karpenter.sh", "v1beta1", "NodePool"): _Layout(
        _TEMPLATE + ("metadata", "labels"), _SPEC,
        "note: Karpenter's validation rejects this NodePool: its validating webhook (0.32-0.37) refuses it; from "
        "1.0 it gets ValidationSucceeded=False and Karpenter provisions nothing from it"),
    ("karpenter.sh", "v1alpha5", "Provisioner"): _Layout(
        ("spec", "labels"), ("spec",), "note: Karpenter's validating webhook rejects this Provisioner"),
}


def _layout(res) -> _Layout | None:
    """How to read `res`, checked against the API it declares (KPL801 reports an apiVersion the target does not
    serve, in addition)."""
    return _LAYOUTS.get((res.group, res.version, res.kind))




@rule("KPL140", "duplicate-taint", category="schema", severity="error",
      summary="The same taint key and effect twice across taints and startupTaints: the NodePool is ignored",
      kinds=("NodePool", "Provisioner"))
def duplicate_taint(res, ctx):
    layout = _layout(res)
    if layout is None:
        return
    seen: dict[tuple, tuple] = {}
    for field in ("taints", "startupTaints"):
        items = res.get(layout.spec + (field,))
        if not isinstance(items, list):
            continue
        for i, t in enumerate(items):
            if not isinstance(t, dict):
                continue
            key, effect = t.get("key"), t.get("effect", "")
            if not isinstance(key, str) or not isinstance(effect, str) or is_templated(key) or is_templated(effect):
                continue
            path = layout.spec + (field, i)
            first = seen.get((key, effect))
            if first is None:
                seen[(key, effect)] = path
                continue
            yield ctx.violation(
                res, path + ("key",),
                f"duplicate taint {key}:{effect}\n"
                "help: keep one; a taint that an agent removes belongs in startupTaints only\n"
                f"note: first in {format_path(first)}\n"
                f"{layout.consequence}",
                on="key")


@rule("KPL141", "invalid-requirement-value", category="schema", severity="error",
      summary="A requirements[].values entry that is not a valid label value (only Karpenter's runtime checks it)",
      kinds=("NodePool", "Provisioner"))
def invalid_requirement_value(res, ctx):
    layout = _layout(res)
    if layout is None:
        return
    reqs = res.get(layout.spec + ("requirements",))
    if not isinstance(reqs, list):
        return
    for i, req in enumerate(reqs):
        if not isinstance(req, dict) or not isinstance(req.get("values"), list):
            continue
        key = req.get("key")
        for j, value in enumerate(req["values"]):
            if not isinstance(value, str) or is_templated(value) or shell_expanded(res, value):
                continue  # a non-string is the structural validator's type error
            errs = label_value_errors(value)
            if errs:
                path = layout.spec + ("requirements", i, "values", j)
                yield ctx.violation(
                    res, path, f"invalid label value {value!r} for {key}\n"
                               + "".join(f"help: a label value {e.removeprefix('a valid label ')}\n" for e in errs)
                               + layout.consequence)


@rule("KPL142", "invalid-label-key", category="schema", severity="error",
      summary="A template label key that is not a qualified name (the schema cannot check map keys)",
      kinds=("NodePool", "Provisioner"))
def invalid_label_key(res, ctx):
    layout = _layout(res)
    if layout is None:
        return
    labels = res.get(layout.labels)
    if not isinstance(labels, dict):
        return
    for key in labels:
        if not isinstance(key, str) or is_templated(key):
            continue
        errs = qualified_name_errors(key)
        if errs:
            path = layout.labels + (key,)
            yield ctx.violation(res, path, f"invalid label key {key!r}\n"
                                           + "".join(f"help: {e}\n" for e in errs) + layout.consequence, on="key")


# The release whose runtime validation rejects a requirement with no known value (core `HasKnownValues`,
# kubernetes-sigs/karpenter pkg/apis/v1/labels.go@v1.5.0; absent at v1.4.0). Before it, the value only matches no
# offering (instance types are filtered by their offerings' capacity types), so nothing launches from it.
KNOWN_VALUES_VALIDATED_SINCE = V("1.5.0")


@rule("KPL143", "unknown-capacity-type", category="schema", severity="error",
      summary="karpenter.sh/capacity-type values other than on-demand, spot, reserved",
      kinds=("NodePool", "Provisioner"))
def unknown_capacity_type(res, ctx):
    layout = _layout(res)
    if layout is None or not served(res.group, res.version, res.kind, ctx.karpenter_version)[0]:
        return  # (which values an older release knew is not recorded: only the served API is judged)
    reqs = res.get(layout.spec + ("requirements",))
    if not isinstance(reqs, list):
        return
    target = ctx.karpenter_version
    validated = target >= KNOWN_VALUES_VALIDATED_SINCE
    consequence = (_CONSEQUENCE if validated else
                   f"note: no instance type offers it, so Karpenter {target} launches no node from this {res.kind}")
    for i, req in enumerate(reqs):
        if not isinstance(req, dict) or not isinstance(req.get("key"), str) or req["key"] not in WELL_KNOWN_VALUES \
                or req.get("operator") != "In":
            continue
        values = req.get("values")
        if not isinstance(values, list) or not values or any(is_templated(v) for v in values):
            continue
        known = {v for v, since in WELL_KNOWN_VALUES[req["key"]].items() if target >= V(since)}
        good = [v for v in values if isinstance(v, str) and v in known]  # (a list or map as a value: the schema's)
        bad = [v for v in values if not (isinstance(v, str) and v in known)]
        allowed = ", ".join(sorted(known))
        path = layout.spec + ("requirements", i, "values")
        min_values = req.get("minValues")
        if not good:
            yield ctx.violation(
                res, path, f"no valid {req['key']} value (got {', '.join(map(str, bad))})\n"
                           f"help: use one of {allowed}\n{consequence}")
        elif isinstance(min_values, int) and not isinstance(min_values, bool) and len(good) < min_values \
                and len(values) >= min_values:  # fewer values than minValues at all: a CEL rule (KPL130) says so
            yield ctx.violation(
                res, path, f"only {len(good)} valid {req['key']} value(s), but minValues is {min_values}\n"
                           f"help: valid values are {allowed}\n"
                + (_CONSEQUENCE if validated else
                   f"note: no instance type offers the others, so Karpenter {target} launches no node from this "
                   f"{res.kind}"))
        elif bad:
            for j, v in enumerate(values):
                if v in bad:
                    yield ctx.violation(
                        res, path + (j,),
                        f"{v!r} is not a {req['key']} value\nhelp: use one of {allowed}\n"
                        + ("note: Karpenter logs an error and ignores it" if validated else
                           "note: no instance type offers it, so it never matches"), severity="warning")
