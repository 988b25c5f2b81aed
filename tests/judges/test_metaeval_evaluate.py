"""The meta-evaluation: thresholds are never tuned on the reported part, failures are counted
not scored, scores combine claims and evidence sets as documented, and the calibration record
and its one-line summary."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ragcard.errors import ConfigError
from ragcard.judges.base import Evidence, JudgeContext, JudgeError, JudgeIdentity, Verdict
from ragcard.judges.metaeval import (
    Dataset,
    LabelledExample,
    calibration_line,
    evaluate_judge,
    format_meta_evaluation,
    save_calibration,
    to_calibration,
)
from ragcard.judges.metaeval.metrics import tune_threshold


class ScoreJudge:
    """Scores each claim by the number in its text ("0.7 …"); fails on "FAIL"."""

    def __init__(self, threshold: float | None = 0.5, miscount: bool = False) -> None:
        self.identity = JudgeIdentity(name="score", threshold=threshold)
        self.miscount = miscount
        self.seen: list[JudgeContext] = []

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        self.seen.append(ctx)
        if any("FAIL" in claim for claim in ctx.claims):
            raise JudgeError("backend down")
        bonus = 0.2 if ctx.passages and ctx.passages[0].id == "good" else 0.0
        scores = [min(1.0, float(claim.split()[0]) + bonus) for claim in ctx.claims]
        verdicts = [
            Verdict("supported" if s >= (self.identity.threshold or 0.5) else "not_supported", s)
            for s in scores
        ]
        return verdicts[:-1] if self.miscount else verdicts


def example(i: int, score: float, supported: bool, part: str, **kw: object) -> LabelledExample:
    defaults: dict[str, object] = {
        "id": f"e{i}", "claims": (f"{score} claim",), "evidence_sets": ((Evidence("p", "t"),),),
        "supported": supported, "label": "supported" if supported else "not_supported",
        "part": part,
    }  # fmt: skip
    defaults.update(kw)
    return LabelledExample(**defaults)  # type: ignore[arg-type]


def dataset(examples: list[LabelledExample], name: str = "toy", fixed: bool = False) -> Dataset:
    return Dataset(name, f"{name} set", tuple(examples), "given", "CC0", "us", fixed_split=fixed)


DEV_SCORES = [(0.1, False), (0.2, False), (0.35, False), (0.4, True), (0.8, True), (0.9, True)]
TEST_SCORES = [(0.3, False), (0.38, True), (0.6, True), (0.95, True), (0.05, False)]
DEV = [example(i, s, h, "dev") for i, (s, h) in enumerate(DEV_SCORES)]
TEST = [example(10 + i, s, h, "test") for i, (s, h) in enumerate(TEST_SCORES)]


def test_threshold_is_tuned_on_dev_only_and_reported_on_test() -> None:
    evaluation = evaluate_judge(ScoreJudge(), [dataset(DEV + TEST)])
    report = evaluation.reports[0]
    expected = tune_threshold([0.1, 0.2, 0.35, 0.4, 0.8, 0.9], [0, 0, 0, 1, 1, 1])
    assert report.threshold.value == pytest.approx(expected) == pytest.approx(0.375)
    assert report.threshold.mode == "tune" and report.threshold.tuned_on == 6
    assert report.n_reported == 5  # the test part only
    assert report.confusion == {"tp": 3, "fp": 0, "fn": 0, "tn": 2}


def test_judge_mode_reports_everything_unless_the_split_is_the_datasets_own() -> None:
    judge = ScoreJudge(threshold=0.5)
    hashed = evaluate_judge(judge, [dataset(DEV + TEST)], threshold="judge").reports[0]
    assert hashed.n_reported == 11 and hashed.threshold.value == 0.5
    assert hashed.split_rule == "all examples reported"
    own = evaluate_judge(judge, [dataset(DEV + TEST, fixed=True)], threshold="judge").reports[0]
    assert own.n_reported == 5  # BEGIN-like: the dev file is never reported
    fixed = evaluate_judge(judge, [dataset(DEV + TEST)], threshold=0.39).reports[0]
    assert fixed.threshold.mode == "fixed" and fixed.confusion["fn"] == 1  # 0.38 < 0.39


def test_failures_are_counted_never_scored() -> None:
    failing = [*TEST, example(99, 0.9, True, "test", claims=("FAIL claim",))]
    report = evaluate_judge(ScoreJudge(), [dataset(DEV + failing)]).reports[0]
    assert report.failures == 1 and report.n_reported == 5
    assert report.failure_reasons == (("backend down", 1),)  # shown under the count
    assert "    1 × backend down" in format_meta_evaluation(
        evaluate_judge(ScoreJudge(), [dataset(DEV + failing)])
    )
    miscounted = evaluate_judge(ScoreJudge(miscount=True), [dataset(DEV + TEST)], "judge")
    assert miscounted.reports[0].failures == 11 and miscounted.reports[0].metrics == {}


def test_min_over_claims_and_max_over_evidence_sets() -> None:
    two_claims = example(1, 0.0, True, "test", claims=("0.9 a", "0.3 b"))
    sets = ((Evidence("bad", "x"),), (Evidence("good", "y"),))
    two_sets = example(2, 0.0, True, "test", claims=("0.5 c",), evidence_sets=sets)
    judge = ScoreJudge()
    report = evaluate_judge(judge, [dataset([two_claims, two_sets])], threshold=0.6).reports[0]
    # two_claims scores min(0.9, 0.3) = 0.3 (< 0.6); two_sets scores max(0.5, 0.7) = 0.7.
    assert report.confusion == {"tp": 1, "fp": 0, "fn": 1, "tn": 0}
    assert len(judge.seen) == 3  # each evidence set judged separately


def test_tuning_needs_both_classes_in_dev() -> None:
    one_class = [replace(e, supported=True) for e in DEV]
    with pytest.raises(ConfigError, match="only one class"):
        evaluate_judge(ScoreJudge(), [dataset(one_class + TEST)])
    with pytest.raises(ConfigError, match="no dev examples"):
        evaluate_judge(ScoreJudge(), [dataset(TEST)])


def test_overall_pools_distinct_datasets_and_refuses_overlapping_ones() -> None:
    other = [replace(e, id="o" + e.id) for e in DEV + TEST]
    pooled = evaluate_judge(ScoreJudge(), [dataset(DEV + TEST), dataset(other, "other")])
    assert pooled.overall is not None and pooled.overall.n_reported == 10
    assert pooled.overall.threshold.tuned_on == 12
    overlapping = evaluate_judge(ScoreJudge(), [dataset(DEV + TEST), dataset(DEV + TEST, "b")])
    assert overlapping.overall is None and "share examples" in overlapping.notes[0]


def test_breakdowns_by_length_group_and_position() -> None:
    tagged = [replace(e, group="g1" if i % 2 else "g2",
                      support_position="first" if e.supported else None)
              for i, e in enumerate(DEV + TEST)]  # fmt: skip
    report = evaluate_judge(ScoreJudge(), [dataset(tagged)]).reports[0]
    by = {(row.by, row.key): row for row in report.breakdowns}
    assert by[("claim length", "short (<=15 words)")].n == 5
    assert {key for (kind, key) in by if kind == "group"} == {"g1", "g2"}
    assert by[("support position", "first")].n == 3


def test_calibration_record_and_line(tmp_path: Path) -> None:
    evaluation = evaluate_judge(ScoreJudge(), [dataset(DEV + TEST, "wice")])
    record = save_calibration(evaluation, tmp_path / "calibration.json")
    assert json.loads((tmp_path / "calibration.json").read_text()) == record
    assert record["schema"] == "ragcard.judge-calibration/1"
    assert record["judge"]["name"] == "score" and record["date"] == evaluation.date
    entry = record["datasets"][0]
    assert entry["n"] == 5 and entry["licence"] == "CC0" and entry["split"] == "given"
    assert entry["threshold"]["mode"] == "tune" and entry["threshold"]["tuned_on_n"] == 6
    assert set(entry["metrics"]["kappa"]) == {"value", "ci", "n"}
    assert entry["confusion"]["positive_class"] == "supported"
    assert calibration_line(record) == (
        "judge: score · κ 1.00 (almost perfect) vs 5 human labels (WiCE)"
    )
    text = format_meta_evaluation(evaluation)
    assert "tuned on the dev part (6 examples" in text and "Cohen's kappa" in text


def test_calibration_line_pools_and_admits_missing_kappa() -> None:
    two = evaluate_judge(
        ScoreJudge(), [dataset(DEV + TEST, "begin"), dataset([replace(e, id="x" + e.id)
                                                              for e in DEV + TEST], "mine")]
    )  # fmt: skip
    assert calibration_line(to_calibration(two)) == (
        "judge: score · κ 1.00 (almost perfect) vs 10 human labels (BEGIN, mine)"
    )
    record = {"judge": {"name": "lexical"}, "datasets": [
        {"name": "wice", "n": 358, "metrics": {"kappa": {"value": None}}}]}  # fmt: skip
    assert calibration_line(record) == "judge: lexical · κ n/a vs 358 human labels (WiCE)"
    assert calibration_line({"judge": {"name": "x"}}).endswith(
        "not calibrated against human labels"
    )


def test_every_shipped_calibration_is_found_only_by_the_judge_it_measured() -> None:
    from importlib import resources

    from ragcard.judges.metaeval.calibration import shipped_calibration

    folder = resources.files("ragcard.judges").joinpath("calibrations")
    files = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".json"))
    assert {"lexical.json", "ensemble.json", "ensemble-llm.json", "local.json"} <= set(files)
    from ragcard.judges.metaeval.correctness import shipped_correctness

    for name in files:
        record = json.loads(folder.joinpath(name).read_text("utf-8"))
        if record["schema"] == "ragcard.correctness-calibration/1":  # the correctness task's
            assert name == f"correctness-{record['judge']}.json"
            assert shipped_correctness(record["judge"], record["task"]) == record, name
            assert shipped_correctness(record["judge"], "key-facts/0") is None, name
            continue
        assert record["schema"] == "ragcard.judge-calibration/1", name
        keys = ("name", "model", "prompt_version", "threshold", "settings")
        identity = JudgeIdentity(**{key: record["judge"][key] for key in keys})
        assert shipped_calibration(identity) == record, name
        moved = replace(identity, threshold=(identity.threshold or 0.5) + 0.01)
        assert shipped_calibration(moved) is None, name
        other = replace(identity, settings={**identity.settings, "changed": True})
        assert shipped_calibration(other) is None, name
