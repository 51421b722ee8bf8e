"""The action's pull-request comment of `karplint diff` (input `diff-comment`): ONE comment, created the first
time and updated on later runs, found by the hidden marker its body starts with.

GitHub's REST API through urllib (no dependency): GITHUB_API_URL (GitHub Enterprise Server) or api.github.com.
The token is only ever sent to that API: a `Link: rel="next"` page elsewhere is not followed. Every failure is
returned as a sentence for a warning annotation, never raised: a comment is a convenience, the check's verdict
does not depend on it.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

MARKER = "<!-- karplint-diff -->"
MAX_PAGES = 100  # of 100 comments each
TIMEOUT = 30  # seconds per request
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class CommentError(Exception):
    """The API refused or failed; the message says what and what to do."""


def _request(method: str, url: str, token: str, body: dict | None = None) -> tuple[object, str]:
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Accept": "application/vnd.github+json", "Authorization": f"Bearer {token}",
        "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "karplint-action",
        **({"Content-Type": "application/json"} if data is not None else {})})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:  # noqa: S310 (the API's https URL)
            return json.loads(resp.read() or b"null"), resp.headers.get("Link", "")
    except urllib.error.HTTPError as exc:
        detail = ""
        try:
            detail = json.loads(exc.read() or b"{}").get("message", "")
        except (ValueError, AttributeError, OSError):
            pass
        hint = ""
        if exc.code in (401, 403, 404):
            hint = ("; the job needs `permissions: pull-requests: write`, and a pull request from a fork gets a "
                    "read-only token")
        raise CommentError(f"{method} {url}: HTTP {exc.code}{f' {detail}' if detail else ''}{hint}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise CommentError(f"{method} {url}: {getattr(exc, 'reason', exc)}") from None


def find(api: str, repo: str, number: int, token: str) -> dict | None:
    """The action's comment on pull request `number` (the first whose body starts with MARKER), every page read."""
    url = f"{api}/repos/{repo}/issues/{number}/comments?per_page=100"
    for _ in range(MAX_PAGES):
        comments, link = _request("GET", url, token)
        for comment in comments if isinstance(comments, list) else []:
            if isinstance(comment, dict) and str(comment.get("body", "")).startswith(MARKER):
                return comment
        match = _NEXT.search(link or "")
        if not match:
            return None
        url = match.group(1)
        if not url.startswith(api + "/"):  # the token goes to the API only
            raise CommentError(f"the comments' next page is outside {api}: {url}")
    raise CommentError(f"more than {MAX_PAGES * 100} comments on pull request {number}: the comment was not found")


def upsert(body: str, *, api: str, repo: str, number: int, token: str, create: bool) -> str:
    """Update the action's comment with `body` (MARKER is prepended), or create it when there is none and
    `create`. Returns "created", "updated", "unchanged" or "none" (nothing to update, nothing created)."""
    body = f"{MARKER}\n{body}"
    existing = find(api, repo, number, token)
    if existing is None:
        if not create:
            return "none"
        _request("POST", f"{api}/repos/{repo}/issues/{number}/comments", token, {"body": body})
        return "created"
    if existing.get("body") == body:
        return "unchanged"
    comment_id = existing.get("id")
    if not isinstance(comment_id, int):
        raise CommentError("the API returned a comment without an id")
    _request("PATCH", f"{api}/repos/{repo}/issues/comments/{comment_id}", token, {"body": body})
    return "updated"
