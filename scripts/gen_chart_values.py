#!/usr/bin/env python3
"""Write schemas/chart-values.json: the value keys of the Karpenter Helm chart (aws/karpenter-provider-aws,
charts/karpenter) at every release tag, from the chart itself.

A key is known at a release when the chart's values.yaml has it, or when a template reads it (`.Values.a.b`: some
settings are only in comments of values.yaml, `settings.clusterName` in v0.32). A key is *open* (any key under it is
passed on, nothing to check) when its default is an empty mapping or list, or a template uses it whole (`toYaml`,
`with`, `range`: podAnnotations, nodeSelector, affinity, controller.env...). Helm passes every other key to the
templates, which never read it: the setting is silently ignored.

The output keeps each key once with the releases that have it (ranges over the ordered list of tags), the type of its
default at the last release that has it, and the ranges in which it is open.

    scripts/gen_chart_values.py [--repo MIRROR] [--check]

`--check` compares with the committed file (exit 1 when it differs); tests/rules/test_chart_values.py runs it when the
mirror is present.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "schemas" / "chart-values.json"
MIRROR = Path("/work/.mirror/aws+karpenter-provider-aws/repo")
CHART = "charts/karpenter"
FIRST = (0, 16, 0)  # the chart's values.yaml lives in charts/karpenter from v0.16 on in this mirror

_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
# `.Values.a.b` / `$.Values.a.b`: the path a template reads; what follows decides whether it reads it whole
_REF = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\.?)")
# a reference whose value is rendered whole: `toYaml .Values.x`, `with .Values.x`, `range ... .Values.x`, `toJson`,
# `tpl (toYaml .Values.x)`
_WHOLE = re.compile(r"(?:toYaml|toJson|with|range(?:\s+\$\w+(?:\s*,\s*\$\w+)?\s*:=)?|tpl\s*\(\s*toYaml)\s+\(?\s*\$?"
                    r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def tags(repo: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo), "tag"], capture_output=True, text=True, check=True).stdout.split()
    found = sorted((tuple(map(int, m.groups())), t) for t in out if (m := _TAG.match(t)))
    return [t for v, t in found if v >= FIRST]


class Blobs:
    """`git cat-file --batch` over the mirror: thousands of small reads in one process."""

    def __init__(self, repo: Path):
        self.proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)

    def read(self, spec: str) -> bytes | None:
        self.proc.stdin.write(spec.encode() + b"\n")
        self.proc.stdin.flush()
        head = self.proc.stdout.readline().split()
        if len(head) < 3 or head[1] == b"missing":
            return None
        data = self.proc.stdout.read(int(head[2]))
        self.proc.stdout.read(1)
        return data


def _type(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, list):
        return "list"
    return "null"


def walk(node, prefix: str, out: dict) -> None:
    for k, v in node.items():
        path = f"{prefix}{k}"
        out[path] = _type(v)
        if isinstance(v, dict) and v:
            walk(v, path + ".", out)


def release(repo: Path, blobs: Blobs, tag: str) -> tuple[dict, set, set] | None:
    """(path -> type of its default, open paths, unread paths) of the chart at `tag`. Unread: a key of values.yaml
    that no template reads, neither it, nor a key below it, nor a key above it as a whole (any `.Values.a` not
    followed by `.`: `if`, `with`, `include`, `toYaml`...); none when a template reads `.Values` in another way
    (`index .Values "a"`, `.Values` alone)."""
    raw = blobs.read(f"{tag}:{CHART}/values.yaml")
    if raw is None:
        return None
    values = yaml.safe_load(raw) or {}
    keys: dict = {}
    walk(values, "", keys)
    declared = set(keys)
    read: set = set()
    whole: set = set()
    opaque = False
    empty = {p for p, t in keys.items() if t == "map" and not _has_children(keys, p)}
    opened = {p for p, t in keys.items() if t == "list"}  # (list items are not keys: nothing below to check)
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", tag, f"{CHART}/templates/"],
                             capture_output=True, text=True, check=True).stdout.split()
    for name in listing:
        text = (blobs.read(f"{tag}:{name}") or b"").decode("utf-8", "replace")
        opaque = opaque or re.search(r"\.Values(?![.\w])", text) is not None
        for m in _REF.finditer(text):
            path = m.group(1)[1:]
            read.add(path)
            if not m.group(2):
                whole.add(path)
            parts = path.split(".")
            for i in range(1, len(parts) + 1):
                keys.setdefault(".".join(parts[:i]), "map" if i < len(parts) else "null")
        for m in _WHOLE.finditer(text):
            path = m.group(1)[1:]
            if keys.get(path) in ("map", "list", "null"):
                opened.add(path)
    # an empty mapping by default is free-form (podAnnotations: {}) unless the templates read keys under it
    # (`settings.aws: {}` in v0.32, whose keys the deployment reads one by one)
    opened |= {p for p in empty if not _has_children(keys, p)}
    unread = set() if opaque else {p for p in declared if not _read(p, read, whole)}
    return keys, opened, unread


def _read(path: str, read: set, whole: set) -> bool:
    parts = path.split(".")
    if any(".".join(parts[:i]) in whole for i in range(1, len(parts))):
        return True
    pre = path + "."
    return path in read or any(r.startswith(pre) for r in read)


def _has_children(keys: dict, path: str) -> bool:
    pre = path + "."
    return any(k.startswith(pre) for k in keys)


def _ranges(present: list[bool]) -> list[list[int]]:
    out: list[list[int]] = []
    for i, on in enumerate(present):
        if on and out and out[-1][1] == i - 1:
            out[-1][1] = i
        elif on:
            out.append([i, i])
    return out


def build(repo: Path) -> dict:
    blobs = Blobs(repo)
    versions: list[str] = []
    per: list[tuple[dict, set, set]] = []
    for tag in tags(repo):
        got = release(repo, blobs, tag)
        if got is not None:
            versions.append(tag[1:])
            per.append(got)
    blobs.proc.stdin.close()
    blobs.proc.wait()
    every = sorted({k for keys, _, _ in per for k in keys})
    table = {}
    for k in every:
        present = [k in keys for keys, _, _ in per]
        last = max(i for i, on in enumerate(present) if on)
        entry = {"in": _ranges(present), "type": per[last][0][k]}
        opened = _ranges([k in op for _, op, _ in per])
        if opened:
            entry["open"] = opened
        unread = _ranges([k in un for _, _, un in per])
        if unread:
            entry["unread"] = unread
        table[k] = entry
    return {"source": "aws/karpenter-provider-aws charts/karpenter (values.yaml and templates/) at each tag; "
                      "scripts/gen_chart_values.py",
            "versions": versions, "keys": table}


def render(data: dict) -> str:
    lines = ["{", f'  "source": {json.dumps(data["source"])},', f'  "versions": {json.dumps(data["versions"])},',
             '  "keys": {']
    items = list(data["keys"].items())
    for i, (k, v) in enumerate(items):
        lines.append(f"    {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}{',' if i < len(items) - 1 else ''}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=MIRROR)
    ap.add_argument("--check", action="store_true", help="compare with the committed file; exit 1 when it differs")
    args = ap.parse_args(argv)
    text = render(build(args.repo))
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run scripts/gen_chart_values.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
