#!/usr/bin/env python3
"""Run karplint on every repository of repos.tsv: the whole tree and its Karpenter subdirectory.

Usage: python run.py --label before --karplint /work/h-precision/.venv/bin/karplint [--extract]
--extract first writes each missing repository's tree at the commit recorded in repos.tsv from its
bare mirror (/work/.mirror/OWNER+NAME/repo, made by the `fetch` tool), skipping blobs absent from the snapshot.
Writes WORKDIR/out/<label>/<owner+name>-{tree,sub}.json (karplint's JSON report) and
WORKDIR/out/<label>/runs.tsv (exit code, seconds, findings by severity, or the crash).
Each run has cwd = the repository root, so the project root is the repository.
Third-party trees and reports stay in WORKDIR (default /work/precision), never in this checkout.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--karplint", default="/work/h-precision/.venv/bin/karplint")
    ap.add_argument("--repos-tsv", default=os.path.join(HERE, "repos.tsv"))
    ap.add_argument("--workdir", default="/work/precision")
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--extract", action="store_true", help="extract missing repositories from their mirrors")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--only", nargs="*", help="owner/name to run (default: all)")
    args = ap.parse_args()

    repos_dir = os.path.join(args.workdir, "repos")
    outdir = os.path.join(args.workdir, "out", args.label)
    os.makedirs(outdir, exist_ok=True)
    with open(args.repos_tsv, newline="") as f:
        repos = list(csv.DictReader(f, delimiter="\t"))
    log_rows = []
    for row in repos:
        repo = row["repo"]
        if args.only and repo not in args.only:
            continue
        slug = repo.replace("/", "+")
        root = os.path.join(repos_dir, slug)
        if args.extract and not os.path.isdir(root):
            extract(os.path.join(args.mirrors, slug, "repo"), row["commit"], root)
        if not os.path.isdir(root):
            print(f"{repo}: missing {root}, skipped", file=sys.stderr)
            log_rows.append([repo, "-", "missing", "", "", "", ""])
            continue
        for run, target in (("tree", "."), ("sub", row["subdir"])):
            cmd = [args.karplint, "check", "--no-cache", "--output-format", "json", "--exit-zero", target]
            start = time.monotonic()
            try:
                p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=args.timeout)
                status, stdout, stderr, rc = "ok", p.stdout, p.stderr, p.returncode
            except subprocess.TimeoutExpired as e:
                status, stdout, stderr, rc = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "", None
            secs = time.monotonic() - start
            path = os.path.join(outdir, f"{slug}-{run}.json")
            counts = {"error": 0, "warning": 0, "info": 0}
            try:
                report = json.loads(stdout)
                for finding in findings_of(report):
                    sev = finding.get("severity")
                    counts[sev] = counts.get(sev, 0) + 1
            except (json.JSONDecodeError, TypeError):
                if status == "ok":
                    status = "crash"
                report = {"crash": True, "status": status, "returncode": rc,
                          "stdout": stdout[-20000:], "stderr": stderr[-20000:]}
            if stderr.strip() and status == "ok":
                report_stderr = stderr[-5000:]
            else:
                report_stderr = ""
            with open(path, "w") as out:
                json.dump(report, out, indent=1)
            if report_stderr:
                with open(path[:-5] + ".stderr.txt", "w") as out:
                    out.write(report_stderr)
            print(f"{repo} {run}: {status} rc={rc} {secs:.1f}s E={counts['error']} W={counts['warning']} I={counts['info']}")
            log_rows.append([repo, run, status, rc, f"{secs:.1f}", counts["error"], counts["warning"], counts["info"]])
    with open(os.path.join(outdir, "runs.tsv"), "w") as f:
        f.write("repo\trun\tstatus\treturncode\tseconds\terrors\twarnings\tinfos\n")
        for r in log_rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    return 0


def extract(gitdir, commit, dest):
    """Write the tree of `commit` to dest; blobs missing from the snapshot (large files) are skipped."""
    listing = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout
    missing = 0
    for rec in listing.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, sha = meta.split()
        if typ != b"blob" or mode == b"120000":  # submodules and symlinks are not written
            continue
        blob = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "blob", sha], capture_output=True)
        if blob.returncode != 0:
            missing += 1
            continue
        full = os.path.join(dest, path.decode("utf-8", "surrogateescape"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(blob.stdout)
    print(f"extracted {dest} ({missing} blob(s) absent from the snapshot)", file=sys.stderr)


def findings_of(report):
    """The findings list of karplint's JSON report (a list, or a dict holding one)."""
    if isinstance(report, list):
        return report
    for key in ("findings", "results", "diagnostics"):
        if isinstance(report.get(key), list):
            return report[key]
    raise TypeError("no findings list in report")


if __name__ == "__main__":
    sys.exit(main())
