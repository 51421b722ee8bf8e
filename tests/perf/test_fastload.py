"""The libyaml loader (karplint.readers.fastload) must give exactly what the reference ruamel loader gives."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from karplint.readers import fastload
from karplint.readers.loader import Problem, _yaml_text, decode, load, load_reference

SHARED = Path(os.environ.get("KARPLINT_SHARED", Path(__file__).parents[2].parent / "shared"))

pytestmark = pytest.mark.skipif(not fastload.ENABLED, reason="PyYAML with libyaml is not installed")

CASES = {
    "no-final-newline": "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n  c:\n    - 1\n    - 2",
    "empty-values": "a:\nb:   # comment\n\n  # another\nc:\n  d:\n  e: [ , ]\nf: {x: , y: }\n- \n",
    "empty-values-ok": "a:\nb:   # comment\n\n  # another\nc:\n  d:\n  e:\nf: {x: , y: }\ng:\n  - \n  -\n  - x\nh:",
    "empty-at-eof": "a:\n  b:",
    "empty-at-eof-nl": "a:\n  b:\n",
    "crlf": "a: 1\r\nb:\r\n  - x\r\n  - 'y'\r\nc: |\r\n  text\r\n  more\r\n",
    "lone-cr": "a: 1\rb: 2\r",
    "scalars": ("i: 0x1F\no: 0o17\nb: 0b101\nf: 1.5e3\nn: ~\nN: Null\nt: True\nyes: yes\non: on\ninf: -.inf\n"
                "nan: .NaN\nts: 2024-01-01\ns: '012'\nq: \"x\\ty\"\nu: _1_2\nneg: -12\nplus: +7\noct: 012\n"
                "e: 1e5\ndot: .5\nk: =\n1: int key\n1.5: float key\ntrue: bool key\nnull: null key\n"),
    "tags": "a: !!str 12\nb: !!int '7'\nc: !Ref x\nd: ! 12\ne: !!float 1\nf: !!bool 'true'\ng: !custom {x: 1}\n",
    "anchors": "base: &b {x: 1, y: [1, 2]}\nuse: *b\nmerge:\n  <<: *b\n  z: 3\nmulti:\n  <<: [*b, {w: 1}]\n",
    "dup-keys": "a: 1\nb: 2\na: 3\nnested:\n  k: 1\n  k: 2\n",
    "block-scalars": "a: |\n  one\n  two\nb: >-\n  folded\n  text\n\nc: |+\n  keep\n\nd: |2\n    indented\ne: >\n\n  x\n",
    "flow": "a: {b: [1, {c: d}], e: 'f'}\nl: [a, b, [c, [d]]]\n",
    "multi-doc": "---\na: 1\n...\n---\nb: 2\n---\n---\n- x\n- y\n--- scalar\n---\n",
    "comments-only": "# nothing here\n# at all\n",
    "empty": "",
    "list-kind": ("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n"
                  "  - apiVersion: v1\n    kind: ConfigMapList\n    items:\n      - kind: Secret\n        apiVersion: v1\n"),
    "unicode": "name: é€😀x\nother: 'ü'\n\"k€y\": v\n",
    "json": '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1", "b": [1, 2.5, true, null]}}',
    "complex-key": "? [a, b]\n: c\n? {x: 1}\n: d\n",
    "quoted-multiline": "a: \"one\n  two\"\nb: 'x\n\n  y'\nc: plain\n  continued\n",
    "explicit-doc-end": "a: 1\n...\n",
    "indentless-seq": "a:\n- 1\n- b: 2\n  c: 3\n-\n",
    "deep": "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 60)) + "  " * 60 + "v: 1\n",
}


def _norm(x):
    if isinstance(x, float) and math.isnan(x):
        return ("float", "nan")
    if isinstance(x, dict):
        return {k: _norm(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_norm(v) for v in x]
    return (type(x).__name__, x)


def _compare(name: str, raw: bytes) -> bool:
    """Assert both loaders agree; False when the fast loader declines (the reference decides)."""
    src = decode(name, raw, None)
    if isinstance(src, Problem):
        return False
    fast = fastload.load_fast(src, _yaml_text(src.text))
    if fast is None:
        return False
    ref_docs, ref_problems = load_reference(src)
    fast_docs, fast_problems = fast
    assert [(p.code, p.message, p.span) for p in fast_problems] == \
        [(p.code, p.message, p.span) for p in ref_problems], name
    assert [(d.index, d.base, d.start) for d in fast_docs] == [(d.index, d.base, d.start) for d in ref_docs], name
    for a, b in zip(ref_docs, fast_docs):
        assert _norm(b.data) == _norm(a.data), (name, a.index)
        assert dict(b.nodes) == dict(a.nodes), (name, a.index)
    return True


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_cases_agree(name):
    _compare(name, CASES[name].encode("utf-8"))


def test_fast_path_taken_for_plain_manifests():
    assert _compare("plain", CASES["anchors"].encode())
    assert _compare("plain", CASES["no-final-newline"].encode())
    assert not _compare("tabs", b"a:\t1\n")  # ruamel rejects some tab separation libyaml accepts
    assert not _compare("directive", b"%YAML 1.1\n---\na: yes\n")
    assert not _compare("error", b"a: [1, 2\n")


@pytest.mark.parametrize("limit", ["MAX_NODES", "MAX_DEPTH"])
@pytest.mark.parametrize("at", range(1, 12))
def test_load_limits_agree_at_every_boundary(monkeypatch, limit, at):
    """The fast loader builds child scalars without a call: the node and depth limits must still trip on the
    same node, with the same message and position, as in the reference loader."""
    from karplint.readers import reference

    for module in (reference, fastload):
        monkeypatch.setattr(module, limit, at)
    text = ("a: 1\nb: [x, {c: d, e: [f, g]}, h]\ni:\n  j:\n    - k\n    - l: m\n      n:\n        o: p\n"
            "q: {r: [s, [t, [u]]]}\n")
    assert _compare(f"{limit}={at}", text.encode())


def test_deep_flow_nesting_does_not_crash():
    depth = 200_000
    src = decode("deep.yaml", b"[" * depth + b"]" * depth, None)
    assert fastload.load_fast(src, src.text) is None  # declined: libyaml's composer recurses in C


def test_load_uses_reference_for_errors():
    src = decode("bad.yaml", b"a: 1\nb: [1, 2\n", None)
    docs, problems = load(src)
    assert [p.code for p in problems] == ["KPL001"]


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason=f"shared corpus not found at {SHARED} (set KARPLINT_SHARED)")
def test_corpus_agrees_node_by_node():
    taken = 0
    for path in sorted((SHARED / "corpus").rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
            taken += _compare(str(path), path.read_bytes())
    assert taken > 200


def test_plain_scalar_resolution_matches_ruamels_regexes():
    """`_resolve_plain` looks the non-numeric types up in a table of spellings; ruamel's resolvers are regexes.
    Both must tag every plain scalar alike."""
    import itertools

    def by_regex(value):
        for tag, rx in fastload._BY_FIRST.get(value[:1], ()):
            if rx.match(value):
                return tag
        return fastload._STR

    words = ["", "~", "null", "Null", "NULL", "nULL", "true", "True", "TRUE", "tRUE", "false", "False", "FALSE",
             "yes", "no", "on", "<<", "<", "=", "==", "!", "&", "*", "!!", "n", "t", ".inf", "-.Inf", ".NaN",
             "1", "-1", "+1", "0x1F", "0o17", "0b10", "1_000", "1.5", "1e3", "1.5e-3", ".5", "2024-01-01",
             "2024-01-01T10:00:00Z", "1:30", "v1", "None", "nil", " ", "true ", "null "]
    letters = "tTfFnNlsSrue~<=!&*.0123456789-+x_ "
    short = ["".join(p) for n in range(1, 4) for p in itertools.product(letters, repeat=n)]
    for value in words + short:
        if value and value[0] == " ":
            continue  # (a plain scalar never starts or ends with a space)
        assert fastload._resolve_plain(value) == by_regex(value), value
