"""Karpenter objects found per corpus format (MANIFEST.tsv `format` column), with the karplint on PYTHONPATH.

    python scripts/embedded_census.py ../shared/corpus      (run it with main's and a branch's karplint)
"""

from __future__ import annotations

import collections
import csv
import os
import sys

from karplint.discover import discover
from karplint.engine import InputFile, parse_input, read_regular

KARPENTER = ("karpenter.sh/", "karpenter.k8s.aws/")


def main(root: str) -> None:
    fmt = {}
    with open(os.path.join(root, "MANIFEST.tsv"), newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            fmt[row["corpus_path"]] = row["format"]
    found = discover([root])
    objects: collections.Counter = collections.Counter()
    files: collections.Counter = collections.Counter()
    problems: collections.Counter = collections.Counter()
    for c in found.files:
        rel = os.path.relpath(c.abspath, root)
        f = fmt.get(rel, "(not in manifest)")
        fr = parse_input(InputFile(c.display, c.abspath), read_regular(c.abspath))
        n = sum(1 for d in fr.documents if isinstance(d.data, dict)
                and str(d.data.get("apiVersion", "")).startswith(KARPENTER))
        files[f] += 1
        objects[f] += n
        problems[f] += len(fr.problems)
    print(f"{'format':32} {'files read':>10} {'Karpenter objects':>18} {'input problems':>15}")
    for f in sorted(set(fmt.values()) | set(files)):
        print(f"{f:32} {files[f]:>10} {objects[f]:>18} {problems[f]:>15}")
    print(f"{'total':32} {sum(files.values()):>10} {sum(objects.values()):>18} {sum(problems.values()):>15}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/corpus")
