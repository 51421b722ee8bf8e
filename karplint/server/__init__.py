"""The language server: `karplint server` (the protocol) and what it answers (findings, hovers)."""
