"""The ``ensemble`` judge: its features, its weights file, training, and ``backend = "auto"``.

Offline: a stub encoder stands in for MiniLM (tests needing the real one skip without the
``embed`` extra).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_embedding import StubEncoder, write_weights  # tests/judges is on sys.path
from typer.testing import CliRunner

import ragcard.judges.ensemble_train as ensemble_train
from ragcard.errors import ConfigError, MissingExtraError
from ragcard.inputs.config import load_config
from ragcard.judges import registry
from ragcard.judges.base import Evidence, JudgeContext, JudgeIdentity, Verdict, answers_task
from ragcard.judges.embedding import SentenceVectors
from ragcard.judges.ensemble import EnsembleJudge
from ragcard.judges.ensemble_features import BASE_FEATURES, FeatureExtractor, clauses
from ragcard.judges.ensemble_model import (
    LogisticModel,
    fit_logistic,
    load_weights,
    shipped_weights_path,
)
from ragcard.judges.ensemble_train import (
    ExampleFeatures,
    example_scores,
    fit_ensemble,
    train_ensemble,
)
from ragcard.judges.metaeval.examples import Dataset, LabelledExample
from ragcard.pipeline.project import build_run_judge
from ragcard.reference.embeddings import MODEL_SHA256

FIXTURE = Path(__file__).parent / "fixtures" / "lexical_claims.jsonl"
PASSAGES = (
    Evidence("leave", "Full-time staff receive 25 days of paid leave. Leave is not paid out."),
    Evidence("park", "Parking is free for staff on weekdays."),
)


def extract(*claims: str, passages: tuple[Evidence, ...] = PASSAGES) -> list[dict[str, float]]:
    extractor = FeatureExtractor(SentenceVectors(StubEncoder()))
    found = asyncio.run(extractor.extract(JudgeContext(claims, passages)))
    return [f.values for f in found]


def test_features_cover_every_base_name() -> None:
    (values,) = extract("Full-time staff receive 25 days of paid leave.")
    assert set(values) == set(BASE_FEATURES)
    assert values["lexical_coverage"] == pytest.approx(1.0)
    assert values["numbers_absent"] == 0.0 and values["negation_mismatch"] == 0.0
    assert values["emb_max"] == pytest.approx(1.0, abs=1e-5)
    assert values["missing_terms"] == 0.0


def test_number_negation_and_missing_name_signals() -> None:
    wrong_number, negated, new_name = extract(
        "Full-time staff receive 30 days of paid leave.",
        "Parking is not free for staff on weekdays.",
        "Parking is free for Acme staff on weekdays.",
    )
    assert wrong_number["numbers_absent"] == 1.0 and wrong_number["numbers_share"] == 1.0
    assert wrong_number["lexical_score"] < wrong_number["lexical_coverage"]
    assert negated["negation_mismatch"] == 1.0
    assert new_name["names_absent"] > 0 and new_name["coverage_all"] < 1.0


def test_clauses_split_long_claims_only() -> None:
    assert clauses("Staff park free.") == ["Staff park free."]
    assert clauses("Staff receive paid leave, and parking is free on weekdays") == [
        "Staff receive paid leave",
        "parking is free on weekdays",
    ]


def test_clause_coverage_finds_the_unsupported_half() -> None:
    (values,) = extract("Staff receive paid leave, and the canteen serves breakfast daily")
    assert values["clause_coverage"] < values["coverage_all"]


# ---- weights files -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not a JSON weights file"),
        ('{"schema": "other"}', "not a ragcard weights file"),
        ('{"schema": "ragcard.judge-weights/1"}', "missing features, weights"),
    ],
)
def test_bad_weights_file_names_the_file_and_the_fix(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as raised:
        load_weights(path)
    assert str(path) in str(raised.value) and "train-ensemble" in str(raised.value)


def test_inconsistent_weights_are_refused(tmp_path: Path) -> None:
    path = write_weights(tmp_path / "w.json", ["lexical_score", "nope"], [1.0])
    with pytest.raises(ConfigError, match="1 weights for 2 features"):
        load_weights(path)
    path = write_weights(tmp_path / "w.json", ["nope"], [1.0], threshold=2)
    with pytest.raises(ConfigError, match=r"threshold.*in \[0, 1\]"):
        load_weights(path)
    path = write_weights(tmp_path / "w.json", ["nope"], [1.0])
    with pytest.raises(ConfigError, match="unknown feature"):
        EnsembleJudge(weights=str(path), encoder=StubEncoder())


def test_missing_weights_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found.*train-ensemble"):
        EnsembleJudge(weights=str(tmp_path / "none.json"), encoder=StubEncoder())


def test_shipped_weights_record_their_training_data() -> None:
    judge = EnsembleJudge(encoder=StubEncoder())
    record = judge.model.record
    assert set(judge.model.features) == set(BASE_FEATURES)
    datasets = {d["dataset"] for d in record["training"]["data"]}
    assert datasets and "faithbench" not in datasets
    for data in record["training"]["data"]:
        assert data["part"] == "dev" and data["licence"] and data["credit"] and data["n"] > 0
    assert record["encoder"]["sha256"] == MODEL_SHA256
    assert record["ragcard_version"] and record["date"]
    assert 0.0 < judge.threshold < 1.0 and judge.identity.name == "ensemble"


def test_llm_vote_must_match_the_weights(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="do not use the 'llm_vote' feature"):
        EnsembleJudge(
            weights=str(write_weights(tmp_path / "w.json", ["lexical_score"], [1.0])),
            llm_vote=True,
            encoder=StubEncoder(),
            llm_judge=VoteJudge(),
        )


def test_llm_vote_without_trained_weights_says_how_to_train(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(
        "ragcard.judges.ensemble._default_weights", lambda llm_vote: tmp_path / "none.json"
    )
    with pytest.raises(ConfigError, match="train-ensemble --llm-vote"):
        EnsembleJudge(llm_vote=True, encoder=StubEncoder(), llm_judge=VoteJudge())


def test_shipped_llm_vote_weights_use_the_vote_and_name_their_data() -> None:
    judge = EnsembleJudge(llm_vote=True, encoder=StubEncoder(), llm_judge=VoteJudge())
    assert judge.model.features[-1] == "llm_vote" and 0.0 < judge.threshold < 1.0
    record = json.loads(shipped_weights_path("ensemble-llm").read_text("utf-8"))
    (data,) = record["training"]["data"]  # the WiCE claims outside the published 100 only
    assert (data["dataset"], data["part"], data["n"]) == ("wice-100", "dev", 258)
    with pytest.raises(ConfigError, match="trained on the local judge's probability score"):
        EnsembleJudge(llm_vote=True, llm={"score": "stated"}, encoder=StubEncoder())


class VoteJudge:
    """Votes 1.0 on claims mentioning 'free', 0.0 otherwise."""

    identity = JudgeIdentity("fake-llm", model="vote")

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        return [
            Verdict("supported" if "free" in c else "not_supported", float("free" in c))
            for c in ctx.claims
        ]


def test_llm_vote_feature_feeds_the_model(tmp_path: Path) -> None:
    path = write_weights(tmp_path / "w.json", ["llm_vote"], [10.0])
    judge = EnsembleJudge(
        weights=str(path), llm_vote=True, encoder=StubEncoder(), llm_judge=VoteJudge()
    )
    free, other = asyncio.run(judge.judge(JudgeContext(("Parking is free.", "Pay."), PASSAGES)))
    assert free.label == "supported" and other.label == "not_supported"
    assert "LLM vote 1.00" in (free.reason or "")
    assert judge.identity.settings["llm_vote"] is True and "vote" in (judge.identity.model or "")


class CountingVote(VoteJudge):
    """VoteJudge that records the claims it was asked about."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        self.asked.append(ctx.claims)
        return await super().judge(ctx)


def test_the_llm_is_asked_only_about_the_claims_picked() -> None:
    vote = CountingVote()
    extractor = FeatureExtractor(SentenceVectors(StubEncoder()), vote)
    ctx = JudgeContext(("Parking is free.", "Pay at the desk.", "Coffee is free."), PASSAGES)
    found = asyncio.run(extractor.extract(ctx, lambda features: [False, True, True]))
    assert vote.asked == [("Pay at the desk.", "Coffee is free.")]  # one call, those claims only
    assert ["llm_vote" in f.values for f in found] == [False, True, True]
    assert found[2].values["llm_vote"] == 1.0 and found[1].values["llm_vote"] == 0.0
    asyncio.run(extractor.extract(ctx, lambda features: [False] * 3))
    assert len(vote.asked) == 1  # nobody picked: no call
    asyncio.run(extractor.extract(ctx))
    assert vote.asked[-1] == ctx.claims  # no picker: every claim


def test_llm_band_routes_unsure_claims_to_the_vote_model() -> None:
    shipped = EnsembleJudge(llm_vote=True, encoder=StubEncoder(), llm_judge=VoteJudge())
    assert shipped.band == (0.10, 0.85) and shipped.fast is not None  # the shipped weights'
    assert shipped.identity.settings["llm_band"] == [0.10, 0.85]
    assert shipped.identity.settings["band_model"]["weights"] == "ensemble.json"
    ctx = JudgeContext(("Parking is free.", "Pay at the desk."), PASSAGES)
    fast = asyncio.run(EnsembleJudge(encoder=StubEncoder()).judge(ctx))  # vote-free scores
    unsure, sure = fast[0].score, fast[1].score
    assert abs(unsure - sure) > 0.02
    band = [max(0.0, unsure - 0.01), min(1.0, unsure + 0.01)]  # holds the first claim only
    vote = CountingVote()
    judge = EnsembleJudge(llm_vote=True, encoder=StubEncoder(), llm_judge=vote, llm_band=band)
    asked, outside = asyncio.run(judge.judge(ctx))
    assert vote.asked == [("Parking is free.",)]
    assert "LLM vote 1.00" in (asked.reason or "")
    assert f"LLM not asked (outside [{band[0]:g}, {band[1]:g}])" in (outside.reason or "")
    assert outside.score == sure and outside.label == fast[1].label  # as the vote-free judge
    every = EnsembleJudge(llm_vote=True, encoder=StubEncoder(), llm_judge=CountingVote(),
                          llm_band=False)  # fmt: skip
    assert every.band is None and every.identity.settings["llm_band"] is None
    assert "llm_band" not in EnsembleJudge(encoder=StubEncoder()).identity.settings


@pytest.mark.parametrize("band", [[0.5], [0.9, 0.1], [0.1, 1.5], True, ["a", "b"], [False, 1]])
def test_a_bad_llm_band_is_a_config_error(band: Any) -> None:
    with pytest.raises(ConfigError, match="llm_band must be two numbers"):
        EnsembleJudge(llm_vote=True, encoder=StubEncoder(), llm_judge=VoteJudge(), llm_band=band)


def test_own_vote_weights_ask_the_llm_about_every_claim_unless_given_a_band(
    tmp_path: Path,
) -> None:
    path = str(write_weights(tmp_path / "w.json", ["llm_vote"], [10.0]))
    own = EnsembleJudge(weights=path, llm_vote=True, encoder=StubEncoder(), llm_judge=VoteJudge())
    assert own.band is None and own.fast is None
    banded = EnsembleJudge(weights=path, llm_vote=True, encoder=StubEncoder(),
                           llm_judge=VoteJudge(), llm_band=[0.2, 0.8])  # fmt: skip
    assert banded.band == (0.2, 0.8)


# ---- inference -----------------------------------------------------------------------------


def test_inference_is_deterministic_and_points_at_evidence() -> None:
    ctx = JudgeContext(
        ("Full-time staff receive 25 days of paid leave.", "The canteen opens at 7."), PASSAGES
    )
    first = asyncio.run(EnsembleJudge(encoder=StubEncoder()).judge(ctx))
    again = asyncio.run(EnsembleJudge(encoder=StubEncoder()).judge(ctx))
    assert first == again
    supported, unsupported = first
    assert supported.score > unsupported.score
    assert supported.passage_id == "leave" and supported.span is not None
    assert unsupported.label == "not_supported"


def test_negation_mismatch_below_threshold_is_contradicted(tmp_path: Path) -> None:
    path = write_weights(tmp_path / "w.json", ["negation_mismatch"], [-10.0])
    judge = EnsembleJudge(weights=str(path), encoder=StubEncoder())
    (verdict,) = asyncio.run(
        judge.judge(JudgeContext(("Parking is not free for staff on weekdays.",), PASSAGES))
    )
    assert verdict.label == "contradicted" and "negation" in (verdict.reason or "")


# ---- training ------------------------------------------------------------------------------


def test_fit_logistic_separates_and_is_deterministic() -> None:
    x = np.array([[0.1], [0.2], [0.3], [0.7], [0.8], [0.9]])
    y = np.array([False, False, False, True, True, True])
    weights, intercept = fit_logistic(x, y, l2=0.1)
    assert weights[0] > 0
    model = LogisticModel(("a",), tuple(weights), intercept, 0.5)
    assert list(model.probability(x) >= 0.5) == list(y)
    assert fit_logistic(x, y, l2=0.1)[1] == intercept


def rows_with(columns: dict[str, list[list[float]]], labels: list[bool]) -> list[ExampleFeatures]:
    """Examples whose evidence sets have the given values of feature ``name`` (rest 0)."""
    rows = []
    from ragcard.judges.ensemble_features import FEATURES

    for i, supported in enumerate(labels):
        sets = []
        for s in range(len(next(iter(columns.values()))[i])):
            matrix = np.zeros((1, len(FEATURES)))
            for name, values in columns.items():
                matrix[0, FEATURES.index(name)] = values[i][s]
            sets.append(matrix)
        example = LabelledExample(f"e{i}", ("c",), (), supported, str(supported), "dev")
        rows.append(ExampleFeatures(example, "toy", tuple(sets)))
    return rows


def test_fit_ensemble_takes_the_best_evidence_set() -> None:
    # Each example has a distractor set (low values) and, when supported, a supporting one.
    labels = [True, False] * 10
    values = [[0.1, 0.9 if y else 0.2] for y in labels]
    rows = rows_with({"lexical_score": values, "emb_max": values}, labels)
    model = fit_ensemble(rows, ("lexical_score", "emb_max"), l2=0.1)
    scores = example_scores(rows, model)
    assert list(scores >= model.threshold) == labels


def test_training_refuses_evaluation_only_data() -> None:
    faithbench = Dataset("faithbench", "FaithBench", (), "", "non-commercial", "credit")
    with pytest.raises(ConfigError, match="evaluation only"):
        train_ensemble(FeatureExtractor(SentenceVectors(StubEncoder())), [faithbench])


def test_train_ensemble_cli_on_own_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ragcard._cli.judges import judges_app

    monkeypatch.setattr(ensemble_train, "load_default_encoder", lambda purpose: StubEncoder())
    out = tmp_path / "weights.json"
    result = CliRunner().invoke(
        judges_app,
        ["train-ensemble", "--dataset", str(FIXTURE), "--out", str(out), "--l2", "3"],
    )
    assert result.exit_code == 0, result.output
    assert "weights written to" in result.stdout and "threshold" in result.stdout
    model = load_weights(out)
    assert model.record["training"]["data"][0]["part"] == "dev"
    judge = EnsembleJudge(weights=str(out), encoder=StubEncoder())
    assert judge.identity.settings["weights"] == str(out)
    refused = CliRunner().invoke(
        judges_app, ["train-ensemble", "--dataset", "faithbench", "--out", str(out)]
    )
    assert refused.exit_code == 2 and "evaluation only" in refused.output


# ---- backend = "auto" ----------------------------------------------------------------------


def test_auto_is_the_ensemble_whatever_is_installed() -> None:
    # one judge decides on every install: never a silent switch to lexical
    assert registry.resolve_backend({"backend": "auto"}) == {"backend": "ensemble"}
    assert registry.resolve_backend({"backend": "lexical"}) == {"backend": "lexical"}


def test_auto_on_a_broken_install_is_an_error_that_says_how_to_repair_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ragcard.reference.embeddings as embeddings

    monkeypatch.setattr(embeddings, "_cache", {})
    monkeypatch.setattr(embeddings.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingExtraError, match="pip install --force-reinstall ragcard"):
        registry.build_judge({"backend": "auto"})


def test_auto_takes_no_options(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="'auto' takes no options"):
        registry.build_judge({"backend": "auto", "threshold": 0.5})


def project(tmp_path: Path, judge: str) -> Path:
    (tmp_path / "questions.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "corpus.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "thresholds.toml").write_text("", encoding="utf-8")
    path = tmp_path / "ragcard.toml"
    path.write_text(
        '[project]\nname = "t"\nkit = "knowledge-base"\nquestions = "questions.jsonl"\n'
        'corpus = "corpus.jsonl"\nthresholds = "thresholds.toml"\n\n[agent]\ntype = "callable"\n'
        'factory = "x:y"\n' + judge,
        encoding="utf-8",
    )
    return path


def test_auto_records_the_resolved_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ragcard.judges.ensemble.load_default_encoder", lambda *a: StubEncoder())
    judge = build_run_judge(load_config(project(tmp_path, '[judge]\nbackend = "auto"\n')))
    assert judge is not None
    identity: dict[str, Any] = judge.identity.to_json()
    assert identity["name"] == "ensemble" and identity["settings"]["requested"] == "auto"


def test_no_judge_section_still_means_no_judge(tmp_path: Path) -> None:
    assert build_run_judge(load_config(project(tmp_path, ""))) is None


def test_real_encoder_judges_the_lexical_fixture() -> None:
    judge = registry.build_judge({"backend": "ensemble"})
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    row = rows[0]
    passages = tuple(Evidence(p["id"], p["text"]) for p in row["passages"])
    (verdict,) = asyncio.run(judge.judge(JudgeContext((row["claim"],), passages)))
    assert verdict.label == "supported" and verdict.passage_id == "leave1"


def test_relevance_by_embeddings_and_abstention_by_phrases_are_declared() -> None:
    from ragcard.judges.embedding import TASK_VERSIONS

    judge = EnsembleJudge(encoder=StubEncoder())
    lexical = registry.build_judge({"backend": "lexical"})
    assert judge.identity.tasks == TASK_VERSIONS
    assert judge.identity.tasks["abstention"] == lexical.identity.tasks["abstention"]
    assert answers_task(judge, "relevance") and answers_task(judge, "abstention")
    ctx = JudgeContext(
        ("Sorry, I cannot find that in the handbook.", "Staff get 25 days of leave a year."),
        (),
        "How many days of leave do staff get?",
        task="abstention",
    )
    assert asyncio.run(judge.judge(ctx)) == asyncio.run(lexical.judge(ctx))
    relevance = asyncio.run(judge.judge(dataclasses.replace(ctx, task="relevance")))
    assert [v.label for v in relevance] == ["not_supported", "supported"]
    assert all("question-answer cosine" in (v.reason or "") for v in relevance)


def test_the_shipped_ensemble_carries_its_shipped_calibration() -> None:
    from ragcard.judges.metaeval.calibration import shipped_calibration

    judge = registry.build_judge({"backend": "ensemble"})
    record = shipped_calibration(judge.identity)
    assert record is not None and record["judge"]["name"] == "ensemble"


def test_a_calibration_measured_under_other_rules_is_not_shown() -> None:
    """``ensemble-llm.json`` was measured with ``ensemble-rules/1``, before the number rule:
    the judge of today is not the judge it describes, so no scorecard shows it as its own."""
    from importlib import resources

    from ragcard.judges.metaeval.calibration import shipped_calibration

    folder = resources.files("ragcard.judges").joinpath("calibrations")
    record = json.loads(folder.joinpath("ensemble-llm.json").read_text("utf-8"))
    local = JudgeIdentity(**record["judge"]["settings"]["llm"])  # the local judge's defaults

    class LocalDefaults(VoteJudge):
        identity = local

    judge = EnsembleJudge(llm_vote=True, llm_judge=LocalDefaults())
    assert "rules" not in record["judge"]["settings"]
    assert judge.identity.settings["rules"] == "ensemble-rules/5"
    assert shipped_calibration(judge.identity) is None
    assert record["datasets"][0]["name"] == "wice-100" and record["datasets"][0]["n"] == 100
    without_vote = shipped_calibration(EnsembleJudge().identity)
    assert without_vote is not None and without_vote["judge"]["settings"]["llm_vote"] is False
    stated = JudgeIdentity(**{**record["judge"]["settings"]["llm"], "settings": {}})

    class StatedScore(VoteJudge):
        identity = stated

    judge = EnsembleJudge(llm_vote=True, llm_judge=StatedScore())
    assert shipped_calibration(judge.identity) is None
    every_claim = EnsembleJudge(llm_vote=True, llm_judge=LocalDefaults(), llm_band=False)
    assert shipped_calibration(every_claim.identity) is None  # measured with the band
    assert record["judge"]["settings"]["llm_band"] == [0.1, 0.85]


def test_the_ensemble_takes_a_relevance_threshold() -> None:
    judge = EnsembleJudge(encoder=StubEncoder(), relevance_threshold=0.99)
    assert ">= 0.99" in judge.identity.tasks["relevance"]
    ctx = JudgeContext(("Staff get 25 days of leave a year.",), (),
                       "How many days of leave do staff get?", task="relevance")  # fmt: skip
    assert asyncio.run(judge.judge(ctx))[0].label == "not_supported"
    with pytest.raises(ConfigError, match="unknown option 'relevance_treshold'"):
        registry.build_judge({"backend": "ensemble", "relevance_treshold": 0.3})


_NAMES_SCRIPT = """
import asyncio, numpy as np
from ragcard.judges.base import Evidence, JudgeContext
from ragcard.judges.embedding import SentenceVectors
from ragcard.judges.ensemble_features import FeatureExtractor
class Flat:
    def encode(self, texts): return np.full((len(texts), 4), 0.5, dtype=np.float32)
    def describe(self): return {}
ctx = JudgeContext(("The prize went to Saint-Exupery, Jean-Luc and Marie-Curie.",),
                   (Evidence("p", "Exupery, Luc and Curie won it."),), None)
(features,) = asyncio.run(FeatureExtractor(SentenceVectors(Flat())).extract(ctx))
print(features.values["names_absent"])
"""


def test_names_absent_reads_a_hyphenated_name_the_same_under_every_hash_seed() -> None:
    """A name's term was a set's first element, so "Saint-Exupery" was "saint" under one
    ``PYTHONHASHSEED`` and "exupery" under another (FaithBench verdicts changed between runs);
    it is the name's first term now."""
    values = {
        subprocess.run([sys.executable, "-c", _NAMES_SCRIPT], capture_output=True, text=True,
                       check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
        for seed in range(1, 7)
    }  # fmt: skip
    assert values == {f"{np.log1p(3)}\n"}  # saint, jean, marie: none in the passage
