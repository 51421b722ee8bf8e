"""Files that hold Karpenter objects in a form karplint cannot read: program code (AWS CDK, cdk8s, Pulumi in
TypeScript, Python, Go...). Each gets one notice (KPL016) instead of a silent pass. (KPL015, for Helm chart
templates, is no longer reported: karplint/readers/chart_templates.py reads them.)

Cheap by construction: a file is only looked at when discovery saw it (code extensions), and
only bytes are searched: `in` tests for a Karpenter API group and a Karpenter kind name first, then one regular
expression for where the kind is set. Nothing is parsed.
"""

from __future__ import annotations

import re

from karplint.discover.testdirs import TEST_DIRS

MAX_SCAN_BYTES = 1 << 20  # a longer file is scanned in its first MiB only

_GROUPS = (b"karpenter.sh", b"karpenter.k8s.aws", b"karpenter.azure.com")
_KINDS = (b"NodePool", b"EC2NodeClass", b"NodeClaim", b"NodeOverlay", b"Provisioner", b"AWSNodeTemplate",
          b"AKSNodeClass")
# `kind: NodePool`, `"kind": "NodePool"`, `kind="NodePool"`, `Kind: pulumi.String("NodePool")`, `kind: 'NodePool'`
_KIND_SET = re.compile(
    rb"""(?i:\bkind\b)["']?[ \t]*[:=][ \t]*(?:[A-Za-z_][\w.]*\([ \t]*)?["'`]?"""
    rb"""(NodePool|EC2NodeClass|NodeClaim|NodeOverlay|Provisioner|AWSNodeTemplate|AKSNodeClass)\b""")


# `apiVersion: karpenter.sh/v1`, `"apiVersion": "karpenter.k8s.aws/v1"`, `api_version="karpenter.sh/v1"`,
# `ApiVersion: pulumi.String("karpenter.sh/v1")`
_API_SET = re.compile(
    rb"""(?i:\bapi_?version\b)["']?[ \t]*[:=][ \t]*(?:[A-Za-z_][\w.]*\([ \t]*)?["'`]?"""
    rb"""(?:karpenter\.sh|karpenter\.k8s\.aws|karpenter\.azure\.com)/v""")
NEAR = 600  # bytes between a manifest's apiVersion and its kind


def karpenter_kind_at(raw: bytes) -> tuple[str, int, int] | None:
    """(kind, line, column) of the first place `raw` sets a Karpenter kind within NEAR bytes of setting a Karpenter
    apiVersion (a manifest, not code that only names the kinds); else None. Columns count characters, 1-based."""
    raw = raw[:MAX_SCAN_BYTES]
    if not any(g in raw for g in _GROUPS) or not any(k in raw for k in _KINDS):
        return None
    apis = [m.start() for m in _API_SET.finditer(raw)]
    if not apis:
        return None
    import bisect

    def near(at: int) -> bool:  # an apiVersion within NEAR bytes (apis is sorted: one bisection)
        i = bisect.bisect_left(apis, at - NEAR)
        return i < len(apis) and apis[i] <= at + NEAR

    m = next((k for k in _KIND_SET.finditer(raw) if near(k.start())), None)
    if m is None:
        return None
    start = m.start()
    line_start = raw.rfind(b"\n", 0, start) + 1
    line = raw.count(b"\n", 0, start) + 1
    column = len(raw[line_start:start].decode("utf-8", "replace")) + 1
    return m.group(1).decode(), line, column


def code_language(path: str) -> str:
    ext = path.rsplit(".", 1)[-1].lower()
    return {"ts": "TypeScript", "mts": "TypeScript", "cts": "TypeScript", "js": "JavaScript", "mjs": "JavaScript",
            "py": "Python", "go": "Go", "java": "Java", "cs": "C#", "kt": "Kotlin"}.get(ext, "program")


_TEST_FILE = re.compile(r"(?:^test_.*\.py|.*_test\.(?:py|go)|.*\.(?:test|spec)\.[cm]?[jt]s|.*Tests?\.(?:java|cs|kt))$")


def is_test_code(display: str) -> bool:
    """Test code and fixtures: manifests there are test data, not what a cluster runs (no KPL016)."""
    parts = display.replace("\\", "/").split("/")
    return any(p in TEST_DIRS for p in parts[:-1]) or _TEST_FILE.match(parts[-1]) is not None


def notices(code_files: list, read) -> list:
    """(display, Problem) for each code file (`Candidate`s) holding a Karpenter object; `read(abspath, limit)` gives
    a file's first bytes (OSError: skipped, nothing to say)."""
    from karplint.readers.loader import Problem
    from karplint.readers.source import Span

    out = []
    for cand in code_files:
        if is_test_code(cand.display):
            continue
        hit = _scan(read, cand.abspath)
        if hit is not None:
            kind, line, col = hit
            out.append((cand.display, Problem("KPL016", (
                f"{code_language(cand.display)} code defines a Karpenter {kind}; not checked: karplint reads YAML, "
                "not program code\n"
                "help: write the manifests out as YAML (cdk8s: `cdk8s synth`) and check those, or keep them in "
                "YAML files the code reads"), Span.point(line, col))))
    return out


def _scan(read, abspath: str):
    try:
        raw = read(abspath, MAX_SCAN_BYTES)
    except OSError:
        return None
    return karpenter_kind_at(raw)
