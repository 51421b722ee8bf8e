"""Bounds for TOML before tomllib reads it.

tomllib keeps, for every key, the tuple of each of its prefixes: a key of n dotted parts costs n^2 memory, so
40 KB of `a.a.a...` claims 1.5 GB and seconds. Real keys (karplint's configuration, Bottlerocket settings)
have a handful of parts. `too_complex` finds the first line whose key (or table header) has more parts than
`MAX_KEY_PARTS`, counting dots outside quoted strings.

tomllib's cost also grows faster than the number of tables when each table has dotted keys (80,000 `[tN]` headers
each followed by `x.y = 1`, 1.2 MB: 6 s), and every key costs the checks after it. `too_many_entries` finds the
line where the count of keys and table headers passes a caller's bound.
"""

from __future__ import annotations

import re

MAX_KEY_PARTS = 64
_STRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def too_complex(text: str) -> int | None:
    """The 1-based line of the first key with more than MAX_KEY_PARTS dotted parts, or None."""
    if text.count(".") < MAX_KEY_PARTS:
        return None
    for n, line in enumerate(_bare(text).split("\n"), 1):
        if line.count(".") >= MAX_KEY_PARTS:
            key = line.split("=", 1)[0] if not line.lstrip().startswith("[") else line
            if key.count(".") >= MAX_KEY_PARTS or line.count("{") and line.count(".") >= MAX_KEY_PARTS:
                return n
    return None


def _bare(text: str) -> str:
    """`text` with every quoted string replaced by `_` (its newlines kept, so lines keep their numbers)."""
    return _STRINGS.sub(lambda m: "_" + "\n" * m.group(0).count("\n"), text)


def too_many_entries(text: str, limit: int) -> int | None:
    """The 1-based line where the count of keys (`=` outside strings, inline tables included) and table headers
    passes `limit`, or None. A `=` in a comment counts too: an over-count, on the safe side."""
    if text.count("=") + text.count("[") <= limit:
        return None
    seen = 0
    for n, line in enumerate(_bare(text).split("\n"), 1):
        seen += line.count("=") + line.lstrip().startswith("[")
        if seen > limit:
            return n
    return None


def out_of_range_integer(data) -> bool:
    """Whether decoded TOML holds an integer outside 64 bits, which TOML does not allow ("if an integer cannot be
    represented losslessly, an error must be thrown", toml.io/en/v1.0.0#integer) but tomllib reads: without a
    limit in hexadecimal, octal or binary, so that no message could print it (a decimal one past Python's 4,300
    digits makes tomllib raise a plain ValueError instead, which callers report the same way)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, int) and not -(2**63) <= value < 2**63:
            return True
    return False


_LONG_NUMBER = re.compile(r"[0-9A-Fa-f_]{19,}")


def long_number_line(text: str) -> int:
    """The 1-based line of the first run of digits long enough to be outside 64 bits (for a message), else 1."""
    m = _LONG_NUMBER.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else 1
