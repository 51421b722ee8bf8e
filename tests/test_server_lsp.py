"""`karplint server` end to end: a real LSP client (pytest-lsp) drives `python -m karplint server` over stdio.

Each test has a small workspace of its own (tmp_path) and its own server process.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from karplint.testing import run_cli


TIMEOUT = 60  # seconds for one answer (a loaded CI machine); an answer normally takes well under one

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  limits:
    cpu: 100
  disruption:
    consolidationPolicy: WhenEmpty
"""

CILIUM = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium
  namespace: kube-system
spec:
  selector: {matchLabels: {k8s-app: cilium}}
  template:
    metadata: {labels: {k8s-app: cilium}}
    spec:
      containers:
        - name: cilium-agent
          image: quay.io/cilium/cilium:v1.16.0
"""

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@v20250101}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "karplint", "server"]))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, root: Path) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True))),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")]))


async def published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The diagnostics of the next publication for `uri`."""
    while True:
        params = await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS),
                                        TIMEOUT)
        if params.uri == uri:
            return list(params.diagnostics)


def open_document(client: LanguageClient, path: Path, text: str | None = None, language: str = "yaml") -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id=language, version=1, text=path.read_text() if text is None else text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int],
           text: str) -> None:
    """An incremental change, as editors send them."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=start[0], character=start[1]),
                              end=types.Position(line=end[0], character=end[1])),
            text=text)]))


def replace_all(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def _offset(text: str, pos: types.Position) -> int:
    """A position (UTF-16 code units) as an offset in `text`; written here independently of the server's code."""
    lines = text.split("\n")
    offset = sum(len(x) + 1 for x in lines[:pos.line])
    units = 0
    for i, ch in enumerate(lines[pos.line] if pos.line < len(lines) else ""):
        if units >= pos.character:
            return offset + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return offset + len(lines[pos.line]) if pos.line < len(lines) else len(text)


def apply(text: str, edit: types.WorkspaceEdit, uri: str, version: int) -> str:
    """The text after a WorkspaceEdit made of one TextDocumentEdit on `uri` at `version`."""
    (doc_edit,) = edit.document_changes
    assert doc_edit.text_document.uri == uri and doc_edit.text_document.version == version
    for e in sorted(doc_edit.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:_offset(text, e.range.start)] + e.new_text + text[_offset(text, e.range.end):]
    return text


def shape(diags: list[types.Diagnostic]) -> list[tuple]:
    return sorted((d.code, d.severity, d.range.start.line, d.range.start.character, d.range.end.line,
                   d.range.end.character) for d in diags)


@pytest.mark.asyncio
async def test_initialize_advertises_what_the_server_does(client: LanguageClient, tmp_path):
    result = await start(client, tmp_path)
    caps = result.capabilities
    assert result.server_info.name == "karplint"
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.save is not None
    assert list(caps.code_action_provider.code_action_kinds) == [types.CodeActionKind.QuickFix]
    assert caps.hover_provider


@pytest.mark.asyncio
async def test_diagnostics_on_open_change_and_change_back(client: LanguageClient, tmp_path):
    (tmp_path / "blue prints").mkdir()  # (a URI with an escape: file:///.../blue%20prints/np.yaml)
    path = tmp_path / "blue prints" / "np.yaml"
    path.write_text(NODEPOOL)
    await start(client, tmp_path)
    uri = open_document(client, path)
    assert "%20" in uri
    diags = await published(client, uri)
    # `check` says: np.yaml:12:3: KPL401 [error] ... (span to 12:13): LSP lines and characters count from 0
    assert shape(diags) == [("KPL401", types.DiagnosticSeverity.Error, 11, 2, 11, 12)]
    (d,) = diags
    assert d.source == "karplint"
    assert d.message.splitlines()[0] == \
        "spec.disruption.consolidateAfter is missing: the API server rejects this NodePool"
    assert d.message.splitlines()[1] == "help: add `consolidateAfter: 0s` to keep today's behaviour"
    assert d.code_description.href.startswith("file://") and d.code_description.href.endswith("/KPL401.md")
    from urllib.parse import unquote, urlparse

    assert Path(unquote(urlparse(d.code_description.href).path)).read_text().startswith("# KPL401:")

    # type the missing line (incremental change at the end of the document): the finding goes
    change(client, uri, 2, (13, 0), (13, 0), "    consolidateAfter: 30s\n")
    assert await published(client, uri) == []
    # and delete it again: it comes back
    change(client, uri, 3, (13, 0), (14, 0), "")
    assert shape(await published(client, uri)) == [("KPL401", types.DiagnosticSeverity.Error, 11, 2, 11, 12)]
    assert path.read_text() == NODEPOOL  # the disk is never written


@pytest.mark.asyncio
async def test_a_burst_of_keystrokes_is_checked_once(client: LanguageClient, tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "np.yaml")
    await published(client, uri)
    typed = "    consolidateAfter: 30s\n"
    for i, ch in enumerate(typed):  # one change per character, faster than the debounce
        change(client, uri, 2 + i, (13, i), (13, i), ch)
    assert await published(client, uri) == []  # the first publication after the burst is of its final text
    with pytest.raises(asyncio.TimeoutError):  # and nothing else follows
        await asyncio.wait_for(published(client, uri), 1.0)


@pytest.mark.asyncio
async def test_fix_code_action_applied_removes_the_finding(client: LanguageClient, tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "np.yaml")
    (diag,) = await published(client, uri)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    titles = [(a.title, a.kind, a.is_preferred) for a in actions]
    assert titles == [
        ("KPL401: add `consolidateAfter: 0s` (Karpenter's default when it defaults the field)",
         types.CodeActionKind.QuickFix, True),
        ("Suppress KPL401 on this line", types.CodeActionKind.QuickFix, None),
    ]
    fixed = apply(NODEPOOL, actions[0].edit, uri, 1)
    assert fixed == NODEPOOL + "    consolidateAfter: 0s\n"
    replace_all(client, uri, 2, fixed)
    assert await published(client, uri) == []


@pytest.mark.asyncio
async def test_suppress_action_writes_the_comment_and_the_finding_goes(client: LanguageClient, tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "np.yaml")
    (diag,) = await published(client, uri)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=11, character=5), end=types.Position(line=11, character=5)),
        context=types.CodeActionContext(diagnostics=[])))
    (suppress,) = [a for a in actions if a.title == "Suppress KPL401 on this line"]
    suppressed = apply(NODEPOOL, suppress.edit, uri, 1)
    assert suppressed.splitlines()[11:13] == ["  # karplint: disable=KPL401", "  disruption:"]
    replace_all(client, uri, 2, suppressed)
    assert await published(client, uri) == []  # (and no KPL090: the suppression is used)


@pytest.mark.asyncio
async def test_cross_file_finding_follows_the_other_file(client: LanguageClient, tmp_path):
    """KPL301 on the NodePool depends on the Cilium install in another file: editing that file's buffer
    re-checks the NodePool's open document."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "pools").mkdir()
    (tmp_path / "infra").mkdir()
    pool = NODEPOOL.replace("    consolidationPolicy: WhenEmpty\n", "    consolidateAfter: 1m\n")
    (tmp_path / "pools" / "np.yaml").write_text(pool)
    (tmp_path / "pools" / "nc.yaml").write_text(NODECLASS)
    (tmp_path / "infra" / "cilium.yaml").write_text(CILIUM)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "pools" / "np.yaml")
    assert [d.code for d in await published(client, uri)] == ["KPL301"]
    cilium = open_document(client, tmp_path / "infra" / "cilium.yaml")
    await published(client, cilium)
    # the DaemonSet is no longer Cilium's (in the buffer only): the NodePool's finding goes
    replace_all(client, cilium, 2, CILIUM.replace("cilium", "calico"))
    assert [d.code for d in await published(client, uri)] == []


@pytest.mark.asyncio
async def test_utf16_positions_after_non_ascii_characters(client: LanguageClient, tmp_path):
    line = '        - {key: karpenter.sh/capacity-type, operator: In, values: ["spöt😀", "on-demand", "spt"]}\n'
    text = NODEPOOL.replace("      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]\n",
                            "      requirements:\n" + line).replace("consolidationPolicy: WhenEmpty",
                                                                   "consolidateAfter: 1m")
    (tmp_path / "np.yaml").write_text(text)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "np.yaml")
    diags = await published(client, uri)
    # `check`: 10:68-75 'spöt😀' (KPL141, KPL143) and 10:90-95 'spt' (KPL143), in code points; 😀 is two
    # UTF-16 units
    assert shape(diags) == [
        ("KPL141", types.DiagnosticSeverity.Error, 9, 67, 9, 75),
        ("KPL143", types.DiagnosticSeverity.Warning, 9, 67, 9, 75),
        ("KPL143", types.DiagnosticSeverity.Warning, 9, 90, 9, 95),
    ]
    # a change typed after the emoji, in UTF-16 units: 'spt' -> 'spot' makes that finding go
    change(client, uri, 2, (9, 93), (9, 93), "o")
    assert [d.code for d in await published(client, uri)] == ["KPL141", "KPL143"]


@pytest.mark.asyncio
async def test_markdown_document_positions_and_actions_in_the_host_file(client: LanguageClient, tmp_path):
    body = "# Our pool\n\nSome words.\n\n```yaml\n" + NODEPOOL + "```\n"
    (tmp_path / "README.md").write_text(body)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "README.md", language="markdown")
    (diag,) = await published(client, uri)
    assert (diag.code, diag.range.start.line, diag.range.start.character) == ("KPL401", 16, 2)  # host lines
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    (suppress,) = [a for a in actions if a.title.startswith("Suppress")]
    suppressed = apply(body, suppress.edit, uri, 1)
    assert suppressed.splitlines()[16:18] == ["  # karplint: disable=KPL401", "  disruption:"]  # inside the fence
    replace_all(client, uri, 2, suppressed)
    assert await published(client, uri) == []


@pytest.mark.asyncio
async def test_closing_a_document_clears_its_diagnostics(client: LanguageClient, tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "np.yaml")
    assert len(await published(client, uri)) == 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await published(client, uri) == []


@pytest.mark.asyncio
async def test_bad_configuration_is_reported_and_the_server_keeps_serving(client: LanguageClient, tmp_path):
    (tmp_path / ".karplint.toml").write_text("[severity\n")
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    await start(client, tmp_path)
    message = client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    uri = open_document(client, tmp_path / "np.yaml")
    shown = await asyncio.wait_for(message, TIMEOUT)
    assert shown.type == types.MessageType.Error and ".karplint.toml" in shown.message
    change(client, uri, 2, (0, 0), (0, 0), "# typing\n")  # each check fails again: logged, not shown again
    await asyncio.sleep(1.0)
    assert len(client.messages) == 1
    # the user repairs the file: the watched-file notification re-reads it and the document is checked
    (tmp_path / ".karplint.toml").write_text("[severity]\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=(tmp_path / ".karplint.toml").as_uri(), type=types.FileChangeType.Changed)]))
    assert [d.code for d in await published(client, uri)] == ["KPL401"]


def test_server_with_a_missing_configuration_file_is_a_usage_error(tmp_path):
    proc = run_cli("server", "--config", str(tmp_path / "nope.toml"), stdin="")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"karplint: error: {tmp_path / 'nope.toml'}: configuration file not found\n"


def test_server_accepts_stdio_and_ends_with_its_input():
    """Clients pass `--stdio`; the client closing the pipe ends the server, which wrote nothing to stdout."""
    proc = run_cli("server", "--stdio", stdin="")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_check_does_not_import_the_language_server(tmp_path):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    probe = textwrap.dedent(f"""
        import sys
        sys.argv = ["karplint", "check", "--no-cache", {str(tmp_path / "np.yaml")!r}]
        from karplint.cli import main
        try:
            main()
        except SystemExit:
            pass
        sys.__stderr__.write(repr(sorted(m for m in sys.modules if m.split(".")[0] in ("pygls", "lsprotocol")
                                          or m.startswith("karplint.server"))))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert "KPL401" in proc.stdout
    assert proc.stderr.endswith("[]")


@pytest.mark.asyncio
async def test_a_document_outside_the_workspace_folder_is_checked_alone(client: LanguageClient, tmp_path):
    """The workspace's Cilium install is not the cluster of a file opened from elsewhere (as `check FILE`)."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "ws" / "cilium.yaml").write_text(CILIUM)
    pool = NODEPOOL.replace("    consolidationPolicy: WhenEmpty\n", "")
    (tmp_path / "ws" / "np.yaml").write_text(pool)
    (tmp_path / "elsewhere" / "np.yaml").write_text(pool)
    await start(client, tmp_path / "ws")
    inside = open_document(client, tmp_path / "ws" / "np.yaml")
    assert [d.code for d in await published(client, inside)] == ["KPL301"]
    outside = open_document(client, tmp_path / "elsewhere" / "np.yaml")
    assert [d.code for d in await published(client, outside)] == []
    change(client, outside, 2, (10, 9), (10, 12), "lots")  # cpu: 100 -> cpu: lots
    assert [d.code for d in await published(client, outside)] == ["KPL102"]


@pytest.mark.asyncio
async def test_hover_on_a_rule_code_shows_its_documentation(client: LanguageClient, tmp_path):
    text = NODEPOOL.replace("  disruption:\n", "  disruption:  # karplint: disable=KPL401 -- 😀 staged rollout\n")
    (tmp_path / "np.yaml").write_text(text)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "np.yaml")
    assert await published(client, uri) == []
    at = text.splitlines()[11].index("KPL401") + 2
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=11, character=at)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**KPL401** (consolidate-after-required)")
    # on the NodePool: what `simulate` knows (h-hover's tests compare it with the command)
    pool = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=8)))
    assert pool.contents.value.startswith("**NodePool `default`** can launch")


# ---------------------------------------------------------------------------------------------- the parts

def _range(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


def test_positions_utf16_crlf_and_byte_order_mark():
    from karplint.readers.source import Span
    from karplint.server.positions import TextPositions

    text = "a: 1\r\nb: 😀x\r\n"
    pos = TextPositions(text)
    assert _range(pos.span_range(Span(2, 5, 2, 6))) == (1, 5, 1, 6)  # 'x' after the astral character
    assert _range(pos.span_range(Span(1, 1, 1, 99))) == (0, 0, 0, 4)  # clamped to the line, before its CR
    assert _range(pos.span_range(Span(2, 4, 1, 1))) == (1, 3, 1, 3)  # an end before the start: a point
    utf8 = TextPositions(text, types.PositionEncodingKind.Utf8)
    assert _range(utf8.span_range(Span(2, 5, 2, 6))) == (1, 7, 1, 8)
    assert _range(TextPositions(text, types.PositionEncodingKind.Utf32).span_range(Span(2, 5, 2, 6))) == (1, 4, 1, 5)
    # karplint reads past the byte order mark an editor may keep in the buffer
    bom = TextPositions("\ufeffa: 1\n")
    assert _range(bom.span_range(Span(1, 1, 1, 2))) == (0, 1, 0, 2)
    assert _range(bom.offsets_range(3, 4)) == (0, 4, 0, 5)


def test_suppression_comment_placement():
    from karplint.server.suppress import suppression_edit

    text = "kind: NodePool\nspec:\n  disruption:\n    budgets: []\n"
    at = text.index("  disruption:")
    assert suppression_edit("np.yaml", text, 3, "KPL401") == (at, at, "  # karplint: disable=KPL401\n")
    crlf = text.replace("\n", "\r\n")
    assert suppression_edit("np.yaml", crlf, 3, "KPL401") == (at + 2, at + 2, "  # karplint: disable=KPL401\r\n")
    # a comment already there gets the code
    above = "spec:\n  # karplint: disable=KPL402 -- reason\n  disruption: {}\n"
    at = above.index(" -- reason")
    assert suppression_edit("np.yaml", above, 3, "KPL401") == (at, at, ",KPL401")
    assert suppression_edit("np.yaml", above, 3, "KPL402") is None  # (already suppressed)
    inline = "spec:\n  disruption: {}  # karplint: disable=KPL402\n"
    assert suppression_edit("np.yaml", inline, 2, "KPL401") == (len(inline) - 1, len(inline) - 1, ",KPL401")
    # nowhere a comment would change what the user wrote
    assert suppression_edit("np.json", '{"kind": "NodePool"}\n', 1, "KPL401") is None
    script = ("spec:\n  userData: |\n    #!/bin/bash\n      /etc/eks/bootstrap.sh c --kubelet-extra-args=x\n"
              "  role: r\n")
    assert suppression_edit("nc.yaml", script, 4, "KPL201") is None  # inside the block scalar
    assert suppression_edit("nc.yaml", script, 3, "KPL201") is None  # (a comment line: it is the script's)
    at = script.index("  role:")
    assert suppression_edit("nc.yaml", script, 5, "KPL201") == (at, at, "  # karplint: disable=KPL201\n")
    doc = "# Title\n\n```yaml\nkind: NodePool\n```\nkind: text\n"
    at = doc.index("kind: NodePool")
    assert suppression_edit("README.md", doc, 4, "KPL401") == (at, at, "# karplint: disable=KPL401\n")
    assert suppression_edit("README.md", doc, 6, "KPL401") is None  # prose: `#` would make a heading
    hcl = 'locals {\n  pool = yamldecode(<<-EOT\n    kind: NodePool\n  EOT\n  )\n}\n'
    at = hcl.index("    kind")
    assert suppression_edit("main.tf", hcl, 3, "KPL401") == (at, at, "    # karplint: disable=KPL401\n")
    assert suppression_edit("main.tf", hcl.replace("yamldecode", "jsondecode"), 3, "KPL401") is None
    assert suppression_edit("main.tf", hcl.replace("kind: NodePool", '{"kind": "NodePool"}'), 3, "KPL401") is None


@pytest.mark.asyncio
async def test_a_new_file_outside_every_folder_is_checked_before_and_after_it_is_saved(client: LanguageClient,
                                                                                      tmp_path):
    (tmp_path / "ws").mkdir()
    await start(client, tmp_path / "ws")
    path = tmp_path / "new.yaml"
    uri = open_document(client, path, text=NODEPOOL)  # (not on disk)
    assert shape(await published(client, uri)) == [("KPL401", types.DiagnosticSeverity.Error, 11, 2, 11, 12)]
    change(client, uri, 2, (0, 0), (0, 0), "# a pool\n")
    assert shape(await published(client, uri)) == [("KPL401", types.DiagnosticSeverity.Error, 12, 2, 12, 12)]
    path.write_text("# a pool\n" + NODEPOOL)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert shape(await published(client, uri)) == [("KPL401", types.DiagnosticSeverity.Error, 12, 2, 12, 12)]


@pytest.mark.asyncio
async def test_terraform_heredoc_fix_lands_in_the_host_file(client: LanguageClient, tmp_path):
    body = ('resource "kubectl_manifest" "pool" {\n  yaml_body = <<-YAML\n'
            + "".join(f"    {line}\n" for line in NODEPOOL.splitlines()) + "  YAML\n}\n")
    (tmp_path / "main.tf").write_text(body)
    await start(client, tmp_path)
    uri = open_document(client, tmp_path / "main.tf", language="terraform")
    (diag,) = await published(client, uri)
    assert (diag.code, _range(diag.range)) == ("KPL401", (13, 6, 13, 16))  # `check`: main.tf:14:7
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    fixed = apply(body, actions[0].edit, uri, 1)
    assert fixed.splitlines()[14:16] == ["        consolidationPolicy: WhenEmpty", "        consolidateAfter: 0s"]
    replace_all(client, uri, 2, fixed)
    assert await published(client, uri) == []


@pytest.mark.asyncio
async def test_a_failing_check_is_logged_and_the_other_folders_are_served(client: LanguageClient, tmp_path):
    """Two workspace folders, one whose configuration cannot be read: its checks fail (logged to the client,
    nothing published for its document), the other folder's documents are checked as usual."""
    for name in ("broken", "fine"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "np.yaml").write_text(NODEPOOL)
    (tmp_path / "broken" / ".karplint.toml").write_text("cni = [\n")
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=(tmp_path / n).as_uri(), name=n) for n in ("broken", "fine")]))
    logged = client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    broken = open_document(client, tmp_path / "broken" / "np.yaml")
    message = await asyncio.wait_for(logged, TIMEOUT)
    assert message.type == types.MessageType.Error and "broken" in message.message and "ConfigError" in message.message
    fine = open_document(client, tmp_path / "fine" / "np.yaml")
    assert [d.code for d in await published(client, fine)] == ["KPL401"]
    assert broken not in client.diagnostics
