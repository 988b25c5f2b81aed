"""Readable output (issue 11 item 6): 80 columns without split names, plain settings lines,
κ in words, intervals that do not collapse on all-equal 0/1 values, per-item shares with
their denominators, one row for two measures that are the same measure on this question set."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from ragcard.aggregation.scoring import AttemptScore, ScoreAccumulator
from ragcard.inputs.questions import Question
from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.pipeline.evaluation import EvaluationResult, load_inputs, score_responses
from ragcard.pipeline.project import judge_from_spec
from ragcard.report.kappa import kappa_reading, with_kappa_reading
from ragcard.report.markdown import render_markdown
from ragcard.report.plain import plain_settings
from ragcard.report.terminal import print_scorecard

LONG = "superseded_answers_currency_traps"


def _score(mini: Path, out: Path, judge: bool = False) -> EvaluationResult:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    chosen = judge_from_spec({"backend": "lexical"}) if judge else None
    return score_responses(
        inputs, mini / "responses.jsonl", out, run_date=dt.date(2026, 1, 1), judge=chosen
    )


def _terminal(result: EvaluationResult, width: int) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, soft_wrap=True, color_system=None)
    print_scorecard(result.scorecard, console)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("kappa", "word"),
    [(-0.1, "poor"), (0.0, "slight"), (0.2, "slight"), (0.204, "slight"), (0.21, "fair"),
     (0.4, "fair"), (0.48, "moderate"), (0.6, "moderate"), (0.68, "substantial"),
     (0.8, "substantial"), (0.81, "almost perfect"), (1.0, "almost perfect")],
)  # fmt: skip
def test_kappa_reads_in_landis_and_koch_words(kappa: float, word: str) -> None:
    assert kappa_reading(kappa) == word
    assert with_kappa_reading(kappa).endswith(f"({word})")


def test_kappa_of_nothing_is_not_a_word() -> None:
    assert kappa_reading(None) == "n/a" and with_kappa_reading(float("nan")) == "n/a"


def test_settings_are_words_not_json() -> None:
    index = {"indexed_text": "doc — title", "keyword": {"engine": "bm25s", "k1": 1.5}, "n": 89}
    shown = plain_settings(index)
    assert shown == "indexed_text doc — title · keyword: engine bm25s, k1 1.5 · n 89"
    assert plain_settings({"faults": ["keep_superseded"], "on": True}) == (
        "faults keep_superseded · on yes"
    )


def _share_spec() -> MetricSpec:
    return MetricSpec("id_recall", "retrieval", "mean", True, "d", "none", share=True)


def _accumulate(spec: MetricSpec, values: list[float]) -> MetricValue:
    acc = ScoreAccumulator({spec.name: spec})
    for n, value in enumerate(values):
        question = Question(id=f"Q{n}", question="q?")
        score = AttemptScore(question.id, 1, {spec.name: value}, {}, {}, {}, (), False)
        acc.add(question, score)
    result = acc.summarise()[spec.name]
    assert isinstance(result, MetricValue)
    return result


def test_an_all_ones_share_gets_a_wilson_interval_not_a_point() -> None:
    result = _accumulate(_share_spec(), [1.0] * 169)
    assert result.value == 1.0 and result.ci is not None
    assert result.ci[0] == pytest.approx(0.9778, abs=1e-4) and result.ci[1] == 1.0


def test_a_share_with_fractions_keeps_the_bootstrap() -> None:
    result = _accumulate(_share_spec(), [1.0, 0.5, 1.0, 0.5])
    assert result.ci is not None and result.ci[0] >= 0.5  # a bootstrap stays within the values


def test_a_mean_that_is_no_share_keeps_the_bootstrap_even_on_zeros_and_ones() -> None:
    spec = MetricSpec("rubric_mean", "rubric", "mean", True, "0-3", "none")
    assert _accumulate(spec, [1.0] * 20).ci == (1.0, 1.0)  # a 0-3 level is not a proportion


def test_per_item_citation_accuracy_is_a_share_with_its_denominator(
    mini: Path, tmp_path: Path
) -> None:
    _score(mini, tmp_path, judge=True)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    cited = [x for x in lines if "citation_accuracy" in x["scores"]]
    assert cited, "the fixture has cited answers"
    for line in cited:
        share = line["scores"]["citation_accuracy"]
        trials = line["denominators"]["citation_accuracy"]
        assert 0.0 <= share <= 1.0 and isinstance(trials, int) and trials >= 1
        assert (share * trials) == pytest.approx(round(share * trials))
    assert all("denominators" not in x for x in lines if "citation_accuracy" not in x["scores"])


def test_a_measure_equal_to_another_is_one_row_in_both_reports(mini: Path, tmp_path: Path) -> None:
    result = _score(mini, tmp_path)
    card = result.scorecard
    assert card.same_as == {"flag_accuracy": "correct_abstention"}
    assert json.loads((tmp_path / "scorecard.json").read_text())["same_as"] == card.same_as
    markdown = render_markdown(card)
    assert markdown.count("| `flag_accuracy` |") == 0
    assert "`correct_abstention` = `flag_accuracy`" in markdown
    assert "### `flag_accuracy` by label" not in markdown  # one label: the measure itself
    terminal = _terminal(result, 80)
    assert "= flag_accuracy" in terminal
    assert len(re.findall(r"^\s+correct_abstention\b", terminal, re.MULTILINE)) == 1


def test_scorecard_markdown_has_plain_settings_and_no_nested_parentheses(
    mini: Path, tmp_path: Path
) -> None:
    markdown = render_markdown(_score(mini, tmp_path, judge=True).scorecard)
    assert "\\u" not in markdown and '{"' not in markdown
    assert "((" not in markdown and "))" not in markdown.replace("item(s))", "")
    assert "not distinguishable at this sample size: the 95% interval straddles" in markdown
    assert re.search(r"κ \d\.\d\d \((slight|fair|moderate|substantial|almost perfect)\)", markdown)
    assert "κ in words (Landis & Koch)" in markdown


def _assert_names_whole(text: str, names: list[str]) -> None:
    for name in names:
        assert re.search(rf"(^|\s){re.escape(name)}(\s|$)", text, re.MULTILINE), name


def test_terminal_scorecard_at_80_columns_splits_no_name(mini: Path, tmp_path: Path) -> None:
    result = _score(mini, tmp_path, judge=True)
    text = _terminal(result, 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    _assert_names_whole(text, [*result.scorecard.metrics, LONG])
    assert "(the interval straddles it))" not in text
    assert "~ not distinguishable at this sample size" in text


def test_terminal_scorecard_of_the_handbook_at_80_columns(tmp_path: Path) -> None:
    from ragcard.pipeline.running import run_evaluation

    example = Path(__file__).resolve().parents[2] / "examples" / "handbook"
    result = run_evaluation(example, out_dir=tmp_path / "out", eval_dir=tmp_path / "eval",
                            progress=False, attempts=1)  # fmt: skip
    text = _terminal(result, 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    _assert_names_whole(text, [*result.scorecard.metrics, "handbook-2025.2"])
    assert "hand/book" not in text
    assert not re.search(r"^\s*(ers_currency|raps|ion)\b", text, re.MULTILINE)  # no name tail


def test_compare_at_80_columns_splits_no_name(mini: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragcard._cli.main import app

    _score(mini, tmp_path / "a")
    _score(mini, tmp_path / "b", judge=True)
    for width in ("80", "160"):
        result = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")],
                                    env={"COLUMNS": width})  # fmt: skip
        assert result.exit_code in (0, 1), result.output
        _assert_names_whole(result.output, [f"{LONG} ↓", "recall@5 ↑", "flag_accuracy ↑"])
        tables = [line for line in result.output.splitlines() if not line.startswith("baseline ")]
        assert max(len(line) for line in tables) <= int(width)
