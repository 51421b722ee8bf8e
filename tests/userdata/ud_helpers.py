from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("KARPLINT_SHARED", ROOT.parent / "shared"))
FIXTURES = ROOT / "tests" / "fixtures" / "userdata"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def apply_edits(text: str, edits) -> str:
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: e.start] + e.replacement + text[e.end:]
    return text


def nodeclass(name: str = "nc", family_lines: str = "  amiFamily: Custom\n  amiSelectorTerms:\n    - id: ami-0123456789abcdef0\n",
              userdata: str = "") -> str:
    body = "".join("    " + ln + "\n" if ln else "\n" for ln in userdata.split("\n"))
    return (f"apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: {name}\nspec:\n{family_lines}"
            f"  role: KarpenterNodeRole-c\n  userData: |\n{body}")

