"""karplint side by side with its peers on a synthetic monorepo (see bench/README.md).

    python bench/bench.py                 # 10,000 files, 3 repetitions, peers installed on first use
    python bench/bench.py -n 500 --reps 1 --no-peers --no-scaling   # the CI-sized smoke run

Runs, on one generated tree: karplint cold (empty cache), warm (cache, unchanged tree), touched (one Service
changed since the last run), touched NodePool (one NodePool changed: cross-file rules run again), checkov,
yamllint, and the floor: PyYAML's CSafeLoader loading every document of
every file in one process. Each measurement is a fresh process; wall time, CPU time (user + sys, children
included) and peak RSS (largest single process, from wait4) are taken from the kernel.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen import generate, touch_one  # noqa: E402

PEERS_VENV = HERE / ".venv-peers"
KARPLINT_RUNS = ("cold", "warm", "touched", "touched NodePool")
FLOOR = r"""
import os, sys, yaml
n = 0
for dirpath, dirnames, filenames in os.walk(sys.argv[1]):
    dirnames.sort()
    for name in sorted(filenames):
        if not name.endswith((".yaml", ".yml", ".json")):
            continue
        with open(os.path.join(dirpath, name), "rb") as fh:
            data = fh.read()
        try:
            for _ in yaml.load_all(data, Loader=yaml.CSafeLoader):
                n += 1
        except yaml.YAMLError:
            pass
print(n)
"""


class Run:
    def __init__(self, wall: float, cpu: float, rss_mb: float, rc: int, out: bytes):
        self.wall, self.cpu, self.rss_mb, self.rc, self.out = wall, cpu, rss_mb, rc, out


def measure(cmd: list[str], cwd: Path, env: dict | None = None) -> Run:
    """Run `cmd`; wall clock, user+sys CPU of it and its children, peak RSS of the largest process.

    Bytecode caching stays on (as for an installed tool): PYTHONDONTWRITEBYTECODE would make every run of a
    source checkout compile its modules again."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryFile() as out:
        print(f"  running: {' '.join(cmd[:6])}{' ...' if len(cmd) > 6 else ''}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        data = out.read()
    run = Run(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, proc.returncode, data)
    print(f"    wall {run.wall:.2f} s, CPU {run.cpu:.2f} s, peak RSS {run.rss_mb:.0f} MB", file=sys.stderr, flush=True)
    return run


def ensure_peers(python: str) -> dict[str, list[str]]:
    """Commands for the peers, installing them into bench/.venv-peers when missing."""
    bindir = PEERS_VENV / ("Scripts" if os.name == "nt" else "bin")
    needed = {"checkov": bindir / "checkov", "yamllint": bindir / "yamllint"}
    if not all(p.exists() for p in needed.values()):
        print(f"installing checkov, yamllint and pyyaml into {PEERS_VENV} ...", file=sys.stderr)
        if not (bindir / "python").exists():
            subprocess.run([python, "-m", "venv", str(PEERS_VENV)], check=True)
        subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q", "checkov", "yamllint", "pyyaml"],
                       check=True)
    return {
        "checkov": [str(needed["checkov"]), "--framework", "kubernetes", "-d", ".", "--quiet", "--compact",
                    "-o", "cli"],
        "yamllint": [str(needed["yamllint"]), "-f", "parsable", "."],
    }


def findings(run: Run) -> list:
    return json.loads(run.out)["findings"]


def summarize(runs: list[Run]) -> dict:
    walls = [r.wall for r in runs]
    cpus = [r.cpu for r in runs]
    return {"wall": statistics.median(walls), "wall_min": min(walls), "wall_max": max(walls),
            "cpu": statistics.median(cpus), "rss_mb": max(r.rss_mb for r in runs), "n": len(runs)}


def karplint_cmd(python: str, jobs: int | None) -> list[str]:
    cmd = [python, "-m", "karplint", "check", ".", "--output-format", "json", "--exit-zero"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    return cmd


def bench_karplint(tree: Path, python: str, reps: int, jobs: int | None, cache_dir: Path) -> dict[str, list[Run]]:
    env = dict(os.environ, KARPLINT_CACHE_DIR=str(cache_dir))
    env.pop("KARPLINT_NO_CACHE", None)
    cmd = karplint_cmd(python, jobs)
    out: dict[str, list[Run]] = {"cold": [], "warm": [], "touched": [], "touched NodePool": []}
    reference = None
    for _ in range(reps):
        shutil.rmtree(cache_dir, ignore_errors=True)
        cold = measure(cmd, tree, env)
        warm = measure(cmd, tree, env)
        assert cold.rc == 0 and warm.rc == 0, "karplint failed"
        assert findings(cold) == findings(warm), "warm run differs from cold run"
        touch_one(tree)
        touched = measure(cmd, tree, env)
        fresh = measure(cmd + ["--no-cache"], tree, env)
        assert findings(touched) == findings(fresh), "run after touching a file differs from an uncached run"
        touch_one(tree, "platform/**/nodepool-*.yaml")  # cross-file rules must run again
        touched_pool = measure(cmd, tree, env)
        fresh = measure(cmd + ["--no-cache"], tree, env)
        assert findings(touched_pool) == findings(fresh), "run after touching a NodePool differs from an uncached run"
        if reference is not None:
            assert findings(cold) == reference
        reference = findings(cold)
        out["cold"].append(cold)
        out["warm"].append(warm)
        out["touched"].append(touched)
        out["touched NodePool"].append(touched_pool)
    return out


def run_bench(n: int, reps: int, peers: bool, scaling: bool, jobs: int | None, workdir: Path,
              peer_reps: int | None = None, python: str = sys.executable) -> dict:
    workdir.mkdir(parents=True, exist_ok=True)
    # karplint as installed: pip compiles the modules, a checkout under PYTHONDONTWRITEBYTECODE does not.
    subprocess.run([python, "-m", "compileall", "-q", str(HERE.parent / "karplint")], check=True,
                   stdout=subprocess.DEVNULL)
    tree = workdir / f"tree-{n}"
    shutil.rmtree(tree, ignore_errors=True)
    generate(tree, n)
    results: dict = {"n": n, "reps": reps, "jobs": jobs or os.cpu_count(), "machine": machine()}
    k = bench_karplint(tree, python, reps, jobs, workdir / "cache")
    rows = {name: summarize(runs) for name, runs in k.items()}
    results["files_with_findings"] = len({f["file"] for f in findings(k["cold"][0])})
    results["findings"] = len(findings(k["cold"][0]))

    floor_python = str(PEERS_VENV / "bin" / "python") if peers else python
    tools: dict[str, list[str]] = {"floor (PyYAML CSafeLoader)": [floor_python, "-c", FLOOR, "."]}
    if peers:
        tools = {**ensure_peers(python), **tools}
    for name, cmd in tools.items():
        count = peer_reps if (peer_reps and name in ("checkov", "yamllint")) else reps
        runs = [measure(cmd, tree) for _ in range(count)]
        rows[name] = summarize(runs)
    results["rows"] = rows

    if scaling:
        big = workdir / f"tree-{2 * n}"
        shutil.rmtree(big, ignore_errors=True)
        generate(big, 2 * n)
        env = dict(os.environ, KARPLINT_CACHE_DIR=str(workdir / "cache-scaling"))
        small_runs, big_runs = [], []
        for _ in range(reps):
            shutil.rmtree(workdir / "cache-scaling", ignore_errors=True)
            small_runs.append(measure(karplint_cmd(python, jobs) + ["--no-cache"], tree, env))
            big_runs.append(measure(karplint_cmd(python, jobs) + ["--no-cache"], big, env))
        s, b = summarize(small_runs), summarize(big_runs)
        results["scaling"] = {
            "n": [n, 2 * n], "cpu": [s["cpu"], b["cpu"]], "wall": [s["wall"], b["wall"]],
            "rss_mb": [s["rss_mb"], b["rss_mb"]],
            "exponent_cpu": math.log2(b["cpu"] / s["cpu"]), "exponent_wall": math.log2(b["wall"] / s["wall"]),
            "exponent_rss": math.log2(b["rss_mb"] / s["rss_mb"]),
        }
        shutil.rmtree(big, ignore_errors=True)
    return results


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": platform.python_version(), "loadavg_1m": load}


def render(results: dict) -> str:
    rows = results["rows"]
    m = results["machine"]
    lines = [f"{results['n']:,} files, {results['reps']} repetition(s), karplint --jobs {results['jobs']}; "
             f"nproc {m['nproc']}, {m['cpu']}, Python {m['python']}, load average {m['loadavg_1m']}",
             "",
             f"| {'run':<28} | {'wall median':>11} | {'wall min-max':>15} | {'CPU median':>10} | {'peak RSS':>9} |",
             f"|{'-' * 30}|{'-' * 13}:|{'-' * 17}:|{'-' * 12}:|{'-' * 11}:|"]
    for name, r in rows.items():
        label = f"karplint {name}" if name in KARPLINT_RUNS else name
        lines.append(f"| {label:<28} | {r['wall']:>9.2f} s | {r['wall_min']:>6.2f}-{r['wall_max']:<6.2f} s "
                     f"| {r['cpu']:>8.2f} s | {r['rss_mb']:>6.0f} MB |")
    lines.append("")
    cold = rows["cold"]
    for name, r in rows.items():
        if name in KARPLINT_RUNS:
            continue
        lines.append(f"karplint cold / {name}: wall {cold['wall'] / r['wall']:.2f}, CPU {cold['cpu'] / r['cpu']:.2f}")
    if "scaling" in results:
        s = results["scaling"]
        lines.append(f"scaling {s['n'][0]:,} -> {s['n'][1]:,} files (uncached): CPU {s['cpu'][0]:.2f} -> "
                     f"{s['cpu'][1]:.2f} s (exponent {s['exponent_cpu']:.2f}), wall {s['wall'][0]:.2f} -> "
                     f"{s['wall'][1]:.2f} s (exponent {s['exponent_wall']:.2f}), peak RSS {s['rss_mb'][0]:.0f} -> "
                     f"{s['rss_mb'][1]:.0f} MB (exponent {s['exponent_rss']:.2f})")
    lines.append(f"findings: {results['findings']} in {results['files_with_findings']} files; cold, warm and "
                 "touched runs agree")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--files", type=int, default=10_000, help="files in the generated tree (default 10000)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each measurement (default 3)")
    ap.add_argument("--peer-reps", type=int, default=None,
                    help="repetitions for checkov and yamllint, which are slow (default: --reps)")
    ap.add_argument("--jobs", type=int, default=None, help="karplint --jobs (default: karplint's, the cores)")
    ap.add_argument("--no-peers", action="store_true", help="skip checkov and yamllint (the floor still runs)")
    ap.add_argument("--no-scaling", action="store_true", help="skip the N vs 2N scaling measurement")
    ap.add_argument("--workdir", type=Path, default=None, help="where to generate trees (default: a temp dir)")
    ap.add_argument("--json", type=Path, default=None, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="karplint-bench-"))
    try:
        results = run_bench(args.files, args.reps, not args.no_peers, not args.no_scaling, args.jobs, workdir,
                            args.peer_reps)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
