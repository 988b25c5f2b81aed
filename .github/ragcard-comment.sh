#!/usr/bin/env bash
# The ragcard GitHub Action's pull-request comment (action.yml, `comment: true`). A comment that
# cannot be posted — a pull request from a fork gets a read-only token — never fails the job:
# the step says so in a notice; the summary is in the job summary and the artifact anyway.
#
#   PR       the pull request's number      SUMMARY  the summary file (ragcard-out/summary.md)
set -uo pipefail
if [ ! -f "${SUMMARY:?}" ]; then
  echo "::notice title=ragcard::no summary at $SUMMARY to comment with (the run stopped early)"
  exit 0
fi
if ! gh pr comment "${PR:?}" --body-file "$SUMMARY"; then
  echo "::notice title=ragcard::could not comment on pull request #$PR (a pull request from a fork gets a read-only token): the summary is in the job summary and the artifact"
fi
exit 0
