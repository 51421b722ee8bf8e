"""Shared helpers for the userData tests."""

from __future__ import annotations

import os
import re
from pathlib import Path

from karplint.readers.loader import load
from karplint.model import Model
from karplint.readers.source import SourceFile

SHARED = Path(os.environ.get("KARPLINT_SHARED", Path(__file__).resolve().parents[2].parent / "shared"))
if not SHARED.is_dir():
    SHARED = Path("/work/shared")
GOLDEN = SHARED / "karpenter" / "userdata-golden" / "v1.14.1"


def model_of(text: str, path: str = "test.yaml") -> Model:
    docs, problems = load(SourceFile(path, text))
    assert not problems, problems
    m = Model()
    m.add(docs)
    return m


def golden(name: str) -> str:
    return (GOLDEN / name).read_text()


def golden_pattern(text: str) -> re.Pattern:
    """A golden file as a regex: `%s` (Sprintf placeholders) match anything on the line, `%%` is `%`."""
    out = []
    i = 0
    text = text[:-1] if text.endswith("\n") else text  # the final newline is the file's, not Karpenter's
    while i < len(text):
        if text.startswith("%s", i):
            out.append(r"[^\n]*?")
            i += 2
        elif text.startswith("%%", i):
            out.append("%")
            i += 2
        else:
            out.append(re.escape(text[i]))
            i += 1
    return re.compile("".join(out) + r"\n?", re.S)


def golden_input(name: str, placeholder: str = "karpenter.sh/nodepool") -> str:
    return golden(name).replace("%%", "%").replace("%s", placeholder)


def indent(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))
