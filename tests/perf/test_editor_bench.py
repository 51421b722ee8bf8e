"""bench/editor.py in CI size: the keystrokes it times give, at the end, the findings `karplint check` gives for
the tree with the typed text saved, for every file of the tree (not only the edited one)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import editor  # noqa: E402
from gen import generate  # noqa: E402

from karplint.testing import run_cli  # noqa: E402


def test_typed_workspace_equals_check_of_the_saved_tree(tmp_path):
    tree = tmp_path / "tree"
    generate(tree, 300)
    got = editor.run_direct(tree, [sorted(tree.glob("platform/**/nodepool-*.yaml"))[0]], 3)
    assert len(got[0]["ms"]) == 3 and got[0]["startup_s"] > 0
    from karplint.server.workspace import Workspace

    target = sorted(tree.glob("platform/**/nodepool-*.yaml"))[1]
    ws = Workspace(str(tree))
    for text in editor.keystrokes(target.read_text(encoding="utf-8"), 3):
        ws.update(str(target), text)
    target.write_text(text, encoding="utf-8")
    proc = run_cli("check", "--no-cache", "--output-format", "json", "--exit-zero", str(tree))
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)["findings"]
    assert cli
    files = {f["file"] for f in cli} | {str(p) for p in tree.rglob("*") if p.is_file()}
    mine = [f for path in files for f in ws.findings(path)]
    assert sorted((f.file, f.span.line, f.span.column, f.code, f.severity) for f in mine) == \
        sorted((f["file"], f["line"], f["column"], f["code"], f["severity"]) for f in cli)
