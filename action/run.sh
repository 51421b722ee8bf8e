#!/usr/bin/env bash
# The steps of action.yml, kept here so that they can be read and tested (tests/test_action.py) like any code.
#   run.sh install   venv in $RUNNER_TEMP; tag v$KARPLINT_VERSION of this action's repository, or its own checkout
#   run.sh check     annotations, the SARIF file, the job summary and the step's outputs (action/check.py)
#   run.sh diff      on pull requests: `karplint diff` to the job summary, outputs, opt-in comment (action/diff.py)
#   run.sh cache-key the key of the pip cache, written to GITHUB_OUTPUT as key=
# Inputs come from the environment (never interpolated into the script: a path or an argument is data):
# PATHS (one per line, spaces kept), ARGS (action/arguments.py), SARIF_FILE, SUMMARY (true/false), KARPLINT_VERSION,
# ACTION_PATH, ACTION_REPOSITORY (github.action_repository). KARPLINT_BIN, KARPLINT_PYTHON and KARPLINT_PIP
# override the installed command, its Python and pip (tests).
# Nothing is written in the checkout: a pull request can commit any name there as a link to a file outside it.
# Reports go to a fresh directory under $RUNNER_TEMP (else a new temporary directory).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

venv="${RUNNER_TEMP:+$RUNNER_TEMP/karplint-venv}"
install() {
  : "${venv:?RUNNER_TEMP is not set}"
  local -a pip=("$venv/bin/pip")
  if [[ -n "${KARPLINT_PIP:-}" ]]; then
    read -r -a pip <<<"$KARPLINT_PIP"
    python3 -m venv --without-pip "$venv"  # the given pip installs into it
  else
    python3 -m venv "$venv"
  fi
  if [[ -n "${KARPLINT_VERSION:-}" ]]; then
    # A release is a tag vX.Y.Z of the action's own repository (karplint is not on PyPI): build that tag, after
    # checking that it exists, so that a typo fails here with the list of releases instead of inside pip.
    local version="${KARPLINT_VERSION#v}" repo
    if [[ -n "${ACTION_REPOSITORY:-}" ]]; then
      repo="${GITHUB_SERVER_URL:-https://github.com}/$ACTION_REPOSITORY"
    else
      repo="${ACTION_PATH:?ACTION_PATH is not set}"  # a local action (uses: ./): its own git repository
    fi
    if ! git ls-remote --exit-code --tags "$repo" "refs/tags/v$version" >/dev/null; then
      local tags
      tags="$(git ls-remote --tags --refs "$repo" 'v*' 2>/dev/null | sed 's|.*refs/tags/||' | sort -V | tail -n 5 | paste -sd ' ' -)"
      echo "::error title=karplint::version '$KARPLINT_VERSION' is not a release: $repo has no tag v$version (latest tags: ${tags:-none}); leave version empty to install the ref in uses:" >&2
      exit 1
    fi
    "${pip[@]}" install --quiet "git+$repo@v$version"
  else
    "${pip[@]}" install --quiet "${ACTION_PATH:?ACTION_PATH is not set}"
  fi
  "$venv/bin/karplint" --version
}

check() {
  # The step itself is Python (action/check.py, run by the installed karplint's interpreter): it parses the
  # inputs, runs karplint once and renders everything from its JSON report.
  local python="${KARPLINT_PYTHON:-${venv:?RUNNER_TEMP is not set}/bin/python}"
  exec "$python" "$here/check.py"
}

diff() {
  # Also Python (action/diff.py): the base from the event, `karplint diff` once, everything from its JSON. It
  # never fails the job: a diff that cannot be computed is a warning and a line in the summary.
  local python="${KARPLINT_PYTHON:-${venv:?RUNNER_TEMP is not set}/bin/python}"
  exec "$python" "$here/diff.py"
}

cache-key() {
  # actions/cache's hashFiles() only sees files under GITHUB_WORKSPACE: the action's own pyproject.toml (under
  # github.action_path) hashes to nothing there, and a `uses: ./` path breaks it. The key is made here instead,
  # from the requested version and the pyproject.toml of the action being run, both hashed (a version is data:
  # a line break in it must not write a second output).
  local key
  key="$(python3 - "${ACTION_PATH:?ACTION_PATH is not set}/pyproject.toml" <<'PY'
import hashlib, os, sys
digest = hashlib.sha256(os.environ.get("KARPLINT_VERSION", "").encode("utf-8", "surrogateescape") + b"\0")
with open(sys.argv[1], "rb") as fh:
    digest.update(fh.read())
print(digest.hexdigest()[:32])
PY
)"
  echo "key=karplint-pip-${RUNNER_OS:-unknown}-$key" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
}

"${1:?usage: run.sh install|check|diff|cache-key}"
