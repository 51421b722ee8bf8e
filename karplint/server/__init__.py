"""The language server, `karplint server`: what an editor shows while a NodePool is written.

    lsp.py          the protocol (pygls, over stdio): documents opened, changed and saved; diagnostics published;
                    code actions and hovers answered. Imported only by `karplint server`, never by `check`.
    diagnostics.py  findings as LSP diagnostics; their fixes and "Suppress KPLnnn on this line" as code actions
    suppress.py     where a suppression comment can be written without changing what the user wrote
    positions.py    karplint's code-point lines and columns to LSP positions (UTF-16 code units by default)
    workspace.py    the files of one editor workspace, checked as `karplint check ROOT` checks them, with the
                    editor's unsaved buffers in place of the disk
    hover.py        what a hover shows (rule documentation, a NodePool's simulation, a budget's week, userData);
                    hover_text.py writes it as Markdown
"""
