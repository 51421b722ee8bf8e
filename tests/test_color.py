"""Colour follows the terminal (a pseudo-terminal here), NO_COLOR, FORCE_COLOR and --color; `explain` renders
Markdown on a terminal and prints it plain when piped."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from karplint.testing import run_cli

OLD = "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\nspec: {}\n"


def _in_pty(args: list[str], cwd, env_extra: dict | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS")}
    env.update({"COLUMNS": "120", "LINES": "500", "TERM": "xterm-256color", **(env_extra or {})})
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "karplint", *args], cwd=cwd, stdin=follower, stdout=follower,
                            stderr=follower, env=env, close_fds=True)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    return tmp_path


def test_colour_on_a_terminal_and_its_switches(tree):
    assert "\x1b[" in _in_pty(["check", ".", "--no-cache"], tree)
    assert "\x1b[" not in _in_pty(["check", ".", "--no-cache"], tree, {"NO_COLOR": "1"})
    assert "\x1b[" not in _in_pty(["check", ".", "--no-cache", "--color", "never"], tree)
    piped = run_cli("check", ".", "--no-cache", cwd=tree)
    assert piped.returncode == 1 and "\x1b[" not in piped.stdout
    assert "\x1b[" in run_cli("check", ".", "--no-cache", cwd=tree, env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" in run_cli("check", ".", "--no-cache", "--color", "always", cwd=tree).stdout


def test_explain_renders_on_a_terminal_and_is_plain_when_piped(tree):
    shown = _in_pty(["explain", "KPL801", "--no-pager"], tree)
    assert "\x1b[" in shown and "# KPL801" not in shown and "KPL801: removed-api-version" in shown
    piped = run_cli("explain", "KPL801", cwd=tree)
    assert piped.returncode == 0 and "# KPL801: removed-api-version" in piped.stdout and "\x1b" not in piped.stdout
    typo = run_cli("explain", "KPL8O1", cwd=tree)
    assert typo.returncode == 2 and "did you mean" in typo.stderr


def test_rules_and_render_neither_wrap_nor_pad_when_piped(tree):
    rules = run_cli("rules", cwd=tree)
    line = next(ln for ln in rules.stdout.splitlines() if ln.startswith("KPL301\t"))
    assert len(line.split("\t")) == 6 and "  " not in line.split("\t")[5]
    bad = run_cli("rules", "-f", "sarif", cwd=tree)
    assert bad.returncode == 2 and "'sarif' is not one of 'text', 'json'" in bad.stderr  # (typer: the choices)
    from karplint.testing import REPO

    shown = run_cli("render", str(REPO / "examples" / "quickstart"), cwd=tree)
    notes = [ln for ln in shown.stdout.splitlines() if ln.startswith("note: ")]
    assert any(len(ln) > 100 for ln in notes)  # a long note stays one line
    starts = (" ", "note:", "─", "userData", "kubelet", "registers", str(REPO))
    assert not [ln for ln in shown.stdout.splitlines() if ln and not ln.startswith(starts)]  # no wrapped rest


def test_explain_pages_a_long_document_on_a_terminal(tree, tmp_path):
    """Taller than the terminal: the rendered document goes through the pager ($PAGER, here a script that marks
    what it was given); shorter, or with --no-pager, it is printed directly."""
    marker = tmp_path / "pager.sh"
    marker.write_text("#!/bin/sh\necho PAGED-BY-PAGER\ncat\n")
    marker.chmod(0o755)
    paged = _in_pty(["explain", "KPL801"], tree, {"PAGER": str(marker), "LINES": "10", "MANPAGER": str(marker)})
    assert "PAGED-BY-PAGER" in paged and "removed-api-version" in paged
    tall = _in_pty(["explain", "KPL801"], tree, {"PAGER": str(marker), "MANPAGER": str(marker)})
    assert "PAGED-BY-PAGER" not in tall
    off = _in_pty(["explain", "KPL801", "--no-pager"], tree, {"PAGER": str(marker), "LINES": "10"})
    assert "PAGED-BY-PAGER" not in off and "removed-api-version" in off
