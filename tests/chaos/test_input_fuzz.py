"""The fast part of the input fuzzer (tests/chaos/fuzz_inputs.py): the cases of issue 12's
report and a seeded sample, plus a self-test that planted failures are caught. The full mix
(over 500 cases) runs in CI from .ci/run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FUZZER = Path(__file__).with_name("fuzz_inputs.py")


def fuzz(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(FUZZER), *args], capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip


def test_the_issues_cases_and_a_sample_give_no_traceback_hang_or_garbage(tmp_path: Path) -> None:
    report = tmp_path / "fuzz.json"
    done = fuzz("--quick", "--workers", "2", "--report", str(report))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = json.loads(report.read_text())
    assert summary["cases"] >= 50
    for key in ("tracebacks", "hangs", "garbage_accepted", "good_input_refused",
                "refusals_not_naming_the_file", "refusals_that_wrote_output", "bad_scorecards"):
        assert summary[key] == 0, key  # fmt: skip
    assert summary["exit_codes"].get("2", 0) >= 45  # the refusals are exit 2, not 1 or 3


def test_the_harness_flags_planted_failures() -> None:
    done = fuzz("--self-test", "--workers", "2", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    flagged = json.loads(done.stdout)
    assert flagged["self-test/good-input-declared-bad"] == ["garbage accepted"]
    assert flagged["self-test/bad-input-declared-good"] == ["good input refused"]
    named = flagged["self-test/refusal-not-naming-the-file"]
    assert named == ["refusal does not name corpus.jsonl"]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_mix_is_seeded(seed: int) -> None:
    sys.path.insert(0, str(FUZZER.parent))
    try:
        import fuzz_inputs
    finally:
        sys.path.pop(0)
    first = [c.name for c in fuzz_inputs.all_cases(seed)]
    assert first == [c.name for c in fuzz_inputs.all_cases(seed)]
    assert len(first) >= 441
