#!/usr/bin/env bash
# The ragcard GitHub Action's install step (action.yml): ragcard goes into a virtual
# environment of its own, so the job's `python` and its packages are left as they were.
#
#   RAGCARD_PACKAGE   what to pip install ("" = this Action's checkout)
#   RAGCARD_ARTIFACT  the artifact's name ("" = ragcard-<job id>, -<matrix index> in a matrix)
#   JOB_INDEX, JOB_TOTAL  the matrix position (strategy.job-index / job-total)
#
# Writes bin (the environment's bin folder) and artifact to $GITHUB_OUTPUT when set.
set -euo pipefail
python=python3
command -v "$python" >/dev/null 2>&1 || python=python
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "::error::ragcard needs Python 3.11 or later; $("$python" -V 2>&1) found: set the Action's input python-version"
  exit 2
fi
venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ragcard-venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet "${RAGCARD_PACKAGE:-${GITHUB_ACTION_PATH:-.}}"

name="${RAGCARD_ARTIFACT:-}"
if [ -z "$name" ]; then
  name="ragcard-${GITHUB_JOB:-job}"
  if [ "${JOB_TOTAL:-1}" -gt 1 ]; then name="$name-${JOB_INDEX:-0}"; fi
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "bin=$venv/bin"; echo "artifact=$name"; } >> "$GITHUB_OUTPUT"
fi
echo "ragcard installed in $venv; artifact $name"
