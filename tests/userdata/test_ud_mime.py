import pytest

from karplint.userdata import mime as mm
from karplint.userdata.mime import looks_like_mime, media_type, parse_mime


def test_golden_inputs(shared):
    golden = shared / "karpenter" / "userdata-golden" / "v1.14.1"
    doc = parse_mime((golden / "al2_userdata_merged.golden").read_text())
    assert doc.ok and doc.closed and doc.boundary == "//"
    assert [p.content_type for p in doc.parts] == ["text/x-shellscript", "text/x-shellscript"]
    assert doc.parts[1].body.startswith("#!/bin/bash -xe\n")
    assert "--kubelet-extra-args" in doc.parts[1].body and not doc.parts[1].body.endswith("\n")
    first = parse_mime((golden / "al2_userdata_content_type_first_input.golden").read_text())
    assert first.ok and len(first.parts) == 1
    # a trailing "--//" with nothing after it ends the document without an extra part
    al2023 = parse_mime((golden / "al2023_mime_userdata_input.golden").read_text())
    assert [p.content_type for p in al2023.parts] == ["application/node.eks.aws", "text/x-shellscript"]
    assert [p.kind for p in al2023.problems] == [mm.NO_CLOSING_BOUNDARY]


def test_missing_blank_line_after_headers_is_karpenters_error():
    text = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n--B\nContent-Type: text/x-shellscript\n\necho\n--B--\n'
    doc = parse_mime(text)
    assert [p.kind for p in doc.problems] == [mm.MISSING_COLON]
    p = doc.problems[0]
    assert p.message == 'malformed MIME header: missing colon: "--B"'
    assert text[p.start:p.end] == "--B"
    assert doc.parts == []


def test_not_multipart_and_no_boundary():
    assert parse_mime("Content-Type: text/x-shellscript\n\necho\n").problems[0].kind == mm.NOT_MULTIPART
    assert parse_mime("Content-Type: multipart/mixed\n\n--x\n").problems[0].kind == mm.NO_BOUNDARY_PARAM
    never = parse_mime('Content-Type: multipart/mixed; boundary="A"\n\n--B\n\necho\n--B--\n')
    assert [p.kind for p in never.problems] == [mm.BOUNDARY_NEVER_APPEARS]


def test_part_offsets_and_headers():
    text = ('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="==X=="\n\npreamble\n--==X==  \n'
            'Content-Type: text/x-shellscript;\n charset="us-ascii"\n\nline1\nline2\n\n--==X==\n'
            'Content-Type: application/node.eks.aws\n\nkind: NodeConfig\n--==X==--\nepilogue\n')
    doc = parse_mime(text)
    assert doc.ok and doc.closed
    a, b = doc.parts
    assert a.content_type == "text/x-shellscript"
    assert a.body == "line1\nline2\n" and text[a.body_start:a.body_end] == a.body
    assert b.body == "kind: NodeConfig"


def test_part_headers_without_blank_line():
    text = 'Content-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: text/x-shellscript\necho hi\n--B--\n'
    doc = parse_mime(text)
    assert [p.kind for p in doc.problems] == [mm.PART_MISSING_COLON]


def test_crlf_and_unclosed():
    text = 'Content-Type: multipart/mixed; boundary="B"\r\n\r\n--B\r\nContent-Type: text/x-shellscript\r\n\r\necho\r\n'
    doc = parse_mime(text)
    assert len(doc.parts) == 1 and doc.parts[0].body == "echo\r\n"
    assert [p.kind for p in doc.problems] == [mm.UNTERMINATED_PART]  # Go: unexpected EOF
    assert text[doc.problems[0].start:doc.problems[0].end] == "--B"
    trailing = parse_mime(text + "--B\r\n")  # a final delimiter without "--": accepted
    assert [p.kind for p in trailing.problems] == [mm.NO_CLOSING_BOUNDARY] and trailing.ok


@pytest.mark.parametrize("text,expected", [
    ("MIME-Version: 1.0\n", True), ("  \nContent-Type: x\n", True), ("#!/bin/bash\n", False),
    ("mime-version: 1.0\n", False),
])
def test_looks_like_mime(text, expected):
    assert looks_like_mime(text) is expected


def test_media_type():
    assert media_type('Multipart/Mixed; boundary="a \\"b\\""; charset=x') == (
        "multipart/mixed", {"boundary": 'a "b"', "charset": "x"})


def test_never_raises_on_garbage():
    for text in ["", "\n", ":", "Content-Type:", "Content-Type: multipart/x; boundary=\n\n--\n", "\x00\xff"]:
        parse_mime(text)
