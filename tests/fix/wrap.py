"""Hypothesis strategies: unrelated YAML documents and comments to wrap a fixture in, and line-ending styles."""

from __future__ import annotations

from hypothesis import strategies as st

_words = st.builds(str.__add__, st.sampled_from("abcxyzé"), st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-é", max_size=9))
_comment = st.builds(lambda w, pad: " " * pad + "# " + " ".join(w),
                     st.lists(st.text(alphabet="abc xyz:#'\"-é✓", max_size=12), max_size=3), st.integers(0, 4))


@st.composite
def unrelated_doc(draw) -> str:
    """A ConfigMap (or a bare mapping, or a comment-only document) in one of several styles."""
    kind = draw(st.sampled_from(["configmap", "mapping", "comments", "list"]))
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(draw(_comment))
    if kind == "comments":
        lines += draw(st.lists(_comment, min_size=1, max_size=3))
        return "\n".join(lines)
    if kind == "list":
        lines.append("- " + draw(_words))
        lines.append("- {a: 1, b: [x, y]}  # flow")
        return "\n".join(lines)
    indent = " " * draw(st.sampled_from([2, 4]))
    if kind == "configmap":
        lines += ["apiVersion: v1", "kind: ConfigMap", "metadata:", f"{indent}name: {draw(_words)}", "data:"]
    else:
        lines.append(f"{draw(_words)}:")
    for i in range(draw(st.integers(1, 3))):
        style = draw(st.sampled_from(["plain", "single", "double", "block", "comment"]))
        key = f"k{i}"
        if style == "plain":
            lines.append(f"{indent}{key}: {draw(_words)}")
        elif style == "single":
            lines.append(f"{indent}{key}: 'it''s {draw(_words)}'  # c")
        elif style == "double":
            lines.append(f'{indent}{key}: "{draw(_words)}\\t"')
        elif style == "block":
            lines.append(f"{indent}{key}: |")
            lines += [f"{indent}{indent}{draw(_words)}", f"{indent}{indent}# not a comment", ""]
        else:
            lines.append(draw(_comment))
    return "\n".join(lines)


@st.composite
def wrapping(draw):
    """(prefix, suffix, crlf, final_newline, bom) to put around a fixture stream."""
    before = draw(st.lists(unrelated_doc(), max_size=2))
    after = draw(st.lists(unrelated_doc(), max_size=2))
    head = draw(st.lists(_comment, max_size=2))
    prefix = "".join(h + "\n" for h in head) + "".join(d + "\n---\n" for d in before)
    suffix = "".join("---\n" + d + "\n" for d in after)
    return prefix, suffix, draw(st.booleans()), draw(st.booleans()), draw(st.booleans())


def wrap(doc: str, w) -> bytes:
    prefix, suffix, crlf, final_newline, bom = w
    text = prefix + doc + suffix
    if not final_newline:
        text = text.rstrip("\n")
    if crlf:
        text = text.replace("\n", "\r\n")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
