"""karplint in a terminal (issue #27): `--statistics` as JSON and with a total line, the `[*]` marker in concise,
an empty NO_COLOR, the pager's LESS, a reader that stops reading (`| head`), the progress line of a long run, and
`check --watch`. Terminals are pseudo-terminals here (stdlib pty); pipes are real pipes."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import time

import pytest

from karplint.testing import run_cli

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals and signals")

# A NodePool without consolidateAfter (KPL401, error, safe fix) or limits (KPL705, info, no fix).
NO_CONSOLIDATE_AFTER = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
"""
SELECT = ("--select", "KPL401,KPL705", "--karpenter-version", "1.14.1")


def _env(extra: dict | None = None) -> dict:
    # (PYTHONUNBUFFERED, set in some CI shells, changes when a closed pipe is noticed: a user's run has it unset)
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS", "CI", "PYTHONUNBUFFERED", "LESS", "MANPAGER")}
    env.update({"COLUMNS": "120", "LINES": "500", "TERM": "xterm-256color", **(extra or {})})
    return env


def _in_pty(args: list[str], cwd, env_extra: dict | None = None, stdout_piped: bool = False) -> tuple[int, str, str]:
    """Run karplint with stderr (and stdout unless `stdout_piped`) on a pseudo-terminal: (exit, terminal, stdout)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "karplint", *args], cwd=cwd, stdin=follower,
                            stdout=subprocess.PIPE if stdout_piped else follower, stderr=follower,
                            env=_env(env_extra), close_fds=True)
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
    out = proc.stdout.read().decode() if stdout_piped else ""
    proc.wait(timeout=60)
    os.close(leader)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace"), out


@pytest.fixture
def tree(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(NO_CONSOLIDATE_AFTER.format(name=name))
    return tmp_path


# ------------------------------------------------------------------------------------ statistics and concise

def test_statistics_as_json(tree):
    proc = run_cli("check", ".", "--no-cache", *SELECT, "--statistics", "-f", "json", cwd=tree)
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == [
        {"code": "KPL401", "slug": "consolidate-after-required", "count": 2, "fixable": True},
        {"code": "KPL705", "slug": "nodepool-without-limits", "count": 2, "fixable": False},
    ]


def test_statistics_end_with_a_total_line(tree):
    proc = run_cli("check", ".", "--no-cache", *SELECT, "--statistics", cwd=tree)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "2\tKPL401\t[*] consolidate-after-required",
        "2\tKPL705\t    nodepool-without-limits",
        "Found 4 findings. [*] 2 fixable with `--fix`.",
    ]
    (tree / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (tree / "b.yaml").unlink()
    clean = run_cli("check", ".", "--no-cache", *SELECT, "--statistics", cwd=tree)
    assert clean.returncode == 0 and clean.stdout.startswith("No Karpenter object checked: 1 file, ")


def test_concise_marks_fixable_findings(tree):
    proc = run_cli("check", "a.yaml", "--no-cache", *SELECT, "-f", "concise", cwd=tree)
    assert proc.stdout.splitlines()[:2] == [
        "a.yaml:5:1: KPL705 [info] no spec.limits: this NodePool can launch capacity without bound",
        "a.yaml:6:3: KPL401 [error] [*] spec.disruption.consolidateAfter is missing: the API server rejects this "
        "NodePool",
    ]


# ------------------------------------------------------------------------------------------- colour, pager

def test_an_empty_no_color_counts_as_unset(tree):
    """no-color.org: colour is off when NO_COLOR is present "and not an empty string"."""
    _code, shown, _ = _in_pty(["check", "a.yaml", "--no-cache", *SELECT], tree, {"NO_COLOR": ""})
    assert "\x1b[" in shown
    _code, plain, _ = _in_pty(["check", "a.yaml", "--no-cache", *SELECT], tree, {"NO_COLOR": "1"})
    assert "\x1b[" not in plain and "KPL401" in plain


@pytest.mark.parametrize(("less", "seen"), [(None, "FRX"), ("-i", "-i -R"), ("-iR", "-iR"), ("-r", "-r"),
                                            ("--RAW-CONTROL-CHARS", "--RAW-CONTROL-CHARS"), ("-Pr", "-Pr -R")])
def test_the_pager_shows_colour(tree, tmp_path, less, seen):
    """less prints colour codes raw without -R: `explain` pages with LESS holding it (git's FRX when unset)."""
    record = tmp_path / "less.txt"
    pager = tmp_path / "pager.sh"
    pager.write_text(f'#!/bin/sh\nprintf "%s" "${{LESS-unset}}" > {record}\ncat >/dev/null\n')
    pager.chmod(0o755)
    code, _shown, _ = _in_pty(["explain", "KPL801"], tree,
                              {"PAGER": str(pager), "LINES": "10", **({"LESS": less} if less is not None else {})})
    assert code == 0
    assert record.read_text() == seen


# -------------------------------------------------------------------------------------------------- pipes

def test_a_reader_that_stops_reading_ends_the_run_quietly(tmp_path):
    """`karplint check . | head -1`: no "cannot write the report: Broken pipe", no "Exception ignored", and the
    exit status the check would have had (1: findings)."""
    many = "---\n".join(NO_CONSOLIDATE_AFTER.format(name=f"p{i}") for i in range(300))
    (tmp_path / "many.yaml").write_text(many)  # (a report of ~250 kB: more than a pipe holds)
    proc = subprocess.Popen([sys.executable, "-m", "karplint", "check", "--no-cache", *SELECT, "."], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert first.startswith(b"many.yaml:5:1: KPL705") and err == ""


# ---------------------------------------------------------------------------------------------- progress

def test_a_progress_line_on_a_terminal_only(tree):
    """On a terminal (stderr), after KARPLINT_PROGRESS_AFTER seconds (1 by default; 0 here): "checking… N/M
    files", redrawn in place and cleared before the report; never in a pipe, in CI or with --quiet."""
    code, terminal, out = _in_pty(["check", ".", "--no-cache", *SELECT, "-f", "concise"], tree,
                                  {"KARPLINT_PROGRESS_AFTER": "0"}, stdout_piped=True)
    assert code == 1 and out.count("KPL401") == 2
    assert terminal.startswith("\rchecking… ") and "/2 files\x1b[K" in terminal
    assert terminal.endswith("\r\x1b[K")  # (cleared: nothing else is written to stderr here)
    for extra, args in (({"CI": "true"}, ()), ({}, ("--quiet",))):
        _code, terminal, _out = _in_pty(["check", ".", "--no-cache", *SELECT, *args], tree,
                                        {"KARPLINT_PROGRESS_AFTER": "0", **extra}, stdout_piped=True)
        assert "checking" not in terminal
    piped = run_cli("check", ".", "--no-cache", *SELECT, cwd=tree, env={"KARPLINT_PROGRESS_AFTER": "0"})
    assert piped.returncode == 1 and piped.stderr == ""
    default = _in_pty(["check", ".", "--no-cache", *SELECT], tree, stdout_piped=True)[1]
    assert default == ""  # (a short run: done before the line would show)


# ------------------------------------------------------------------------------------------------- watch

def _wait_for(path, text: str, proc, times: int = 1, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while path.read_text().count(text) < times:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"no {text!r} (exit {proc.poll()}): {path.read_text()[-2000:]!r}")
        time.sleep(0.05)


def test_watch_checks_again_after_a_change_until_ctrl_c(tree, tmp_path_factory):
    logs = tmp_path_factory.mktemp("logs")
    out, err = logs / "out.txt", logs / "err.txt"
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([sys.executable, "-m", "karplint", "check", "--watch", *SELECT, "-f", "concise",
                                 "a.yaml"], cwd=tree, stdout=o, stderr=e, env=_env(), start_new_session=True)
    try:
        _wait_for(err, "karplint: watching 1 file… (Ctrl-C to stop)\n", proc)
        assert "a.yaml:6:3: KPL401" in out.read_text()
        (tree / "a.yaml").write_text(NO_CONSOLIDATE_AFTER.format(name="a").replace(
            "WhenEmptyOrUnderutilized\n", "WhenEmptyOrUnderutilized\n    consolidateAfter: 30s\n"))
        _wait_for(out, "Found 1 finding (1 info)", proc)
        _wait_for(err, "karplint: watching 1 file… (Ctrl-C to stop)\n", proc, times=2)
        second = out.read_text().split("Found 2 findings")[1]
        assert "KPL705" in second and "KPL401" not in second
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    assert proc.returncode == 0 and "Traceback" not in err.read_text()


@pytest.mark.parametrize("args", [("--fix", "."), ("--diff", "."), ("-",)])
def test_watch_refuses_fixes_and_stdin(tree, args):
    proc = run_cli("check", "--watch", *args, cwd=tree, stdin="")
    assert (proc.returncode, proc.stderr) == (
        2, "karplint: error: --watch cannot be combined with --fix, --diff or stdin (`-`)\n")


def test_watch_sees_the_configuration_file_above_the_paths(tree, tmp_path_factory):
    """`karplint check --watch sub` with pyproject.toml beside `sub`: a change to it is a change of the run."""
    (tree / "sub").mkdir()
    (tree / "a.yaml").rename(tree / "sub" / "a.yaml")
    (tree / "pyproject.toml").write_text('[tool.karplint]\nselect = ["KPL705"]\nkarpenter-version = "1.14.1"\n')
    logs = tmp_path_factory.mktemp("logs")
    out, err = logs / "out.txt", logs / "err.txt"
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([sys.executable, "-m", "karplint", "check", "--watch", "-f", "concise", "sub"],
                                cwd=tree, stdout=o, stderr=e, env=_env(), start_new_session=True)
    try:
        _wait_for(err, "(Ctrl-C to stop)\n", proc)
        assert "KPL705" in out.read_text() and "KPL401" not in out.read_text()
        (tree / "pyproject.toml").write_text('[tool.karplint]\nselect = ["KPL401"]\nkarpenter-version = "1.14.1"\n')
        _wait_for(err, "(Ctrl-C to stop)\n", proc, times=2)
        assert "sub/a.yaml:6:3: KPL401" in out.read_text().split("Found 1 finding (1 info)")[1]
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
    assert proc.returncode == 0
