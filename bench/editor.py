"""Editor latency: keystroke -> findings on a generated workspace (see bench/README.md, "Editor latency").

    python bench/editor.py                    # 10,000 files, 200 keystrokes
    python bench/editor.py -n 500 --keys 20   # a quick run

Generates the tree of bench.py (bench/gen.py), opens a Workspace on it (karplint/server/workspace.py: the project
built and every file checked once; timed apart), opens one NodePool in the "editor", then types: each keystroke
inserts one character into a comment at the end of the NodePool's `metadata.name` line (so that every keystroke
leaves a valid NodePool whose bytes changed: the per-file stage runs on it, and the cross-file rules that read
NodePools run again) and measures `Workspace.update` until it returns the findings; then the same in a Service
(which no cross-file rule reads). Prints p50, p95 and max, and the CPU time of the process per keystroke (what
a loaded machine does not inflate).
With --lsp, the same keystrokes through `karplint server` over stdio (didChange -> publishDiagnostics), when the
installed karplint has that command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen import generate  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def keystrokes(text: str, count: int):
    """`count` versions of `text`, each one character longer: typing into a comment after the first line that
    holds `name:`."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("name:"))
    typed = ""
    for k in range(count):
        typed += "abcdefghij"[k % 10]
        out = list(lines)
        out[at] = f"{lines[at]}  # {typed}"
        yield "\n".join(out)


def run_direct(tree: Path, targets: list[Path], keys: int) -> list[dict]:
    """Per target: start-up, then `keys` keystrokes timed (wall and CPU of this process), the peak RSS."""
    import resource

    from karplint.server.workspace import Workspace

    started = time.perf_counter()
    ws = Workspace(str(tree))
    startup = time.perf_counter() - started
    out = []
    for target in targets:
        text = target.read_text(encoding="utf-8")
        ws.update(str(target), text)
        times, cpu = [], []
        for version in keystrokes(text, keys):
            t0, c0 = time.perf_counter(), time.process_time()
            got = ws.update(str(target), version)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            assert str(target) in got
        ws.update(str(target), None)
        out.append({"target": target, "startup_s": startup, "ms": times, "cpu_ms": cpu,
                    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
    return out


def run_lsp(tree: Path, target: Path, keys: int) -> dict | None:
    """The same keystrokes through `karplint server` (stdio): didChange -> publishDiagnostics for the document."""
    import json
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "karplint", "server"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ids = iter(range(1, 1 << 30))

    def send(msg: dict) -> None:
        body = json.dumps(msg).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()

    def read() -> dict | None:
        length = None
        while True:
            line = proc.stdout.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(proc.stdout.read(length))

    def wait(pred) -> dict | None:
        while True:
            msg = read()
            if msg is None or pred(msg):
                return msg
            if "id" in msg and "method" in msg:  # a request from the server (configuration, ...): answer null
                send({"jsonrpc": "2.0", "id": msg["id"], "result": None})

    uri = target.as_uri()
    started = time.perf_counter()
    send({"jsonrpc": "2.0", "id": next(ids), "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": tree.as_uri(), "capabilities": {},
        "workspaceFolders": [{"uri": tree.as_uri(), "name": "bench"}]}})
    if wait(lambda m: m.get("id") == 1 and ("result" in m or "error" in m)) is None:
        proc.kill()
        return None
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    text = target.read_text(encoding="utf-8")
    is_ours = lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri  # noqa
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 0, "text": text}}})
    if wait(is_ours) is None:
        proc.kill()
        return None
    opened = time.perf_counter() - started
    times = []
    for v, version in enumerate(keystrokes(text, keys), 1):
        t0 = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": version}]}})
        wait(is_ours)
        times.append((time.perf_counter() - t0) * 1000)
    send({"jsonrpc": "2.0", "id": next(ids), "method": "shutdown", "params": None})
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    return {"startup_s": opened, "ms": times}


def summary(label: str, got: dict) -> str:
    ms = got["ms"]
    line = (f"{label}: start-up (project + first check) {got['startup_s']:.1f} s; keystroke -> findings over "
            f"{len(ms)} keystrokes: p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms, "
            f"max {max(ms):.0f} ms")
    if "cpu_ms" in got:
        line += (f"; CPU p50 {percentile(got['cpu_ms'], 50):.0f} ms, p95 {percentile(got['cpu_ms'], 95):.0f} ms; "
                 f"peak RSS {got['rss_mb']:.0f} MB")
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=10_000, help="files in the generated tree")
    parser.add_argument("--keys", type=int, default=200, help="keystrokes to time")
    parser.add_argument("--lsp", action="store_true", help="also through `karplint server` over stdio")
    parser.add_argument("--tree", help="an existing tree from gen.py (default: generated in a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="karplint-editor-") as tmp:
        tree = Path(args.tree) if args.tree else Path(tmp) / "tree"
        if not args.tree:
            generate(tree, args.n)
        target = sorted(tree.glob("platform/**/nodepool-*.yaml"))[0]
        service = sorted(tree.glob("teams/**/*-service.yaml"))[0]  # (no cross-file rule reads a Service)
        print(f"tree: {args.n if not args.tree else '?'} files", flush=True)
        for got in run_direct(tree, [target, service], args.keys):
            print(summary(f"Workspace.update, editing {got['target'].relative_to(tree)}", got), flush=True)
        if args.lsp:
            got = run_lsp(tree, target, args.keys)
            print(summary("LSP didChange -> publishDiagnostics", got) if got else
                  "LSP: `karplint server` did not answer (not in this tree?)")


if __name__ == "__main__":
    main()
