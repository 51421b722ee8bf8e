"""Structural validation of a Karpenter resource against the CRD schema of the selected release.

    result = check(res, karpenter_version)      # cached per document and target; None: not validated
    result.errors                               # list[SchemaError], positions and messages ready for rules

What the API server does and this module mirrors (apiextensions structural schemas, strict field validation):
* unknown fields are errors (`strict decoding error: unknown field "spec.foo"`), except below
  `x-kubernetes-preserve-unknown-fields` and in free-form maps (`additionalProperties`), and in `metadata`
  (ObjectMeta is not part of a CRD's schema and is validated elsewhere);
* `status` is ignored (every Karpenter CRD has the status subresource: create and update drop it);
* `null` for a field that is not `nullable` is pruned before validation (an empty `consolidateAfter:` is a missing
  one); `x-kubernetes-int-or-string` accepts an integer or a string;
* template placeholders (`${VAR}`, `<<VAR>>`, `{{ .X }}`) and elisions (`...`) make a value unknown: never a
  type, enum, pattern or length error.

Error classes (`SchemaError.kind`): "type", "enum", "pattern", "required", "unknown", "moved", "range", "other".
Fields that moved between apiVersions (v1beta1 -> v1, v1alpha5 -> v1beta1) are the data table `MOVED` and turn
the unknown-field / enum error into a "moved" one, with a `Fix` where the edit is mechanical.
CEL rules (`x-kubernetes-validations`) are not evaluated here: that is karplint.schema.cel.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable

from karplint.readers.document import Document, Path, per_document
from karplint.findings import Fix
from karplint.model import Resource
from karplint.schema import MAIN_SNAPSHOT_PREFIX, Selection, load_schema, releases, select, snapshots
from karplint.readers.templating import is_templated
from karplint.schema.fixes import FIXES, _add_node_class_group, _group_fix, _rename_key_fix
from karplint.schema.moved import MOVED, Moved, _match, find_moved, since
from karplint.schema.webhook import with_webhook_constraints
from karplint.model.versions import KARPENTER_KINDS, V, Version

if TYPE_CHECKING:
    from jsonschema import Draft7Validator

__all__ = [
    "MOVED", "Moved", "Result", "SchemaError", "check", "compile_schema", "format_path", "validate",
]

# ---------------------------------------------------------------------------------------------- paths

_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def format_path(path: Path) -> str:
    """("spec", "template", "spec", "requirements", 0, "key") -> spec.template.spec.requirements[0].key;
    keys that are not identifiers are quoted: labels["karpenter.sh/capacity-type"]."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _SIMPLE_KEY.match(str(part)):
            out += ("." if out else "") + str(part)
        else:
            out += f'["{part}"]'
    return out or "the document"


# ---------------------------------------------------------------------------------------------- schema -> JSON Schema

_COPY = (
    "type", "enum", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems", "required",
)


def compile_schema(s: Any, strict: bool = True) -> Any:
    """An OpenAPI v3 structural schema as a Draft 7 JSON Schema with Kubernetes semantics.

    Unknown fields: `additionalProperties: false` on every object with `properties`, unless it preserves unknown
    fields or already has `additionalProperties` (a map). `nullable` allows null. int-or-string becomes anyOf.
    The root's `metadata` stays free-form.
    """
    if not isinstance(s, dict):
        return s
    out: dict = {k: s[k] for k in _COPY if k in s}
    if s.get("format") in ("int32", "int64", "date-time", "byte", "double", "float"):
        out.pop("format", None)  # not checked by the API server's schema validation (or checked elsewhere)
    preserve = bool(s.get("x-kubernetes-preserve-unknown-fields"))
    if "properties" in s:
        out["properties"] = {k: compile_schema(v, strict) for k, v in s["properties"].items()}
    if "items" in s:
        out["items"] = compile_schema(s["items"], strict)
    if "additionalProperties" in s:
        ap = s["additionalProperties"]
        out["additionalProperties"] = compile_schema(ap, strict) if isinstance(ap, dict) else ap
    elif strict and "properties" in s and not preserve:
        out["additionalProperties"] = False
    for key in ("anyOf", "allOf", "oneOf"):
        if key in s:
            out[key] = [compile_schema(x, strict) for x in s[key]]
    if "not" in s:
        out["not"] = compile_schema(s["not"], strict)
    if s.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if s.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"] if isinstance(out["type"], str) else list(out["type"]) + ["null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = list(out["enum"]) + [None]
    return out


@lru_cache(maxsize=None)
def _validator(release: str, group: str, version: str, kind: str) -> tuple[Draft7Validator, dict] | None:
    raw = load_schema(release, group, version, kind)
    if raw is None:
        return None
    raw = with_webhook_constraints(raw, group, version, kind)
    from jsonschema import Draft7Validator  # not at the top: ~0.1 s of imports that runs without Karpenter kinds skip

    compiled = compile_schema(raw)
    props = compiled.get("properties", {})
    if "metadata" in props:
        props["metadata"] = {"type": "object"}  # ObjectMeta: validated by the API server, not by the CRD schema
    return Draft7Validator(compiled), raw


# ---------------------------------------------------------------------------------------------- null pruning

def _prune(value: Any, schema: Any) -> Any:
    """Drop null values of non-nullable fields (the API server prunes them before validating)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        ap = schema.get("additionalProperties")
        out = {}
        for k, v in value.items():
            sub = props.get(k, ap if isinstance(ap, dict) else None)
            if v is None and sub is not None and not sub.get("nullable"):
                continue
            out[k] = _prune(v, sub) if sub is not None else v
        return out
    if isinstance(value, list):
        items = schema.get("items")
        return [_prune(v, items) for v in value] if isinstance(items, dict) else value
    return value


def _sub_schema(schema: dict, path: Path) -> dict | None:
    """The (raw) schema node at an instance path."""
    cur = schema
    for part in path:
        if not isinstance(cur, dict):
            return None
        if isinstance(part, int):
            cur = cur.get("items")
        else:
            props = cur.get("properties") or {}
            if part in props:
                cur = props[part]
            elif isinstance(cur.get("additionalProperties"), dict):
                cur = cur["additionalProperties"]
            else:
                return None
    return cur if isinstance(cur, dict) else None


# ---------------------------------------------------------------------------------------------- errors

@dataclass(frozen=True)
class SchemaError:
    kind: str  # "type" | "enum" | "pattern" | "required" | "unknown" | "moved" | "range" | "other"
    path: Path  # where the finding belongs (the value, the unknown key, or the parent of a missing field)
    on: str  # "value" or "key"
    message: str
    fix: Fix | None = None
    ident: tuple = ()  # release-independent identity, to compare verdicts between two releases
    defer_to: str | None = None  # a catalog rule that reports this very problem (DEFERRED_REQUIRED, DEFERRED_VALUES)


@dataclass
class Result:
    selection: Selection
    errors: list[SchemaError] = field(default_factory=list)
    undecided: list[SchemaError] = field(default_factory=list)  # differ between selection.release and .upper

    @property
    def release(self) -> str:
        return self.selection.release


# Missing required fields that a catalog rule reports with more context: (group, version, kind, parent path, field)
# -> rule code. The schema rule KPL103 stays quiet on them when that rule is registered (one finding per problem).
# Only an absent field is deferred; a present but empty one (`consolidateAfter:`) stays KPL103's.
DEFERRED_REQUIRED: dict[tuple, str] = {
    ("karpenter.sh", "v1", "NodePool", ("spec", "disruption"), "consolidateAfter"): "KPL401",
}
# Values that a catalog rule checks more precisely: (group, versions, kind, path with "*" for items, error class)
# -> rule code. Same deal: KPL101/KPL102 stay quiet there when that rule is registered.
DEFERRED_VALUES: dict[tuple, str] = {
    ("karpenter.sh", ("v1",), "NodePool", ("spec", "disruption", "budgets", "*", "reasons", "*"), "enum"): "KPL405",
    ("karpenter.sh", ("v1", "v1beta1"), "NodePool", ("spec", "disruption", "budgets", "*", "schedule"), "pattern"):
        "KPL403",
}


def _deferred_value(group: str, version: str, kind: str, path: Path, cls: str) -> str | None:
    for (g, versions, k, pattern, c), code in DEFERRED_VALUES.items():
        if g == group and version in versions and k == kind and c == cls and _match(pattern, path):
            return code
    return None

_TYPE_WORDS = {
    "string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
    "object": "a mapping", "array": "a list", "null": "null",
}
_RANGE = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "minItems", "maxItems", "minProperties", "maxProperties",
}

# Human descriptions of the CRDs' recurring patterns.
_PATTERN_WORDS = {
    r"^(([0-9]+(s|m|h))+|Never)$": "a duration in s, m or h (e.g. 720h, 1h30m) or Never; days (d) are not accepted",
    r"^(([0-9]+(s|m|h))+)|(Never)$": "a duration in s, m or h (e.g. 720h, 1h30m) or Never; days (d) are not accepted",
    r"^([0-9]+(s|m|h))+$": "a duration in s, m or h (e.g. 24h, 1h30m); Never and days (d) are not accepted",
    r"^((100|[0-9]{1,2})%|[0-9]+)$": "a node count (e.g. 5) or a percentage from 0% to 100%",
    r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$": "a duration in hours and minutes (e.g. 8h, 1h30m); "
                                                 "seconds are not accepted",
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$":
        "a 5-field cron expression or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly",
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$":
        "a Kubernetes quantity (e.g. 100m, 2Gi, 1000)",
    r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$":
        "a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
    r"^[^/]*$": "an API group without a version (no '/'), e.g. karpenter.k8s.aws",
    r"subnet-[0-9a-z]+": "a subnet id (subnet-...)",
    r"sg-[0-9a-z]+": "a security group id (sg-...)",
    r"ami-[0-9a-z]+": "an AMI id (ami-...)",
    r"^[0-9]{12}$": "a 12-digit AWS account id",
}
_QUALIFIED_NAME = "a qualified name (optional DNS prefix and '/', then letters, digits, '-', '_' or '.')"


def _describe(value: Any) -> str:
    if value is None:
        return "empty (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f'the string "{_short(value, 30)}"'
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _short(text: str, n: int = 60) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def _types_of(schema: dict) -> list[str]:
    t = schema.get("type")
    if t is None and "anyOf" in schema:
        return [x for sub in schema["anyOf"] for x in _types_of(sub)]
    if isinstance(t, str):
        return [t]
    return list(t or [])


def _join_or(words: list[str]) -> str:
    words = list(dict.fromkeys(words))
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# ---------------------------------------------------------------------------------------------- validation

_SHELL_EXPANSION = re.compile(r"\$[A-Za-z_{(]")


def shell_expanded(res: Resource, value: Any) -> bool:
    """A string filled in before the object is applied: `$VAR` or `$(...)` in an unquoted shell heredoc, or in a
    documentation example (a Markdown block: `$CLUSTER_NAME` there stands for the reader's value)."""
    return isinstance(value, str) and _SHELL_EXPANSION.search(value) is not None and _expands(res)


def _expands(res: Resource) -> bool:
    emb = res.doc.source.embedding
    return emb is not None and ("shell" in emb.escape or emb.host_kind == "markdown")


class _Run:
    """Turns jsonschema errors for one document and one release into SchemaErrors."""

    def __init__(self, res: Resource, release: str, raw: dict, target: str | None = None):
        self.res, self.release, self.raw = res, release, raw
        self.target = target or release  # the version named in messages
        self.kind, self.version, self.group = res.kind, res.version, res.group
        self.errors: list[SchemaError] = []
        self.replaced: set[tuple] = set()  # (parent path, field) of required errors a moved field stands for

    def add(self, err: SchemaError) -> None:
        self.errors.append(err)

    def handle(self, e) -> None:
        path = tuple(e.absolute_path)
        v = e.validator
        inst = e.instance
        label = format_path(path)
        if v in ("type", "enum", "pattern", "format") or v in _RANGE:
            if (is_templated(inst) or shell_expanded(self.res, inst)) \
                    and v not in ("minItems", "maxItems", "minProperties", "maxProperties"):
                return
        if v == "additionalProperties":
            props = (e.schema.get("properties") or {})
            for key in inst:
                if key in props or is_templated(key):
                    continue
                self.unknown(path, key, list(props))
            return
        if v == "required":
            missing = [p for p in e.validator_value if p not in inst]
            for name in missing:
                self.required(path, name)
            return
        if v == "type":
            want = _types_of(e.schema) or [str(e.validator_value)]
            msg = f"{label} must be {_join_or([_TYPE_WORDS.get(w, w) for w in want])}, not {_describe(inst)}"
            if "string" in want and isinstance(inst, (bool, int, float)) and not isinstance(inst, dict):
                msg += "\nhelp: quote it"
            elif isinstance(inst, str) and ("integer" in want or "number" in want or "boolean" in want):
                msg += "\nhelp: remove the quotes" if _looks_scalar(inst, want) else ""
            self.add(SchemaError("type", path, "value", msg, ident=("type", path)))
            return
        if v == "anyOf":
            types = [t for sub in e.validator_value for t in _types_of(sub)]
            if all(set(sub) <= {"type", "format"} for sub in e.validator_value):
                msg = f"{label} must be {_join_or([_TYPE_WORDS.get(w, w) for w in types])}, not {_describe(inst)}"
                self.add(SchemaError("type", path, "value", msg, ident=("type", path)))
                return
            for sub in sorted(e.context, key=lambda x: len(x.absolute_path)):
                self.handle(sub)
                return
            return
        if v == "enum":
            moved = find_moved(self.kind, self.version, path, inst, by_value=True)
            if moved is not None:
                self.moved(path, moved, on="value", value=inst)
                return
            allowed = [x for x in e.validator_value if x is not None]
            msg = f"{label} cannot be {_describe(inst)}"
            newer = self.newer_phrase(since(self.kind, path, _hashable(inst), enum=True),
                                      lambda sch: inst in ((_sub_schema(sch, path) or {}).get("enum") or ()),
                                      "accepts it")
            if newer:
                msg = (f"{label} cannot be {_describe(inst)} in Karpenter {self.target}\n"
                       "help: upgrade Karpenter first, or set karpenter-version to the release you run\n"
                       f"note: {newer}; Karpenter {self.target} allows {', '.join(map(str, allowed))}")
            else:
                near = _near(inst, [str(a) for a in allowed]) if isinstance(inst, str) else None
                msg += (f"\nhelp: did you mean {near}?\nnote: allowed: {', '.join(map(str, allowed))}" if near
                        else f"\nhelp: use one of {', '.join(map(str, allowed))}")
            self.add(SchemaError("enum", path, "value", msg, ident=("enum", path, _hashable(inst)),
                                 defer_to=_deferred_value(self.group, self.version, self.kind, path, "enum")))
            return
        if v == "pattern":
            words = _PATTERN_WORDS.get(e.validator_value)
            if words is None and "[-A-Za-z0-9_.]*" in e.validator_value and "/" in e.validator_value:
                words = _QUALIFIED_NAME
            if words is None:
                words = f"a value matching {e.validator_value}"
            msg = f'{label} "{_short(inst, 40)}" is not valid\nhelp: write {words}'
            fix = _group_fix(self.res.doc, path) if path[-2:] == ("nodeClassRef", "group") else None
            self.add(SchemaError("pattern", path, "value", msg, fix, ident=("pattern", path, _hashable(inst)),
                                 defer_to=_deferred_value(self.group, self.version, self.kind, path, "pattern")))
            return
        if v in _RANGE:
            self.add(SchemaError("range", path, "value", _range_message(v, e.validator_value, inst, label),
                                 ident=("range", path, v)))
            return
        self.add(SchemaError("other", path, "value", f"{label}: {e.message}", ident=("other", path, v)))

    def newer_phrase(self, first: str | None, test: Callable[[dict], bool], verb: str) -> str | None:
        """How a newer release has what this one lacks: "Karpenter 1.9.0 and later ..." (`schema.moved.SINCE`),
        else the first newer bundled schema that passes `test`; None when no newer release has it either."""
        if first:
            return f"Karpenter {first} and later {'have' if verb == 'has it' else 'accept'} it"
        try:
            mine = V(self.release)
        except ValueError:
            return None  # a snapshot: nothing newer
        cands = [r for r in releases() if V(r) > mine] + [x for x in snapshots() if x.startswith(MAIN_SNAPSHOT_PREFIX)]
        for rel in cands:
            sch = load_schema(rel, self.group, self.version, self.kind)
            if sch is not None and test(sch):
                where = f"bundled {rel}" if rel[:1].isdigit() else "the provider's main branch, unreleased"
                return f"a newer release {verb} ({where})"
        return None

    def unknown(self, parent: Path, key: str, siblings: list[str]) -> None:
        path = parent + (key,)
        moved = find_moved(self.kind, self.version, path)
        if moved is not None:
            self.moved(path, moved, on="key")
            return
        label = format_path(path)
        article = "an" if self.kind[:1] in "AEIOU" else "a"
        msg = f"{label} is not {article} {self.kind} field"
        why = f"\nnote: {self.res.api_version} rejects unknown fields"
        near = _near(str(key), siblings)
        fix = None
        if near:
            msg += f"\nhelp: did you mean {near}?"
            fix = _rename_key_fix(self.res.doc, path, near)
            self.replaced.add((parent, near))
        else:
            newer = self.newer_phrase(since(self.kind, path), lambda sch: isinstance(_sub_schema(sch, parent), dict)
                                      and key in (_sub_schema(sch, parent).get("properties") or {}), "has it")
            elsewhere = None if newer else _elsewhere(self.raw, str(key), parent)
            if newer:
                msg = (f"{label} is not {article} {self.kind} field in Karpenter {self.target}\n"
                       "help: upgrade Karpenter first, or set karpenter-version to the release you run")
                why = f"\nnote: {newer}"
            elif elsewhere:
                msg += f"\nhelp: it belongs at {format_path(elsewhere)}"
                self.replaced.add((elsewhere[:-1], elsewhere[-1]))
        msg += why
        self.add(SchemaError("unknown", path, "key", msg, fix, ident=("unknown", path)))

    def moved(self, path: Path, moved: Moved, *, on: str, value: Any = None) -> None:
        builder = FIXES.get(moved.fix) if moved.fix else None
        fix = builder(self.res.doc, path) if builder else None
        for name in moved.replaces:
            self.replaced.add((path[:-1], name))
        msg = moved.message.format(path=format_path(path))
        self.add(SchemaError("moved", path, on, msg, fix, ident=("moved", path, _hashable(value))))

    def required(self, parent: Path, name: str) -> None:
        path = parent + (name,)
        label = format_path(path)
        orig_parent = self.res.get(parent) if parent else self.res.data
        if isinstance(orig_parent, dict) and name in orig_parent and orig_parent[name] is None:
            msg = f"{label} is empty; a value is required"
            self.add(SchemaError("required", path, "key", msg, ident=("required", path)))
            return
        if not parent:
            msg = f"{label} is required"
        else:
            msg = f"{label} is required"
        fix = _add_node_class_group(self.res.doc, parent) if name == "group" and parent[-1:] == ("nodeClassRef",) \
            else None
        # On the parent mapping's key (a list item has no key: its first line).
        self.add(SchemaError("required", parent, "key", msg, fix, ident=("required", path),
                             defer_to=self._deferred(parent, name)))

    def _deferred(self, parent: Path, name: str) -> str | None:
        return DEFERRED_REQUIRED.get((self.group, self.version, self.kind, parent, name))

    def finish(self) -> list[SchemaError]:
        out = []
        seen = set()
        for err in self.errors:
            if err.kind == "required" and (err.ident[1][:-1], err.ident[1][-1]) in self.replaced:
                continue
            if err.ident in seen:
                continue
            seen.add(err.ident)
            out.append(err)
        return out


def _looks_scalar(text: str, want: list[str]) -> bool:
    t = text.strip()
    if "boolean" in want and t.lower() in ("true", "false"):
        return True
    return bool(re.fullmatch(r"[-+]?\d+(\.\d+)?", t)) and ("integer" in want or "number" in want)


def _hashable(v: Any) -> Any:
    return v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)


def _near(word: str, options: Iterable[str]) -> str | None:
    options = [o for o in options if o != word]
    lower = {o.lower(): o for o in options}
    if word.lower() in lower:
        return lower[word.lower()]
    got = difflib.get_close_matches(word, options, n=1, cutoff=0.75)
    return got[0] if got else None


def _range_message(v: str, limit: Any, inst: Any, label: str) -> str:
    if v == "minimum":
        return f"{label} must be at least {limit}, not {inst}"
    if v == "maximum":
        return f"{label} must be at most {limit}, not {inst}"
    if v == "exclusiveMinimum":
        return f"{label} must be greater than {limit}, not {inst}"
    if v == "exclusiveMaximum":
        return f"{label} must be less than {limit}, not {inst}"
    if v == "multipleOf":
        return f"{label} must be a multiple of {limit}, not {inst}"
    if v == "minLength":
        return f"{label} must not be shorter than {limit} character{'s' if limit != 1 else ''} (it is {len(inst)})" \
            if limit != 1 else f"{label} must not be empty"
    if v == "maxLength":
        return f"{label} must be at most {limit} characters long (it is {len(inst)})"
    if v == "minItems":
        return f"{label} needs at least {limit} entr{'ies' if limit != 1 else 'y'} (it has {len(inst)})"
    if v == "maxItems":
        return f"{label} allows at most {limit} entries (it has {len(inst)})"
    if v == "minProperties":
        return f"{label} needs at least {limit} key{'s' if limit != 1 else ''} (it has {len(inst)})"
    if v == "maxProperties":
        return f"{label} allows at most {limit} keys (it has {len(inst)})"
    return f"{label} is out of range ({v} {limit})"


_FIELD_INDEX: dict[int, dict[str, list[tuple]]] = {}


def _field_index(raw: dict) -> dict[str, list[tuple]]:
    """field name -> every path (with "*" for list items) where the schema defines it. `raw` is a cached schema."""
    got = _FIELD_INDEX.get(id(raw))
    if got is not None:
        return got
    out: dict[str, list[tuple]] = {}
    stack = [((), raw)]
    while stack:
        path, s = stack.pop()
        if not isinstance(s, dict):
            continue
        for name, sub in (s.get("properties") or {}).items():
            if path == () and name in ("apiVersion", "kind", "metadata", "status"):
                continue
            out.setdefault(name, []).append(path + (name,))
            stack.append((path + (name,), sub))
        if isinstance(s.get("items"), dict):
            stack.append((path + ("*",), s["items"]))
    _FIELD_INDEX[id(raw)] = out
    return out


def _elsewhere(raw: dict, name: str, parent: Path) -> tuple | None:
    """The one place in the schema where `name` is a field, preferring the one closest to `parent`."""
    cands = _field_index(raw).get(name) or []
    if not cands:
        return None
    norm_parent = tuple("*" if isinstance(p, int) else p for p in parent)

    def shared(c):
        n = 0
        for a, b in zip(c, norm_parent):
            if a != b:
                break
            n += 1
        return n

    best = max(shared(c) for c in cands)
    top = [c for c in cands if shared(c) == best]
    if len(top) != 1 or "*" in top[0][best:]:
        return None  # (a place in another list's items is another object: a taint's `operator` is no requirement's)
    # Concrete indexes of the parent where the candidate goes through the same lists.
    out = []
    for i, part in enumerate(top[0]):
        out.append(parent[i] if part == "*" and i < len(parent) and isinstance(parent[i], int) else part)
    return tuple(0 if p == "*" else p for p in out) if "*" not in out else None


# ---------------------------------------------------------------------------------------------- entry points

_CLEAN: set = set()


def validate(res: Resource, release: str, target: str | None = None) -> list[SchemaError] | None:
    """Every structural error of `res` against `release`'s schema for its apiVersion (None: no such schema).
    `target`: the Karpenter version the messages name (default: `release`)."""
    got = _validator(release, res.group, res.version, res.kind)
    if got is None:
        return None
    validator, raw = got
    data = res.data
    if not isinstance(data, dict):
        return None
    # `status` is written by controllers through the status subresource: the API server ignores it on create/update.
    instance = _prune({k: v for k, v in data.items() if k != "status"}, raw)
    # Copies of one manifest (overlays, environments) are common in monorepos: remember what validated cleanly.
    try:
        # (`$VAR` is unknown in an unquoted heredoc or a documentation example: not the same verdict)
        digest = (release, res.group, res.version, res.kind, _expands(res),
                  json.dumps(instance, sort_keys=True, default=repr))
    except (TypeError, ValueError):  # pragma: no cover - keys of mixed types
        digest = None
    if digest is not None and digest in _CLEAN:
        return []
    run = _Run(res, release, raw, target)
    for e in validator.iter_errors(instance):
        run.handle(e)
    errors = run.finish()
    if not errors and digest is not None and len(_CLEAN) < 100_000:
        _CLEAN.add(digest)
    errors.sort(key=lambda x: _order(res.doc, x))
    return errors


def _order(doc: Document, err: SchemaError):
    span = doc.key_span(err.path) if err.on == "key" else doc.span(err.path)
    return (span.line, span.column, err.kind, err.message)


def check(res: Resource, karpenter_version: Version | str) -> Result | None:
    """Validation of `res` for the target version (cached per document: every schema rule of a run asks for it),
    or None when not validated: not a Karpenter kind or no bundled schema. An apiVersion the target does not
    serve is validated against the release that served it (`Selection.unserved`), each message saying which."""
    if res.kind not in KARPENTER_KINDS or not isinstance(res.data, dict):
        return None
    return _check(res, Version.parse(karpenter_version))


def _since_of(kind: str, err: SchemaError) -> str | None:
    if err.ident[:1] == ("unknown",):
        return since(kind, err.ident[1])
    if err.ident[:1] == ("enum",):
        return since(kind, err.ident[1], err.ident[2], enum=True)
    return None


@per_document
def _check(res: Resource, target: Version) -> Result | None:
    sel = select(res.group, res.version, res.kind, target)
    if sel is None:
        return None
    if sel.unserved:  # checked against the API it declares, in the release that served it (KPL801: the rest)
        errors = validate(res, sel.release)
        if errors is None:
            return None
        note = f"\nnote: {sel.note} (Karpenter {target} does not serve it)"
        return Result(sel, [replace(e, message=e.message + note) for e in errors])
    errors = validate(res, sel.release, str(target))
    if errors is None:
        return None
    result = Result(sel)
    if sel.upper and errors:
        other = validate(res, sel.upper, str(target))
        if other is not None:
            upper_ids = {e.ident for e in other}
            for err in errors:
                if err.ident in upper_ids:
                    result.errors.append(err)
                    continue
                first = _since_of(res.kind, err)
                if first is None:
                    result.undecided.append(err)
                elif target < V(first):
                    result.errors.append(err)  # the field or value came later than the target: a real error
                # else: the target has it, the older bundled schema does not: not an error
            return result
    result.errors = errors
    return result
