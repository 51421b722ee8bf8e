"""Precision of one run label: each error and warning of `WORKDIR/out/LABEL/*.json` takes the verdict judged by hand
for the same (repository, run, file, line, code) in `judgements.tsv` (beside this script); findings never judged are
listed, to be judged and added there.

    python bench/precision/judge.py LABEL [--workdir /work/precision] [--set heldout]

`--set heldout`: the 12 repositories measured once the 42 had been used to tune (`heldout.tsv`,
`heldout-judgements.tsv`), run with `run.py --repos-tsv bench/precision/heldout.tsv`; `--set heldout2`: 15 more,
measured on the build that resolved #25 (`heldout2.tsv`, `heldout2-judgements.tsv`).
"""

import argparse
import collections
import csv
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("label")
    ap.add_argument("--workdir", default="/work/precision")
    ap.add_argument("--set", choices=("tuning", "heldout", "heldout2"), default="tuning")
    args = ap.parse_args()
    names = ("repos.tsv", "judgements.tsv") if args.set == "tuning" else (f"{args.set}.tsv",
                                                                          f"{args.set}-judgements.tsv")
    repos = list(csv.DictReader(open(os.path.join(HERE, names[0])), delimiter="\t"))
    verdicts = {}
    for r in csv.DictReader(open(os.path.join(HERE, names[1])), delimiter="\t"):
        verdicts[(r["repo"], r["run"], r["path"], int(r["line"]), r["code"])] = r["verdict"]
    totals: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    unjudged = []
    for repo in repos:
        for run in ("tree", "sub"):
            path = os.path.join(args.workdir, "out", args.label, f"{repo['repo'].replace('/', '+')}-{run}.json")
            if not os.path.exists(path):
                continue
            for f in json.load(open(path))["findings"]:
                if f["severity"] not in ("error", "warning"):
                    continue
                key = (repo["repo"], run, f["file"], f["line"], f["code"])
                verdict = verdicts.get(key)
                if verdict is None:
                    unjudged.append((key, f["message"].split("\n")[0]))
                    verdict = "unjudged"
                totals[run][verdict] += 1
    for run in ("tree", "sub"):
        n = sum(totals[run].values())
        print(f"{run}: {n} errors and warnings, {dict(totals[run])}, precision "
              f"{100 * totals[run]['true'] / n if n else 100:.1f}%")
    for key, message in unjudged:
        print("UNJUDGED", *key, message, sep="\t")


if __name__ == "__main__":
    main()
