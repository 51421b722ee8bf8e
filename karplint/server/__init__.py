"""The language server: `karplint server` (the protocol) and the workspace it checks (workspace.py)."""
