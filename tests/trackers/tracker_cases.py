"""Load and run a tracker case (tests/trackers/README.md) through the real pipeline, at its release and at the default."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from karplint.testing import lint

HERE = Path(__file__).parent
CASES = HERE / "cases"
NOT_VISIBLE = HERE / "not_visible"
VERDICTS = ("caught", "missed", "negative")
LOUD = ("error", "warning")


@dataclass(frozen=True)
class Case:
    path: Path
    link: str
    title: str
    release: str | None
    verdict: str
    rule: str | None
    expect: tuple[tuple[str, str, int], ...]
    expect_default: tuple[tuple[str, str, int], ...]
    files: dict[str, str]
    config: dict = field(default_factory=dict)
    happened: str = ""
    cause: str = ""

    @property
    def name(self) -> str:
        return self.path.stem


def _triples(items, where: str) -> tuple[tuple[str, str, int], ...]:
    out = []
    for item in items or ():
        if not isinstance(item, dict) or set(item) != {"code", "file", "line"}:
            raise ValueError(f"{where}: each expected finding is {{code, file, line}}, got {item!r}")
        out.append((str(item["code"]), str(item["file"]), int(item["line"])))
    return tuple(sorted(out))


def load(path: Path) -> Case:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    need = {"link", "title", "release", "happened", "cause", "verdict", "expect", "files"}
    missing = need - set(data)
    if missing:
        raise ValueError(f"{path.name}: missing {sorted(missing)}")
    unknown = set(data) - need - {"date", "rule", "expect_default", "config"}
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    if data["verdict"] not in VERDICTS:
        raise ValueError(f"{path.name}: verdict {data['verdict']!r} is not one of {VERDICTS}")
    expect = _triples(data["expect"], path.name)
    default = _triples(data["expect_default"], path.name) if "expect_default" in data else expect
    release = data["release"]
    return Case(path=path, link=str(data["link"]), title=str(data["title"]),
                release=None if release is None else str(release).lstrip("v"),
                verdict=data["verdict"], rule=data.get("rule"), expect=expect, expect_default=default,
                files={str(k): str(v) for k, v in data["files"].items()}, config=data.get("config") or {},
                happened=str(data["happened"]).strip(), cause=str(data["cause"]).strip())


def cases() -> list[Case]:
    return [load(p) for p in sorted(CASES.glob("*.yaml"))]


def not_visible() -> list[tuple[str, str, str, str]]:
    """(link, title, reason, stream) of every report read whose cause no posted configuration shows."""
    rows = []
    for tsv in sorted(NOT_VISIBLE.glob("*.tsv")):
        for n, line in enumerate(tsv.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise ValueError(f"{tsv.name}:{n}: want link<TAB>title<TAB>reason")
            rows.append((*parts, tsv.stem))
    return rows


def run(case: Case, release: str | None):
    """Every finding on the case's files with `release` pinned (None: what the files imply)."""
    return lint(case.files, config=case.config, karpenter_version=release)


def mismatch(case: Case, release: str | None) -> str | None:
    """Why the findings at `release` are not the case's expectation, or None when they are."""
    want = case.expect if release == case.release else case.expect_default
    got = run(case, release)
    loud = {(f.code, f.file, f.line) for f in got if f.severity in LOUD}
    every = {(f.code, f.file, f.line) for f in got}
    missing = [w for w in want if w not in every]
    extra = sorted(loud - set(want))
    if not missing and not extra:
        return None
    shown = "\n".join(f"  {f.code} {f.severity} {f.file}:{f.line}:{f.column} {f.message.splitlines()[0]}"
                      for f in got)
    return (f"{case.name} ({case.link}) at release {release or 'default'}:\n"
            f" expected but not reported: {missing}\n reported but not expected: {extra}\n all findings:\n{shown}")
