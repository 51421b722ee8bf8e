#!/usr/bin/env python3
"""Generate `schemas/` from the Karpenter CRDs in ../shared/karpenter/crds/<label>/.

    python scripts/gen_schemas.py [CRDS_DIR] [--out DIR]

One JSON file per (label, group, served version, kind): `schemas/<release>/<group>/<version>/<Kind>.json`, holding the
CRD's `openAPIV3Schema` unchanged except that `description` annotations are dropped (they are large and no rule reads
them). Everything the API server checks stays in place: types, formats, enums, patterns, bounds, defaults, `required`,
`nullable`, `x-kubernetes-validations` (CEL), `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-int-or-string`,
`x-kubernetes-list-type` / `-list-map-keys` / `-map-type`.

Labels `aws-vX.Y.Z` become releases `X.Y.Z` (what users select with `karpenter_version`); any other label (`core-*`,
`*-main-*`) is generated under its own name as a snapshot. `schemas/index.json` lists them all with provenance.
Output is deterministic (sorted keys, two-space indent, LF, trailing newline). Never hand-edit the output: rerun this.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CRDS = ROOT.parent / "shared" / "karpenter" / "crds"
DEFAULT_OUT = ROOT / "schemas"
# not this script's: karplint's own output schema (by hand), the chart's value keys (scripts/gen_chart_values.py)
HAND_WRITTEN = {"diff.schema.json", "chart-values.json"}
FORMAT = 1  # bump when the layout of the generated files changes

_RELEASE_LABEL = re.compile(r"^aws-v(\d+\.\d+\.\d+)$")


def release_of(label: str) -> tuple[str, str]:
    """(directory name, type) of a CRD label: ("1.14.1", "release") or ("core-main-22664681", "snapshot")."""
    m = _RELEASE_LABEL.match(label)
    return (m.group(1), "release") if m else (label, "snapshot")


def strip_descriptions(schema):
    """Drop `description` annotations of schema nodes (never a property that happens to be named so)."""
    if isinstance(schema, list):
        return [strip_descriptions(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key in ("properties", "patternProperties", "definitions", "$defs"):
            out[key] = {name: strip_descriptions(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not", "anyOf", "allOf", "oneOf"):
            out[key] = strip_descriptions(value)
        else:
            out[key] = value  # default, enum, example, x-kubernetes-*: data, copied verbatim
    return out


def dump(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def read_sources(crds: Path) -> dict[str, dict]:
    """local_file -> SOURCES.tsv row."""
    path = crds / "SOURCES.tsv"
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as fh:
        return {row["local_file"]: row for row in csv.DictReader(fh, delimiter="\t")}


def generate(crds: Path, out: Path) -> dict:
    """Write every schema and the index under `out` (replacing what is there); return the index."""
    crds = Path(crds)
    if not crds.is_dir():
        raise SystemExit(f"gen_schemas: CRD directory not found: {crds}")
    sources = read_sources(crds)
    yaml = YAML(typ="safe", pure=False)  # C parser when available: the CRDs are big
    files: dict[str, str] = {}
    index: dict = {"format": FORMAT, "generator": "scripts/gen_schemas.py", "releases": {}, "snapshots": {}}
    for label_dir in sorted(p for p in crds.iterdir() if p.is_dir()):
        name, typ = release_of(label_dir.name)
        entry = {"label": label_dir.name, "kinds": []}
        for crd_file in sorted(label_dir.glob("*.yaml")):
            rel = f"{label_dir.name}/{crd_file.name}"
            src = sources.get(rel, {})
            with crd_file.open(encoding="utf-8") as fh:
                docs = [d for d in yaml.load_all(fh) if d]
            for crd in docs:
                if crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                group, kind = spec["group"], spec["names"]["kind"]
                for ver in sorted(spec["versions"], key=lambda v: v["name"]):
                    if not ver.get("served", False):
                        continue
                    schema = ver.get("schema", {}).get("openAPIV3Schema")
                    if schema is None:
                        continue
                    path = f"{name}/{group}/{ver['name']}/{kind}.json"
                    files[path] = dump(strip_descriptions(schema))
                    entry["kinds"].append({
                        "group": group,
                        "version": ver["name"],
                        "kind": kind,
                        "plural": spec["names"].get("plural"),
                        "scope": spec.get("scope"),
                        "storage": bool(ver.get("storage", False)),
                        "deprecated": bool(ver.get("deprecated", False)),
                        "file": path,
                        "crd": rel,
                        "repo": src.get("repo"),
                        "commit": src.get("commit"),
                        "crd_path": src.get("path"),
                    })
        entry["kinds"].sort(key=lambda k: (k["group"], k["kind"], k["version"]))
        index["releases" if typ == "release" else "snapshots"][name] = entry
    files["index.json"] = dump(index)

    # Replace earlier output (every *.json below `out`); other files (README.md, HAND_WRITTEN) stay.
    if out.exists():
        for old in sorted(out.rglob("*.json"), reverse=True):
            if old.relative_to(out).as_posix() not in HAND_WRITTEN:
                old.unlink()
        for d in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
            if not any(d.iterdir()):
                d.rmdir()
    for rel, text in sorted(files.items()):
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    return index


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crds", nargs="?", default=str(DEFAULT_CRDS), help="CRD directory (default: %(default)s)")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="output directory (default: %(default)s)")
    args = ap.parse_args(argv)
    index = generate(Path(args.crds), Path(args.out))
    n = sum(len(e["kinds"]) for part in ("releases", "snapshots") for e in index[part].values())
    print(f"gen_schemas: {n} schemas, releases {', '.join(index['releases'])} -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
