"""Bounds for TOML before tomllib reads it.

tomllib keeps, for every key, the tuple of each of its prefixes: a key of n dotted parts costs n^2 memory, so
40 KB of `a.a.a...` claims 1.5 GB and seconds. Real keys (karplint's configuration, Bottlerocket settings)
have a handful of parts. `too_complex` finds the first line whose key (or table header) has more parts than
`MAX_KEY_PARTS`, counting dots outside quoted strings.
"""

from __future__ import annotations

import re

MAX_KEY_PARTS = 64
_STRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def too_complex(text: str) -> int | None:
    """The 1-based line of the first key with more than MAX_KEY_PARTS dotted parts, or None."""
    if text.count(".") < MAX_KEY_PARTS:
        return None
    bare = _STRINGS.sub(lambda m: "_" + "\n" * m.group(0).count("\n"), text)
    for n, line in enumerate(bare.split("\n"), 1):
        if line.count(".") >= MAX_KEY_PARTS:
            key = line.split("=", 1)[0] if not line.lstrip().startswith("[") else line
            if key.count(".") >= MAX_KEY_PARTS or line.count("{") and line.count(".") >= MAX_KEY_PARTS:
                return n
    return None
