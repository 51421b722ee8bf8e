"""What the editor shows when the cursor rests on a NodePool, a disruption budget, a userData block or a rule code
(issue #27, "Hover"): `hover_at(project, display, text, line, character)` -> Markdown, or None.

Where it answers (the first that applies):
- a rule code (`KPL123`) anywhere in the text (a suppression comment, an annotation, a configuration file): the
  rule's documentation (`karplint explain` reads the same `rules/KPLnnn.md`);
- an item of a NodePool's `spec.disruption.budgets` (from its `-` to the next item): that budget's hours in the
  week and the NodePool's effective limit per reason (`karplint budgets`);
- an EC2NodeClass's `spec.userData` (its key or its value): what the node runs (`karplint render`);
- a NodePool's `apiVersion`, `kind` and `metadata.name` lines, and its `spec.template` (requirements, labels,
  nodeClassRef, kubelet, taints: what decides the instance types): what `karplint simulate` knows of it. Its
  other fields (limits, weight, the rest of `disruption`) say nothing: a simulation on every field would be noise.

The text is the editor's buffer, read by the readers `check` uses (YAML and JSON, and the YAML of Terraform
heredocs, shell heredocs, Markdown and AsciiDoc blocks, Go templates): positions are the host file's. The other
files of the project (the EC2NodeClass of a NodePool, the NodePools of an EC2NodeClass, release pins) are read
from the project's inputs and context, each cached by its file state (size, mtime, inode) or its buffer's bytes.
Nothing raises: an error is logged to stderr and the hover is None.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from typing import TYPE_CHECKING, Iterable

from karplint.readers.source import Span

if TYPE_CHECKING:
    from karplint.config import Config
    from karplint.model import Model, Resource
    from karplint.project import Project
    from karplint.readers.document import Document

_RULE_CODE = re.compile(r"(?<![A-Za-z0-9_])KPL[0-9]{3}(?![0-9])")
BUDGETS = ("spec", "disruption", "budgets")
USER_DATA = ("spec", "userData")
TEMPLATE = ("spec", "template")


def hover_at(project: "Project", display: str, text: str, line: int, character: int, *,
             others: "Iterable[Document] | None" = None) -> str | None:
    """Markdown to show when the cursor rests at (line, character) (LSP: 0-based, character in UTF-16 code units) in
    the document `display` (its path as the project's inputs name it) whose current text is `text`. None: nothing
    to say. `others`: the documents of the project's other files when the caller holds them (they are then not
    read here)."""
    try:
        return _hover(project, display, text, line, character, others)
    except Exception as exc:  # noqa: BLE001 - a hover never breaks the editor: logged, nothing shown
        import traceback

        sys.stderr.write(f"karplint server: hover on {display}:{line + 1}:{character + 1}: "
                         f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}")
        return None


def _hover(project, display: str, text: str, line: int, character: int, others) -> str | None:
    from karplint.server import hover_text

    if text.startswith("\ufeff"):  # karplint's columns start after the byte order mark; the editor's may not
        text = text[1:]
        if line == 0:
            character -= 1
    lines = text.split("\n")
    if not 0 <= line < len(lines) or character < 0:
        return None
    line_text = lines[line].rstrip("\r")
    column = code_point_column(line_text, character)
    code = rule_code_at(line_text, column)
    if code is not None:
        return hover_text.rule(code)

    docs = _buffer_documents(project, display, text)
    at = (line + 1, column)
    for doc in docs:
        target = _target(doc, at, lines)
        if target is None:
            continue
        what, res, index = target
        if what == "budget":
            return hover_text.budget(res, index)
        model = project_model(project, display, docs, others, keep_examples=doc.documentation_example,
                              evidence=what == "userdata" and project.config.karpenter_version_source == "default")
        if what == "userdata":
            return _render(project, model, res)
        return _simulate(project, model, res)
    return None


# ---------------------------------------------------------------------------------------------- positions

def code_point_column(line_text: str, character: int) -> int:
    """The 1-based column (code points, karplint's unit) of an LSP character offset (UTF-16 code units) on a line;
    an offset inside a surrogate pair is its character's, one past the end is the end."""
    units = 0
    for i, ch in enumerate(line_text):
        width = 2 if ord(ch) > 0xFFFF else 1
        if units + width > character:
            return i + 1
        units += width
    return len(line_text) + 1


def rule_code_at(line_text: str, column: int) -> str | None:
    """The rule code (`KPL123`) under the 1-based column, if it names a documented rule."""
    from karplint.docs import rule_doc

    for m in _RULE_CODE.finditer(line_text):
        if m.start() < column <= m.end():
            return m.group(0) if rule_doc(m.group(0)) is not None else None
    return None


def _host(doc: "Document", span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
    """A span of `doc` as (start, end) (line, column) of the host file (an embedded block is mapped back)."""
    emb = doc.source.embedding
    if emb is not None:
        span = emb.span(span, doc.source)
    return (span.line, span.column), (span.end_line, span.end_column)


def _within(doc: "Document", path: tuple, at: tuple[int, int], lines: list[str], *, key: bool = True,
            line_start: bool = False) -> bool:
    """Whether `at` lies in the node at `path` (from its key when `key`; from the start of its line when
    `line_start` and only blanks and `-` precede it there: a block sequence item's dash)."""
    info = doc.exact(path)
    if info is None:
        return False
    start, end = _host(doc, info.span)
    if key and info.key_span is not None:
        start = min(start, _host(doc, info.key_span)[0])
    if line_start and 1 <= start[0] <= len(lines) and lines[start[0] - 1][:start[1] - 1].strip(" \t-") == "":
        start = (start[0], 1)
    return start <= at < end


def _target(doc: "Document", at: tuple[int, int], lines: list[str]) -> tuple[str, "Resource", int | None] | None:
    """(what, resource, budget index) under `at` in `doc`, or None."""
    from karplint.model import as_resource

    res = as_resource(doc)
    if res is None or res.group not in ("karpenter.sh", "karpenter.k8s.aws"):
        return None
    if doc.start is not None:
        start, end = _host(doc, doc.start)
        if not start[0] <= at[0] <= end[0]:
            return None
    if res.kind == "NodePool" and res.group == "karpenter.sh":
        budgets = res.get(BUDGETS)
        if isinstance(budgets, list):
            for i in range(len(budgets)):
                if isinstance(budgets[i], dict) and _within(doc, BUDGETS + (i,), at, lines, key=False, line_start=True):
                    return "budget", res, i
        if _within(doc, TEMPLATE, at, lines) or any(_on_line(doc, p, at) for p in (
                ("apiVersion",), ("kind",), ("metadata", "name"))):
            return "nodepool", res, None
        return None
    if res.kind == "EC2NodeClass" and res.group == "karpenter.k8s.aws" and _within(doc, USER_DATA, at, lines):
        return "userdata", res, None
    return None


def _on_line(doc: "Document", path: tuple, at: tuple[int, int]) -> bool:
    info = doc.exact(path)
    if info is None:
        return False
    lines = {_host(doc, info.span)[0][0]} | ({_host(doc, info.key_span)[0][0]} if info.key_span else set())
    return at[0] in lines


# ---------------------------------------------------------------------------------------------- the project

_LOCK = threading.Lock()
# What a file that holds a NodePool, an EC2NodeClass or a Karpenter release pin cannot lack (their apiVersions, the
# chart and image names), or may hide (a Go template's actions, JSON's \u escapes, UTF-16): other files are not
# parsed.
# (The first hover on bench/gen.py's 10,000 files: 3.5-6 s parsing every file, 0.9-1 s with this filter.)
_MAY_MATTER = re.compile(rb"(?i)karpenter|nodepool|ec2nodeclass|\{\{|\\u")
_CACHE: dict = {"config": None, "files": {}, "catalog": (None, None)}


def _buffer_documents(project: "Project", display: str, text: str) -> list:
    from karplint.engine.files import load_input
    from karplint.readers.files import InputFile

    item = next((i for i in project.files if i.display == display), None)
    abspath = item.abspath if item is not None and item.abspath else os.path.abspath(display)
    result = load_input(InputFile(display, abspath, data=text.encode("utf-8", "surrogatepass")), project.config)
    return result.documents


def _signature(item) -> tuple | None:
    if item.data is not None:  # an editor's buffer in the project's inputs
        return ("data", len(item.data), hashlib.blake2b(item.data, digest_size=16).digest())
    try:
        st = os.stat(item.abspath)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _file_entry(item, config: "Config") -> dict:
    """What the hover reads of one file of the project, cached by the file's state: its documents, its NodePools
    and EC2NodeClasses (documentation examples left out, as `cluster_state` does), its YAML release evidence
    (worked out on demand)."""
    from karplint.engine.files import FileResult, parse_input, read_input

    key = (item.display, item.abspath)
    sig = _signature(item)
    files = _CACHE["files"]
    hit = files.get(key)
    if hit is not None and sig is not None and hit["sig"] == sig:
        return hit
    raw = read_input(item, config)
    skip = isinstance(raw, FileResult) or (not _MAY_MATTER.search(raw) and raw[:2] not in (b"\xff\xfe", b"\xfe\xff"))
    docs = [] if skip else parse_input(item, raw, config.charts).documents
    entry = {"sig": sig, "docs": docs, "karpenter": _karpenter(docs), "evidence": None}
    files[key] = entry
    return entry


def _karpenter(docs: list, keep_examples: bool = False) -> list:
    from karplint.model import as_resource

    out = []
    for doc in docs:
        if keep_examples or not doc.documentation_example:
            res = as_resource(doc)
            if res is not None and res.kind in ("NodePool", "EC2NodeClass"):
                out.append(res)
    return out


def project_model(project: "Project", display: str, docs: list, others=None, *, keep_examples: bool = False,
                  evidence: bool = False):
    """The project's NodePools and EC2NodeClasses as `simulate` and `render` read them (documentation examples
    left out, as `cluster_state` does), with `docs` (the buffer's) in place of the file `display`; its
    documentation examples stay when the hovered object is one (an example's context is its own file).
    `evidence`: the YAML release evidence of every file, in `model.memo["hover evidence"]`."""
    from karplint.model import Model
    from karplint.model.repo_version import yaml_evidence

    model = Model()
    found: list = []
    if others is not None:
        other_docs = [d for d in others if str(d.path) != display]
        model.resources.extend(_karpenter(other_docs))
        if evidence:
            found.extend(yaml_evidence(other_docs))
    else:
        with _LOCK:
            if _CACHE["config"] is not project.config:  # another configuration: everything is read again
                _CACHE["config"], _CACHE["files"] = project.config, {}
            seen = set()
            for item in project.files:
                if item.display == display:
                    continue
                entry = _file_entry(item, project.config)
                seen.add((item.display, item.abspath))
                model.resources.extend(entry["karpenter"])
                if evidence:
                    if entry["evidence"] is None:
                        entry["evidence"] = yaml_evidence(entry["docs"])
                    found.extend(entry["evidence"])
            if len(seen) != len(_CACHE["files"]):  # (files gone from the project are forgotten)
                for gone in set(_CACHE["files"]) - seen:
                    del _CACHE["files"][gone]
    model.resources.extend(_karpenter(docs, keep_examples))
    if evidence:
        found.extend(yaml_evidence(docs))
    model.memo["hover evidence"] = found
    return model


def _catalog(config: "Config"):
    """The configuration's catalog (`instance-types` added to the bundled one, or replacing it), as `simulate`
    builds it (kept while the options are the same: the catalog's memo holds the simulation's shared work).
    Raises ExtraTypesError."""
    import json

    from karplint.provisioning.catalog import configured

    options = config.options or {}
    key = json.dumps([options.get("instance-types"), options.get("instance-types-mode")], sort_keys=True,
                     default=str)
    with _LOCK:
        cached_key, cat = _CACHE["catalog"]
        if cat is None or cached_key != key:
            cat = configured(options)
            _CACHE["catalog"] = (key, cat)
    return cat


# ---------------------------------------------------------------------------------------------- the answers

def _simulate(project: "Project", model: "Model", np: "Resource") -> str | None:
    from karplint.model import Model
    from karplint.provisioning.catalog import ExtraTypesError
    from karplint.provisioning.simulate import pool_report, simulate_pools
    from karplint.rules._simulation import nodeclass_facts_resolver
    from karplint.server import hover_text

    try:
        catalog = _catalog(project.config)
    except ExtraTypesError as exc:
        return hover_text.cannot_simulate(np, f"the configuration's `instance-types`: {exc}")
    facts_for = nodeclass_facts_resolver(model)
    alone = Model()  # (the budgets of `simulate_pools` apply; other NodePools do not change this one's set)
    alone.add([np.doc])
    omitted: list = []
    sims = [s for s in simulate_pools(alone, catalog, facts_for, omitted) if s.nodepool.doc is np.doc]
    if not sims:
        if np.get(("spec", "replicas")) is not None:
            return hover_text.cannot_simulate(np, "a static NodePool (`spec.replicas`): the cloud provider picks its "
                                                  "instance type")
        return None
    return hover_text.simulation(pool_report(sims[0]), sims[0], catalog)


def _render(project: "Project", model: "Model", nc: "Resource") -> str | None:
    from karplint.model.versions import Version
    from karplint.project import releases_for
    from karplint.server import hover_text
    from karplint.userdata.render import pairs, render_node

    selected = [(c, p) for c, p in pairs(model, nc.name) if c.doc is nc.doc]
    if not selected:
        return None
    cfg = project.config  # (the release as `render` takes it: the configured one, else the file's pins)
    version = cfg.karpenter_version
    if cfg.karpenter_version_source == "default":
        path = str(nc.doc.path)
        chosen = releases_for([path], [*cfg.release_evidence, *model.memo["hover evidence"]], cfg).get(path)
        version = Version.parse(chosen.version) if chosen is not None else None
    nodeclass, nodepool = selected[0]
    node = render_node(nodeclass, nodepool, version)
    return hover_text.rendered(node, [p.name for _, p in selected[1:] if p is not None], version)
