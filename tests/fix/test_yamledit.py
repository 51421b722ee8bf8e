"""yamledit: minimal text edits on tricky layouts (comments, CRLF, no final newline, indentation styles)."""

from __future__ import annotations

import pytest

from karplint.fix import yamledit as ye
from karplint.readers.loader import decode, load


def docs_of(text: str):
    src = decode("t.yaml", text.encode("utf-8"))
    docs, problems = load(src)
    assert not problems, problems
    return docs


def run(text: str, fn, *args, doc: int = 0, **kw):
    """Apply fn(doc, *args) to `text`; None when refused. The result must re-parse."""
    d = docs_of(text)[doc]
    edits = fn(d, *args, **kw)
    if edits is None:
        return None
    out = ye.apply_edits(text, edits)
    docs_of(out)
    return out


def data(text: str, doc: int = 0):
    return docs_of(text)[doc].data


# ------------------------------------------------------------------------------------------ replace_scalar

@pytest.mark.parametrize("before,after", [
    ("policy: WhenUnderutilized # keep\n", "policy: WhenEmptyOrUnderutilized # keep\n"),
    ("policy: 'WhenUnderutilized'\n", "policy: 'WhenEmptyOrUnderutilized'\n"),
    ('policy: "WhenUnderutilized"\r\n', 'policy: "WhenEmptyOrUnderutilized"\r\n'),
    ("policy: WhenUnderutilized", "policy: WhenEmptyOrUnderutilized"),
])
def test_replace_scalar_keeps_style(before, after):
    assert run(before, ye.replace_scalar, ("policy",), "WhenEmptyOrUnderutilized") == after


def test_replace_scalar_plain_needs_quotes():
    assert run("a: x\n", ye.replace_scalar, ("a",), "true") == 'a: "true"\n'
    assert run("a: x\n", ye.replace_scalar, ("a",), "a: b") == 'a: "a: b"\n'
    assert run("a: 'x'\n", ye.replace_scalar, ("a",), "it's") == "a: 'it''s'\n"


@pytest.mark.parametrize("text", [
    "a: |\n  x\n", "a: >\n  x\n", "a: x\n  y\n", "a: &k x\nb: *k\n", "a: !!str x\n", "a: {b: 1}\n",
    "b: &k x\na: 1\nc: *k\n",
])
def test_replace_scalar_refuses(text):
    assert run(text, ye.replace_scalar, ("a",), "z") is None


# ------------------------------------------------------------------------------------------ rename_key

def test_rename_key():
    assert run("a: 1  # c\nb: 2\n", ye.rename_key, ("a",), "z") == "z: 1  # c\nb: 2\n"
    assert run('"a": 1\n', ye.rename_key, ("a",), "z") == '"z": 1\n'
    assert run("a: 1\nb: 2\n", ye.rename_key, ("a",), "b") is None
    assert run("m:\r\n  a:\r\n    x: 1\r\n", ye.rename_key, ("m", "a"), "b") == "m:\r\n  b:\r\n    x: 1\r\n"


# ------------------------------------------------------------------------------------------ insert_entry

NODEPOOL = """\
# leading comment
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized   # trailing
    # a comment after the last entry
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
---
kind: Other
"""


def test_insert_after_last_entry_before_trailing_comment():
    out = run(NODEPOOL, ye.insert_entry, ("spec", "disruption"), "consolidateAfter", "0s")
    assert "    consolidationPolicy: WhenEmptyOrUnderutilized   # trailing\n    consolidateAfter: 0s\n" \
           "    # a comment after the last entry\n" in out
    assert data(out)["spec"]["disruption"]["consolidateAfter"] == "0s"
    assert data(out, 1) == {"kind": "Other"}


def test_insert_after_and_before():
    text = "m:\n    a: 1\n    b: 2\n"
    assert run(text, ye.insert_entry, ("m",), "x", 3, after="a") == "m:\n    a: 1\n    x: 3\n    b: 2\n"
    assert run(text, ye.insert_entry, ("m",), "x", 3, before="a") == "m:\n    x: 3\n    a: 1\n    b: 2\n"
    assert run(text, ye.insert_entry, ("m",), "a", 3) is None  # exists


def test_insert_crlf_and_no_final_newline():
    assert run("m:\r\n  a: 1\r\n", ye.insert_entry, ("m",), "b", 2) == "m:\r\n  a: 1\r\n  b: 2\r\n"
    assert run("m:\r\n  a: 1", ye.insert_entry, ("m",), "b", 2) == "m:\r\n  a: 1\r\n  b: 2"
    assert run("m:\n  a: 1", ye.insert_entry, ("m",), "b", 2) == "m:\n  a: 1\n  b: 2"


def test_insert_after_block_scalar_and_nested():
    text = "m:\n  ud: |\n    #!/bin/bash\n    # shell comment\n\n  z: 1\n"
    out = run(text, ye.insert_entry, ("m",), "x", "v", after="ud")
    assert out == "m:\n  ud: |\n    #!/bin/bash\n    # shell comment\n  x: v\n\n  z: 1\n"
    assert data(out)["m"]["ud"] == "#!/bin/bash\n# shell comment\n"


def test_insert_nested_value_uses_file_layout():
    text = "spec:\n    template:\n        spec:\n            taints:\n            - key: a\n              effect: NoSchedule\n"
    out = run(text, ye.insert_entry, ("spec", "template", "spec"), "startupTaints",
              [{"key": "b", "effect": "NoExecute"}])
    assert out.endswith("            startupTaints:\n            - key: b\n              effect: NoExecute\n")


def test_insert_creates_missing_mappings():
    text = "spec:\n  template:\n    metadata: {}\n"
    out = run(text, ye.insert_entry, ("spec", "template", "spec"), "expireAfter", "720h")
    assert out == "spec:\n  template:\n    metadata: {}\n    spec:\n      expireAfter: 720h\n"


def test_insert_into_empty_value():
    text = "spec:\n  disruption:   # empty\nnext: 1\n"
    out = run(text, ye.insert_entry, ("spec", "disruption"), "consolidateAfter", "0s")
    assert out == "spec:\n  disruption:   # empty\n    consolidateAfter: 0s\nnext: 1\n"


def test_insert_into_sequence_item_mapping():
    text = "items:\n- name: a\n  value: 1\n- name: b\n"
    out = run(text, ye.insert_entry, ("items", 0), "extra", True)
    assert out == "items:\n- name: a\n  value: 1\n  extra: true\n- name: b\n"


@pytest.mark.parametrize("text", ["m: {a: 1}\n", "m: &x\n  a: 1\nn: *x\n", "m:\r  a: 1\r"])
def test_insert_refuses(text):
    assert run(text, ye.insert_entry, ("m",), "b", 2) is None


# ------------------------------------------------------------------------------------------ append_item

@pytest.mark.parametrize("before,after", [
    ("t:\n- a\n- b  # c\nz: 1\n", "t:\n- a\n- b  # c\n- new\nz: 1\n"),
    ("t:\n  - a\n  - b\n", "t:\n  - a\n  - b\n  - new\n"),
    ("t:\r\n    - a\r\n", "t:\r\n    - a\r\n    - new\r\n"),
    ("t:\n  - a", "t:\n  - a\n  - new"),
    ("t: [a, b]\n", "t: [a, b, new]\n"),
    ("t: []\n", "t: [new]\n"),
    ("t:\n", "t:\n  - new\n"),
    ("x: 1\n", "x: 1\nt:\n  - new\n"),
])
def test_append_scalar(before, after):
    assert run(before, ye.append_item, ("t",), "new") == after


def test_append_mapping_item():
    text = "spec:\n  taints:\n    - key: a\n      effect: NoSchedule\n    # end\n"
    out = run(text, ye.append_item, ("spec", "taints"), {"key": "karpenter.sh/unregistered", "effect": "NoExecute"})
    assert out == ("spec:\n  taints:\n    - key: a\n      effect: NoSchedule\n"
                   "    - key: karpenter.sh/unregistered\n      effect: NoExecute\n    # end\n")
    out = run("t: [{key: a}]\n", ye.append_item, ("t",), {"key": "b", "effect": "NoExecute"})
    assert out == "t: [{key: a}, {key: b, effect: NoExecute}]\n"


def test_append_refuses_multiline_flow():
    assert run("t: [a,\n  b]\n", ye.append_item, ("t",), "c") is None


# ------------------------------------------------------------------------------------------ delete_entry

def test_delete_entry_whole_lines():
    text = "m:\n  a: 1  # gone\n  b:\n    - x\n    - y\n  # stays\n  c: 3\n"
    assert run(text, ye.delete_entry, ("m", "b")) == "m:\n  a: 1  # gone\n  # stays\n  c: 3\n"
    assert run(text, ye.delete_entry, ("m", "a")) == "m:\n  b:\n    - x\n    - y\n  # stays\n  c: 3\n"


def test_delete_last_line_without_newline():
    assert run("a: 1\r\nb: 2", ye.delete_entry, ("b",)) == "a: 1"
    assert run("a: 1\nb: |\n  x\n  y", ye.delete_entry, ("b",)) == "a: 1"


def test_delete_prunes_empty_parents():
    text = "spec:\n  disruption:\n    expireAfter: 720h\n  template: {}\n"
    assert run(text, ye.delete_entry, ("spec", "disruption", "expireAfter")) == "spec:\n  template: {}\n"
    assert run(text, ye.delete_entry, ("spec", "disruption", "expireAfter"), prune=False) is None


def test_delete_first_key_of_sequence_item():
    text = "l:\n- a: 1\n  b: 2\n"
    assert run(text, ye.delete_entry, ("l", 0, "a")) == "l:\n- b: 2\n"


def test_delete_followed_by_document():
    text = "a: 1\nb: 2\n---\nc: 3\n"
    assert run(text, ye.delete_entry, ("b",)) == "a: 1\n---\nc: 3\n"


# ------------------------------------------------------------------------------------------ move_entry

def test_move_expire_after():
    text = ("spec:\n  disruption:\n    consolidationPolicy: WhenEmpty\n    expireAfter: 720h # a month\n"
            "  template:\n    spec:\n      nodeClassRef:\n        name: x\n")
    out = run(text, ye.move_entry, ("spec", "disruption", "expireAfter"), ("spec", "template", "spec"))
    assert out == ("spec:\n  disruption:\n    consolidationPolicy: WhenEmpty\n"
                   "  template:\n    spec:\n      nodeClassRef:\n        name: x\n      expireAfter: 720h # a month\n")


def test_move_block_value_reindented_and_renamed():
    text = "a:\n  x:\n    - 1\n    - 2\nb:\n  y: 1\n"
    out = run(text, ye.move_entry, ("a", "x"), ("b", "c"), key="z")
    assert out == "b:\n  y: 1\n  c:\n    z:\n      - 1\n      - 2\n"


def test_move_crlf():
    text = "a:\r\n  k: 1\r\n  j: 2\r\nb:\r\n  y: 1\r\n"
    out = run(text, ye.move_entry, ("a", "k"), ("b",))
    assert out == "a:\r\n  j: 2\r\nb:\r\n  y: 1\r\n  k: 1\r\n"


# ------------------------------------------------------------------------------------------ inside scalars

def test_replace_in_literal_block():
    text = "ud: |\r\n  #!/bin/bash\r\n  /etc/eks/bootstrap.sh c \\\r\n    --kubelet-extra-args=x\r\nz: 1\r\n"
    d = docs_of(text)[0]
    value = d.get(("ud",))
    i = value.index("--kubelet-extra-args=x")
    edits = ye.replace_in_scalar(d, ("ud",), i, i + len("--kubelet-extra-args=x"), "--kubelet-extra-args 'x'")
    out = ye.apply_edits(text, edits)
    assert data(out)["ud"] == value.replace("--kubelet-extra-args=x", "--kubelet-extra-args 'x'")
    i = value.index("/etc")
    edits = ye.replace_in_scalar(d, ("ud",), i, i, "echo hi\n")
    out = ye.apply_edits(text, edits)
    assert out.startswith("ud: |\r\n  #!/bin/bash\r\n  echo hi\r\n  /etc/")
    assert data(out)["ud"] == value.replace("/etc", "echo hi\n/etc", 1)


@pytest.mark.parametrize("text", ["v: 'it''s a b'\n", 'v: "a b c"\n', "v: a b c\n", "v: |-\n  a\n  b\n",
                                  "v: |2\n   a\n  b\n", "v: |\n  a\n\n  b\n\n\n"])
def test_scalar_offsets_roundtrip(text):
    d = docs_of(text)[0]
    value = d.get(("v",))
    offs = ye.scalar_offsets(d, ("v",))
    assert offs is not None and len(offs) == len(value) + 1
    for i, c in enumerate(value):
        t = text[offs[i]]
        assert t == c or (c == "\n" and t in "\r\n"), (i, c, t)


def test_scalar_offsets_refuses():
    assert ye.scalar_offsets(docs_of("v: >\n  a\n  b\n")[0], ("v",)) is None
    assert ye.scalar_offsets(docs_of('v: "a\\tb"\n')[0], ("v",)) is None


def test_combine():
    from karplint.findings import Edit
    assert ye.combine((Edit(0, 1, "x"),), (Edit(1, 2, "y"),)) == (Edit(0, 1, "x"), Edit(1, 2, "y"))
    assert ye.combine((Edit(0, 2, "x"),), (Edit(1, 2, "y"),)) is None
    assert ye.combine((Edit(0, 1, "x"),), None) is None


# ------------------------------------------------------------------------------------------ delete_item

@pytest.mark.parametrize("before,index,after", [
    ("t:\n  - key: a   # c\n    effect: X\n  - key: b\n", 0, "t:\n  - key: b\n"),
    ("t:\n  - key: a\n    value:\n  - key: b\nz: 1\n", 0, "t:\n  - key: b\nz: 1\n"),
    ("t:\r\n- a\r\n- b\r\n---\r\nx: 1\r\n", 1, "t:\r\n- a\r\n---\r\nx: 1\r\n"),
    ("t:\n- a\n- b", 1, "t:\n- a"),
    ("t:\n- - a\n  - b\n- c\n", 0, "t:\n- c\n"),
    ("t:\r\n- a\r\n- |\r\n  x\r\n  y", -1, "t:\r\n- a"),
])
def test_delete_item(before, index, after):
    assert run(before, ye.delete_item, ("t",), index) == after


@pytest.mark.parametrize("text", ["t: [a, b]\n", "t:\n- a\n", "t:\n-\n- a\n", "t:\n- &x a\n- *x\n"])
def test_delete_item_refuses(text):
    assert run(text, ye.delete_item, ("t",), 0) is None


def test_item_spacing_follows_the_file():
    text = "a:\n    b:\n    -   key: x\n        effect: Y\n"
    out = run(text, ye.append_item, ("a", "b"), {"key": "z", "effect": "W"})
    assert out == text + "    -   key: z\n        effect: W\n"
    out = run(text, ye.insert_entry, ("a",), "c", [{"k": 1}])
    assert out == text + "    c:\n    -   k: 1\n"


def test_editable_asks_the_parser_only_when_libyaml_did_not_compose_the_whole_stream(monkeypatch):
    """A stream libyaml composed whole, without `&` or `*`, has no anchor: no second parse to find one. With an
    anchor, or a syntax error further down the stream, the parser is asked."""
    asked = []
    real = ye._anchor_offsets.__wrapped__
    monkeypatch.setattr(ye, "_anchor_offsets", lambda text: asked.append(text) or real(text))
    plain = "a: 1\nitems:\n  - x\n"
    assert run(plain, ye.append_item, ("items",), "z") == plain + "  - z\n"
    assert asked == []
    anchored = "a: &v 1\nb: *v\nitems:\n  - x\n"
    assert run(anchored, ye.append_item, ("items",), "z") is None
    assert asked == [anchored]
    broken = "items:\n  - x\n---\nc: [\n"
    src = decode("t.yaml", broken.encode("utf-8"))
    first = load(src)[0][0]
    assert ye.append_item(first, ("items",), "z") is not None
    assert asked[-1] == broken
