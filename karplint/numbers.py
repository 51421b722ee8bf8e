"""Integers read from untrusted text (a checked file, its configuration, a command line), bounded.

Python refuses to convert between an int and its decimal text beyond 4,300 digits (a ValueError, CVE-2020-10735)
whatever the caller expected, and `str.isdigit` is true for characters `int()` rejects (`²`). No number karplint
reads needs more than a few dozen digits, so every conversion of untrusted digits goes through `integer`, which
refuses a number longer than MAX_DIGITS before converting (the caller's usual ValueError path: a finding, a usage
error, or "not a number"); `ascii_digits` is the digit test that `int()` agrees with; `too_large` tells an int
built without that bound (hexadecimal TOML) that no message could print.
"""

from __future__ import annotations

MAX_DIGITS = 1000  # far beyond any real value (int64 has 19 digits), far below Python's 4,300
_MAX_BITS = 3322  # about MAX_DIGITS decimal digits


def ascii_digits(text: str) -> bool:
    """`text` is one or more of 0-9 (what `int()` reads; `str.isdigit` also admits `²` and other scripts)."""
    return text.isascii() and text.isdigit()


def integer(text: str, base: int = 10) -> int:
    """`int(text, base)`; ValueError, like any other bad number, when `text` has more than MAX_DIGITS digits
    after its leading zeros (which `int()` counts too, and Go's strconv reads as any other)."""
    if len(text) <= MAX_DIGITS:
        return int(text, base)
    body = text.strip()
    sign = body[:1] if body[:1] in ("+", "-") else ""
    digits = body[len(sign):].lstrip("0")
    if len(digits) > MAX_DIGITS:
        raise ValueError(f"a number of {len(digits):,} digits: more than {MAX_DIGITS:,}")
    return int(sign + (digits or "0"), base)


def too_large(value: int) -> bool:
    """An int of more than about MAX_DIGITS decimal digits (one that `str()` may refuse to print)."""
    return abs(value).bit_length() > _MAX_BITS
