#!/usr/bin/env bash
# The steps of action.yml, kept here so that they can be read and tested (tests/test_action.py) like any code.
#   run.sh install   venv in $RUNNER_TEMP; tag v$KARPLINT_VERSION of this action's repository, or its own checkout
#   run.sh check     annotations, the SARIF file, the job summary and the step's outputs
# Inputs come from the environment (never interpolated into the script: a path or an argument is data):
# PATHS (one per line, spaces kept), ARGS (split into words), SARIF_FILE, SUMMARY (true/false), KARPLINT_VERSION,
# ACTION_PATH, ACTION_REPOSITORY (github.action_repository). KARPLINT_BIN and KARPLINT_PIP override the installed
# command and pip (tests).
# Nothing is written in the checkout: a pull request can commit any name there as a link to a file outside it.
# Reports go to a fresh directory under $RUNNER_TEMP (else a new temporary directory).
set -euo pipefail

venv="${RUNNER_TEMP:+$RUNNER_TEMP/karplint-venv}"
if [[ -n "${KARPLINT_BIN:-}" ]]; then
  read -r -a karplint <<<"$KARPLINT_BIN"
else
  karplint=("${venv:?RUNNER_TEMP is not set}/bin/karplint")
fi

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
  local -a paths=() args=()
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line%$'\r'}"
    [[ -n "${line//[[:space:]]/}" ]] && paths+=("$line")
  done <<<"${PATHS:-.}"
  (( ${#paths[@]} )) || paths=(.)
  read -r -a args <<<"${ARGS:-}"

  local base="${RUNNER_TEMP:-${TMPDIR:-/tmp}}" reports report sarif=""
  mkdir -p "$base"
  reports="$(mktemp -d "$base/karplint-reports.XXXXXX")"
  report="$reports/report.json"
  if [[ -n "${SARIF_FILE:-}" ]]; then
    # An absolute path is the workflow's choice (karplint refuses to write through a link there); any other
    # name is a file in the reports directory.
    if [[ "$SARIF_FILE" == /* ]]; then sarif="$SARIF_FILE"; else sarif="$reports/$SARIF_FILE"; fi
    if [[ "$sarif" == *$'\n'* || "$sarif" == *$'\r'* ]]; then
      echo "::error title=karplint::sarif-file must not contain a line break" >&2
      exit 2
    fi
    mkdir -p "$(dirname "$sarif")"
  fi
  # One full check (the cache makes the two renderings below cheap): the JSON feeds the summary and outputs.
  "${karplint[@]}" check "${paths[@]}" "${args[@]}" --output-format json --output "$report" --exit-zero
  if [[ -n "$sarif" ]]; then
    "${karplint[@]}" check "${paths[@]}" "${args[@]}" --output-format sarif --output "$sarif" --exit-zero
  fi
  SARIF_PATH="$sarif" python3 - "$report" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
s = report["summary"]
out = os.environ.get("GITHUB_OUTPUT")
if out:
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(f"findings={s['findings']}\n")
        fh.write(f"errors={s['by_severity']['error']}\nwarnings={s['by_severity']['warning']}\n")
        if os.environ.get("SARIF_PATH"):
            fh.write(f"sarif-file={os.environ['SARIF_PATH']}\n")
summary = os.environ.get("GITHUB_STEP_SUMMARY")
if summary and os.environ.get("SUMMARY", "true") == "true":
    slugs = {f["code"]: f["slug"] for f in report["findings"]}
    lines = ["## karplint", "",
             f"{s['findings']} finding(s) in {s['files']} file(s), {s['resources']} resource(s); "
             f"Karpenter {s['karpenter_version']}; fail-on {s['fail_on']}: **{'failed' if s['failed'] else 'passed'}**",
             ""]
    if s["by_code"]:
        lines += ["| rule | findings |", "|---|---:|"]
        lines += [f"| {code} {slugs[code]} | {n} |" for code, n in sorted(s["by_code"].items(), key=lambda kv: -kv[1])]
    with open(summary, "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
PY
  # The annotations, and the step's exit code.
  "${karplint[@]}" check "${paths[@]}" "${args[@]}" --output-format github
}

"${1:?usage: run.sh install|check}"
