"""The action's diff step (action.yml `Diff`, run by `action/run.sh diff` with the installed karplint's Python):
what merging the pull request makes Karpenter do, in the job summary and, opt-in, in one pull-request comment.

Only on `pull_request` and `pull_request_target` events: the base is the event's `pull_request.base.sha`
(fetched, one commit deep, when the checkout lacks it). `karplint diff --base <sha> --output-format json` runs
ONCE; the summary, the comment and the outputs are rendered from that JSON. A diff that cannot be computed never
fails the step (the check's verdict is the check step's): it says why, in a warning and in the summary.
Inputs from the environment, as data: DIFF (true/false), DIFF_COMMENT (true/false), DIFF_NODES, PATHS, ARGS (the
check's: `--config` and `--karpenter-version` are passed on), SUMMARY (true/false), GITHUB_TOKEN; from the runner
GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
KARPLINT_BIN (words) is the karplint command (default: the venv `run.sh install` made).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import arguments
import runner
import comment

EVENTS = ("pull_request", "pull_request_target")
SUMMARY_LIMIT = 250_000  # characters: at most 4 bytes each, within GitHub's 1 MiB per step summary
COMMENT_LIMIT = 65_000  # characters: a comment body is at most 65,536
PASSED_ON = ("--config", "--karpenter-version")  # check options that change what the diff reads
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_NAME = re.compile(r"[^A-Za-z0-9._/-]")  # what a (cluster/)name may hold in an output; others become "?"


class Unavailable(Exception):
    """The impact cannot be computed; the message says why (and what to do)."""


def _annotate(level: str, message: str) -> None:
    message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{level} title=karplint diff::{message}", flush=True)


def passed_on(args_text: str) -> list[str]:
    """The `--config` and `--karpenter-version` of the check's `args`, for the diff (same spelling rules)."""
    try:
        argv = arguments.split_lines(args_text)
    except arguments.ArgsError:
        return []  # the check step already failed on it, saying why
    out: list[str] = []
    i = 0
    while i < len(argv):
        name, has_value, value = argv[i].partition("=")
        if name in PASSED_ON:
            if has_value:
                out += [name, value]
            elif i + 1 < len(argv):
                out += [name, argv[i + 1]]
                i += 1
        elif name in arguments.VALUE_OPTIONS and not has_value:
            i += 1  # its value, whatever it looks like
        i += 1
    return out


def _untokened() -> dict[str, str]:
    """The environment of the commands this step runs: the comment's token is for the GitHub API only."""
    return {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], capture_output=True, text=True, errors="replace", env=_untokened())


def _parents(rev: str) -> list[str]:
    """The parents a commit records (present even in a shallow clone, where `rev^1` does not resolve)."""
    proc = _git("cat-file", "commit", rev)
    return [ln.split()[1] for ln in proc.stdout.splitlines() if ln.startswith("parent ")] if proc.returncode == 0 else []


def base_revision(base_sha: str) -> tuple[str, str | None]:
    """The revision to diff against and a note for people when it is not exactly the pull request's change.

    actions/checkout checks out the pull request's merge commit: its first parent is the base commit and the
    diff of the two is what merging changes. Any other checkout (the head branch) is diffed against its merge
    base with the base when the history has it, else against the base commit, with a note saying what to do."""
    if _git("cat-file", "-e", f"{base_sha}^{{commit}}").returncode != 0:
        fetched = _git("fetch", "--no-tags", "--depth=1", "origin", base_sha)
        if fetched.returncode != 0:
            said = " ".join(fetched.stderr.split())[-300:]
            raise Unavailable(f"the base commit {base_sha} is not in the checkout and `git fetch origin "
                              f"{base_sha}` failed ({said or f'exit code {fetched.returncode}'})")
    parents = _parents("HEAD")
    if parents[:1] == [base_sha]:
        return base_sha, None
    merge_base = _git("merge-base", base_sha, "HEAD")
    if merge_base.returncode == 0 and _SHA.fullmatch(merge_base.stdout.strip()):
        return merge_base.stdout.strip(), None
    return base_sha, (f"The checkout is not the pull request's merge commit and its history does not reach the "
                      f"base {base_sha[:12]}: changes made on the base branch since this branch started may show "
                      "as undone. Check out the merge commit (actions/checkout's default on pull_request) or use "
                      "fetch-depth: 0.")


def run_diff(base: str, paths: list[str]) -> dict:
    """`karplint diff` once, its JSON document; Unavailable with karplint's own message when it fails."""
    command = [*runner.karplint_command(Unavailable), "diff", "--base", base, "--output-format", "json",
               *passed_on(os.environ.get("ARGS", ""))]
    nodes = os.environ.get("DIFF_NODES", "").strip()
    if nodes:
        if not nodes.isdigit():
            raise Unavailable(f"diff-nodes must be a whole number, not {nodes!r}")
        command += ["--nodes", nodes]
    command += ["--", *paths]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, errors="replace", env=_untokened())
    except OSError as exc:
        raise Unavailable(f"cannot run {command[0]}: {exc.strerror or exc}") from None
    sys.stderr.write(proc.stderr)  # karplint's notes, for the log
    if proc.returncode in (0, 1):
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("nodepools"), list):
            return doc
    said = "\n".join([ln for ln in proc.stderr.splitlines() if ln.strip()][-10:])
    raise Unavailable(f"karplint diff failed (exit code {proc.returncode})" + (f": {said}" if said else ""))


def drifted_nodepools(doc: dict) -> list[str]:
    """The NodePools whose existing nodes merging replaces (verdict all or some), `cluster/name` when clustered."""
    out = []
    for pool in doc.get("nodepools") or []:
        if (pool.get("drift") or {}).get("verdict") in ("all", "some"):
            name = f"{pool['cluster']}/{pool.get('name', '')}" if pool.get("cluster") else str(pool.get("name", ""))
            out.append(_NAME.sub("?", name))  # an output line holds no line break, a list no stray comma
    return out


def _comment(body: str, *, create: bool) -> None:
    token = os.environ.get("GITHUB_TOKEN", "")
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    api = (os.environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    number = _event().get("pull_request", {}).get("number")
    if not token or not repo or not isinstance(number, int):
        _annotate("warning", "diff-comment: no github-token, repository or pull request number: no comment")
        return
    try:
        done = comment.upsert(body, api=api, repo=repo, number=number, token=token, create=create)
    except comment.CommentError as exc:
        _annotate("warning", f"diff-comment: the pull-request comment was not written: {exc}")
        return
    print(f"karplint diff: pull-request comment {done}", flush=True)


_EVENT: dict | None = None


def _event() -> dict:
    global _EVENT
    if _EVENT is None:
        try:
            with open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8") as fh:
                _EVENT = json.load(fh)
        except (KeyError, OSError, ValueError):
            _EVENT = {}
        if not isinstance(_EVENT, dict):
            _EVENT = {}
    return _EVENT


def main() -> int:
    if os.environ.get("DIFF", "true") != "true" or os.environ.get("GITHUB_EVENT_NAME") not in EVENTS:
        return 0  # outside pull requests: nothing to compare with, nothing written
    summary = os.environ.get("SUMMARY", "true") == "true"
    wants_comment = os.environ.get("DIFF_COMMENT", "false") == "true"
    try:
        from karplint.diff.markdown import has_impact, render_markdown, text
    except ImportError as exc:  # an older karplint (the `version` input)
        _annotate("warning", f"the installed karplint has no diff ({exc}): install one at least as new as the action")
        runner.append("GITHUB_OUTPUT", "diff-completed=false\n")
        return 0
    try:
        base_sha = ((_event().get("pull_request") or {}).get("base") or {}).get("sha")
        if not isinstance(base_sha, str) or not _SHA.fullmatch(base_sha):
            raise Unavailable("the event has no pull_request.base.sha")
        base, note = base_revision(base_sha)
        doc = run_diff(base, runner.paths(os.environ.get("PATHS") or "."))
    except Unavailable as exc:
        reason = str(exc)
        _annotate("warning", f"the impact of this pull request could not be computed: {reason}")
        runner.append("GITHUB_OUTPUT", "diff-completed=false\n")
        said = (f"## karplint diff\n\nThe impact of this pull request on Karpenter's nodes could not be computed: "
                f"{text(reason, 4000)}\n")
        if summary:
            runner.append("GITHUB_STEP_SUMMARY", said)
        if wants_comment:  # an earlier impact left in place would mislead: say it is not current
            _comment(said, create=False)
        return 0
    if note:
        _annotate("notice", note)
    drifted = drifted_nodepools(doc)
    runner.append("GITHUB_OUTPUT", f"diff-completed=true\ndrifted-nodepools={','.join(drifted)}\n")
    extra = f"\n> {text(note)}\n" if note else ""
    if summary:
        runner.append("GITHUB_STEP_SUMMARY", render_markdown(doc, limit=SUMMARY_LIMIT) + extra)
    if wants_comment:
        _comment(render_markdown(doc, limit=COMMENT_LIMIT - len(extra) - 100) + extra, create=has_impact(doc))
    return 0


def guarded() -> int:
    """main(), and any crash of it a warning: the impact is a convenience, the check's verdict is its own step's."""
    try:
        return main()
    except Exception as exc:  # noqa: BLE001 (a bug here must not fail a pull request's check)
        import traceback

        traceback.print_exc()  # for the log
        _annotate("warning", f"the impact of this pull request could not be computed: {type(exc).__name__}: {exc}")
        runner.append("GITHUB_OUTPUT", "diff-completed=false\n")
        return 0


if __name__ == "__main__":
    sys.exit(guarded())
