"""The Kubernetes CEL extension libraries, in Python, for the CEL engines karplint runs (see karplint.schema.cel).

The API server evaluates CRD rules with cel-go plus Kubernetes' libraries (k8s.io/apiserver/pkg/cel/library and
cel-go's `ext.Strings`): the regex, strings, lists, URL and quantity functions below. Neither Python CEL engine ships
them, so they are registered as ordinary functions (`x.f(a)` is `f(x, a)` in CEL). Every function raises
`ValueError` on bad input; the engine turns that into an evaluation error, as cel-go does.

Values crossing the boundary are plain Python (str, int, float, bool, list, dict, None). A Kubernetes Quantity and
URL are opaque CEL types; here they are dicts with one private key (`{"@quantity": "1Gi"}`, `{"@url": "..."}`) so
they survive the round trip through the engine and no rule could build one by accident.

Not provided (a rule using them is listed as unevaluated, never passed): `ip`/`cidr` (Kubernetes 1.30+),
`format.*` named formats, `strings.format`, `authz`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Callable
from urllib.parse import urlsplit

# ---------------------------------------------------------------------------------------------- regex library


@lru_cache(maxsize=256)
def _re(pattern: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regex {pattern!r}: {exc}") from None


def _str(v: Any, fn: str) -> str:
    if not isinstance(v, str):
        raise ValueError(f"no such overload: {fn}({type(v).__name__})")
    return v


def find(s: Any, pattern: Any) -> str:
    """`s.find(re)`: the first match of `re` in `s`, or '' (k8s regex library)."""
    m = _re(_str(pattern, "find")).search(_str(s, "find"))
    return m.group(0) if m else ""


def find_all(s: Any, pattern: Any, limit: Any = -1) -> list:
    """`s.findAll(re[, n])`: all (at most n when n >= 0) matches."""
    out = [m.group(0) for m in _re(_str(pattern, "findAll")).finditer(_str(s, "findAll"))]
    return out if limit < 0 else out[: int(limit)]


# ---------------------------------------------------------------------------------------------- strings (cel-go ext)


def split(s: Any, sep: Any, limit: Any = -1) -> list:
    """`s.split(sep[, n])` as cel-go: n == 0 -> [], n < 0 -> all parts, else at most n parts."""
    s, sep = _str(s, "split"), _str(sep, "split")
    if limit == 0:
        return []
    if sep == "":
        parts = list(s)
        if limit > 0 and len(parts) > limit:
            parts = parts[: limit - 1] + ["".join(parts[limit - 1:])]
        return parts
    return s.split(sep) if limit < 0 else s.split(sep, int(limit) - 1)


def lower_ascii(s: Any) -> str:
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in _str(s, "lowerAscii"))


def upper_ascii(s: Any) -> str:
    return "".join(c.upper() if "a" <= c <= "z" else c for c in _str(s, "upperAscii"))


def replace(s: Any, old: Any, new: Any, limit: Any = -1) -> str:
    return _str(s, "replace").replace(_str(old, "replace"), _str(new, "replace"), int(limit))


def trim(s: Any) -> str:
    # cel-go trims Unicode white space (strings.TrimSpace)
    return _str(s, "trim").strip()


def join(items: Any, sep: Any = "") -> str:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ValueError("no such overload: join")
    return _str(sep, "join").join(items)


def index_of(s: Any, sub: Any, offset: Any = 0) -> int:
    if isinstance(s, list):  # k8s lists library: list.indexOf(value)
        return next((i for i, v in enumerate(s) if _equal(v, sub)), -1)
    s, sub = _str(s, "indexOf"), _str(sub, "indexOf")
    if not 0 <= offset <= len(s):
        raise ValueError(f"index out of range: {offset}")
    return s.find(sub, int(offset))


def last_index_of(s: Any, sub: Any, offset: Any = None) -> int:
    if isinstance(s, list):
        return next((i for i in range(len(s) - 1, -1, -1) if _equal(s[i], sub)), -1)
    s, sub = _str(s, "lastIndexOf"), _str(sub, "lastIndexOf")
    if offset is None:
        return s.rfind(sub)
    if not 0 <= offset < max(1, len(s)):
        raise ValueError(f"index out of range: {offset}")
    return s.rfind(sub, 0, int(offset) + len(sub))


def substring(s: Any, start: Any, end: Any = None) -> str:
    s = _str(s, "substring")
    end = len(s) if end is None else end
    if not 0 <= start <= end <= len(s):
        raise ValueError(f"index out of range: substring({start}, {end}) of a string of length {len(s)}")
    return s[int(start):int(end)]


def char_at(s: Any, i: Any) -> str:
    s = _str(s, "charAt")
    if not 0 <= i <= len(s):
        raise ValueError(f"index out of range: {i}")
    return s[int(i)] if i < len(s) else ""


def reverse(s: Any) -> Any:
    if isinstance(s, list):
        return list(reversed(s))
    return _str(s, "reverse")[::-1]


def quote(s: Any) -> str:
    s = _str(s, "strings.quote")
    esc = {"\\": "\\\\", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
           "\t": "\\t", "\v": "\\v"}
    return '"' + "".join(esc.get(c, c) for c in s) + '"'


# ---------------------------------------------------------------------------------------------- lists (k8s)


def to_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    table = {"1": True, "t": True, "true": True, "TRUE": True, "True": True,
             "0": False, "f": False, "false": False, "FALSE": False, "False": False}
    if isinstance(v, str) and v in table:
        return table[v]
    raise ValueError(f"type conversion error from {type(v).__name__} to 'bool'")


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _comparable(items: Any, fn: str) -> list:
    if not isinstance(items, list):
        raise ValueError(f"no such overload: {fn}")
    kinds = {("num" if isinstance(i, (int, float)) and not isinstance(i, bool) else type(i).__name__) for i in items}
    if len(kinds) > 1 or kinds & {"dict", "list", "NoneType"}:
        raise ValueError(f"no such overload: {fn} on a list of mixed or unordered types")
    return items


def is_sorted(items: Any) -> bool:
    items = _comparable(items, "isSorted")
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def sum_(items: Any) -> Any:
    items = _comparable(items, "sum")
    if items and isinstance(items[0], str):
        raise ValueError("no such overload: sum on strings")
    return sum(items) if items else 0


def min_(items: Any) -> Any:
    items = _comparable(items, "min")
    if not items:
        raise ValueError("min called on an empty list")
    return min(items)


def max_(items: Any) -> Any:
    items = _comparable(items, "max")
    if not items:
        raise ValueError("max called on an empty list")
    return max(items)


# ---------------------------------------------------------------------------------------------- quantity (k8s)

_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?\d+))?$")
_BIN = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60}
_DEC = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1), "k": Decimal("1e3"),
        "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"), "P": Decimal("1e15"), "E": Decimal("1e18")}
_QKEY = "@quantity"


def parse_quantity(text: str) -> Decimal | None:
    """The value of a Kubernetes resource.Quantity string, or None when it is not one."""
    m = _QUANTITY.match(text.strip()) if isinstance(text, str) else None
    if not m:
        return None
    try:
        num = Decimal(m.group(1))
    except InvalidOperation:
        return None
    if m.group(2):
        return num * _BIN[m.group(2)]
    if m.group(3):
        return num * _DEC[m.group(3)]
    if m.group(4):
        if len(m.group(4).lstrip("+-")) > 9:  # (an exponent past int32 is no quantity; no int() of 5,000 digits)
            return None
        try:
            return num.scaleb(int(m.group(4)))
        except ArithmeticError:  # past Decimal's exponent range
            return None
    return num


def _q(v: Any, fn: str) -> Decimal:
    if isinstance(v, dict) and _QKEY in v:
        d = parse_quantity(v[_QKEY])
        if d is not None:
            return d
    raise ValueError(f"no such overload: {fn} expects a quantity")


def quantity(s: Any) -> dict:
    if parse_quantity(_str(s, "quantity")) is None:
        raise ValueError(f"quantities must match the regular expression: invalid quantity {s!r}")
    return {_QKEY: s}


def is_quantity(s: Any) -> bool:
    return isinstance(s, str) and parse_quantity(s) is not None


def _qnum(v: Any, fn: str) -> Decimal:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return Decimal(v)
    return _q(v, fn)


def _qout(d: Decimal) -> dict:
    text = format(d.normalize(), "f")
    return {_QKEY: text}


QUANTITY_FUNCTIONS: dict[str, Callable] = {
    "quantity": quantity,
    "isQuantity": is_quantity,
    "sign": lambda q: (lambda d: (d > 0) - (d < 0))(_q(q, "sign")),
    "isInteger": lambda q: _q(q, "isInteger") == _q(q, "isInteger").to_integral_value(),
    "asInteger": lambda q: int(_q(q, "asInteger")) if _q(q, "asInteger") == _q(q, "asInteger").to_integral_value()
    else (_ for _ in ()).throw(ValueError("cannot convert value to integer")),
    "asApproximateFloat": lambda q: float(_q(q, "asApproximateFloat")),
    "add": lambda q, o: _qout(_q(q, "add") + _qnum(o, "add")),
    "sub": lambda q, o: _qout(_q(q, "sub") - _qnum(o, "sub")),
    "isGreaterThan": lambda q, o: _q(q, "isGreaterThan") > _q(o, "isGreaterThan"),
    "isLessThan": lambda q, o: _q(q, "isLessThan") < _q(o, "isLessThan"),
    "compareTo": lambda q, o: (lambda a, b: (a > b) - (a < b))(_q(q, "compareTo"), _q(o, "compareTo")),
}

# ---------------------------------------------------------------------------------------------- URL (k8s)

_UKEY = "@url"


def _parse_url(s: str):
    if not isinstance(s, str) or not s or (not s.startswith("/") and "://" not in s):
        return None
    try:
        parts = urlsplit(s)
        _ = parts.port
    except ValueError:
        return None
    return parts


def _u(v: Any, fn: str):
    if isinstance(v, dict) and _UKEY in v:
        parts = _parse_url(v[_UKEY])
        if parts is not None:
            return parts
    raise ValueError(f"no such overload: {fn} expects a URL")


def url(s: Any) -> dict:
    if _parse_url(_str(s, "url")) is None:
        raise ValueError(f"URL parse error during conversion from string: {s!r}")
    return {_UKEY: s}


URL_FUNCTIONS: dict[str, Callable] = {
    "url": url,
    "isURL": lambda s: isinstance(s, str) and _parse_url(s) is not None,
    "getScheme": lambda u: _u(u, "getScheme").scheme,
    "getHost": lambda u: _u(u, "getHost").netloc.rpartition("@")[2],
    "getHostname": lambda u: _u(u, "getHostname").hostname or "",
    "getPort": lambda u: str(_u(u, "getPort").port or ""),
    "getEscapedPath": lambda u: _u(u, "getEscapedPath").path,
    "getQuery": lambda u: {k: v for k, v in _query(_u(u, "getQuery").query).items()},
}


def _query(q: str) -> dict:
    from urllib.parse import parse_qs

    return parse_qs(q, keep_blank_values=True)


# ---------------------------------------------------------------------------------------------- registry

FUNCTIONS: dict[str, Callable] = {
    # regex
    "find": find,
    "findAll": find_all,
    # strings
    "split": split,
    "lowerAscii": lower_ascii,
    "upperAscii": upper_ascii,
    "replace": replace,
    "trim": trim,
    "join": join,
    "indexOf": index_of,
    "lastIndexOf": last_index_of,
    "substring": substring,
    "charAt": char_at,
    "reverse": reverse,
    "strings.quote": quote,
    # core conversions cel-go has and the Rust engine lacks
    "bool": to_bool,
    # lists
    "isSorted": is_sorted,
    "sum": sum_,
    "min": min_,
    "max": max_,
    **QUANTITY_FUNCTIONS,
    **URL_FUNCTIONS,
}

# Names the CEL core (both engines) provides natively, macros included.
NATIVE = frozenset({
    "has", "all", "exists", "exists_one", "map", "filter", "size", "matches", "contains", "startsWith", "endsWith",
    "int", "uint", "double", "string", "bytes", "type", "dyn", "timestamp", "duration",
})

SUPPORTED = NATIVE | {name.rpartition(".")[2] for name in FUNCTIONS}
