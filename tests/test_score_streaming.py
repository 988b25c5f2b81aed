"""``score_responses`` on a file: streamed line by line, published whole, every problem listed."""

from __future__ import annotations

import datetime as dt
import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import ragcard.aggregation._parallel
import ragcard.pipeline.evaluation
from ragcard.aggregation._parallel import workers_for
from ragcard.errors import InputError
from ragcard.inputs.responses import load_responses
from ragcard.metrics.retrieval import RetrievalLayer
from ragcard.pipeline.evaluation import Inputs, load_inputs, score_responses

DAY = dt.date(2026, 1, 1)


@pytest.fixture(params=[1, 2], ids=["one-process", "two-workers"])
def workers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """Each file test runs in one process and on two forked workers with two-line chunks
    (several chunks in flight, repeats across chunks); the latter checks the workers ran."""
    count: int = request.param
    calls: list[int] = []
    if count > 1:
        real = ragcard.pipeline.evaluation.score_file
        monkeypatch.setattr(ragcard.aggregation._parallel, "CHUNK_LINES", 2)
        # idle threads earlier tests left behind (thread pools) would make it refuse to fork
        monkeypatch.setattr(ragcard.aggregation._parallel.threading, "active_count", lambda: 1)
        monkeypatch.setattr(
            ragcard.pipeline.evaluation,
            "score_file",
            lambda *args: calls.append(args[3]) or real(*args),
        )
    yield count
    assert calls == ([count] if count > 1 else [])


@pytest.fixture
def inputs(mini: Path) -> Inputs:
    return load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")


def _markdown(out: Path) -> list[str]:
    """scorecard.md but for its creation time (two runs may straddle a second)."""
    lines = (out / "scorecard.md").read_text().splitlines()
    return [line for line in lines if not line.startswith("| Date | ")]


def _card(out: Path) -> dict:
    card = json.loads((out / "scorecard.json").read_text())
    card.pop("created_at")
    card.pop("run_id")  # unique per run
    return card


def test_a_file_and_its_loaded_responses_score_the_same(
    inputs: Inputs, mini: Path, tmp_path: Path, workers: int
) -> None:
    streamed = score_responses(
        inputs, mini / "responses.jsonl", tmp_path / "a", run_date=DAY, workers=workers
    )
    listed = load_responses(mini / "responses.jsonl")
    score_responses(inputs, listed, tmp_path / "b", run_date=DAY)
    a, b = tmp_path / "a", tmp_path / "b"
    assert (a / "results.jsonl").read_bytes() == (b / "results.jsonl").read_bytes()
    assert _card(a) == _card(b)
    assert streamed.scorecard.config["run"]["attempts"] == 2
    assert not (a / "results.jsonl.partial").exists()


def test_items_without_a_response_come_last_as_not_recorded(
    inputs: Inputs, mini: Path, tmp_path: Path, workers: int
) -> None:
    lines = (mini / "responses.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["item"] != "Q3"]
    responses = tmp_path / "r.jsonl"
    responses.write_text("\n".join(kept) + "\n")
    score_responses(inputs, responses, tmp_path / "out", run_date=DAY, workers=workers)
    rows = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [r["item"] for r in rows] == [json.loads(line)["item"] for line in kept] + ["Q3"]
    assert rows[-1]["error"]["kind"] == "not_recorded"
    # the scorecard says why, not only how many (on one process and on workers alike)
    errors = json.loads((tmp_path / "out" / "scorecard.json").read_text())["errors"]
    message = rows[-1]["error"]["message"]
    assert errors["by_kind"] == {"not_recorded": 1} and errors["messages"] == [[message, 1]]
    assert f"- 1 × {message}" in (tmp_path / "out" / "scorecard.md").read_text()


def test_every_bad_line_is_reported_and_nothing_is_written(
    inputs: Inputs, mini: Path, tmp_path: Path, workers: int
) -> None:
    good = (mini / "responses.jsonl").read_text().splitlines()
    responses = tmp_path / "r.jsonl"
    responses.write_text(
        "\n".join(
            [
                good[0],
                "{not json",
                json.dumps({"item": "Q2", "latency_ms": -1}),
                good[0],  # the same item and attempt again
                json.dumps({"item": "NOPE", "answer": "x"}),
                *good[1:],
            ]
        )
        + "\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text("previous run\n")
    with pytest.raises(InputError) as info:
        score_responses(inputs, responses, out, run_date=DAY, workers=workers)
    found = {(p.line, p.field) for p in info.value.problems}
    assert found == {(2, None), (3, "latency_ms"), (4, "attempt"), (5, "item")}
    assert (out / "results.jsonl").read_text() == "previous run\n"
    assert sorted(p.name for p in out.iterdir()) == ["results.jsonl"]


def test_bytes_that_are_not_utf8_are_a_problem_of_their_line(
    inputs: Inputs, mini: Path, tmp_path: Path, workers: int
) -> None:
    good = (mini / "responses.jsonl").read_bytes().splitlines()
    latin1 = json.dumps({"item": "Q2", "answer": "café"}, ensure_ascii=False).encode("latin-1")
    responses = tmp_path / "r.jsonl"
    responses.write_bytes(b"\xef\xbb\xbf" + b"\n".join([good[0], latin1, b"{not json"]) + b"\n")
    with pytest.raises(InputError) as info:  # a leading byte-order mark is no problem
        score_responses(inputs, responses, tmp_path / "out", run_date=DAY, workers=workers)
    found = {p.line: p for p in info.value.problems}
    assert sorted(found) == [2, 3]
    assert found[2].message == "not UTF-8 text (byte 0xe9 at column 30)"
    assert found[2].fix is not None and "UTF-8" in found[2].fix


def test_a_failed_call_leaves_no_folder_it_created(
    inputs: Inputs, tmp_path: Path, workers: int
) -> None:
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"item": "NOPE"}\n')
    with pytest.raises(InputError):
        score_responses(inputs, responses, tmp_path / "new", run_date=DAY, workers=workers)
    assert not (tmp_path / "new").exists()


def test_the_retrieval_layer_alone_scores_without_flag_breakdowns(
    mini: Path, tmp_path: Path
) -> None:
    thresholds = tmp_path / "t.toml"
    thresholds.write_text(
        '[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 0.5\n'
        'type = "graded"\nreason = "retrieval only"\n'
        '[evidence]\nmin_items = 1\nreason = "four items"\n'
    )
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", thresholds)
    result = score_responses(
        inputs, mini / "responses.jsonl", tmp_path / "out", run_date=DAY, layers=(RetrievalLayer(),)
    )
    card = result.scorecard.to_json()
    assert card["breakdowns"] == {}
    assert card["metrics"]["recall@5"]["value"] == pytest.approx(0.75)
    assert card["decision"] == "ship"


def test_collector_settings_are_restored(inputs: Inputs, mini: Path, tmp_path: Path) -> None:
    before = gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()
    score_responses(inputs, mini / "responses.jsonl", tmp_path, run_date=DAY)
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before


def test_two_workers_write_what_one_process_writes(
    inputs: Inputs, mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ragcard.aggregation._parallel, "CHUNK_LINES", 3)
    monkeypatch.setattr(ragcard.aggregation._parallel.threading, "active_count", lambda: 1)
    one = score_responses(inputs, mini / "responses.jsonl", tmp_path / "1", run_date=DAY, workers=1)
    two = score_responses(inputs, mini / "responses.jsonl", tmp_path / "2", run_date=DAY, workers=2)
    results = [(tmp_path / run / "results.jsonl").read_bytes() for run in ("1", "2")]
    assert results[0] == results[1]
    assert _markdown(tmp_path / "1") == _markdown(tmp_path / "2")
    assert _card(tmp_path / "1") == _card(tmp_path / "2")
    assert one.scorecard.config == two.scorecard.config


def test_how_many_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_text("{}\n")
    large.write_bytes(b"{}\n" * (ragcard.aggregation._parallel.MIN_PARALLEL_BYTES // 3 + 1))
    monkeypatch.setattr(ragcard.aggregation._parallel.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(ragcard.aggregation._parallel.threading, "active_count", lambda: 1)
    assert workers_for(small) == 1 and workers_for(large) == 2
    assert workers_for(small, 3) == 3 and workers_for(large, 0) == 1
    assert workers_for(tmp_path / "missing.jsonl") == 1
    monkeypatch.setattr(ragcard.aggregation._parallel.threading, "active_count", lambda: 2)
    assert workers_for(large, 4) == 1  # never fork a process that runs other threads


def test_with_a_judge_and_progress_a_bar_counts_the_answers_judged(
    inputs: Inputs, mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragcard.judges.lexical import LexicalJudge

    answered = sum(1 for line in (mini / "responses.jsonl").read_text().splitlines() if line)
    score_responses(inputs, mini / "responses.jsonl", tmp_path / "quiet", run_date=DAY,
                    judge=LexicalJudge())  # fmt: skip
    assert "judge" not in capsys.readouterr().err  # progress is off by default
    score_responses(inputs, mini / "responses.jsonl", tmp_path / "bar", run_date=DAY,
                    judge=LexicalJudge(), progress=True)  # fmt: skip
    err = capsys.readouterr().err
    assert "judge" in err and f"{answered}/{answered}" in err and "0 failed" in err
