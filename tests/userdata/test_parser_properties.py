"""Property tests for the taint parser and the MIME splitter: arbitrary input never raises, and what karplint
writes it reads back unchanged (round trips)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from karplint.userdata.kubelet import parse_taints
from karplint.userdata.mime import parse_mime

SETTINGS = settings(max_examples=300, deadline=None)

name = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,20}[A-Za-z0-9])?", fullmatch=True)
prefix = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?){0,2}", fullmatch=True)
effect = st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"])


@st.composite
def taint_specs(draw):
    key = draw(name)
    if draw(st.booleans()):
        key = f"{draw(prefix)}/{key}"
    value = draw(st.one_of(st.just(""), name))
    return key, value, draw(effect)


@SETTINGS
@given(st.text(max_size=120))
def test_parse_taints_never_raises(text):
    taints, errors = parse_taints(text)
    for e in errors:
        assert 0 <= e.start <= len(text)


@SETTINGS
@given(st.lists(taint_specs(), min_size=1, max_size=5, unique_by=lambda t: (t[0], t[2])))
def test_valid_taints_round_trip(specs):
    text = ",".join(f"{k}={v}:{e}" if v else f"{k}:{e}" for k, v, e in specs)
    taints, errors = parse_taints(text)
    assert errors == []
    assert [(t.key, t.value, t.effect) for t in taints] == [(k, v, e) for k, v, e in specs]


@SETTINGS
@given(st.text(max_size=300))
def test_parse_mime_never_raises(text):
    doc = parse_mime("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n" + text)
    for part in doc.parts:
        assert 0 <= part.body_start <= part.body_end


body_line = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n-"), max_size=30)


@SETTINGS
@given(st.lists(st.lists(body_line, min_size=1, max_size=4), min_size=1, max_size=6))
def test_mime_parts_round_trip(parts):
    text = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n"
    for lines in parts:
        text += "--BOUNDARY\nContent-Type: text/x-shellscript\n\n" + "\n".join(lines) + "\n"
    text += "--BOUNDARY--\n"
    doc = parse_mime(text)
    assert doc.closed and not [p for p in doc.problems if p.kind != "info"]
    assert [p.body.rstrip("\n") for p in doc.parts] == ["\n".join(lines).rstrip("\n") for lines in parts]
