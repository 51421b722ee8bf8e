"""Terraform `locals` that nothing uses: a manifest kept in `locals { NAME = <<YAML ... YAML }` is applied only
through `local.NAME` (a `kubernetes_manifest`, a `kubectl_manifest`). When no uncommented line of the module (the
`.tf` files of the file's directory: Terraform's module) names it, the manifest is dead code, kept for later or
left behind when its resource was commented out; findings on it would be about nothing the module deploys.

Cheap: looked at only for a heredoc inside a top-level `locals` block (terraform fmt's layout: the block opens
and closes at column 0); the module's other files are read at most once per file checked, within bounds.
"""

from __future__ import annotations

import os
import re

MAX_MODULE_FILES = 200
MAX_MODULE_BYTES = 1 << 20  # per file

_LOCALS_OPEN = re.compile(r"^locals[ \t]*\{[ \t]*(?:#.*|//.*)?\r?$")
_BLOCK_CLOSE = re.compile(r"^\}[ \t]*(?:#.*|//.*)?\r?$")
_ATTRIBUTE = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_-]*)[ \t]*=[ \t]*<<")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"(?m)^[ \t]*(?:#|//).*$")


class LocalsTracker:
    """Fed the host file's lines in order (skipping heredoc bodies), says whether a heredoc opened on a line is
    the value of a local, and of which name."""

    def __init__(self):
        self.depth_locals = False

    def see(self, line: str) -> None:
        if _LOCALS_OPEN.match(line):
            self.depth_locals = True
        elif self.depth_locals and _BLOCK_CLOSE.match(line):
            self.depth_locals = False

    def local_name(self, line: str) -> str | None:
        if not self.depth_locals:
            return None
        m = _ATTRIBUTE.match(line)
        return m.group(1) if m else None


def _uncommented(text: str) -> str:
    return _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", text))


class ModuleUses:
    """Whether `local.NAME` appears in an uncommented line of the file or of the other `.tf` files of its
    directory. Without the file on disk (stdin), every local counts as used."""

    def __init__(self, text: str, abspath: str | None):
        self.text, self.abspath = text, abspath
        self._module: str | None = None  # (the module's other files, read once)

    def used(self, name: str) -> bool:
        if self.abspath is None:
            return True
        pattern = re.compile(r"\blocal\." + re.escape(name) + r"\b")
        if pattern.search(_uncommented(self.text)):
            return True
        module = self._module_text()
        return module is None or pattern.search(module) is not None

    def _module_text(self) -> str | None:
        """The module's other files, uncommented; None when they cannot be listed (then every local is used)."""
        if self._module is None:
            from karplint.readers.files import read_regular

            directory = os.path.dirname(self.abspath)
            texts = []
            try:
                names = sorted(n for n in os.listdir(directory) if n.endswith(".tf"))
            except OSError:
                return None
            if len(names) > MAX_MODULE_FILES:
                return None  # (a directory this large is not read: every local counts as used)
            for name in names:
                path = os.path.join(directory, name)
                if os.path.realpath(path) == os.path.realpath(self.abspath):
                    continue
                try:
                    raw = read_regular(path, MAX_MODULE_BYTES)
                except OSError:
                    continue
                if len(raw) <= MAX_MODULE_BYTES and b"local." in raw:
                    texts.append(_uncommented(raw.decode("utf-8", "replace")))
            self._module = "\n".join(texts)
        return self._module
