"""The fake judge: deterministic verdicts from a mapping or a marker word, so whole evals run
offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.errors import ConfigError
from ragcard.judges.base import Evidence, JudgeContext
from ragcard.judges.fake import FakeJudge
from ragcard.judges.metaeval.evaluate import evaluate_judge
from ragcard.judges.metaeval.userlabels import read_user_labels
from ragcard.judges.registry import build_judge

CTX = JudgeContext(
    claims=("The office opens at 9.", "It has a pool UNSUPPORTED.", "CONTRADICTED claim.",
            "Plain claim."),
    passages=(Evidence("p1", "The office opens at 9."), Evidence("p2", "Other.")),
)  # fmt: skip


async def test_marker_rules_and_default() -> None:
    verdicts = await FakeJudge().judge(CTX)
    assert [v.label for v in verdicts] == [
        "supported", "not_supported", "contradicted", "supported",
    ]  # fmt: skip
    assert [v.score for v in verdicts] == [1.0, 0.0, 0.0, 1.0]
    assert verdicts[0].passage_id == "p1" and verdicts[0].span == (0, 22)
    assert verdicts[1].passage_id is None


async def test_mapping_wins_over_markers_and_options_come_from_config() -> None:
    judge = build_judge(
        {
            "backend": "fake",
            "labels": {"Plain claim.": "contradicted"},
            "marker": "pool",
            "default": "not_supported",
        }  # fmt: skip
    )
    labels = [v.label for v in await judge.judge(CTX)]
    assert labels == ["not_supported", "not_supported", "contradicted", "contradicted"]
    assert judge.identity.name == "fake" and judge.identity.settings["marker"] == "pool"


async def test_markers_match_whole_words_only() -> None:
    ctx = JudgeContext(claims=("UNSUPPORTEDLY fine.",), passages=())
    assert (await FakeJudge().judge(ctx))[0].label == "supported"


def test_bad_options_are_refused_with_the_allowed_values() -> None:
    with pytest.raises(ConfigError, match="allowed labels: supported, not_supported"):
        FakeJudge(labels={"x": "true"})
    with pytest.raises(ConfigError, match="default 'maybe'"):
        FakeJudge(default="maybe")
    with pytest.raises(ConfigError, match="unknown option 'mark'"):
        build_judge({"backend": "fake", "mark": "X"})


def test_a_whole_meta_evaluation_runs_offline(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"claim": "A is true.", "evidence": "A is true.", "label": "supported", "split": "dev"}\n'
        '{"claim": "B UNSUPPORTED.", "evidence": "A.", "label": "not_supported", "split": "dev"}\n'
        '{"claim": "C is true.", "evidence": "C.", "label": "supported", "split": "test"}\n'
        '{"claim": "D UNSUPPORTED.", "evidence": "C.", "label": "supported", "split": "test"}\n'
    )
    report = evaluate_judge(FakeJudge(), [read_user_labels(labels)]).reports[0]
    assert report.threshold.tuned_on == 2 and report.n_reported == 2
    assert report.confusion == {"tp": 1, "fp": 0, "fn": 1, "tn": 0}
