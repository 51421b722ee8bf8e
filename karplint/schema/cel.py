"""Offline evaluation of the CRDs' CEL rules (`x-kubernetes-validations`), as the API server runs them.

kubeconform and friends skip CEL (yannh/kubeconform#236); Karpenter's CRDs carry most of their cross-field checks
there (54 rules in the v1.14.1 EC2NodeClass, 20 in the NodePool). This module evaluates them on a document:

    outcome = evaluate(data, schema)          # data: the resource as plain data; schema: karplint.schema.load_schema
    outcome.failures                          # [Failure(path, report_path, rule, message, error)]
    outcome.unevaluated / .unknown            # rules we could not decide: listed, never passed silently

    cel_coverage(release=None) -> list[dict]  # per release/kind: evaluated, transition and unevaluated rules
    print_coverage(data, out)                 # the `karplint rules --cel-coverage` table

What it mirrors (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel and .../schema/defaulting):
* the object is pruned and defaulted first: unknown fields dropped, `null` in a non-nullable field dropped, then
  every schema `default` applied top-down (defaults of defaults too), as the API server does before validation;
* each rule runs at its node with `self` bound to the value there, converted by the schema's types (integer,
  number -> double, int-or-string kept as is, maps and lists); an absent optional field is absent (`has()` false,
  selecting it is a "no such key" error);
* a rule that evaluates to false fails with its `message` (or `messageExpression`, or "failed rule: <rule>"), a
  rule whose evaluation errors fails with "<error> evaluating rule: <message>" (both reject the object), reported
  at the rule's node or its `fieldPath`, with the `reason` (FieldValueForbidden ...) as the API server words it;
* transition rules (`oldSelf`) only run on updates: without the stored object they are "not applicable offline",
  counted apart, never reported as passing;
* a failing rule that touches a template placeholder (`${VAR}`, `<<VAR>>`, `{{ .X }}`) or a value of the wrong
  type (the structural validator reports those) is "unknown", not reported.

Engine choice. Both PyPI candidates parse all 93 distinct rules of the bundled CRDs; neither ships the Kubernetes
libraries (`find`, `split`, ... are in karplint.schema.celext, shared by both). `common-expression-language` (Rust
`cel` crate via PyO3, 0.10) compiles a rule in ~0.1-2 ms and runs one in tens of microseconds: a v1.14.1 NodePool
costs ~4 ms, walk included. `cel-python` (pure Python on lark, 0.5) needs ~5 ms per compile and ~2-4 ms per run:
~90 ms per NodePool, ~170 ms per EC2NodeClass. Both are actively released on PyPI. The Rust bindings publish
wheels for CPython >= 3.11 only (Requires-Python >= 3.11), so Python 3.10 falls back to cel-python: same rules,
same extension functions, same findings (tests compare the two; `KARPLINT_CEL_ENGINE=celpy|rust` forces one).
Known deviations of the Rust engine from cel-go, which no bundled rule reaches: `size()` of a string counts bytes,
and an error in one element of `all()`/`exists()` is not absorbed by a later false/true (the object is rejected
either way).
"""

from __future__ import annotations

import copy
import logging
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator, TextIO

from karplint.schema import celext

__all__ = [
    "CelRule", "Failure", "Outcome", "Unsupported", "cel_coverage", "compile_rule", "engine_name", "evaluate",
    "print_coverage", "rules_of",
]

Path = tuple

# ---------------------------------------------------------------------------------------------- rules in a schema


@dataclass(frozen=True)
class CelRule:
    rule: str
    message: str | None
    message_expression: str | None
    reason: str | None
    field_path: str | None
    optional_old_self: bool
    scope: str  # where it sits in the schema: ".spec.amiSelectorTerms[].alias", "{}" = map values

    @property
    def transition(self) -> bool:
        """Needs the stored object (`oldSelf`): evaluated by the API server on updates only."""
        return self.optional_old_self or _references_old_self(self.rule)

    @property
    def text(self) -> str:
        return self.message or f"failed rule: {self.rule.strip()}"


@lru_cache(maxsize=None)
def _references_old_self(src: str) -> bool:
    return re.search(r"\boldSelf\b", _strip_strings(src)) is not None


_RULES_AT: dict[int, tuple[dict, tuple]] = {}


def _rules_at(schema: dict, scope: str) -> tuple[CelRule, ...]:
    """The rules at one schema node (cached: bundled schemas are shared, read-only and live for the process)."""
    hit = _RULES_AT.get(id(schema))
    if hit is not None and hit[0] is schema and (not hit[1] or hit[1][0].scope == scope):
        return hit[1]
    rules = _read_rules(schema, scope)
    _RULES_AT[id(schema)] = (schema, rules)
    return rules


def _read_rules(schema: dict, scope: str) -> tuple[CelRule, ...]:
    out = []
    for r in schema.get("x-kubernetes-validations") or ():
        if isinstance(r, dict) and isinstance(r.get("rule"), str):
            out.append(CelRule(r["rule"], r.get("message") or None, r.get("messageExpression") or None,
                               r.get("reason") or None, r.get("fieldPath") or None, bool(r.get("optionalOldSelf")),
                               scope))
    return tuple(out)


def rules_of(schema: dict, scope: str = "") -> Iterator[CelRule]:
    """Every CEL rule of a schema, depth first, with its scope."""
    if not isinstance(schema, dict):
        return
    yield from _rules_at(schema, scope)
    for name, sub in (schema.get("properties") or {}).items():
        yield from rules_of(sub, f"{scope}.{name}")
    if isinstance(schema.get("items"), dict):
        yield from rules_of(schema["items"], scope + "[]")
    if isinstance(schema.get("additionalProperties"), dict):
        yield from rules_of(schema["additionalProperties"], scope + "{}")


# ---------------------------------------------------------------------------------------------- engines

_STRING = re.compile(r"""[rR]?(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")""", re.S)
_CALL = re.compile(r"(?<![\w])([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _strip_strings(src: str) -> str:
    return _STRING.sub("''", src)


@lru_cache(maxsize=None)
def functions_called(src: str) -> frozenset:
    return frozenset(_CALL.findall(_strip_strings(src)))


@lru_cache(maxsize=None)
def fields_selected(src: str) -> frozenset:
    """Field names the rule selects (`x.name`, `has(x.name)`, `x['name']`): what a placeholder must be under to matter."""
    names = set(re.findall(r"\[\s*['\"]([^'\"]+)['\"]\s*\]", src))
    names |= set(re.findall(r"\.\s*([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()", _strip_strings(src)))
    return frozenset(names)


class Unsupported(Exception):
    """A rule this engine cannot evaluate (compile error or a function nobody provides)."""


class _RustEngine:
    name = "common-expression-language"

    def __init__(self):
        logging.getLogger("cel").setLevel(logging.CRITICAL)  # it logs every failed Python callback on stderr
        self._cel = _load_rust_extension()

    def compile(self, src: str) -> Callable[[dict], Any]:
        try:
            prog = self._cel.compile(src)
        except Exception as exc:  # noqa: BLE001 - any parse error
            raise Unsupported(f"does not compile: {_first_line(exc)}") from None
        # only the functions this rule calls: the engine converts every Python callable of the context per call
        called = functions_called(src)
        functions = {name: fn for name, fn in celext.FUNCTIONS.items() if name.rpartition(".")[2] in called}

        def run(variables: dict) -> Any:
            return prog.execute({**variables, **functions} if functions else variables)

        return run


def _load_rust_extension():
    """The compiled `cel.cel` module. The package's __init__ also imports its interactive CLI (prompt_toolkit, ~0.6 s),
    so the extension is loaded by itself when possible (and registered, so a later `import cel` reuses it)."""
    if "cel.cel" in sys.modules:
        return sys.modules["cel.cel"]
    if "cel" in sys.modules:
        import cel  # noqa: PLC0415

        return cel
    try:
        import importlib.machinery
        import importlib.util

        spec = importlib.util.find_spec("cel")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("no module named 'cel'")
        for folder in spec.submodule_search_locations:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "cel" + suffix)
                if os.path.isfile(path):
                    loader = importlib.machinery.ExtensionFileLoader("cel.cel", path)
                    module = importlib.util.module_from_spec(
                        importlib.util.spec_from_file_location("cel.cel", path, loader=loader))
                    loader.exec_module(module)
                    sys.modules["cel.cel"] = module
                    return module
    except ImportError:
        raise
    except Exception:  # noqa: BLE001 - an unexpected layout: the ordinary import below
        pass
    import cel  # noqa: PLC0415

    return cel


class _CelpyEngine:
    name = "cel-python"

    def __init__(self):
        logging.getLogger("celpy").setLevel(logging.CRITICAL)
        import celpy  # noqa: PLC0415

        self._celpy = celpy
        self._env = celpy.Environment()
        conv = celpy.json_to_cel

        def wrap(fn):
            def call(*args):
                try:
                    return _to_celpy(fn(*(_from_celpy(a) for a in args)), conv)
                except (ValueError, TypeError, KeyError, IndexError) as exc:
                    return celpy.CELEvalError(str(exc), type(exc), None)
            return call

        self._functions = {name.rpartition(".")[2]: wrap(fn) for name, fn in celext.FUNCTIONS.items()}

    def compile(self, src: str) -> Callable[[dict], Any]:
        celpy = self._celpy
        try:
            prog = self._env.program(self._env.compile(src), functions=self._functions)
        except Exception as exc:  # noqa: BLE001
            raise Unsupported(f"does not compile: {_first_line(exc)}") from None

        def run(variables: dict) -> Any:
            result = prog.evaluate({k: _to_celpy(v, celpy.json_to_cel) for k, v in variables.items()})
            if isinstance(result, Exception):
                first = result.args[0] if result.args else result
                while isinstance(first, tuple) and first:
                    first = first[0]
                raise RuntimeError(str(first))
            return _from_celpy(result)

        return run


def _to_celpy(value: Any, conv: Callable) -> Any:
    return conv(value)


def _from_celpy(value: Any) -> Any:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return bool(value) if type(value).__name__ == "BoolType" else int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list):
        return [_from_celpy(v) for v in value]
    if isinstance(value, dict):
        return {_from_celpy(k): _from_celpy(v) for k, v in value.items()}
    return value


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


_ENGINES = {"rust": _RustEngine, "celpy": _CelpyEngine}


@lru_cache(maxsize=None)
def _engine():
    """The CEL engine: Rust bindings when installed (Python >= 3.11), else cel-python; KARPLINT_CEL_ENGINE forces."""
    forced = os.environ.get("KARPLINT_CEL_ENGINE", "").strip().lower()
    order = [forced] if forced in _ENGINES else ["rust", "celpy"]
    for key in order:
        try:
            return _ENGINES[key]()
        except ImportError:
            continue
    return None


def engine_name() -> str:
    eng = _engine()
    return eng.name if eng is not None else "none"


@lru_cache(maxsize=None)
def compile_rule(src: str) -> Callable[[dict], Any]:
    """The compiled program for a rule, once per process; raises Unsupported when it cannot be evaluated."""
    eng = _engine()
    if eng is None:
        raise Unsupported("no CEL engine installed (pip install common-expression-language, or cel-python on 3.10)")
    missing = sorted(functions_called(src) - celext.SUPPORTED)
    if missing:
        raise Unsupported("uses functions karplint does not provide: " + ", ".join(missing))
    return eng.compile(src)


def rule_status(rule: CelRule) -> tuple[str, str]:
    """("evaluated" | "transition" | "unevaluated", why)."""
    if rule.transition:
        return "transition", "references oldSelf: only evaluated on updates"
    try:
        compile_rule(rule.rule)
        if rule.message_expression:
            compile_rule(rule.message_expression)
    except Unsupported as exc:
        return "unevaluated", str(exc)
    return "evaluated", ""


# ---------------------------------------------------------------------------------------------- preparing the object


@dataclass
class _Prepared:
    value: Any
    # data paths (as tuples of (segment, is_property)) holding a placeholder or a value of the wrong type
    unknown: list = field(default_factory=list)


_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def _is_templated(value: Any) -> bool:
    from karplint.readers.templating import is_templated

    return is_templated(value)


def prepare(data: Any, schema: dict) -> _Prepared:
    """Prune, default and type the object as the API server would before running CEL."""
    out = _Prepared(None)
    out.value = _prep(data, schema, (), out.unknown)
    return out


def _prep(value: Any, schema: dict, path: tuple, unknown: list) -> Any:
    if not isinstance(schema, dict):
        return value
    if _is_templated(value):
        unknown.append(path)
        return value
    if schema.get("x-kubernetes-int-or-string"):
        if not (isinstance(value, (int, str)) and not isinstance(value, bool)):
            unknown.append(path)
        return value
    if isinstance(value, int) and not isinstance(value, bool) and not -2 ** 63 <= value < 2 ** 63:
        unknown.append(path)  # beyond int64: the API server rejects it when decoding
        return value
    typ = schema.get("type")
    if typ in _TYPES and not _TYPES[typ](value):
        if typ == "integer" and isinstance(value, float) and value.is_integer():
            return int(value)
        unknown.append(path)
        return value
    if typ == "number":
        return float(value)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        addl = schema.get("additionalProperties")
        keep_all = schema.get("x-kubernetes-preserve-unknown-fields") or schema.get("x-kubernetes-embedded-resource")
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                k = _json_key(k)  # YAML 1: or true: keys reach the API server as JSON strings
            if _is_templated(k):
                unknown.append(path + ((k, False),))
            sub = props.get(k)
            if sub is not None:
                if v is None and not sub.get("nullable"):
                    continue  # pruned before defaulting
                out[k] = _prep(v, sub, path + ((k, True),), unknown)
            elif isinstance(addl, dict):
                if v is None and not addl.get("nullable"):
                    continue
                out[k] = _prep(v, addl, path + ((k, False),), unknown)
            elif addl is True or keep_all:
                out[k] = v
            # else: pruned (the structural validator reports unknown fields)
        for k, sub in props.items():
            if k not in out and isinstance(sub, dict) and "default" in sub:
                out[k] = _prep(copy.deepcopy(sub["default"]), sub, path + ((k, True),), unknown)
        for k in schema.get("required") or ():
            if k not in out:  # the structural validator reports it; a rule erring on it is not news
                unknown.append(path + ((k, True, "missing"),))
        return out
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            return [_prep(v, items, path + ((i, False),), unknown) for i, v in enumerate(value)]
        return value
    return value


def _json_key(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    return "null" if k is None else str(k)


# ---------------------------------------------------------------------------------------------- evaluation


@dataclass
class Failure:
    path: Path  # data path of the rule's node
    report_path: Path  # where to report it (the node, or its fieldPath)
    rule: CelRule
    message: str  # as the API server words it, without the path
    error: str | None = None  # the evaluation error, when the rule errored rather than returned false


@dataclass
class Outcome:
    failures: list[Failure] = field(default_factory=list)
    evaluated: int = 0
    transition: int = 0
    unknown: list[tuple[Path, CelRule]] = field(default_factory=list)  # failing, but touching placeholders
    unevaluated: list[tuple[Path, CelRule, str]] = field(default_factory=list)


_REASONS = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
}


def evaluate(data: Any, schema: dict) -> Outcome:
    """Run every CEL rule of `schema` on `data` (a whole resource, `schema` its openAPIV3Schema)."""
    out = Outcome()
    if not isinstance(schema, dict):
        return out
    prepared = prepare(data, schema)
    unknown = prepared.unknown
    _walk(prepared.value, schema, (), "", unknown, out)
    return out


_HAS_RULES: dict[int, tuple[dict, bool]] = {}


def _has_rules(schema: Any) -> bool:
    """Whether the schema node or anything below it carries CEL rules (cached like _rules_at)."""
    if not isinstance(schema, dict):
        return False
    hit = _HAS_RULES.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    found = bool(schema.get("x-kubernetes-validations")) \
        or any(_has_rules(sub) for sub in (schema.get("properties") or {}).values()) \
        or _has_rules(schema.get("items")) or _has_rules(schema.get("additionalProperties"))
    _HAS_RULES[id(schema)] = (schema, found)
    return found


def _walk(value: Any, schema: dict, path: tuple, scope: str, unknown: list, out: Outcome) -> None:
    if value is None or not _has_rules(schema):
        return
    rules = _rules_at(schema, scope)
    if rules:
        plain = tuple(seg for seg, _ in path)
        for r in rules:
            _run(r, value, path, plain, unknown, out)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        addl = schema.get("additionalProperties")
        for k, v in value.items():
            if not path and k == "status":
                continue  # the status subresource: ignored on create and update of the object itself
            sub = props.get(k)
            if sub is not None:
                _walk(v, sub, path + ((k, True),), f"{scope}.{k}", unknown, out)
            elif isinstance(addl, dict):
                _walk(v, addl, path + ((k, False),), scope + "{}", unknown, out)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            _walk(v, schema["items"], path + ((i, False),), scope + "[]", unknown, out)


def _run(r: CelRule, value: Any, path: tuple, plain: Path, unknown: list, out: Outcome) -> None:
    if r.transition:
        out.transition += 1
        return
    try:
        program = compile_rule(r.rule)
    except Unsupported as exc:
        out.unevaluated.append((plain, r, str(exc)))
        return
    out.evaluated += 1
    error = None
    try:
        result = program({"self": value})
        if result is True:
            return
        if result is not False:
            error = f"rule returned {type(result).__name__}, not bool"
    except Exception as exc:  # noqa: BLE001 - every evaluation error rejects the object
        error = _k8s_error(exc)
    if _touches_unknown(r, path, unknown, error):
        out.unknown.append((plain, r))
        return
    message = r.text
    if error is None and r.message_expression:
        message = _message_expression(r, value) or message
    if error is not None:
        message = f"{error} evaluating rule: {r.message or r.rule.strip()}"
    if r.reason in _REASONS:
        message = f"{_REASONS[r.reason]}: {message}"
    out.failures.append(Failure(plain, plain + _field_path(r.field_path), r, message, error))


def _message_expression(r: CelRule, value: Any) -> str | None:
    try:
        text = compile_rule(r.message_expression)({"self": value})
    except Exception:  # noqa: BLE001 - the API server falls back to the message too
        return None
    if isinstance(text, str) and text.strip() and "\n" not in text:
        return text.strip()
    return None


def _k8s_error(exc: BaseException) -> str:
    """The evaluation error in cel-go's words where they differ ("no such key: values")."""
    if isinstance(exc, KeyError):
        return f"no such key: {exc.args[0] if exc.args else ''}"
    text = _first_line(exc)
    m = re.search(r"No such key: (\S+)", text, re.I) or re.search(r"no such member in mapping: '([^']*)'", text)
    if m:
        return f"no such key: {m.group(1)}"
    if "No such overload" in text or "no such overload" in text.lower():
        return "no such overload"
    m = re.search(r"Function '(\w+)' error: (.*?)(?:\. Check function arguments.*)?$", text)
    if m:
        return f"{m.group(1)}: {m.group(2)}"
    return text


def _touches_unknown(r: CelRule, path: tuple, unknown: list, error: str | None) -> bool:
    """Whether a placeholder or mistyped value under the rule's node can change its verdict, or the rule erred on a
    required field that is missing (entries ending in a 3-tuple: reported by the structural validator)."""
    if not unknown:
        return False
    n = len(path)
    names = None
    missing_key = error[len("no such key: "):] if error and error.startswith("no such key: ") else None
    for u in unknown:
        if len(u) <= n - 1 or u[:n] != path:
            continue
        if len(u[-1]) == 3:
            if missing_key is not None and u[-1][0] == missing_key and len(u) > n:
                return True
            continue
        if names is None:
            names = fields_selected(r.rule)
        if all(not is_prop or seg in names for seg, is_prop in u[n:]):
            return True
    return False


_FP_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*'((?:\\.|[^'\\])*)'\s*\]|\[\s*\"((?:\\.|[^\"\\])*)\"\s*\]|\[(\d+)\]")


def _field_path(fp: str | None) -> Path:
    """A rule's fieldPath (".spec.foo", ".labels['a.b/c']", ".items[0]") as a relative data path."""
    if not fp:
        return ()
    out, pos = [], 0
    while pos < len(fp):
        m = _FP_PART.match(fp, pos)
        if not m:
            return tuple(out)
        if m.group(4) is not None:
            out.append(int(m.group(4)))
        else:
            out.append(next(g for g in m.groups()[:3] if g is not None))
        pos = m.end()
    return tuple(out)


# ---------------------------------------------------------------------------------------------- coverage


def cel_coverage(release: str | None = None) -> list[dict]:
    """For each bundled release (or `release`), each kind/version: the CEL rules and whether karplint evaluates them.

    Returns [{"release", "group", "version", "kind", "total", "evaluated", "transition", "unevaluated",
    "coverage", "rules": [{"scope", "rule", "message", "status", "why"}]}]; coverage = evaluated / (total -
    transition) (transition rules cannot apply offline and are counted apart).
    """
    from karplint.schema import _files, load_schema, releases, snapshots

    labels = [release] if release else releases()
    known = set(releases()) | set(snapshots())
    out = []
    for label in labels:
        if label not in known:
            raise ValueError(f"no bundled CRDs for {label!r} (have: {', '.join(releases())})")
        for (lab, group, version, kind) in sorted(k for k in _files() if k[0] == label):
            schema = load_schema(lab, group, version, kind)
            rows = []
            for r in rules_of(schema):
                status, why = rule_status(r)
                rows.append({"scope": r.scope or ".", "rule": r.rule.strip(), "message": r.text, "status": status,
                             "why": why})
            if not rows:
                continue
            counts = {s: sum(1 for x in rows if x["status"] == s) for s in ("evaluated", "transition", "unevaluated")}
            applicable = len(rows) - counts["transition"]
            out.append({"release": lab, "group": group, "version": version, "kind": kind, "total": len(rows),
                        **counts, "coverage": counts["evaluated"] / applicable if applicable else 1.0,
                        "engine": engine_name(), "rules": rows})
    return out


def print_coverage(data: list[dict], out: TextIO | None = None, *, verbose: bool = False) -> None:
    """Plain-text report of `cel_coverage()`; with `verbose`, every rule, else only the ones not evaluated."""
    out = out or sys.stdout
    engine = data[0]["engine"] if data else engine_name()
    out.write(f"CEL engine: {engine}\n")
    out.write(f"{'release':<20} {'kind':<40} {'rules':>5} {'eval':>5} {'trans':>5} {'uneval':>6} {'coverage':>9}\n")
    for row in data:
        kind = f"{row['group']}/{row['version']} {row['kind']}"
        out.write(f"{row['release']:<20} {kind:<40} {row['total']:>5} {row['evaluated']:>5} {row['transition']:>5} "
                  f"{row['unevaluated']:>6} {row['coverage'] * 100:>8.1f}%\n")
    for row in data:
        for r in row["rules"]:
            if verbose or r["status"] != "evaluated":
                out.write(f"  {row['release']} {row['kind']} {r['scope']}: {r['status']}"
                          f"{' (' + r['why'] + ')' if r['why'] else ''}: {r['rule'][:100]}\n")
