"""Counts written for a person: "1 file", "2 files", "1,234 findings" (never "file(s)"). Imports nothing, so every
stage and the command line can use it."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, the noun plural unless n is 1 (`plural` when adding an s is wrong: "entries")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
