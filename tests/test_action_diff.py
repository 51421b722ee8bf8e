"""The action's Diff step (action/run.sh diff, action/diff.py) and its pull-request comment (action/comment.py),
run as the runner would: a fake event file, a fake `karplint diff` that prints an impact document and records its
arguments, and a fake GitHub REST API on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from ruamel.yaml import YAML

from karplint.testing import REPO

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="bash")

MARKER = "<!-- karplint-diff -->"
DOC = {"schema_version": 1, "base": {"label": "base", "commit": None, "release": "1.14.1"},
       "head": {"label": "working tree", "commit": None, "release": "1.14.1"}, "nodes_assumed": 10,
       "nodepools": [{"name": "general", "cluster": None, "status": "changed", "file": "np.yaml", "line": 1,
                      "nodeclass": "default", "changes": [], "behaviour": [], "capacity": None, "rollout": None,
                      "drift": {"verdict": "all", "summary": "every node is replaced", "reasons": [],
                                "not_drifting": []}},
                     {"name": "gpu", "cluster": "clusters/prod", "status": "changed", "file": "np.yaml", "line": 9,
                      "nodeclass": "default", "changes": [], "behaviour": [], "capacity": None, "rollout": None,
                      "drift": {"verdict": "some", "summary": "some", "reasons": [], "not_drifting": []}},
                     {"name": "batch\nx=1", "cluster": None, "status": "changed", "file": "np.yaml", "line": 20,
                      "nodeclass": "default", "changes": [], "behaviour": [], "capacity": None, "rollout": None,
                      "drift": {"verdict": "all", "summary": "all", "reasons": [], "not_drifting": []}},
                     {"name": "quiet", "cluster": None, "status": "changed", "file": "np.yaml", "line": 30,
                      "nodeclass": "default", "changes": [], "behaviour": [], "capacity": None, "rollout": None,
                      "drift": {"verdict": "none", "summary": "no node is replaced", "reasons": [],
                                "not_drifting": []}}],
       "nodeclasses": [], "problems": [],
       "summary": ["Merging this replaces every node of NodePools general and gpu, 10% at a time, weekdays only."]}
NO_IMPACT = {**DOC, "nodepools": [], "summary": ["Merging this changes no NodePool or EC2NodeClass."]}


def _git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """origin: a base commit and a pull request commit on top (as the merge commit, its first parent is the
    base); `work`: a one-commit-deep clone of the pull request, without the base."""
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q", "-b", "main")
    (origin / "np.yaml").write_text("a: 1\n")
    _git(origin, "add", ".")
    _git(origin, "commit", "-qm", "base")
    base = _git(origin, "rev-parse", "HEAD")
    (origin / "np.yaml").write_text("a: 2\n")
    _git(origin, "commit", "-qam", "change")
    _git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")
    work = tmp_path / "work"
    _git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(work))
    return work, base


def _fake_karplint(tmp_path, doc=DOC, exit_code=0, stderr="", name="fake_karplint.py"):
    script = tmp_path / name
    script.write_text(
        "import json, sys\n"
        "import os\n"
        "assert 'GITHUB_TOKEN' not in os.environ, 'the token reached karplint'\n"
        f"open({str(tmp_path / 'argv.json')!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"sys.stderr.write({stderr!r})\n"
        f"print(json.dumps({doc!r}))\n"
        f"sys.exit({exit_code})\n")
    return f"{sys.executable} {script}"


def _calls(tmp_path):
    path = tmp_path / "argv.json"
    return [json.loads(ln) for ln in path.read_text().splitlines()] if path.exists() else []


def _run(tmp_path, cwd, base, *, event_name="pull_request", number=7, **env_extra):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": number, "base": {"sha": base}}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "KARPLINT_"))}
    env.update({"RUNNER_TEMP": str(tmp_path / "runner"), "GITHUB_OUTPUT": str(tmp_path / "output"),
                "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "ACTION_PATH": str(REPO),
                "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r",
                "KARPLINT_BIN": _fake_karplint(tmp_path), "KARPLINT_PYTHON": sys.executable, **env_extra})
    for name in ("output", "summary.md"):
        (tmp_path / name).write_text("")
    return subprocess.run(["bash", str(REPO / "action" / "run.sh"), "diff"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def _outputs(tmp_path):
    return dict(ln.split("=", 1) for ln in (tmp_path / "output").read_text().splitlines())


def test_pull_request_fetches_the_base_runs_diff_once_and_writes_summary_and_outputs(tmp_path, repo):
    work, base = repo
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=work).returncode != 0
    proc = _run(tmp_path, work, base, PATHS="deploy\nblue prints\n",
                ARGS='--karpenter-version 1.14.1\n--exclude "x y"\n--config=k.toml\n-j\n2')
    assert proc.returncode == 0, proc.stderr
    # the base commit was fetched (one commit deep), and is the first parent of the checkout: diffed as is
    assert _calls(tmp_path) == [["diff", "--base", base, "--output-format", "json", "--karpenter-version",
                                 "1.14.1", "--config", "k.toml", "--", "deploy", "blue prints"]]
    assert _outputs(tmp_path) == {"diff-completed": "true",
                                  "drifted-nodepools": "general,clusters/prod/gpu,batch?x?1"}
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## karplint diff\n\n**Merging this replaces every node of NodePools general and "
                              "gpu, 10% at a time, weekdays only.**\n")
    assert "### NodePool batch x=1\n" in summary
    assert "::" not in proc.stdout  # no warning, no notice


def test_diff_nodes_is_passed_on_and_must_be_a_number(tmp_path, repo):
    work, base = repo
    assert _run(tmp_path, work, base, DIFF_NODES="12").returncode == 0
    assert _calls(tmp_path)[0][-4:] == ["--nodes", "12", "--", "."]
    proc = _run(tmp_path, work, base, DIFF_NODES="12; rm")
    assert proc.returncode == 0 and len(_calls(tmp_path)) == 1
    assert "::warning title=karplint diff::the impact of this pull request could not be computed: diff-nodes " \
           "must be a whole number, not '12; rm'" in proc.stdout
    assert _outputs(tmp_path) == {"diff-completed": "false"}


@pytest.mark.parametrize("env", [{"event_name": "push"}, {"event_name": "workflow_dispatch"}, {"DIFF": "false"}])
def test_outside_pull_requests_or_turned_off_nothing_runs_nothing_is_written(tmp_path, repo, env):
    work, base = repo
    proc = _run(tmp_path, work, base, **env)
    assert proc.returncode == 0 and proc.stdout == ""
    assert _calls(tmp_path) == []
    assert (tmp_path / "output").read_text() == "" and (tmp_path / "summary.md").read_text() == ""


def test_summary_false_keeps_the_outputs(tmp_path, repo):
    work, base = repo
    assert _run(tmp_path, work, base, SUMMARY="false").returncode == 0
    assert _outputs(tmp_path)["diff-completed"] == "true"
    assert (tmp_path / "summary.md").read_text() == ""


def test_base_that_cannot_be_fetched_is_a_warning_and_a_summary_line_never_a_failure(tmp_path, repo):
    work, _ = repo
    missing = "b" * 40
    proc = _run(tmp_path, work, missing)
    assert proc.returncode == 0
    assert _calls(tmp_path) == []
    assert proc.stdout.startswith(f"::warning title=karplint diff::the impact of this pull request could not be "
                                  f"computed: the base commit {missing} is not in the checkout and `git fetch "
                                  f"origin {missing}` failed (")
    assert _outputs(tmp_path) == {"diff-completed": "false"}
    assert (tmp_path / "summary.md").read_text().startswith(
        "## karplint diff\n\nThe impact of this pull request on Karpenter's nodes could not be computed: the base "
        f"commit {missing} is not in the checkout and \\`git fetch origin {missing}\\` failed \\(")


def test_event_without_a_base_sha_is_a_warning(tmp_path, repo):
    work, _ = repo
    proc = _run(tmp_path, work, "main; rm -rf /")
    assert proc.returncode == 0 and _calls(tmp_path) == []
    assert "could not be computed: the event has no pull_request.base.sha" in proc.stdout


def test_karplint_diff_failure_is_reported_escaped_and_does_not_fail(tmp_path, repo):
    work, base = repo
    fake = _fake_karplint(tmp_path, doc={}, exit_code=2, stderr="Error: no such path <b>|x</b>\n", name="failing.py")
    proc = _run(tmp_path, work, base, KARPLINT_BIN=fake)
    assert proc.returncode == 0
    assert "::warning title=karplint diff::the impact of this pull request could not be computed: karplint " \
           "diff failed (exit code 2): Error: no such path <b>|x</b>" in proc.stdout
    assert (tmp_path / "summary.md").read_text() == (
        "## karplint diff\n\nThe impact of this pull request on Karpenter's nodes could not be computed: "
        "karplint diff failed \\(exit code 2\\)\\: Error\\: no such path &lt;b&gt;\\|x&lt;/b&gt;\n")


def test_head_branch_checkout_is_diffed_against_its_merge_base(tmp_path):
    """A checkout of the pull request's head (not the merge commit), with history: the base branch moved on
    after the branch started, so the diff is against the merge base, not the base's tip."""
    work = tmp_path / "w"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    (work / "a").write_text("1")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "start")
    start = _git(work, "rev-parse", "HEAD")
    _git(work, "checkout", "-qb", "topic")
    (work / "a").write_text("2")
    _git(work, "commit", "-qam", "topic")
    _git(work, "checkout", "-q", "main")
    (work / "b").write_text("3")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "main moved")
    tip = _git(work, "rev-parse", "HEAD")
    _git(work, "checkout", "-q", "topic")
    assert _run(tmp_path, work, tip).returncode == 0
    assert _calls(tmp_path)[0][:3] == ["diff", "--base", start]


# --- the pull-request comment, against a fake GitHub API -------------------------------------------------------

class FakeGitHub:
    """Comments of pull request 7 of o/r, two per page; records every request (method, path, token, body)."""

    def __init__(self, comments, *, status=200, next_url=None):
        self.comments = comments
        self.status = status
        self.next_url = next_url
        self.requests = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, code, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                api.requests.append((method, self.path, self.headers.get("Authorization"), body))
                if api.status != 200:
                    return self._reply(api.status, {"message": "Resource not accessible by integration"})
                if method == "GET" and self.path.startswith("/repos/o/r/issues/7/comments"):
                    page = int(self.path.partition("&page=")[2]) if "&page=" in self.path else 1
                    start = (page - 1) * 2
                    headers = []
                    if start + 2 < len(api.comments):
                        nxt = api.next_url or f"{api.url}/repos/o/r/issues/7/comments?per_page=100&page={page + 1}"
                        headers.append(("Link", f'<{nxt}>; rel="next", <{api.url}/x>; rel="last"'))
                    return self._reply(200, api.comments[start:start + 2], headers)
                if method == "POST" and self.path == "/repos/o/r/issues/7/comments":
                    return self._reply(201, {"id": 99, "body": body["body"]})
                if method == "PATCH" and self.path.startswith("/repos/o/r/issues/comments/"):
                    return self._reply(200, {"id": int(self.path.rsplit("/", 1)[1]), "body": body["body"]})
                return self._reply(404, {"message": "Not Found"})

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_PATCH(self):
                self._handle("PATCH")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/v3"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        # the API under a path prefix, as on GitHub Enterprise Server (GITHUB_API_URL .../api/v3)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def calls(self):
        return [(m, p.removeprefix("/api/v3"), a) for m, p, a, _ in self.requests]


def _api_env(api, **extra):
    return {"DIFF_COMMENT": "true", "GITHUB_TOKEN": "t0ken", "GITHUB_API_URL": api.url, **extra}


def _strip_prefix(api):
    """The fake serves paths without /api/v3: requests reach it with the prefix, stripped here."""
    original = api.server.RequestHandlerClass.parse_request

    def parse_request(self):
        ok = original(self)
        self.path = self.path.removeprefix("/api/v3")
        return ok

    api.server.RequestHandlerClass.parse_request = parse_request
    return api


def test_comment_is_created_the_first_time(tmp_path, repo):
    work, base = repo
    others = [{"id": i, "body": f"comment {i}"} for i in range(1, 4)]
    with _strip_prefix(FakeGitHub(others)) as api:
        proc = _run(tmp_path, work, base, **_api_env(api))
    assert proc.returncode == 0, proc.stdout
    assert [(m, p) for m, p, _ in api.calls()] == [
        ("GET", "/repos/o/r/issues/7/comments?per_page=100"),
        ("GET", "/repos/o/r/issues/7/comments?per_page=100&page=2"),
        ("POST", "/repos/o/r/issues/7/comments")]
    assert {a for _, _, a in api.calls()} == {"Bearer t0ken"}
    body = api.requests[-1][3]["body"]
    assert body.startswith(MARKER + "\n## karplint diff\n\n**Merging this replaces every node")
    assert body.removeprefix(MARKER + "\n") == (tmp_path / "summary.md").read_text()
    assert "pull-request comment created" in proc.stdout


def test_comment_on_a_later_page_is_updated_not_duplicated(tmp_path, repo):
    work, base = repo
    comments = [{"id": 1, "body": "x"}, {"id": 2, "body": f"not ours {MARKER}"}, {"id": 3, "body": "y"},
                {"id": 41, "body": f"{MARKER}\nold impact"}, {"id": 42, "body": f"{MARKER}\nnewer"}]
    with _strip_prefix(FakeGitHub(comments)) as api:
        assert _run(tmp_path, work, base, **_api_env(api)).returncode == 0
    assert [(m, p) for m, p, _ in api.calls()] == [
        ("GET", "/repos/o/r/issues/7/comments?per_page=100"),
        ("GET", "/repos/o/r/issues/7/comments?per_page=100&page=2"),
        ("PATCH", "/repos/o/r/issues/comments/41")]


def test_no_impact_and_no_comment_yet_creates_none_but_an_existing_one_is_updated(tmp_path, repo):
    work, base = repo
    fake = _fake_karplint(tmp_path, doc=NO_IMPACT, name="no_impact.py")
    with _strip_prefix(FakeGitHub([{"id": 1, "body": "x"}])) as api:
        assert _run(tmp_path, work, base, KARPLINT_BIN=fake, **_api_env(api)).returncode == 0
    assert [m for m, _, _ in api.calls()] == ["GET"]
    with _strip_prefix(FakeGitHub([{"id": 5, "body": f"{MARKER}\nold"}])) as api:
        assert _run(tmp_path, work, base, KARPLINT_BIN=fake, **_api_env(api)).returncode == 0
    assert [(m, p) for m, p, _ in api.calls()][-1] == ("PATCH", "/repos/o/r/issues/comments/5")
    assert "**Merging this changes no NodePool or EC2NodeClass.**" in api.requests[-1][3]["body"]


def test_forbidden_comment_is_a_warning_not_a_failure(tmp_path, repo):
    work, base = repo
    with _strip_prefix(FakeGitHub([], status=403)) as api:
        proc = _run(tmp_path, work, base, **_api_env(api))
    assert proc.returncode == 0
    assert ("::warning title=karplint diff::diff-comment: the pull-request comment was not written: GET "
            f"{api.url}/repos/o/r/issues/7/comments?per_page=100: HTTP 403 Resource not accessible by integration; "
            "the job needs `permissions: pull-requests: write`, and a pull request from a fork gets a read-only "
            "token") in proc.stdout
    assert _outputs(tmp_path)["diff-completed"] == "true"  # the impact itself is still in the summary
    assert (tmp_path / "summary.md").read_text().startswith("## karplint diff")


def test_next_page_outside_the_api_is_not_followed_with_the_token(tmp_path, repo):
    work, base = repo
    comments = [{"id": i, "body": str(i)} for i in range(5)]
    with _strip_prefix(FakeGitHub(comments, next_url="http://127.0.0.1:1/steal")) as api:
        proc = _run(tmp_path, work, base, **_api_env(api))
    assert proc.returncode == 0
    assert [m for m, _, _ in api.calls()] == ["GET"]
    assert "the comments' next page is outside" in proc.stdout


def test_action_yml_declares_and_wires_the_diff():
    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    inputs = action["inputs"]
    assert {k: inputs[k]["default"] for k in ("diff", "diff-comment", "diff-nodes", "github-token")} == {
        "diff": "true", "diff-comment": "false", "diff-nodes": "", "github-token": "${{ github.token }}"}
    assert all(inputs[k]["description"].strip() for k in inputs)
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "diff"]
    assert step["run"] == '"$ACTION_PATH/action/run.sh" diff'
    assert step["env"] == {"ACTION_PATH": "${{ github.action_path }}", "PATHS": "${{ inputs.paths }}",
                           "ARGS": "${{ inputs.args }}", "SUMMARY": "${{ inputs.summary }}",
                           "DIFF": "${{ inputs.diff }}", "DIFF_COMMENT": "${{ inputs.diff-comment }}",
                           "DIFF_NODES": "${{ inputs.diff-nodes }}", "GITHUB_TOKEN": "${{ inputs.github-token }}"}
    # it runs after a check that failed (findings are its verdict), not after a failed install
    assert step["if"] == "${{ !cancelled() && steps.install.outcome == 'success' }}"
    assert [s.get("id") for s in action["runs"]["steps"]][-2:] == ["check", "diff"]
    assert action["outputs"]["diff-completed"]["value"] == "${{ steps.diff.outputs.diff-completed }}"
    assert action["outputs"]["drifted-nodepools"]["value"] == "${{ steps.diff.outputs.drifted-nodepools }}"
    readme = (REPO / "README.md").read_text()
    for name in ("diff-comment", "diff-nodes", "github-token", "drifted-nodepools", "diff-completed",
                 "pull-requests: write"):
        assert name in readme, name


def test_a_crash_of_the_step_is_a_warning_not_a_failure(tmp_path, repo):
    """A document render_markdown cannot read (here: a line that is not a number) must not fail the job."""
    work, base = repo
    bad = {**DOC, "nodepools": [{**DOC["nodepools"][0], "capacity": {
        "summary": "x", "workloads": {"unschedulable": [{"workload": "w", "file": "f", "line": "NaN"}]}}}]}
    proc = _run(tmp_path, work, base, KARPLINT_BIN=_fake_karplint(tmp_path, doc=bad, name="bad.py"))
    assert proc.returncode == 0
    assert "::warning title=karplint diff::the impact of this pull request could not be computed: ValueError: " \
           in proc.stdout
    assert "Traceback" in proc.stderr
    assert _outputs(tmp_path)["diff-completed"] == "false"


@pytest.mark.skipif(importlib.util.find_spec("karplint.diff.sides") is None, reason="karplint diff not merged yet")
def test_with_the_real_karplint_diff_an_ami_alias_moved_drifts_the_pool(tmp_path):
    """The step with the real command (once the diff streams are merged): a pull request that moves the AMI
    alias of the EC2NodeClass the pool uses replaces its nodes (karpenter.sh docs, Disruption: Drift)."""
    work = tmp_path / "w"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    (work / "np.yaml").write_text(AMI_TREE)
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "base")
    base = _git(work, "rev-parse", "HEAD")
    (work / "np.yaml").write_text(AMI_TREE.replace("al2023@v20240807", "al2023@v20241011"))
    _git(work, "commit", "-qam", "head")
    proc = _run(tmp_path, work, base, KARPLINT_BIN=f"{sys.executable} -m karplint")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _outputs(tmp_path) == {"diff-completed": "true", "drifted-nodepools": "general"}
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## karplint diff\n\n**Merging this replaces")
    assert "### NodePool general\n" in summary and "### EC2NodeClass default\n" in summary


AMI_TREE = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, m5]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@v20240807}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
"""


def test_shallow_head_checkout_that_does_not_reach_the_base_says_so(tmp_path, repo):
    """HEAD's parent is not the base and the shallow history has no merge base: diffed against the base, with a
    notice saying what to do (base-branch changes may show as undone)."""
    work, base = repo
    origin = tmp_path / "origin"
    (origin / "np.yaml").write_text("a: 3\n")
    _git(origin, "commit", "-qam", "another")
    _git(work, "fetch", "-q", "--depth=1", "origin", "main")
    _git(work, "checkout", "-q", "FETCH_HEAD")
    proc = _run(tmp_path, work, base)
    assert proc.returncode == 0
    assert _calls(tmp_path)[0][:3] == ["diff", "--base", base]
    assert f"::notice title=karplint diff::The checkout is not the pull request's merge commit and its history " \
           f"does not reach the base {base[:12]}" in proc.stdout
    assert (tmp_path / "summary.md").read_text().endswith(
        "\n> The checkout is not the pull request's merge commit and its history does not reach the base "
        f"{base[:12]}\\: changes made on the base branch since this branch started may show as undone. Check out "
        "the merge commit \\(actions/checkout's default on pull\\_request\\) or use fetch-depth\\: 0.\n")


def test_failed_diff_updates_an_existing_comment_and_creates_none(tmp_path, repo):
    """An impact left in the comment from an earlier run would mislead: it says the impact is not current."""
    work, base = repo
    fake = _fake_karplint(tmp_path, doc={}, exit_code=2, stderr="boom\n", name="failing.py")
    with _strip_prefix(FakeGitHub([{"id": 8, "body": f"{MARKER}\nold"}])) as api:
        assert _run(tmp_path, work, base, KARPLINT_BIN=fake, **_api_env(api)).returncode == 0
    assert [(m, p) for m, p, _ in api.calls()] == [("GET", "/repos/o/r/issues/7/comments?per_page=100"),
                                                   ("PATCH", "/repos/o/r/issues/comments/8")]
    assert api.requests[-1][3]["body"] == (
        f"{MARKER}\n## karplint diff\n\nThe impact of this pull request on Karpenter's nodes could not be computed: "
        "karplint diff failed \\(exit code 2\\)\\: boom\n")
    with _strip_prefix(FakeGitHub([])) as api:
        assert _run(tmp_path, work, base, KARPLINT_BIN=fake, **_api_env(api)).returncode == 0
    assert [m for m, _, _ in api.calls()] == ["GET"]
