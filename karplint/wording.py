"""Words for a person: counts ("1 file", "2 files", "1,234 findings", never "file(s)") and lists ("a, b and c").
Imports nothing, so every stage and the command line can use it."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, the noun plural unless n is 1 (`plural` when adding an s is wrong: "entries")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def and_list(items, word: str = "and") -> str:
    """"a", "a and b", "a, b and c" (or "a, b or c" with `word="or"`): a list in a sentence."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"
