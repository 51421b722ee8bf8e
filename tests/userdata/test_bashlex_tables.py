"""karplint.userdata.bashlex_tables: bashlex imported with stored LALR tables builds the parser a plain
`import bashlex` builds, and falls back to the plain import whenever the stored tables do not apply."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from karplint.userdata import bashlex_tables

SCRIPTS = [
    "#!/bin/bash\nset -euo pipefail\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels=a=b'\n",
    "for i in 1 2; do echo \"$i\" | grep -q x && exit 1; done\ncat <<EOF > /etc/x\nhello $(hostname)\nEOF\n",
    "if [ -f /x ]; then a=$((1 + 2)); fi\nf() { echo `date` ; }\ncase $1 in a) f;; *) :;; esac\n",
    "echo 'unterminated\n",
    "echo $(\n",
    "a && || b\n",
]

# Runs in a fresh process: MODE chooses how bashlex is imported; prints the parser and what it parses.
_PROBE = r"""
import json, sys
from karplint.userdata import bashlex_tables as t

mode, arg, scripts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if mode == "plain":
    import bashlex
elif mode == "stored":
    filled = []
    data = t._read()
    bashlex = t._import(lambda lrtable, source: filled.append(t._fill(lrtable, source, data)) or filled[-1])
    assert filled == [True], filled
elif mode == "tables-file":
    t.TABLES = arg
    bashlex = t.import_bashlex()
elif mode == "fill-raises":
    def boom(*a):
        raise RuntimeError("boom")
    t._fill = boom
    bashlex = t.import_bashlex()
assert "bashlex" in sys.modules and sys.modules["bashlex"] is bashlex

p = bashlex.parser.yaccparser
parsed = []
for s in scripts:
    try:
        parsed.append([n.dump() for n in bashlex.parse(s)])
    except Exception as exc:
        parsed.append([type(exc).__name__, str(exc), getattr(exc, "position", None)])
json.dump({
    "action": [[s, list(row.items())] for s, row in p.action.items()],
    "goto": [[s, list(row.items())] for s, row in p.goto.items()],
    "defaulted": sorted(p.defaulted_states.items()),
    "productions": [(q.str, q.name, q.len, q.func, getattr(q.callable, "__qualname__", None)) for q in p.productions],
    "parsed": parsed,
}, sys.stdout)
"""


def _probe(mode: str, arg: str = "") -> dict:
    proc = subprocess.run([sys.executable, "-c", _PROBE, mode, arg, json.dumps(SCRIPTS)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # yacc's own warnings, if any, would show here in every mode alike
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def plain() -> dict:
    return _probe("plain")


def test_stored_tables_are_the_ones_this_bashlex_computes():
    stored = json.loads(Path(bashlex_tables.TABLES).read_text())
    fresh = bashlex_tables.compute()
    assert stored["key"] == fresh["key"], (
        "bashlex's grammar or yacc changed: run `python -m karplint.userdata.bashlex_tables` to regenerate "
        f"{bashlex_tables.TABLES}")
    assert stored == fresh
    assert bashlex_tables.dump(fresh) == Path(bashlex_tables.TABLES).read_text()


def test_stored_tables_build_the_same_parser(plain):
    stored = _probe("stored")
    assert stored == plain
    assert any(p and p[0] == "ParsingError" for p in plain["parsed"])  # the error path is compared too


@pytest.mark.parametrize("content", [
    None,  # no file
    "not json",
    '{"key": "0", "action": [], "goto": []}',  # another grammar or yacc
    '{"key": "0", "action": [{"WORD": "x"}], "goto": [{}]}',
])
def test_unusable_tables_file_means_a_plain_import(plain, tmp_path: Path, content):
    path = tmp_path / "tables.json"
    if content is not None:
        path.write_text(content)
    assert _probe("tables-file", str(path)) == plain


def test_wrong_tables_under_the_right_key_are_rejected(tmp_path: Path):
    data = json.loads(Path(bashlex_tables.TABLES).read_text())
    data["action"][0] = {"WORD": [1]}
    (tmp_path / "t.json").write_text(json.dumps(data))
    bashlex_tables.TABLES, saved = str(tmp_path / "t.json"), bashlex_tables.TABLES
    try:
        assert bashlex_tables._read() is None
    finally:
        bashlex_tables.TABLES = saved


def test_an_error_while_importing_falls_back_to_a_plain_import(plain):
    assert _probe("fill-raises") == plain


def test_bashlex_already_imported_is_returned_as_is():
    import bashlex

    assert bashlex_tables.import_bashlex() is bashlex
