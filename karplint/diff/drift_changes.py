"""What `karplint.diff.drift` compares: the two sides' specs as the API server stores them (CRD defaults filled
in), their differences with lists read as sets (the drift hash's `SlicesAsSets`), and the upstream sources reasons
cite (the v1.14.1 tags: kubernetes-sigs/karpenter 6e7eab7, aws/karpenter-provider-aws bde0065)."""

from __future__ import annotations

import json
import re
from typing import Any

from karplint.model import Resource
from karplint.model.durations import NEVER, parse_go_duration
from karplint.model.versions import LATEST, Version

CORE = "kubernetes-sigs/karpenter"
AWS = "aws/karpenter-provider-aws"
CORE_SHA, AWS_SHA = "6e7eab7", "bde0065"  # the v1.14.1 tags of both repositories


def core_source(path: str, line: int) -> str:
    return f"{CORE} {path}@{CORE_SHA}#L{line}"


def aws_source(path: str, line: int) -> str:
    return f"{AWS} {path}@{AWS_SHA}#L{line}"


SRC_NODEPOOL_STATIC = core_source("pkg/controllers/nodeclaim/disruption/drift.go", 154)
SRC_NODEPOOL_HASH = core_source("pkg/apis/v1/nodepool.go", 336)
SRC_NODEPOOL_REHASH = core_source("pkg/controllers/nodepool/hash/controller.go", 97)
SRC_OWNER = core_source("pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go", 157)
SRC_NODECLASS_STATIC = aws_source("pkg/cloudprovider/drift.go", 181)
SRC_NODECLASS_HASH = aws_source("pkg/apis/v1/ec2nodeclass.go", 597)
SRC_NODECLASS_REHASH = aws_source("pkg/controllers/nodeclass/hash/controller.go", 88)
SRC_NODECLASS_FINALIZE = aws_source("pkg/controllers/nodeclass/controller.go", 214)
SRC_V1BETA1_HASH = f"{AWS} pkg/apis/v1beta1/ec2nodeclass.go@490ef94#L340"  # (tag v0.37.0)
SRC_AMI = aws_source("pkg/cloudprovider/drift.go", 84)
SRC_AMI_MAP = aws_source("pkg/providers/amifamily/ami.go", 228)
SRC_SUBNET = aws_source("pkg/cloudprovider/drift.go", 112)
SRC_SECURITY_GROUPS = aws_source("pkg/cloudprovider/drift.go", 130)
SRC_RESERVATIONS = aws_source("pkg/cloudprovider/drift.go", 148)

ABSENT = object()  # a key one side does not have


def reason(obj: str, field: str | None, drifts: str, why: str, source: str) -> dict:
    return {"object": obj, "field": field, "drifts": drifts, "why": why, "source": source}



def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def canon(value: Any) -> Any:
    """A comparable form in which lists are sets (the hash's `SlicesAsSets`) and maps are unordered."""
    if isinstance(value, dict):
        return ("map", tuple(sorted(((k, canon(v)) for k, v in value.items() if v is not None), key=repr)))
    if isinstance(value, list):
        return ("set", tuple(sorted((canon(v) for v in value), key=repr)))
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return ("num", value)
    return ("str", str(value))


def same(a: Any, b: Any) -> bool:
    return canon(a) == canon(b)


def is_zero(value: Any) -> bool:
    return value is ABSENT or value is None or value in (False, 0, "") or value == {} or value == []


def field_changes(a: Any, b: Any, path: tuple = ()) -> list[tuple[tuple, Any, Any]]:
    """(path, before, after) of every difference of `b` from `a`; ABSENT for a missing key. Lists that hold the
    same items in another order are no change; lists of the same length are compared item by item."""
    out: list[tuple[tuple, Any, Any]] = []
    _walk(a, b, path, out)
    return out


def _walk(a: Any, b: Any, path: tuple, out: list) -> None:
    if a is None:
        a = ABSENT
    if b is None:
        b = ABSENT
    if a is ABSENT and b is ABSENT or a is not ABSENT and b is not ABSENT and same(a, b):
        return
    if path and path[-1] in DURATION_FIELDS and _seconds(a) is not None and _seconds(a) == _seconds(b):
        return  # ("24h" and "1440m": the hash sees the parsed time.Duration, not the text)
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            _walk(a.get(k, ABSENT), b.get(k, ABSENT), path + (k,), out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, path + (i,), out)
        return
    out.append((path, a, b))


# Duration fields (core pkg/apis/v1/duration.go `NillableDuration`: the text `Raw` is `hash:"ignore"`; metav1.Duration
# holds the parsed value only).
DURATION_FIELDS = frozenset({"expireAfter", "terminationGracePeriod", "consolidateAfter"})


def _seconds(value: Any) -> float | None:
    if value == NEVER:
        return float("inf")
    return parse_go_duration(value) if isinstance(value, str) else None


def with_defaults(value: Any, schema: dict | None) -> Any:
    """`value` with the CRD's defaults filled in where the API server fills them (absent properties of objects
    that are present)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        out = dict(value)
        for k, sub in props.items():
            if not isinstance(sub, dict):
                continue
            if k not in out and "default" in sub:
                out[k] = plain(sub["default"])
            if k in out:
                out[k] = with_defaults(out[k], sub)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [with_defaults(v, schema["items"]) for v in value]
    return value


def stored_spec(res: Resource, release: Version | None) -> dict:
    spec = plain(res.spec)
    try:
        from karplint.schema import schema_for

        found = schema_for(res, release or LATEST)
    except (ValueError, OSError, KeyError, TypeError):  # (an apiVersion no release serves: no defaults)
        found = None
    if found is not None:
        props = found[1].get("properties") if isinstance(found[1], dict) else None
        spec_schema = props.get("spec") if isinstance(props, dict) else None
        spec = with_defaults(spec, spec_schema)
    return spec


def show(value: Any) -> str:
    if value is ABSENT:
        return "unset"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


_HOLE = re.compile(r"\$\{[^}]*\}|<<[^<>]*>>")


def literal_change(a: Any, b: Any) -> bool:
    """Whether `a` and `b` differ outside their template holes (`${...}` of envsubst and Terraform, `<<VAR>>`):
    text added or removed around the holes changes the rendered value whatever they expand to. Helm's `{{ }}` and
    Terraform's `%{ }` directives can drop literal text (`if` blocks), so values holding them never count."""
    texts: list[str] = []
    _strings(a, texts)
    _strings(b, texts)
    if any("{{" in s or "%{" in s for s in texts):
        return False
    return not same(_masked(a), _masked(b))


def _strings(value: Any, out: list) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)
    elif isinstance(value, str):
        out.append(value)


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {_masked(k): _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return _HOLE.sub("\0", value) if isinstance(value, str) else value


# Karpenter's conversion of a v1beta1 NodePool to v1 (kubernetes-sigs/karpenter pkg/apis/v1/nodepool_conversion.go
# `convertFrom` L140-L190@92547d1, v1.0.0): what the API server stores when a file moves from v1beta1 to v1.
SRC_CONVERSION = "kubernetes-sigs/karpenter pkg/apis/v1/nodepool_conversion.go@92547d1#L140"
V1_DEFAULT_EXPIRE_AFTER = "720h"  # (the v1 CRD's default of spec.template.spec.expireAfter)


def nodepool_as_v1(spec: dict, *, from_v1beta1: bool) -> dict | None:
    """The spec of a NodePool as v1 stores it: a v1beta1 spec converted (expireAfter moved into the template,
    nodeClassRef's apiVersion to group with the EC2NodeClass defaults, WhenUnderutilized renamed with
    consolidateAfter 0s), and v1's expireAfter default filled in. None when the conversion moves something karplint
    does not rebuild (a v1beta1 kubelet block goes to an annotation and the EC2NodeClass)."""
    import copy

    s = copy.deepcopy(spec) if isinstance(spec, dict) else {}
    template = s.setdefault("template", {}) if isinstance(s.get("template", {}), dict) else None
    tspec = template.setdefault("spec", {}) if template is not None and isinstance(template.get("spec", {}), dict) \
        else None
    if tspec is None:
        return None
    if from_v1beta1:
        if "kubelet" in tspec:
            return None
        disruption = s.get("disruption") if isinstance(s.get("disruption"), dict) else {}
        if "expireAfter" in disruption:
            tspec["expireAfter"] = disruption.pop("expireAfter")
        if disruption.get("consolidationPolicy") == "WhenUnderutilized":
            disruption["consolidationPolicy"] = "WhenEmptyOrUnderutilized"
            disruption["consolidateAfter"] = "0s"
        ref = tspec.get("nodeClassRef")
        if isinstance(ref, dict):
            api = ref.get("apiVersion")
            tspec["nodeClassRef"] = {"name": ref.get("name"), "kind": ref.get("kind") or "EC2NodeClass",
                                     "group": str(api).split("/")[0] if api else "karpenter.k8s.aws"}
    tspec.setdefault("expireAfter", V1_DEFAULT_EXPIRE_AFTER)
    return s
