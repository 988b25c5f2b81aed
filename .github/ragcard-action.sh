#!/usr/bin/env bash
# The ragcard GitHub Action's work (action.yml), in a script that runs anywhere with bash and
# ragcard installed: run the project, gate it against the shipped run, write a summary.
#
#   RAGCARD_PROJECT   project folder (required)      RAGCARD_BASELINE  shipped run folder or ""
#   RAGCARD_OUT       output folder (ragcard-out)     RAGCARD_FAIL_ON   hold | regression | never
#   RAGCARD_ARGS      more `ragcard run` arguments   RAGCARD_ARTIFACT  the artifact's name
#
# Writes $RAGCARD_OUT/run/ (scorecard.json, scorecard.md, results.jsonl), junit.xml, and with a
# baseline comparison.md and gate-junit.xml; summary.md, appended to $GITHUB_STEP_SUMMARY when
# set; decision, gate, scorecard and exit-code to $GITHUB_OUTPUT when set. Exits 2 on bad input,
# 1 when fail-on says the job fails, else 0.
set -uo pipefail
project="${RAGCARD_PROJECT:?set RAGCARD_PROJECT to the project folder holding ragcard.toml}"
out="${RAGCARD_OUT:-ragcard-out}"
baseline="${RAGCARD_BASELINE:-}"
fail_on="${RAGCARD_FAIL_ON:-hold}"
case "$fail_on" in hold|regression|never) ;; *)
  echo "::error::fail-on must be hold, regression or never, not '$fail_on'"; exit 2 ;;
esac
read -r -a extra <<< "${RAGCARD_ARGS:-}"
mkdir -p "$out"

ragcard run "$project" --out "$out/run" --fresh --no-progress --junit "$out/junit.xml" "${extra[@]}"
run_rc=$?
if [ "$run_rc" -ge 2 ]; then
  echo "::error::ragcard run $project: bad input or configuration (exit $run_rc); see above"
  exit "$run_rc"
fi
decision=ship; [ "$run_rc" = 0 ] || decision=hold

gate=none; gate_rc=0
if [ -n "$baseline" ]; then
  ragcard compare "$baseline" "$out/run" --markdown "$out/comparison.md" \
    --junit "$out/gate-junit.xml"
  gate_rc=$?
  if [ "$gate_rc" -ge 2 ]; then
    echo "::error::ragcard compare $baseline: not a comparable run (exit $gate_rc); see above"
    exit "$gate_rc"
  fi
  gate=pass; [ "$gate_rc" = 0 ] || gate=fail
fi

{
  sed -n '1,3p' "$out/run/scorecard.md"
  echo
  if [ -f "$out/comparison.md" ]; then cat "$out/comparison.md"; echo; fi
  echo "The scorecard, results and JUnit files are in the artifact \`${RAGCARD_ARTIFACT:-ragcard}\` ($out/)."
} > "$out/summary.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi

code=0
case "$fail_on" in
  hold) { [ "$decision" = hold ] || [ "$gate" = fail ]; } && code=1 ;;
  regression) [ "$gate" = fail ] && code=1 ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "decision=$decision"
    echo "gate=$gate"
    echo "scorecard=$out/run/scorecard.json"
    echo "exit-code=$code"
  } >> "$GITHUB_OUTPUT"
fi
echo "ragcard: decision $decision, gate $gate (fail-on $fail_on): exit $code"
exit "$code"
