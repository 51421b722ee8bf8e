"""The files of one editor workspace, checked as `karplint check ROOT` checks them, with the editor's unsaved
buffers in place of the files on disk.

The language server (karplint/server/) asks it for findings; it holds no protocol. Each check goes through the
same stages as `karplint check ROOT`: the project of ROOT (configuration, context, release evidence, Kustomize
patches, charts: `karplint.project`), built once, then `karplint.engine.check` with an in-memory cache
(karplint/engine/memo.py), so that an edit runs the per-file stage of the edited file only, and the cross-file
rules that read it.

Files changed on disk are known from `saved` (the editor's didSave and watched-file notifications), not by
stat()ing every file of the workspace per keystroke. Not thread-safe: one caller at a time.
"""

from __future__ import annotations

import gc
import os
import time
from dataclasses import replace

from karplint.config import Config
from karplint.discover import (
    EMBEDDING_EXTENSIONS, EXTENSIONS, TEMPLATE_EXTENSIONS, MissingPath, boundary, discover, excluded,
)
from karplint.engine import InputFile, check
from karplint.engine.memo import Memo
from karplint.engine.parallel import stat_of
from karplint.findings import Finding
from karplint.project import Project, build, configure, release_evidence
from karplint.readers.files import read_regular
from karplint.readers.kustomize import KUSTOMIZATION_FILES

CHECKED_EXTENSIONS = EXTENSIONS + EMBEDDING_EXTENSIONS + TEMPLATE_EXTENSIONS


class Workspace:
    """The files of one editor workspace, checked as `karplint check ROOT` checks them, with the editor's unsaved
    buffers in place of the files on disk."""

    def __init__(self, root: str, *, config_path: str | None = None) -> None:
        self.root = os.path.abspath(root)
        self._buffers: dict[str, bytes] = {}  # abspath -> the editor's text, encoded
        self._texts: dict[str, str] = {}  # abspath -> the editor's text as given
        # abspath -> findings of the last check: the open documents' (every file's per-file findings too)
        self._findings: dict[str, list[Finding]] = {}
        self._everything: dict[str, list[Finding]] | None = None  # every file's, when asked since the last change
        self._memos: dict = {}  # the per-file and cross-file results of earlier checks (karplint/engine/memo.py)
        boundary.forget_roots()
        self._base_config: Config = configure(config_path, [self.root])
        try:
            self.project: Project = build([self.root], self._base_config)
        except MissingPath:  # (a document not saved yet, outside every folder: its buffer is all there is)
            self.project = build([], self._base_config)
        self.config: Config = self.project.config
        self._display_of = {i.abspath: i.display for i in self.project.files if i.abspath}  # (abspaths)
        self._pins = {abspath for _d, abspath in self.project.pin_files}
        self._run()

    # ------------------------------------------------------------------------------------------ the interface

    def update(self, path: str, text: str | None) -> dict[str, list[Finding]]:
        """An editor buffer opened or changed (`text`), or closed (None: the file on disk counts again). Returns,
        for every open document whose findings may have changed (the edited one and those depending on it), its
        findings, by absolute path. A closed document is not in it (it is no longer open)."""
        path = os.path.abspath(path)
        if text is None:
            if self._buffers.pop(path, None) is None:
                return {}
            self._texts.pop(path, None)
        else:
            if self._texts.get(path) == text:  # (opened as it was, or a change that changed nothing)
                return {path: self.findings(path)}
            self._texts[path] = text
            self._buffers[path] = text.encode("utf-8", "surrogateescape")
        return self._recheck(path, self._admit(path))

    def saved(self, path: str) -> dict[str, list[Finding]]:
        """The file at `path` changed on disk (saved, created, deleted, or changed by another program)."""
        path = os.path.abspath(path)
        return self._recheck(path, self._admit(path, from_disk=True))

    def findings(self, path: str) -> list[Finding]:
        path = os.path.abspath(path)
        if path not in self._buffers:
            # The cross-file rules judged the open documents only (`_run`): another file's verdicts are worked
            # out when asked, over the whole workspace, once per change.
            if self._everything is None:
                self._everything = self._check(None)
            return list(self._everything.get(path, ()))
        return list(self._findings.get(path, ()))

    def display(self, path: str) -> str:
        """`path` as the project's files name it (check's display path), else as given."""
        return self._display_of.get(os.path.abspath(path), path)

    def text(self, path: str) -> str:
        """The current text of `path`: the editor's buffer, else the file on disk ('' when it cannot be read)."""
        path = os.path.abspath(path)
        if path in self._texts:
            return self._texts[path]
        try:
            return read_regular(path).decode("utf-8", "surrogateescape")
        except OSError:
            return ""

    # ------------------------------------------------------------------------------------------ the files

    def _admit(self, path: str, from_disk: bool = False) -> bool:
        """Keep the project's file lists true for `path`, as `check ROOT` would find it now (a file created in the
        editor or on disk, deleted, changed); whether `path` is one of the project's files (checked, or read for
        release evidence)."""
        known, pin = path in self._display_of, path in self._pins
        exists = os.path.isfile(path)
        if not exists and path not in self._buffers:  # deleted (or closed, never saved)
            if known:
                self.project.inputs = [i for i in self.project.inputs if i.abspath != path]
                self.project.context = [i for i in self.project.context if i.abspath != path]
                del self._display_of[path]
            if pin:
                self.project.pin_files = [p for p in self.project.pin_files if p[1] != path]
                self._pins.discard(path)
            self._forget(path)
            return known or pin
        if known or pin:
            if from_disk:  # (discovery's stat no longer vouches for its bytes: the new one will, once old enough)
                self.project.inputs = [self._restat(i, path) for i in self.project.inputs]
                self.project.context = [self._restat(i, path) for i in self.project.context]
                self._forget(path)
            return True
        if not _inside(path, self.root):
            return False
        # (as discovery writes it for `check ROOT`; ROOT may be the file itself: a document outside every folder)
        display = path if path == self.root else os.path.join(self.root, os.path.relpath(path, self.root))
        cfg = self._base_config
        if exists:  # as `check ROOT` would find it (excludes, .gitignore, chart files)
            found = discover([path], exclude=cfg.exclude, force_exclude=True, exclude_root=cfg.root)
            if found.pin_files:
                self.project.pin_files.append((display, path))
                self._pins.add(path)
                return True
            if not found.files:
                return False
        elif not path.lower().endswith(CHECKED_EXTENSIONS) or excluded(path, cfg.exclude, cfg.root):
            return False
        self.project.inputs.append(InputFile(display, path))
        self._display_of[path] = display
        return True

    @staticmethod
    def _restat(item: InputFile, path: str) -> InputFile:
        return replace(item, stat=stat_of(replace(item, stat=None))) if item.abspath == path else item

    def _forget(self, path: str) -> None:
        display = self._display_of.get(path)
        if display is not None:
            for memo in self._memos.values():
                memo.forget(display)

    def _inputs(self, files: list[InputFile]) -> list[InputFile]:
        return [InputFile(i.display, i.abspath, data=self._buffers[i.abspath]) if i.abspath in self._buffers else i
                for i in files]

    def _read(self, abspath: str, limit: int | None = None) -> bytes:
        """What the project stage reads a file with: the editor's buffer, else the disk."""
        data = self._buffers.get(os.path.abspath(abspath))
        if data is not None:
            return data if limit is None else data[:limit + 1]
        return read_regular(abspath, limit)

    # ------------------------------------------------------------------------------------------ checking

    def _refresh_project(self, path: str) -> None:
        """The parts of the project's configuration read from `path`'s kind of file, read again: the Kustomize
        patches (a kustomization), the charts (a chart's values), the release evidence (files the per-file stage
        does not read it from). Helm renders a chart from the disk: an unsaved template counts once saved."""
        from karplint.readers.helm_charts import chart_context
        from karplint.readers.kustomize import patch_files

        files = self._inputs(self.project.files)
        name = os.path.basename(path)
        cfg = self.config
        if name in KUSTOMIZATION_FILES:
            cfg = replace(cfg, kustomize_patches=patch_files(files, self._read, self._base_config.root))
        if name in ("values.yaml", "Chart.yaml") or f"{os.sep}templates{os.sep}" in path:
            cfg = replace(cfg, charts=chart_context(files, self._read, self._base_config.root))
        if self._base_config.karpenter_version_source == "default" and not path.lower().endswith(EXTENSIONS):
            cfg = replace(cfg, release_evidence=release_evidence(files, self.project.pin_files, self._base_config,
                                                                 self._read))
        self.config = self.project.config = cfg

    def _recheck(self, path: str, relevant: bool) -> dict[str, list[Finding]]:
        if not relevant:  # (a file the check does not read: nothing of the project changed)
            return {path: []} if path in self._buffers else {}
        # (a long-lived process: a `.git` or a link may have come or gone since the last check; the project roots
        # found then, memoised for a run, are found again)
        boundary.forget_roots()
        before = self._findings
        self._refresh_project(path)
        self._run()
        out = {}
        for p in self._buffers:
            now = self._findings.get(p, [])
            if p == path or now != before.get(p, []):
                out[p] = list(now)
        return out

    def _run(self) -> None:
        # The cross-file rules judge the open documents only (Config.focus): a keystroke's check costs what the
        # editor shows, not a verdict on every file of the workspace.
        self._findings = self._check(frozenset(self._display_of.get(p, p) for p in self._buffers))
        self._everything = None

    def _check(self, focus: frozenset | None) -> dict[str, list[Finding]]:
        inputs = self._inputs(self.project.inputs)
        # Only what changed since the last check is computed again: the per-file stage of the files whose bytes
        # changed, the cross-file rules that read them (the memo's keys are those of the disk cache).
        for memo in self._memos.values():
            memo.used = False
        memo = Memo.for_config(self.config, self._memos)
        # The memo holds millions of objects (every document the run stage reads, kept between checks): the
        # cyclic collector would walk them all, over and over, as each check allocates (a third of a keystroke's
        # time). They are frozen after each check (out of the collector's sight; freed by reference counting as
        # usual when replaced), and the collector is off during one, as in the run stage.
        enabled = gc.isenabled()
        gc.disable()
        try:
            report = check(inputs, replace(self.config, focus=focus), extra_problems=self.project.notices, cache=memo,
                           started_ns=time.time_ns(), context=self._inputs(self.project.context))
        finally:
            # Only the configurations of this check stay (an edited chart's values make a new one per keystroke).
            for fingerprint in [k for k, m in self._memos.items() if not m.used]:
                del self._memos[fingerprint]
            # (the cyclic garbage made since the last freeze, this check's included, collected before it would
            # be frozen: the young generations hold only objects made since then)
            gc.collect(1)
            gc.freeze()
            if enabled:
                gc.enable()
        by_display = {d: p for p, d in self._display_of.items()}
        found: dict[str, list[Finding]] = {}
        for f in report.findings:
            found.setdefault(by_display.get(f.file, os.path.abspath(f.file)), []).append(f)
        return found


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
