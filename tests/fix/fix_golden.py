"""Golden fix fixtures: tests/fixtures/fixes/<case>/before.yaml and after.yaml.

`<case>` starts with the rule code (KPL401, KPL401-empty-disruption, ...). Optional `case.json`:
{"select": [...codes], "karpenter_version": "1.0.0", "config": {...[tool.karplint] keys...}}.
Optional `MISSING`: the fix does not exist yet (the text says what is missing); the test then checks that
`--fix` leaves `before.yaml` byte for byte alone, and fails once the fix lands (remove MISSING then).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from karplint.engine import InputFile, check
from karplint.fix import fix_inputs
from karplint.testing import make_config

FIXES = Path(__file__).resolve().parents[1] / "fixtures" / "fixes"


@dataclass
class Case:
    name: str
    code: str
    before: str
    after: str
    options: dict
    missing: str | None

    def config(self):
        cfg = dict(self.options.get("config", {}))
        cfg["select"] = list(self.options.get("select", [self.code]))
        return make_config(cfg, self.options.get("karpenter_version"))


def load_cases() -> list[Case]:
    cases = []
    for d in sorted(p for p in FIXES.iterdir() if p.is_dir()) if FIXES.is_dir() else []:
        opts = json.loads((d / "case.json").read_text()) if (d / "case.json").exists() else {}
        missing = (d / "MISSING").read_text().strip() if (d / "MISSING").exists() else None
        cases.append(Case(d.name, d.name[:6], (d / "before.yaml").read_text(encoding="utf-8"),
                          (d / "after.yaml").read_text(encoding="utf-8"), opts, missing))
    return cases


GOLDEN = load_cases()


def run_golden_fix(case: Case, data: bytes, name: str = "case.yaml") -> bytes:
    out = fix_inputs([InputFile(name, None, data)], case.config(), unsafe=True)
    assert not out.notes, out.notes
    return out.files[0].encoded() if out.files and out.files[0].changed else data


def findings(case: Case, text: str):
    return check([InputFile("case.yaml", None, text.encode("utf-8"))], case.config()).findings
