"""Import bashlex with its LALR tables read from a file instead of computed.

`bashlex.parser` calls PLY's `yacc.yacc()` at import, and bashlex's copy of yacc always computes the LALR tables
of its bash grammar (0.2-0.3 s of CPU in every process that parses a shell script); it ships a parsetab.py but
never reads it. `import_bashlex()` imports bashlex the usual way except for one step: `LRTable.lr_parse_table`, the
table computation, takes `action` and `goto` from bashlex_tables.json when the file was computed from the same
grammar by the same yacc.py (its key: a hash of both, see `grammar_key`). Everything else (the grammar, its
productions bound to bashlex's functions, the parser object, bashlex's own patches of the tables after
`yacc.yacc()`) runs unchanged, so the parser is the one a plain `import bashlex` builds. Another bashlex version,
a missing or unreadable file or any unexpected error: bashlex is imported as usual.

The tables depend on neither the hash seed nor the Python version (3.9 to 3.13 compute the same file), and
tests/userdata/test_bashlex_tables.py compares them with a fresh computation. Not thread-safe: `yacc.LRTable` is
swapped for the duration of the import (karplint parses in processes, not threads). After a bashlex upgrade,
regenerate the file with `python -m karplint.userdata.bashlex_tables` (tests fail until then).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
from typing import Any, Callable

TABLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bashlex_tables.json")


def grammar_key(grammar: Any, yacc_source: bytes) -> str:
    """What the LALR tables are a function of: the table generator's source and the grammar."""
    h = hashlib.sha256(yacc_source)
    h.update(repr((
        grammar.Start,
        sorted(grammar.Precedence.items()),
        sorted(grammar.Terminals),
        [(p.number, p.name, p.prod, p.prec) for p in grammar.Productions],
    )).encode())
    return h.hexdigest()


def _import(fill: Callable[[Any, bytes], bool], record: Callable[[Any, bytes], None] | None = None) -> Any:
    """Import the bashlex package with `yacc.LRTable.lr_parse_table` replaced while `bashlex.parser` builds its
    parser: `fill(lrtable, yacc_source)` fills the tables and returns True, or returns False to have them computed
    (then passed to `record`).

    The package's `__init__` imports `bashlex.parser`, which calls `yacc.yacc()`; so `bashlex.yacc` is imported
    first, under the package module whose code runs afterwards (importlib's own steps, split in two)."""
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None:
        raise ImportError("bashlex")
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    try:
        yacc = importlib.import_module("bashlex.yacc")
        with open(yacc.__file__, "rb") as fh:
            source = fh.read()
        original = yacc.LRTable

        class LRTable(original):  # type: ignore[misc, valid-type]
            def lr_parse_table(self) -> None:
                if not fill(self, source):
                    super().lr_parse_table()
                    if record is not None:
                        record(self, source)

        yacc.LRTable = LRTable
        try:
            spec.loader.exec_module(package)
        finally:
            yacc.LRTable = original
        return package
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise


def _read() -> dict | None:
    try:
        with open(TABLES, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    action, goto = data.get("action"), data.get("goto")
    if not (isinstance(action, list) and isinstance(goto, list) and len(action) == len(goto)):
        return None
    for row in action + goto:
        if not (isinstance(row, dict) and all(type(v) is int for v in row.values())):
            return None
    return data


def _fill(lrtable: Any, source: bytes, data: dict) -> bool:
    if data.get("key") != grammar_key(lrtable.grammar, source):
        return False
    for state, (acts, gotos) in enumerate(zip(data["action"], data["goto"])):
        lrtable.lr_action[state] = acts
        lrtable.lr_goto[state] = gotos
    return True


def import_bashlex() -> Any:
    """The `bashlex` module, imported with the stored tables when they fit (see the module docstring)."""
    module = sys.modules.get("bashlex")
    if module is not None:
        return module
    data = _read()
    if data is not None:
        try:
            return _import(lambda lrtable, source: _fill(lrtable, source, data))
        except Exception:  # noqa: BLE001 - anything unexpected: the usual import below decides
            pass
    import bashlex

    return bashlex


def compute() -> dict:
    """The tables of the installed bashlex as its yacc computes them (in a fresh process), in TABLES' layout."""
    import subprocess

    code = """
import json, sys
from importlib.metadata import version
from karplint.userdata import bashlex_tables as t

out = {"bashlex": version("bashlex")}

def record(lrtable, source):  # a copy now: bashlex.parser edits some of the tables after yacc.yacc()
    assert list(lrtable.lr_action) == list(range(len(lrtable.lr_action))) == list(lrtable.lr_goto)
    out["key"] = t.grammar_key(lrtable.grammar, source)
    out["action"] = [dict(row) for row in lrtable.lr_action.values()]
    out["goto"] = [dict(row) for row in lrtable.lr_goto.values()]

t._import(lambda lrtable, source: False, record)
json.dump(out, sys.stdout)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def dump(data: dict) -> str:
    """TABLES' text: one line per state."""
    parts = [f'{{\n"bashlex": {json.dumps(data["bashlex"])},\n"key": {json.dumps(data["key"])}']
    for name in ("action", "goto"):
        rows = ",\n".join(json.dumps(row, separators=(",", ":")) for row in data[name])
        parts.append(f'"{name}": [\n{rows}\n]')
    return ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":  # python -m karplint.userdata.bashlex_tables: regenerate TABLES
    with open(TABLES, "w", encoding="utf-8") as fh:
        fh.write(dump(compute()))
    print(f"wrote {TABLES}")
