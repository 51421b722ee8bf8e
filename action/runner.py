"""What the action's steps (check.py, diff.py) share with the runner: the karplint the install step made, the
`paths` input, and the files GitHub reads outputs and summaries from."""

from __future__ import annotations

import os


def karplint_command(error: type[BaseException] = SystemExit) -> list[str]:
    """The installed karplint (KARPLINT_BIN in tests); `error(message)` is raised off a runner."""
    if os.environ.get("KARPLINT_BIN"):
        return os.environ["KARPLINT_BIN"].split()
    runner_temp = os.environ.get("RUNNER_TEMP")
    if not runner_temp:
        raise error("RUNNER_TEMP is not set")
    return [os.path.join(runner_temp, "karplint-venv", "bin", "karplint")]


def paths(text: str) -> list[str]:
    """The `paths` input: one path a line (spaces kept), blank lines skipped; none is the checkout."""
    lines = [line.rstrip("\r") for line in text.splitlines()]
    return [p for p in lines if p.strip()] or ["."]


def append(env_name: str, text: str) -> None:
    """Append to the file GitHub names in `env_name` (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), when there is one."""
    path = os.environ.get(env_name)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
