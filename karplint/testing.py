"""Helpers for tests: lint in-memory files through the real pipeline (no disk, no CLI)."""

from __future__ import annotations

from karplint.config import Config, from_mapping
from karplint.engine import InputFile, Report, check
from karplint.findings import Finding
from karplint.versions import Version


def make_config(config: dict | None = None, karpenter_version: str | None = None) -> Config:
    cfg = from_mapping(dict(config or {}), "test config")
    if karpenter_version is not None:
        cfg.karpenter_version = Version.parse(karpenter_version)
        cfg.karpenter_version_source = "test"
    return cfg


def lint_report(files: dict[str, str] | str, *, config: dict | None = None,
                karpenter_version: str | None = None) -> Report:
    if isinstance(files, str):
        files = {"test.yaml": files}
    inputs = [InputFile(name, None, text.encode("utf-8")) for name, text in files.items()]
    return check(inputs, make_config(config, karpenter_version))


def lint(files: dict[str, str] | str, *, config: dict | None = None,
         karpenter_version: str | None = None) -> list[Finding]:
    """Findings for `files` ({name: text}, or one text named test.yaml), sorted by file, line, column."""
    return lint_report(files, config=config, karpenter_version=karpenter_version).findings


def codes(findings: list[Finding]) -> list[tuple[str, int, int]]:
    """(code, line, column) of each finding: the usual assertion shape."""
    return [(f.code, f.line, f.column) for f in findings]
