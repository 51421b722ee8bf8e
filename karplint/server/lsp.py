"""`karplint server`: the Language Server Protocol over stdio (pygls), on top of `Workspace`.

The protocol loop (pygls, asyncio) never checks: every call into a `Workspace` runs on one worker thread, one at a
time, so that a Workspace is never used by two threads. A burst of changes to a document makes one check: a
change waits `DEBOUNCE_SECONDS` for the next one (which replaces it), and a check takes the document's newest text
when it starts. Diagnostics computed for a text the editor has since changed are not published: the check of the
newer text, already scheduled, publishes them.

A document belongs to the workspace folder that holds it (the innermost); a document outside every folder is
checked as `karplint check FILE` would check it. A configuration file saved or changed on disk
(.karplint.toml, pyproject.toml, the --config file) rebuilds the workspaces. Logging goes to stderr and to the
client (window/logMessage); stdout carries the protocol and nothing else. A crash in a check is logged, and that
check publishes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from karplint import __version__
from karplint.config import ConfigError
from karplint.server.diagnostics import code_actions, diagnostic
from karplint.server.positions import TextPositions

log = logging.getLogger("karplint.server")

DEBOUNCE_SECONDS = 0.025  # a burst of changes (a paste, key repeat at ~30 a second, a multi-cursor edit): one check
CONFIG_FILES = (".karplint.toml", "pyproject.toml")
# what `check` reads (karplint/discover: YAML, JSON, the hosts of embedded YAML, templates) and the configuration
WATCHED = "**/*.{yaml,yml,json,tf,tftpl,tpl,sh,bash,md,markdown,adoc,asciidoc,gotmpl,toml}"


class KarplintServer(LanguageServer):
    def __init__(self, config_path: str | None = None) -> None:
        super().__init__("karplint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.config_path = os.path.abspath(config_path) if config_path else None
        self.roots: list[str] = []  # the workspace folders, innermost first
        self.workspaces: dict[str, object] = {}  # root (a folder, or a loose document's path) -> Workspace
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="karplint-check")
        self.uris: dict[str, str] = {}  # path -> the URI the client opened it by
        self.checked: dict[str, tuple[int | None, str]] = {}  # uri -> (version, text) the Workspace has
        self.debouncing: dict[str, asyncio.Task] = {}  # uri -> a check waiting for the burst to end
        self.shown: set[str] = set()  # configuration errors shown to the user (each once, until it changes)

    # ---------------------------------------------------------------------------------------------- workspaces

    def set_roots(self, folders: list[str]) -> None:
        self.roots = sorted({os.path.abspath(f) for f in folders}, key=len, reverse=True)

    def root_of(self, path: str) -> str:
        for root in self.roots:
            if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
                return root
        return path  # outside every folder: the document alone

    def workspace_of(self, path: str):
        """The Workspace that checks `path` (worker thread only), created on first use."""
        from karplint.server.workspace import Workspace

        root = self.root_of(path)
        ws = self.workspaces.get(root)
        if ws is None:
            ws = self.workspaces[root] = Workspace(root, config_path=self.config_path)
        return ws

    # ---------------------------------------------------------------------------------------------- worker thread

    def open_document(self, uri: str):
        """pygls' document for `uri`, None when it is not open. (pygls keys its documents by the URI
        percent-decoded; the client's own spelling of the URI is the document's `uri`, the one to answer with.)"""
        return self.workspace.text_documents.get(unquote(uri))

    def open_uris(self) -> list[str]:
        return [doc.uri for doc in list(self.workspace.text_documents.values())]  # (a copy: the loop adds to it)

    def _document(self, uri: str):
        """The open document (version, text), or None when it is closed."""
        doc = self.open_document(uri)
        if doc is None:
            return None
        # The version first: a change applied between the two reads pairs an older version with the newer text,
        # whose diagnostics `publish` then drops (the pair the other way round would publish wrong ranges).
        version = doc.version
        return version, doc.source

    def _diagnostics(self, ws, results: dict) -> list[tuple[str, int | None, list[types.Diagnostic]]]:
        encoding = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        out = []
        for path, findings in results.items():
            uri = self.uris.get(path)
            if uri is None or uri not in self.checked:
                continue  # (not open here)
            positions = TextPositions(ws.text(path), encoding)
            out.append((uri, self.checked[uri][0], [diagnostic(f, positions) for f in findings]))
        return out

    def sync(self, uri: str) -> tuple | None:
        """Give the Workspace the document's newest text, if it has not had it; (workspace, results) or None."""
        current = self._document(uri)
        if current is None or self.checked.get(uri) == current:
            return None
        path = to_fs_path(uri)
        ws = self.workspace_of(path)
        self.uris[path] = uri
        results = ws.update(path, current[1])
        self.checked[uri] = current
        return ws, results

    def check_document(self, uri: str):
        synced = self.sync(uri)
        return self._diagnostics(*synced) if synced else []

    def close_document(self, uri: str, path: str):
        self.checked.pop(uri, None)
        ws = self.workspaces.get(self.root_of(path))
        if ws is None:
            return []
        results = ws.update(path, None)
        self.uris.pop(path, None)
        if self.root_of(path) == path:  # a loose document's workspace goes with it
            self.workspaces.pop(path, None)
        return self._diagnostics(ws, results)

    def file_changed(self, path: str):
        """A file changed on disk (saved, or changed by another program)."""
        if os.path.basename(path) in CONFIG_FILES or path == self.config_path:
            return self.reconfigure()
        root = self.root_of(path)
        ws = self.workspaces.get(root)
        if ws is None:
            return []
        return self._diagnostics(ws, ws.saved(path))

    def reconfigure(self):
        """The configuration changed: new workspaces, every open document checked again."""
        self.workspaces.clear()
        self.checked.clear()
        self.shown.clear()
        out = []
        for uri in self.open_uris():
            if uri.startswith("file:"):
                out.extend(self.check_document(uri))
        return out

    def fresh(self, uri: str):
        """(workspace, path, version, text) with the document's newest text checked; None for a closed one."""
        self.sync(uri)
        if uri not in self.checked:
            return None
        path = to_fs_path(uri)
        return self.workspace_of(path), path, *self.checked[uri]

    # ---------------------------------------------------------------------------------------------- event loop

    async def in_worker(self, what: str, fn, *args):
        """`fn(*args)` on the worker thread; on an exception, log it (stderr and the client) and return None."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.checker, fn, *args)
        except Exception as exc:  # noqa: BLE001 - a crash in one check must not stop the server
            message = f"karplint: {what} failed: {type(exc).__name__}: {exc}"
            # (a configuration error is the user's, in one line; anything else is karplint's, with its traceback)
            log.error("%s", message if isinstance(exc, ConfigError) else f"{message}\n{traceback.format_exc()}")
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=message))
            if isinstance(exc, ConfigError) and message not in self.shown:  # (the user's to fix: shown, once)
                self.shown.add(message)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
            return None

    def publish(self, diagnostics) -> None:
        for uri, version, diags in diagnostics or ():
            doc = self.open_document(uri)
            if doc is None or doc.version != version:
                continue  # closed, or changed since: the check of its newer text publishes
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diags))

    def schedule(self, uri: str, delay: float) -> None:
        waiting = self.debouncing.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.debouncing[uri] = asyncio.get_running_loop().create_task(self._check_after(uri, delay))

    async def _check_after(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        if self.debouncing.get(uri) is asyncio.current_task():
            del self.debouncing[uri]  # (from here on not cancelled: its results may include other documents)
        self.publish(await self.in_worker(f"checking {uri}", self.check_document, uri))


def build_server(config_path: str | None = None) -> KarplintServer:
    ls = KarplintServer(config_path)

    @ls.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        folders = [to_fs_path(f.uri) for f in params.workspace_folders or ()]
        if not folders and params.root_uri:
            folders = [to_fs_path(params.root_uri)]
        elif not folders and params.root_path:
            folders = [params.root_path]
        ls.set_roots([f for f in folders if f])

    @ls.feature(types.INITIALIZED)
    def initialized(params: types.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if watched and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id="karplint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=WATCHED)]))]))

    @ls.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        for waiting in ls.debouncing.values():
            waiting.cancel()
        ls.checker.shutdown(wait=False, cancel_futures=True)  # (a check under way still ends before the exit)

    @ls.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.set_roots([to_fs_path(f.uri) for f in ls.workspace.folders.values()])
        ls.publish(await ls.in_worker("re-reading the workspace folders", ls.reconfigure))

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        if params.text_document.uri.startswith("file:"):
            ls.schedule(params.text_document.uri, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri.startswith("file:"):
            ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.startswith("file:"):
            ls.publish(await ls.in_worker(f"checking {uri}", ls.file_changed, to_fs_path(uri)))

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        waiting = ls.debouncing.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        if not uri.startswith("file:"):
            return
        # a closed document's diagnostics go (the editor no longer shows it); the others may change
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        ls.publish(await ls.in_worker(f"closing {uri}", ls.close_document, uri, to_fs_path(uri)))

    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            if change.uri.startswith("file:"):
                ls.publish(await ls.in_worker(f"re-reading {change.uri}", ls.file_changed, to_fs_path(change.uri)))

    @ls.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False))
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        if not uri.startswith("file:"):
            return None
        only = params.context.only
        if only and not any(k == types.CodeActionKind.QuickFix or types.CodeActionKind.QuickFix.startswith(k)
                            for k in only):
            return None
        caps = ls.client_capabilities.workspace
        document_changes = bool(caps and caps.workspace_edit and caps.workspace_edit.document_changes)
        encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16

        def actions():
            fresh = ls.fresh(uri)
            if fresh is None:
                return None
            ws, path, version, text = fresh
            return code_actions(uri, version, path, ws.findings(path), TextPositions(text, encoding), params.range,
                                document_changes)

        return await ls.in_worker(f"code actions for {uri}", actions)

    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        if not uri.startswith("file:"):
            return None

        def markdown():
            from karplint.server.hover import hover_at

            fresh = ls.fresh(uri)
            if fresh is None:
                return None
            ws, path, _version, text = fresh
            return hover_at(ws.project, ws.display(path), text, params.position.line, params.position.character)

        value = await ls.in_worker(f"hover in {uri}", markdown)
        if not value:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))

    return ls


def serve(config_path: str | None = None) -> None:
    """Speak LSP on stdin and stdout until the client says exit."""
    # The protocol owns the real stdout; anything else written to it (a stray print, a child process) would
    # corrupt the stream, so descriptor 1 and sys.stdout now lead to stderr.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="karplint server: %(levelname)s %(message)s")
    ls = build_server(config_path)
    ls.start_io(sys.stdin.buffer, protocol_out)
