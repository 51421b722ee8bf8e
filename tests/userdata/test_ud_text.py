from karplint.readers.loader import decode, load
from karplint.model import as_resource
from karplint.userdata.text import UserDataText


def _ud(yaml_text: str) -> tuple[UserDataText, str]:
    src = decode("t.yaml", yaml_text.encode())
    docs, problems = load(src)
    assert not problems
    return UserDataText.from_resource(as_resource(docs[0])), src.text


HEAD = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: a}\nspec:\n"


def test_literal_block_maps_exact_lines_and_columns():
    ud, text = _ud(HEAD + "  userData: |\n    #!/bin/bash\n\n    echo hi   # x\n      nested\n")
    assert ud.exact
    i = ud.text.index("hi")
    sp = ud.span(i, i + 2)
    assert (sp.line, sp.column, sp.end_line, sp.end_column) == (8, 10, 8, 12)
    assert text[sp.offset:sp.end_offset] == "hi"
    j = ud.text.index("nested")
    assert ud.span(j, j + 6)[:2] == (9, 7)


def test_chomping_and_indentation_indicator():
    for header in ("|-", "|+", "|2"):
        ud, text = _ud(HEAD + f"  userData: {header}\n    a b\n    c\n")
        i = ud.text.index("c")
        sp = ud.span(i, i + 1)
        assert text[sp.offset:sp.end_offset] == "c", header


def test_quoted_scalar_maps_to_scalar_start():
    ud, _ = _ud(HEAD + '  userData: "#!/bin/bash\\necho hi\\n"\n')
    assert not ud.exact
    assert ud.span(15, 17)[:2] == (5, 13)
    assert ud.file_offset(3) is None


def test_views_keep_base_offsets():
    ud, text = _ud(HEAD + "  userData: |\n    header\n\n    body line\n")
    start = ud.text.index("body")
    view = ud.view(start, len(ud.text))
    assert view.base == start
    sp = view.span(5, 9)
    assert text[sp.offset:sp.end_offset] == "line"
    assert view.line_of(0) == 3
    nested = view.view(5, 9)
    assert nested.span(0, 4) == sp


def test_non_string_userdata_is_none():
    src = decode("t.yaml", (HEAD + "  userData: 42\n").encode())
    docs, _ = load(src)
    assert UserDataText.from_resource(as_resource(docs[0])) is None
