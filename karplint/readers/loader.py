"""Load YAML/JSON files into `Document`s with positions, turning every input problem into a `Problem`.

`load(src)`: libyaml's answer when it is the reference loader's (karplint/readers/fastload.py), else the reference
loader's (karplint/readers/reference.py, ruamel.yaml). `decode(path, raw)`: bytes to a `SourceFile`, or a `Problem`.
"""

from __future__ import annotations

from karplint.readers.document import Document
from karplint.readers.reference import (  # noqa: F401 - the loaders' shared names, imported from here by readers
    _CORE_TAGS, MAX_ALIAS_EXPANSIONS, MAX_DEPTH, MAX_DOCUMENTS, MAX_NODES, MAX_SYNTAX_DEPTH, Problem, _yaml,
    _yaml_text, decode, load_reference, syntax_depth_over,
)
from karplint.readers.source import SourceFile, Span


def load(src: SourceFile, text: str | None = None) -> tuple[list[Document], list[Problem]]:
    """Every document of the stream; a syntax error keeps the documents before it. `text`: what to parse instead
    of `src.text` (same lines and offsets), e.g. an excerpt without its elision markers.

    libyaml when it gives the same answer (`karplint.readers.fastload`), else the reference loader."""
    from karplint.readers.fastload import load_fast  # (PyYAML is imported only by runs that parse: not warm ones)

    text = _yaml_text(src.text if text is None else text)
    deep = syntax_depth_over(text)
    if deep is not None:  # before any parser recurses: see MAX_SYNTAX_DEPTH
        line = text.count("\n", 0, deep) + 1
        col = deep - (text.rfind("\n", 0, deep) + 1) + 1
        return [], [Problem("KPL004", f"YAML nested deeper than {MAX_SYNTAX_DEPTH} levels; not checked",
                            Span.point(line, col, deep))]
    fast = load_fast(src, text)
    if fast is not None:
        return fast
    return load_reference(src, text)


def load_file(src: SourceFile) -> tuple[list[Document], list[Problem]]:
    """A plain YAML/JSON file: `load`, with an excerpt (elision lines, karplint/readers/elision.py) read as one."""
    from karplint.readers.elision import blank_elisions, elision_lines, mark_fragments

    docs, problems = load(src)
    error = next((p for p in problems if p.code == "KPL001"), None)
    excerpt = False
    if error is not None:
        blanked = blank_elisions(src.text)
        if blanked is not None:
            docs2, problems2 = load(src, blanked)
            later = next((p for p in problems2 if p.code == "KPL001"), None)
            # read without its elisions, the file parses, or fails further on (a real error, reported)
            if later is None or later.span.offset > error.span.offset:
                docs, problems, excerpt = docs2, problems2, True
    if docs:
        mark_fragments(docs, elision_lines(src.text, markers=excerpt))
    return docs, problems
