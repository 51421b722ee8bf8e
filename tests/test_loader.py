"""The loader: positions for every node, input problems as located findings, nothing constructed."""

from __future__ import annotations

from karplint.readers.loader import decode, load
from karplint.readers.source import SourceFile
from karplint.testing import codes, lint


def _load(text: str):
    src = decode("t.yaml", text.encode("utf-8"))
    assert isinstance(src, SourceFile)
    return load(src)


def test_positions_of_keys_and_values_are_one_based():
    docs, problems = _load("a: 1\nspec:\n  taints:\n    - key: x\n      effect: NoSchedule\n")
    assert not problems
    doc = docs[0]
    assert doc.span(("spec", "taints", 0, "effect"))[:4] == (5, 15, 5, 25)
    assert doc.key_span(("spec", "taints", 0, "effect"))[:4] == (5, 7, 5, 13)
    assert doc.span(("spec", "missing", "deeper"))[:2] == doc.span(("spec",))[:2]  # nearest ancestor


def test_offsets_index_the_text():
    text = "a: 1\nb: 'quoted'\n"
    docs, _ = _load(text)
    span = docs[0].span(("b",))
    assert text[span.offset:span.end_offset] == "'quoted'"


def test_multi_document_stream_and_list_expansion():
    text = "kind: A\n---\napiVersion: v1\nkind: List\nitems:\n  - kind: B\n    x: 1\n  - kind: C\n"
    docs, problems = _load(text)
    assert not problems
    assert [d.data.get("kind") for d in docs] == ["A", "B", "C"]
    assert docs[1].span(("x",))[:2] == (7, 8)
    assert docs[1].index == docs[2].index == 1


def test_tags_never_construct_objects():
    docs, problems = _load("a: !!python/object/apply:os.system ['echo pwned']\nb: !Ref X\nc: !!binary aGk=\n")
    assert not problems
    assert docs[0].data == {"a": ["echo pwned"], "b": "X", "c": "aGk="}


def test_scalar_types():
    docs, _ = _load("a: [1, 1.5, true, null, '1', 0x10, ~, yes]\n")
    assert docs[0].data["a"] == [1, 1.5, True, None, "1", 16, None, "yes"]


def test_duplicate_key_is_located_at_the_second_key():
    assert codes(lint("a: 1\nb:\n  c: 1\n  c: 2\n")) == [("KPL002", 4, 3)]


def test_syntax_error_is_located_and_later_files_still_checked():
    findings = lint({"a.yaml": "a: [1, 2\n", "b.yaml": "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\n"},
                    karpenter_version="1.14.1")
    assert [(f.file, f.code) for f in findings] == [("a.yaml", "KPL001"), ("b.yaml", "KPL801")]


def test_tab_indentation_is_explained():
    f = lint("a:\n\tb: 1\n")
    assert f[0].code == "KPL001" and f[0].line == 2 and "tab" in f[0].message


def test_documents_before_a_syntax_error_are_kept():
    findings = lint("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: a}\n---\na: [\n",
                    karpenter_version="1.14.1")
    assert ("KPL801", 1, 13) in codes(findings)  # (and KPL103: its v1beta1 schema requires spec)
    assert findings[-1].code == "KPL001"


def test_invalid_utf8_is_a_located_finding():
    src = decode("x.yaml", b"a: 1\nb: caf\xe9\n")
    assert not isinstance(src, SourceFile)
    assert (src.code, src.span.line, src.span.column) == ("KPL003", 2, 7)


def test_binary_content_is_reported():
    src = decode("x.yaml", b"\x89PNG\r\n\x1a\n\x00\x00")
    assert not isinstance(src, SourceFile) and "binary" in src.message


def test_utf16_with_bom_and_crlf():
    raw = "\ufeffa: 1\r\nb: x\r\n".encode("utf-16-le")
    src = decode("x.yaml", raw)
    assert isinstance(src, SourceFile) and src.encoding == "utf-16-le" and src.bom
    docs, problems = load(src)
    assert not problems and docs[0].data == {"a": 1, "b": "x"}
    assert docs[0].span(("b",))[:2] == (2, 4)


def test_alias_bomb_is_bounded():
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        text += f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    findings = lint(text)
    assert [f.code for f in findings] == ["KPL004"]
    assert "alias" in findings[0].message
