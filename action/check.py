"""The action's check step (action.yml `Check`, run by `action/run.sh check` with the installed karplint's Python).

karplint runs ONCE, with `--output-format json --output report.json`; the annotations, the SARIF file, the job
summary and the step's outputs are all rendered from that JSON (karplint's own reporters, through
`karplint.report.from_json`), so that no argument can make one of them read something else.
Inputs come from the environment, as data: PATHS (one per line, spaces kept), ARGS (`arguments.py`), SARIF_FILE,
SUMMARY (true/false); RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY from the runner; KARPLINT_BIN (words) is the
karplint command (default: the venv `run.sh install` made).
A check that does not complete (a usage error: exit 2; a crash) still writes the SARIF file, with no results and
the reason as a tool execution notification, and fails the step with that reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import arguments
import runner
import summary


def _error(message: str) -> None:
    from karplint.report.github import escape_data

    print(f"::error title=karplint::{escape_data(message)}", flush=True)


def _write_sarif(path: str, text: str) -> None:
    from karplint.safe_write import write_output

    write_output(path, lambda binary: binary.write(text.encode("utf-8")))


def _fail(message: str, exit_code: int, sarif: str | None) -> int:
    """The check did not complete: say why everywhere the workflow looks, and fail the step."""
    from karplint.report.sarif import render_sarif_failure

    _error(message)
    # `completed=false`: the SARIF holds no results because nothing was checked. Uploaded to code scanning, it
    # would read as a clean run and close every open alert; the README's upload step skips it on this output.
    runner.append("GITHUB_OUTPUT", "completed=false\n")
    if sarif:
        _write_sarif(sarif, render_sarif_failure(message, exit_code))
        runner.append("GITHUB_OUTPUT", f"sarif-file={sarif}\n")
    if os.environ.get("SUMMARY", "true") == "true":
        runner.append("GITHUB_STEP_SUMMARY", summary.render_failure(message, exit_code))
    return exit_code if exit_code > 1 else 2  # (a run killed by a signal has a negative code)


def _reason(stderr: str, exit_code: int) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    said = "\n".join(lines[-20:])  # a usage error is its last lines; a crash's cause is at the end
    return f"karplint check failed (exit code {exit_code})" + (f": {said}" if said else "")


def main() -> int:
    try:
        import karplint.report.from_json  # noqa: F401  (an older release, from the `version` input, lacks it)
    except ImportError as exc:
        print(f"::error title=karplint::the installed karplint cannot render the action's reports ({exc}); "
              "install one at least as new as the action (leave `version` empty)", flush=True)
        return 2
    paths = runner.paths(os.environ.get("PATHS") or ".")
    base = os.environ.get("RUNNER_TEMP") or tempfile.gettempdir()
    os.makedirs(base, exist_ok=True)
    # Nothing is written in the checkout (a pull request can commit any name there as a link): a fresh directory.
    reports = tempfile.mkdtemp(prefix="karplint-reports.", dir=base)
    report_path = os.path.join(reports, "report.json")
    sarif = None
    if os.environ.get("SARIF_FILE"):
        name = os.environ["SARIF_FILE"]
        if "\n" in name or "\r" in name:
            _error("sarif-file must not contain a line break")
            return 2
        # An absolute path is the workflow's choice (refused when it is a link: see safe_write); any other name is
        # a file in the reports directory.
        sarif = name if os.path.isabs(name) else os.path.join(reports, name)
        from karplint.safe_write import output_refusal

        guarded = [".", *(p if os.path.isdir(p) else os.path.dirname(p) or "." for p in paths)]
        # its missing directories are made only below one reached without a committed link (as a new file would be)
        existing = os.path.dirname(sarif)
        while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
            existing = os.path.dirname(existing)
        why = output_refusal(os.path.join(existing, "new"), guarded) if existing != os.path.dirname(sarif) else None
        if why is None:
            os.makedirs(os.path.dirname(sarif), exist_ok=True)
            why = output_refusal(sarif, guarded)
        if why:
            _error(f"sarif-file {name}: {why}")
            return 2
    try:
        argv = arguments.parse(os.environ.get("ARGS", ""))
    except arguments.ArgsError as exc:
        return _fail(str(exc), 2, sarif)

    # Our options first and the paths after `--`: an argument of `args` cannot make a path an option's value.
    command = [*runner.karplint_command(), "check", "--output-format", "json", "--output", report_path, *argv, "--",
               *paths]
    try:
        proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    except OSError as exc:
        return _fail(f"cannot run {command[0]}: {exc.strerror or exc}", 2, sarif)
    sys.stderr.write(proc.stderr)  # karplint's notes and warnings, for the log (escaped by karplint)
    sys.stderr.flush()
    doc = None
    if proc.returncode in (0, 1):
        try:
            with open(report_path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            doc = None
    if doc is None:
        return _fail(_reason(proc.stderr, proc.returncode), proc.returncode, sarif)

    from karplint.report.from_json import NotAReport, report_from_json
    from karplint.report.github import render_github
    from karplint.report.sarif import render_sarif

    try:
        report = report_from_json(doc, base=os.getcwd())  # (karplint ran here: SARIF fixes read the files)
        if not isinstance(doc.get("summary"), dict):
            raise NotAReport("no summary")
    except NotAReport as exc:
        return _fail(f"{report_path}: {exc}", 2, sarif)
    s = doc["summary"]
    outputs = (f"findings={s['findings']}\nerrors={s['by_severity']['error']}\n"
               f"warnings={s['by_severity']['warning']}\ncompleted=true\n")
    if sarif:
        _write_sarif(sarif, render_sarif(report))
        outputs += f"sarif-file={sarif}\n"
    runner.append("GITHUB_OUTPUT", outputs)
    if os.environ.get("SUMMARY", "true") == "true":
        runner.append("GITHUB_STEP_SUMMARY", summary.render(doc))
    sys.stdout.write(render_github(report))  # the annotations
    sys.stdout.flush()
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
