"""Helpers for tests: lint in-memory files through the real pipeline (no disk, no CLI)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from karplint.config import Config, from_mapping
from karplint.engine import InputFile, Report, check
from karplint.findings import Finding
from karplint.model.versions import Version


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


def lint_example(code: str, doc, example) -> list[Finding]:
    """Every finding on one example of a rule's documentation, linted as the docs say (its ```toml config``` block,
    `karpenter-version` included)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    config = tomllib.loads(doc.config) if doc.config else None
    version = (config or {}).pop("karpenter-version", None)
    return lint({f"{code}-{example.kind}.yaml": example.text}, config=config, karpenter_version=version)


def documented_findings() -> list[Finding]:
    """Every rule's own findings on the bad examples of its documentation."""
    from karplint.docs import rule_doc
    from karplint.rules import all_rules

    out: list[Finding] = []
    for r in all_rules():
        doc = rule_doc(r.code)
        for ex in doc.examples if doc is not None else ():
            if ex.kind == "bad":
                out += [f for f in lint_example(r.code, doc, ex) if f.code == r.code]
    return out


def codes(findings: list[Finding]) -> list[tuple[str, int, int]]:
    """(code, line, column) of each finding: the usual assertion shape."""
    return [(f.code, f.line, f.column) for f in findings]


# ---------------------------------------------------------------------------------------------- test suite

REPO = Path(__file__).resolve().parents[1]  # the source checkout (tests run from it)
SHARED = Path(os.environ.get("KARPLINT_SHARED", REPO.parent / "shared"))


def need_shared() -> Path:
    """../shared beside the repository (CRDs, corpus, upstream examples); skips the test when absent."""
    import pytest

    if not SHARED.is_dir():
        pytest.skip(f"shared material not found at {SHARED} (set KARPLINT_SHARED)")
    return SHARED


# A command line prefix that runs a program as root without any capability (util-linux's setpriv): root's file
# permission overrides (CAP_DAC_OVERRIDE, CAP_FOWNER, ...) are gone, so a test of permissions holds in CI as root.
UNPRIVILEGED = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"]


def run_cli(*args: str, cwd: str | Path | None = None, stdin: str | bytes | None = None,
            env: dict | None = None, timeout: float = 120, unprivileged: bool = False) -> subprocess.CompletedProcess:
    """Run `python -m karplint ARGS` as a user would; returns the completed process (text stdout/stderr).
    `unprivileged`: as root, run it without capabilities (UNPRIVILEGED), so that file permissions apply."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
    full_env.update(env or {})
    data = stdin.encode() if isinstance(stdin, str) else stdin
    prefix = UNPRIVILEGED if unprivileged and os.geteuid() == 0 else []
    proc = subprocess.run([*prefix, sys.executable, "-m", "karplint", *args], cwd=cwd, input=data, capture_output=True,
                          env=full_env, timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def run_json(*args: str, **kw) -> tuple[int, dict, str]:
    """run_cli with `--output-format json`: (exit code, parsed report, stderr); fails on a traceback."""
    proc = run_cli(*args, "--output-format", "json", **kw)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


# What a terminal or a GitHub runner must never receive raw from karplint: C0 controls but tab and newline
# (ESC above all), DEL, C1 controls (\x9b is CSI), line and paragraph separators, bidirectional overrides and
# isolates, and U+FFFD (what a lone surrogate or a stray byte decodes to when a test reads the output).
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]")
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def no_escape_or_command(*outputs: str, github: bool = False, color: bool = False) -> None:
    """No raw escape sequence or other unsafe character in `outputs`; no line a GitHub runner would run as a
    workflow command, except (in the github format) karplint's own annotations, one line each. `color`: the
    colour codes karplint writes itself (SGR, `ESC [ ... m`) are allowed."""
    for out in outputs:
        if color:
            out = _SGR.sub("", out)
        bad = _RAW_CONTROL.search(out)
        assert bad is None, f"raw {bad.group(0)!r} in output: {out[max(0, bad.start() - 80):bad.end() + 80]!r}"
        for line in out.splitlines():
            if github and re.match(r"::(error|warning|notice) file=[^\n:]*,line=\d+,", line):
                continue
            assert not line.lstrip().startswith("::"), f"a workflow command line: {line!r}"
