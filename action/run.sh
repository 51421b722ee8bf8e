#!/usr/bin/env bash
# The steps of action.yml, kept here so that they can be read and tested (tests/test_action.py) like any code.
#   run.sh install   venv in $RUNNER_TEMP; karplint==$KARPLINT_VERSION from PyPI, or this action's own checkout
#   run.sh check     annotations, the SARIF file, the job summary and the step's outputs
# Inputs come from the environment (never interpolated into the script: a path or an argument is data):
# PATHS (one per line, spaces kept), ARGS (split into words), SARIF_FILE, SUMMARY (true/false), KARPLINT_VERSION,
# ACTION_PATH. KARPLINT_BIN overrides the installed command (tests).
set -euo pipefail

venv="${RUNNER_TEMP:?RUNNER_TEMP is not set}/karplint-venv"
karplint=("${KARPLINT_BIN:-$venv/bin/karplint}")
if [[ -n "${KARPLINT_BIN:-}" ]]; then read -r -a karplint <<<"$KARPLINT_BIN"; fi

install() {
  python3 -m venv "$venv"
  if [[ -n "${KARPLINT_VERSION:-}" ]]; then
    "$venv/bin/pip" install --quiet "karplint==${KARPLINT_VERSION#v}"
  else
    "$venv/bin/pip" install --quiet "${ACTION_PATH:?ACTION_PATH is not set}"
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

  local report="$venv-report.json"
  mkdir -p "$(dirname "$report")"
  # One full check (the cache makes the two renderings below cheap): the JSON feeds the summary and outputs.
  "${karplint[@]}" check "${paths[@]}" "${args[@]}" --output-format json --output "$report" --exit-zero
  if [[ -n "${SARIF_FILE:-}" ]]; then
    "${karplint[@]}" check "${paths[@]}" "${args[@]}" --output-format sarif --output "$SARIF_FILE" --exit-zero
  fi
  python3 - "$report" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
s = report["summary"]
out = os.environ.get("GITHUB_OUTPUT")
if out:
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(f"findings={s['findings']}\n")
        fh.write(f"errors={s['by_severity']['error']}\nwarnings={s['by_severity']['warning']}\n")
        if os.environ.get("SARIF_FILE"):
            fh.write(f"sarif-file={os.environ['SARIF_FILE']}\n")
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
