"""Kustomize patches: the files a `kustomization.yaml` applies as patches are not complete objects.

A strategic-merge patch (`patches: [{path: x.yaml}]`, `patchesStrategicMerge: [x.yaml]`) sets a few fields of a
NodePool or EC2NodeClass defined elsewhere; checked as a whole object it would get "spec.template is required".
`patch_files` finds them before the check (in the files of the run; only `kustomization.yaml`/`.yml` files that
mention patches are parsed); the engine then checks what a patch sets (`PATCH_RULES`: types, enums, formats,
unknown and moved fields, bounds) and nothing that needs the whole object (required fields, CEL rules, rules
about what is missing, cross-file rules). A JSON 6902 patch (`patchesJson6902`, or `patches` entries whose file
is a list of operations) is a list, not an object: it is recognised and left alone. A patch written inline in the
kustomization (`patches: - patch: |-`, an inline `patchesStrategicMerge` string) is read like a patch file, at the
string's lines in the kustomization (`inline_patches`); an inline JSON 6902 patch is left alone, as its file would be.
A file whose name or directory says it is a patch (`evident_patch`) is checked as one even when no kustomization
of the run names it.

`kubectl kustomize DIR | karplint check -` checks the built objects, complete, as any other stream.
"""

from __future__ import annotations

import os
import re

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml")
# What a patch is checked for: the schema classes that judge the values it sets (not KPL103 required fields).
PATCH_RULES = frozenset({"KPL100", "KPL101", "KPL102", "KPL104", "KPL105", "KPL106"})
MAX_KUSTOMIZATION_BYTES = 1 << 20


def _paths(data: dict) -> list[str]:
    out: list[str] = []
    for key in ("patches", "patchesStrategicMerge", "patchesJson6902"):
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, str) and "\n" not in item and item.strip():  # (an inline patch is multi-line)
                out.append(item.strip())
            elif isinstance(item, dict) and isinstance(item.get("path"), str):
                out.append(item["path"])
    return out


def patch_files(inputs, read, config_root: str | None = None) -> frozenset:
    """Display paths of the inputs that a kustomization among `inputs` applies as patches. `read(abspath, limit)`
    reads a file (OSError: skipped). A kustomization is untrusted: it names patches only inside its own project
    (karplint/discover/boundary.py, `config_root` the configuration's directory; without a configuration or git work
    tree, the kustomization's directory, which is kustomize's own default, `--load-restrictor
    LoadRestrictionsRootOnly`), so that it cannot have a file of another named tree checked as a mere patch."""
    from karplint.discover.boundary import inside, project_root
    from karplint.readers.loader import decode, load

    kustomizations = [i for i in inputs if i.abspath is not None and os.path.basename(i.display) in KUSTOMIZATION_FILES]
    if not kustomizations:
        return frozenset()
    by_path = {os.path.normpath(i.abspath): i.display for i in inputs if i.abspath is not None}
    out: set[str] = set()
    for k in kustomizations:
        try:
            raw = read(k.abspath, MAX_KUSTOMIZATION_BYTES)
        except OSError:
            continue
        if b"atches" not in raw or len(raw) > MAX_KUSTOMIZATION_BYTES:
            continue
        src = decode(k.display, raw, k.abspath)
        if not hasattr(src, "text"):
            continue
        docs, _problems = load(src)
        base = os.path.dirname(os.path.normpath(k.abspath))
        project = None
        for doc in docs:
            if isinstance(doc.data, dict):
                for rel in _paths(doc.data):
                    target = os.path.normpath(os.path.join(base, rel))
                    hit = by_path.get(target)
                    if hit is None:
                        continue
                    if project is None:
                        project = project_root(k.abspath, config_root)
                    if inside(os.path.realpath(target), project):
                        out.add(hit)
    return frozenset(out)


INLINE_PATCH_HOST = "kustomize"  # the `Embedding.host_kind` of an inline patch's documents (engine: patch rules only)


def _inline_strings(data: dict):
    """Paths (in the kustomization document) of its inline strategic-merge patches."""
    for key in ("patches", "patchesStrategicMerge"):
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if isinstance(item, str) and "\n" in item:
                yield (key, i)
            elif isinstance(item, dict) and isinstance(item.get("patch"), str) and "\n" in item["patch"]:
                yield (key, i, "patch")


def inline_patches(src, docs: list) -> tuple[list, list]:
    """(documents, problems) of the inline patches of a kustomization's `docs`, on the kustomization's lines: each
    literal block scalar (`patch: |-`) is a region of the file, read as `readers.embedded` reads a heredoc."""
    from karplint.readers.virtual import Embedding, build
    from karplint.readers.loader import Problem, load
    from karplint.readers.regions import HostText, Region, min_indent

    host = HostText(src)
    out_docs: list = []
    problems: list = []
    index = max((d.index for d in docs), default=-1) + 1
    for doc in docs:
        if not isinstance(doc.data, dict) or doc.data.get("kind", "Kustomization") != "Kustomization":
            continue
        for path in _inline_strings(doc.data):
            info = doc.exact(path)
            if info is None or info.style != "|":
                continue  # (a quoted or folded string: its lines are not the patch's lines)
            first = info.span.line + 1
            end = info.span.end_line if info.span.end_column == 1 else info.span.end_line + 1
            if end <= first:
                continue
            vsrc = build(host, Region(first, end, min_indent(host, first, end)), INLINE_PATCH_HOST)
            if vsrc is None:
                continue
            got, probs = load(vsrc)
            emb: Embedding = vsrc.embedding
            problems.extend(Problem(p.code, p.message, emb.span(p.span, vsrc)) for p in probs)
            for d in got:
                d.index += index
            index = max([index] + [d.index + 1 for d in got])
            out_docs.extend(got)
    return out_docs, problems


# A file named as a patch (`patch-*.yaml`, `*-patch.yaml`, `*.patch.yaml`, ...) or kept in a `patches/` directory,
# even when no kustomization of the run names it: pipelines copy such files into another repository's overlay (see
# tests/test_evident_patches.py). Checked like a referenced patch: what it sets, not what it lacks.
_PATCH_STEM = re.compile(r"^patch(?:es)?(?:[-_.]|$)|[-_.]patch(?:es)?$", re.I)
_PATCH_SUFFIXES = (".yaml", ".yml", ".json")


def evident_patch(path: str) -> bool:
    """Whether the file's name or directory says it is a Kustomize patch. `path`: the file's absolute path when
    there is one (the same verdict whatever directory the run starts from), `/` or `\\` separated; a `patches`
    directory counts as the file's parent or grandparent (`patches/nodepools/x.yaml`)."""
    parts = re.split(r"[/\\]", path)
    name = parts[-1]
    if not name.lower().endswith(_PATCH_SUFFIXES):
        return False
    if any(p.lower() == "patches" for p in parts[-3:-1]):
        return True
    return bool(_PATCH_STEM.search(name.rsplit(".", 1)[0]))
