"""Property: yamledit operations on randomly laid out block YAML (2/4-space indentation, `- ` indented or not,
comments everywhere, CRLF or LF, final newline or not, a second document after) change the data exactly as
intended, keep every other line, and leave the following document alone."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from karplint.fix import yamledit as ye
from karplint.readers.loader import decode, load

KEYS = "abcdef"
scalars = st.one_of(st.integers(-5, 99), st.sampled_from(["x", "two words", "it's", "true", "a: b", "0s", "é"]),
                    st.booleans())


def mappings(children):
    return st.dictionaries(st.sampled_from(KEYS), children, min_size=1, max_size=4)


data_st = st.recursive(scalars, lambda c: st.one_of(mappings(c), st.lists(c, min_size=1, max_size=3)),
                       max_leaves=12)
doc_st = mappings(data_st)


def emit(value, col, unit, seq_off, comment, out):
    pad = " " * col
    for k, v in value.items():
        if comment():
            out.append(pad + "# about " + k)
        if isinstance(v, dict):
            out.append(f"{pad}{k}:" + ("  # m" if comment() else ""))
            emit(v, col + unit, unit, seq_off, comment, out)
        elif isinstance(v, list):
            out.append(f"{pad}{k}:")
            emit_seq(v, col + seq_off, unit, seq_off, comment, out)
        else:
            out.append(f"{pad}{k}: {ye.render_scalar(v)}" + ("  # s" if comment() else ""))


def emit_seq(items, col, unit, seq_off, comment, out):
    pad = " " * col
    for it in items:
        if isinstance(it, dict):
            sub: list[str] = []
            emit(it, col + 2, unit, seq_off, lambda: False, sub)
            sub[0] = pad + "- " + sub[0][col + 2:]
            out.extend(sub)
        elif isinstance(it, list):
            out.append(pad + "-")
            emit_seq(it, col + unit, unit, seq_off, comment, out)
        else:
            out.append(f"{pad}- {ye.render_scalar(it)}" + ("  # i" if comment() else ""))


@st.composite
def layouts(draw):
    data = draw(doc_st)
    unit = draw(st.sampled_from([2, 4]))
    seq_off = draw(st.sampled_from([0, unit]))
    flags = draw(st.lists(st.booleans(), min_size=64, max_size=64))
    it = iter(flags * 10)
    lines: list[str] = []
    emit(data, 0, unit, seq_off, lambda: next(it), lines)
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    text = nl.join(lines) + nl + "---" + nl + "other: doc  # keep" + nl
    if draw(st.booleans()):
        text = nl.join(lines) + (nl if draw(st.booleans()) else "")
    return data, text


def paths(value, prefix=()):
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def parse(text):
    docs, problems = load(decode("t.yaml", text.encode("utf-8")))
    assert not problems, (problems, text)
    return docs


def get(data, path):
    for p in path:
        data = data[p]
    return data


def check(text, edits, expected):
    out = ye.apply_edits(text, edits)
    docs = parse(out)
    assert docs[0].data == expected, out
    orig = parse(text)
    assert [d.data for d in docs[1:]] == [d.data for d in orig[1:]]
    if "---" in text:
        assert out.endswith(text[text.index("---"):])
    return out


SET = settings(max_examples=25, deadline=None,
               suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@SET
@given(layouts(), st.data())
def test_insert_entry(lay, data):
    value, text = lay
    doc = parse(text)[0]
    maps = [p for p, v in paths(value) if isinstance(v, dict)]
    mp = data.draw(st.sampled_from(maps))
    m = get(value, mp)
    key = data.draw(st.sampled_from([k for k in "uvwxyz"]))
    new = data.draw(st.one_of(scalars, st.dictionaries(st.sampled_from("pq"), scalars, min_size=1),
                              st.lists(scalars, min_size=1, max_size=2)))
    after = data.draw(st.sampled_from([None] + list(m)))
    edits = ye.insert_entry(doc, mp, key, new, after=after)
    assume(edits is not None)
    expected = copy.deepcopy(value)
    target = get(expected, mp)
    items = list(target.items())
    pos = len(items) if after is None else list(target).index(after) + 1
    items.insert(pos, (key, new))
    target.clear()
    target.update(items)
    check(text, edits, expected)


@SET
@given(layouts(), st.data())
def test_delete_entry(lay, data):
    value, text = lay
    doc = parse(text)[0]
    entries = [p for p, v in paths(value) if p and isinstance(p[-1], str) and len(get(value, p[:-1])) > 1]
    assume(entries)
    p = data.draw(st.sampled_from(entries))
    edits = ye.delete_entry(doc, p)
    assert edits is not None or isinstance(p[-2] if len(p) > 1 else None, int)
    assume(edits is not None)
    expected = copy.deepcopy(value)
    del get(expected, p[:-1])[p[-1]]
    check(text, edits, expected)


@SET
@given(layouts(), st.data())
def test_replace_scalar_and_append(lay, data):
    value, text = lay
    doc = parse(text)[0]
    scal = [p for p, v in paths(value) if p and not isinstance(v, (dict, list))]
    seqs = [p for p, v in paths(value) if p and isinstance(v, list) and isinstance(p[-1], str)]
    new = data.draw(scalars)
    if scal and data.draw(st.booleans()):
        p = data.draw(st.sampled_from(scal))
        edits = ye.replace_scalar(doc, p, new)
        assert edits is not None
        expected = copy.deepcopy(value)
        parent = get(expected, p[:-1])
        parent[p[-1]] = new
    else:
        assume(seqs)
        p = data.draw(st.sampled_from(seqs))
        edits = ye.append_item(doc, p, new)
        assume(edits is not None)
        expected = copy.deepcopy(value)
        get(expected, p).append(new)
    check(text, edits, expected)


@SET
@given(layouts(), st.data())
def test_move_entry(lay, data):
    value, text = lay
    doc = parse(text)[0]
    entries = [p for p, v in paths(value) if p and all(isinstance(x, str) for x in p) and len(get(value, p[:-1])) > 1]
    maps = [p for p, v in paths(value) if isinstance(v, dict) and all(isinstance(x, str) for x in p)]
    assume(entries)
    src = data.draw(st.sampled_from(entries))
    maps = [m for m in maps if m[:len(src)] != src and src[-1] not in get(value, m)]
    assume(maps)
    dst = data.draw(st.sampled_from(maps))
    edits = ye.move_entry(doc, src, dst)
    assume(edits is not None)
    expected = copy.deepcopy(value)
    moved = get(expected, src[:-1]).pop(src[-1])
    get(expected, dst)[src[-1]] = moved
    check(text, edits, expected)
