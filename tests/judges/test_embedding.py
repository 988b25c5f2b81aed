"""The ``embedding`` judge: nearest-sentence cosine, calibrated; vectors cached per passage.

Most tests run offline on a deterministic stub encoder (hashed bags of words); the ones that
need the real MiniLM encoder skip without the ``embed`` extra.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import ragcard.reference.embeddings as embeddings_module
from ragcard.errors import ConfigError, MissingExtraError
from ragcard.judges.base import Evidence, JudgeContext
from ragcard.judges.embedding import EmbeddingJudge, SentenceVectors
from ragcard.judges.registry import BUILTIN_JUDGES, build_judge


class StubEncoder:
    """Hashed bag-of-words vectors, L2-normalised: deterministic, no model."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, hashlib.sha256(word.encode()).digest()[0] % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.clip(norms, 1e-9, None)

    def describe(self) -> dict[str, Any]:
        return {"model": "stub", "sha256": "0" * 64}


def write_weights(path: Path, features: list[str], weights: list[float], **extra: Any) -> Path:
    record = {
        "schema": "ragcard.judge-weights/1",
        "features": features,
        "weights": weights,
        "intercept": -5.0,
        "threshold": 0.5,
        "training": {"examples": 0, "data": []},
        **extra,
    }
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


PASSAGES = (
    Evidence("p1", "The office opens at nine. Parking is free for staff."),
    Evidence("p2", "Lunch is served in the canteen from noon."),
)


def test_registered_as_a_builtin() -> None:
    assert BUILTIN_JUDGES["embedding"] == "ragcard.judges.embedding:EmbeddingJudge"


def test_sentence_vectors_encode_each_passage_once_and_evict_least_recent() -> None:
    encoder = StubEncoder()
    vectors = SentenceVectors(encoder, capacity=2)
    vectors.match(["claim one"], PASSAGES)
    vectors.match(["claim two", "claim three"], PASSAGES)
    assert encoder.calls[0] == [
        "claim one",
        "The office opens at nine.",
        "Parking is free for staff.",
        "Lunch is served in the canteen from noon.",
    ]
    assert encoder.calls[1] == ["claim two", "claim three"]  # passages came from the cache
    assert vectors.encoded_sentences == 3
    vectors.match(["x"], (Evidence("p3", "A third passage."),))  # evicts p1 (least recent)
    vectors.match(["y"], PASSAGES[:1])
    assert encoder.calls[-1] == ["y", "The office opens at nine.", "Parking is free for staff."]


def test_verdict_points_at_the_nearest_sentence(tmp_path: Path) -> None:
    weights = write_weights(tmp_path / "w.json", ["emb_max"], [10.0])
    judge = EmbeddingJudge(weights=str(weights), encoder=StubEncoder())
    ctx = JudgeContext(("Lunch is served in the canteen from noon.", "zebra quantum"), PASSAGES)
    first, second = asyncio.run(judge.judge(ctx))
    assert first.label == "supported" and first.passage_id == "p2"
    assert first.span is not None
    assert PASSAGES[1].text[first.span[0] : first.span[1]] == PASSAGES[1].text
    assert first.score > 0.99
    assert second.label == "not_supported" and second.score < 0.5
    assert judge.identity.name == "embedding" and judge.identity.threshold == 0.5


def test_no_passage_text_is_not_supported(tmp_path: Path) -> None:
    weights = write_weights(tmp_path / "w.json", ["emb_max"], [10.0])
    judge = EmbeddingJudge(weights=str(weights), encoder=StubEncoder())
    (verdict,) = asyncio.run(judge.judge(JudgeContext(("anything",), ())))
    assert verdict.label == "not_supported" and verdict.score == 0.0


def test_weights_of_other_features_are_refused_naming_the_file(tmp_path: Path) -> None:
    weights = write_weights(tmp_path / "w.json", ["lexical_score"], [1.0])
    with pytest.raises(ConfigError, match=r"w\.json.*emb_max.*train-ensemble"):
        EmbeddingJudge(weights=str(weights), encoder=StubEncoder())


def test_threshold_out_of_range_is_refused(tmp_path: Path) -> None:
    weights = write_weights(tmp_path / "w.json", ["emb_max"], [1.0])
    with pytest.raises(ConfigError, match="threshold"):
        EmbeddingJudge(threshold=1.5, weights=str(weights), encoder=StubEncoder())


def test_missing_extra_names_the_judge_and_the_install_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing() -> None:
        raise MissingExtraError("onnxruntime", "embed", "Dense retrieval")

    monkeypatch.setattr(embeddings_module, "load_encoder", missing)
    with pytest.raises(MissingExtraError, match=r"The embedding judge.*force-reinstall ragcard"):
        build_judge({"backend": "embedding"})


def test_unknown_option_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown option 'tresh'"):
        build_judge({"backend": "embedding", "tresh": 0.5})


def test_shipped_weights_rank_support_above_an_unrelated_claim() -> None:
    judge = build_judge({"backend": "embedding"})
    ctx = JudgeContext(
        ("Staff can park for free.", "The moon orbits the earth every 27 days."), PASSAGES
    )
    supported, unrelated = asyncio.run(judge.judge(ctx))
    assert supported.passage_id == "p1" and supported.score > unrelated.score
    assert judge.identity.settings["encoder_sha256"] == embeddings_module.MODEL_SHA256


def test_relevance_is_the_question_answer_cosine_and_abstention_the_phrases(
    tmp_path: Path,
) -> None:
    from ragcard.judges.base import TaskNotSupportedError
    from ragcard.judges.embedding import RELEVANCE_THRESHOLD, TASK_VERSIONS

    encoder = StubEncoder()
    judge = EmbeddingJudge(weights=str(write_weights(tmp_path / "w.json", ["emb_max"], [10.0])),
                           encoder=encoder)  # fmt: skip
    assert judge.identity.tasks == TASK_VERSIONS
    question = "When does the office open?"
    answers = ("The office opens at nine.", "Lunch is served from noon.", " ")
    ctx = JudgeContext(answers, (), question, task="relevance")
    on_topic, off_topic, empty = asyncio.run(judge.judge(ctx))
    assert on_topic.label == "supported" and on_topic.score >= RELEVANCE_THRESHOLD
    assert off_topic.label == "not_supported" and off_topic.score < RELEVANCE_THRESHOLD
    assert (empty.label, empty.score, empty.reason) == ("not_supported", 0.0, "empty answer")
    assert "question-answer cosine" in (on_topic.reason or "")
    encoded = sum(len(call) for call in encoder.calls)
    asyncio.run(judge.judge(ctx))  # the question and answers are cached: nothing re-encoded
    assert sum(len(call) for call in encoder.calls) == encoded
    refusal = JudgeContext(("Sorry, I cannot find that.",), (), question, task="abstention")
    assert asyncio.run(judge.judge(refusal))[0].label == "supported"
    with pytest.raises(TaskNotSupportedError, match="relevance without a question"):
        asyncio.run(judge.judge(JudgeContext(answers, (), None, task="relevance")))


def test_the_relevance_threshold_is_an_option_recorded_in_the_identity(tmp_path: Path) -> None:
    weights = str(write_weights(tmp_path / "w.json", ["emb_max"], [10.0]))
    question, answer = "When does the office open?", "The office opens at nine."
    ctx = JudgeContext((answer,), (), question, task="relevance")
    (default,) = asyncio.run(EmbeddingJudge(weights=weights, encoder=StubEncoder()).judge(ctx))
    strict = EmbeddingJudge(weights=weights, encoder=StubEncoder(), relevance_threshold=0.99)
    (refused,) = asyncio.run(strict.judge(ctx))
    assert default.label == "supported" and refused.label == "not_supported"
    assert refused.score == default.score  # the same cosine, another line
    assert ">= 0.99" in strict.identity.tasks["relevance"]
    with pytest.raises(ConfigError, match="relevance_threshold must be in"):
        EmbeddingJudge(weights=weights, encoder=StubEncoder(), relevance_threshold=1.5)
