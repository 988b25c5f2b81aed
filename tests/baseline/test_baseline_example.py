"""Acceptance: the bundled handbook example, run plainly and with superseded versions kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard import run_evaluation  # the public entry point, wherever the engine keeps it
from ragcard.decision.baseline import Comparison, compare_runs
from ragcard.report.comparison import render_comparison_markdown

HANDBOOK = Path(__file__).resolve().parents[2] / "examples" / "handbook"


@pytest.fixture(scope="module")
def handbook_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("handbook")
    runs = []
    for name, options in (("plain", None), ("superseded", {"faults": ["keep_superseded"]})):
        result = run_evaluation(
            HANDBOOK, out_dir=tmp / name, fresh=True, attempts=1, progress=False,
            eval_dir=tmp / "eval", agent_options=options,
            # module scope runs before the autouse history fixture: name a throwaway one
            history_url=f"sqlite:///{tmp / 'history.sqlite'}",
        )  # fmt: skip
        runs.append(result.out_dir)
    return runs[0], runs[1]


@pytest.fixture(scope="module")
def comparison(handbook_runs: tuple[Path, Path]) -> Comparison:
    return compare_runs(*handbook_runs)


def test_keeping_superseded_versions_fails_the_gate(
    comparison: Comparison, handbook_runs: tuple[Path, Path]
) -> None:
    assert comparison.gate == "fail"
    assert comparison.notes == tuple(n for n in comparison.notes if n.startswith("not gated"))
    superseded = next(
        m for m in comparison.measures if m.name == "superseded_answers_currency_traps"
    )
    assert superseded.verdict == "regressed" and superseded.current > superseded.baseline == 0
    # every superseded answer is a regression, unless the item already failed in the baseline
    # (HB-0180: the plain run answers the auto-enrolment sentence, not the 6%: wrong there too)
    baseline_zero = {
        r["item"]
        for r in map(json.loads, (handbook_runs[0] / "results.jsonl").read_text().splitlines())
        if r["scores"].get("rubric_mean") == 0.0
    }
    regressed = {f.item for f in comparison.regressions}
    assert set(superseded.items) - baseline_zero <= regressed
    assert len(set(superseded.items) & regressed) >= len(superseded.items) - 1


def test_the_flipped_items_are_named_must_pass_currency_traps_first(comparison: Comparison) -> None:
    must = comparison.must_pass_regressions
    assert must and comparison.flips[: len(must)] == must
    assert all(f.category == "currency_trap" for f in must)
    assert all("answer from a superseded version" in f.symptoms for f in must)
    assert all(f.regressed for f in comparison.flips)  # nothing got better
    reason = comparison.reasons[0]
    assert "must-pass" in reason and must[0].item in reason


def test_the_markdown_names_them(comparison: Comparison) -> None:
    text = render_comparison_markdown(comparison)
    assert text.startswith("## ragcard regression gate: ❌ fail")
    for flip in comparison.must_pass_regressions:
        assert f"| `{flip.item}` | currency_trap | **yes** | pass→fail |" in text


def test_a_run_compared_with_itself_passes(handbook_runs: tuple[Path, Path]) -> None:
    plain = handbook_runs[0]
    assert compare_runs(plain, plain).gate == "pass"
