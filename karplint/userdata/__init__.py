"""userData analysis library: MIME, content detection, shell, bootstrap.sh, systemd, kubelet flags.

Rules call `karplint.userdata.model.analyze(res)`; the modules below are usable on their own:
`text` (userData string <-> manifest positions), `mime`, `content`, `kubelet`, `shell`, `bootstrap`, `systemd`.
"""
