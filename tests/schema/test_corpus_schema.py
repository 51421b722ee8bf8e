"""Schema verdicts on the upstream examples and the real-world corpus stay exactly as reviewed.

Every resource is validated at the release its apiVersion belongs to (v1: 1.14.1, v1beta1: 0.37.8,
v1alpha5/v1alpha1: 0.32.10). `corpus_expected.tsv` lists every finding (its headline) with its judgement (all reviewed as true:
real mistakes, features newer than the release, or incomplete documentation snippets). A missing
`consolidateAfter` is left out: KPL401 owns it when present.
"""

from __future__ import annotations

from pathlib import Path

from karplint.findings import split_message
from karplint.readers.loader import decode, load
from karplint.model import as_resource
from karplint.schema.validate import check
from karplint.testing import need_shared



HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "corpus_expected.tsv"
VERSION_OF = {"v1": "1.14.1", "v1beta1": "0.37.8", "v1alpha5": "0.32.10", "v1alpha1": "0.32.10"}


def scan(root: Path, base: Path) -> list[tuple[str, int, int, str, str]]:
    out = []
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file()):
        src = decode(path.relative_to(base).as_posix(), path.read_bytes())
        if not hasattr(src, "text"):
            continue
        docs, _problems = load(src)
        for doc in docs:
            res = as_resource(doc)
            if res is None or not res.is_karpenter or res.version not in VERSION_OF:
                continue
            result = check(res, VERSION_OF[res.version])
            for err in result.errors if result else ():
                if err.defer_to:
                    continue
                span = doc.key_span(err.path) if err.on == "key" else doc.span(err.path)
                out.append((src.path, span.line, span.column, err.kind, split_message(err.message)[0]))
    return out


def load_expected() -> list[tuple[str, int, int, str, str]]:
    rows = []
    for line in EXPECTED.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        path, ln, col, kind, message, _judgement = line.split("\t")
        rows.append((path, int(ln), int(col), kind, message))
    return rows


def test_upstream_examples_are_quiet_except_known_mistakes():
    shared = need_shared()
    found = scan(shared / "karpenter" / "examples" / "v1", shared)
    assert [(p, ln, col, kind) for p, ln, col, kind, _m in found] == [
        # nodeClassRef.group "karpenter.k8s.aws/v1": the group has no version (true mistake upstream)
        ("karpenter/examples/v1/windows-custom-userdata.yaml", 32, 16, "pattern"),
    ]


def test_corpus_findings_are_the_reviewed_ones():
    shared = need_shared()
    found = scan(shared / "corpus", shared)
    expected = load_expected()
    assert sorted(set(found) - set(expected)) == [], "new schema findings on the corpus: review them"
    assert sorted(set(expected) - set(found)) == [], "reviewed findings disappeared: update corpus_expected.tsv"
