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


def load(src: SourceFile) -> tuple[list[Document], list[Problem]]:
    """Every document of the stream; a syntax error keeps the documents before it.

    libyaml when it gives the same answer (`karplint.readers.fastload`), else the reference loader."""
    from karplint.readers.fastload import load_fast  # (PyYAML is imported only by runs that parse: not warm ones)

    text = _yaml_text(src.text)
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
