"""The ``local`` judge offline: a fake ``llama_cpp.Llama`` stands in for the model."""

from __future__ import annotations

import asyncio
import json
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragcard.errors import ConfigError, MissingExtraError
from ragcard.judges.base import Evidence, JudgeContext, JudgeError
from ragcard.judges.local import LocalJudge
from ragcard.judges.prompts import PROMPT_VERSION

CTX = JudgeContext(
    ("Staff get 25 days of leave.", "Leave is unpaid."),
    (Evidence("p1", "Staff get 25 days of paid leave a year."),),
    "How much leave?",
)
ANSWER = {
    "verdicts": [
        {"verdict": "supported", "claim": 0, "passage": "p1", "quote": "25 days", "score": 0.9},
        {
            "verdict": "contradicted",
            "claim": 1,
            "passage": "p1",
            "quote": "paid leave",
            "score": 0.05,
        },
    ]
}


#: The fake's vocabulary: one token per printable ASCII character.
VOCAB = [chr(code) for code in range(32, 127)]
#: The fake's logits for the first letters of the three labels (every other token: 0).
LABEL_LOGITS = {"s": 2.0, "n": 0.5, "c": -1.0}
#: P(supported) those logits give over the three labels.
P_SUPPORTED = math.exp(2.0) / (math.exp(2.0) + math.exp(0.5) + math.exp(-1.0))


class FakeLlama:
    """Records how it was built and called; answers ANSWER; one token per 4 bytes to size
    prompts; generates its reply a character a time, through any logits processors."""

    built: list[dict[str, Any]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.calls: list[dict[str, Any]] = []
        self.busy = False
        self.closed = False
        self.reply: Any = ANSWER
        FakeLlama.built.append(kwargs)

    def n_ctx(self) -> int:
        return int(self.kwargs["n_ctx"])

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return [0] * (len(text) // 4 + 1)

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        if self.busy:
            raise AssertionError("re-entered")
        self.busy = True
        try:
            time.sleep(0.01)
            self.calls.append(kwargs)
            if isinstance(self.reply, Exception):
                raise self.reply
            content = self.reply if isinstance(self.reply, str) else json.dumps(self.reply)
            self._generate(content, kwargs.get("logits_processor") or [])
            return {
                "choices": [
                    {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 30},
            }
        finally:
            self.busy = False

    def close(self) -> None:
        self.closed = True

    def n_vocab(self) -> int:
        return len(VOCAB)

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(VOCAB[t] for t in tokens).encode()

    def _generate(self, content: str, processors: list[Any]) -> None:
        logits = np.zeros(len(VOCAB), dtype=np.float32)
        for letter, value in LABEL_LOGITS.items():
            logits[VOCAB.index(letter)] = value
        ids = [0] * 7  # the prompt
        for char in content:
            for processor in processors:
                logits = processor(np.array(ids), logits)
            ids.append(VOCAB.index(char))


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "Tiny-Model.Q4.gguf"
    path.write_bytes(b"GGUF")
    return path


def make(model_file: Path, **options: Any) -> LocalJudge:
    FakeLlama.built.clear()
    settings: dict[str, Any] = {"model_path": str(model_file), "cache": False, **options}
    return LocalJudge(llama_factory=FakeLlama, **settings)


def loaded(judge: LocalJudge) -> FakeLlama:
    llama = judge._llama
    assert isinstance(llama, FakeLlama)
    return llama


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch, model_file: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import fails
    with pytest.raises(MissingExtraError, match=r"pip install 'ragcard\[local\]'") as caught:
        LocalJudge.from_config({"model_path": str(model_file)})
    assert caught.value.package == "llama-cpp-python" and "The local judge" in str(caught.value)


def test_uninstalled_model_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RAGCARD_MODELS", str(tmp_path))
    monkeypatch.setattr("ragcard.judges.models.metadata.distribution", _no_distribution)
    with pytest.raises(ConfigError, match="ragcard judges install-local --model smollm2-135m"):
        LocalJudge(llama_factory=FakeLlama, model="smollm2-135m")
    with pytest.raises(ConfigError, match="unknown model 'gpt-9'"):
        LocalJudge(llama_factory=FakeLlama, model="gpt-9")
    with pytest.raises(ConfigError, match="is not a file"):
        LocalJudge(llama_factory=FakeLlama, model_path=str(tmp_path / "none.gguf"))


def _no_distribution(name: str) -> Any:
    from importlib import metadata

    raise metadata.PackageNotFoundError(name)


async def test_judges_with_grammar_constrained_json(model_file: Path) -> None:
    judge = make(model_file, n_threads=3, seed=7)
    verdicts = await judge.judge(CTX)
    assert [v.label for v in verdicts] == ["supported", "contradicted"]
    assert verdicts[0].span == (10, 17)
    llama = loaded(judge)
    assert llama.kwargs["model_path"] == str(model_file)
    assert llama.kwargs["n_threads"] == 3 and llama.kwargs["seed"] == 7
    assert llama.kwargs["verbose"] is False
    (call,) = llama.calls
    assert call["temperature"] == 0.0 and call["seed"] == 7
    assert call["response_format"]["type"] == "json_object"
    items = call["response_format"]["schema"]["properties"]["verdicts"]["prefixItems"]
    assert len(items) == 2
    assert call["messages"][0]["role"] == "system"
    identity = judge.identity
    assert (identity.name, identity.model, identity.prompt_version) == (
        "local",
        "tiny-model.q4",
        PROMPT_VERSION,
    )
    assert identity.settings["model_file"] == "Tiny-Model.Q4.gguf"
    stats = judge.stats()
    assert (stats.calls, stats.prompt_tokens, stats.completion_tokens) == (1, 100, 30)
    judge.close()
    assert llama.closed


async def test_threads_default_to_every_core(model_file: Path) -> None:
    judge = make(model_file)
    await judge.judge(CTX)
    assert loaded(judge).kwargs["n_threads"] >= 1


async def test_context_grows_to_fit_the_prompt(model_file: Path) -> None:
    judge = make(model_file)
    long = JudgeContext(CTX.claims, (Evidence("p1", "word " * 4000),))  # ~5000 tokens
    await judge.judge(CTX)
    assert judge.n_ctx == 2048
    loaded(judge).reply = {"verdicts": [ANSWER["verdicts"][0], ANSWER["verdicts"][1]]}
    await judge.judge(long)
    assert judge.n_ctx > 5000 and judge.n_ctx % 1024 == 0
    assert len(FakeLlama.built) == 2


async def test_fixed_context_too_small_is_a_judge_error(model_file: Path) -> None:
    judge = make(model_file, n_ctx=512)
    with pytest.raises(JudgeError, match="raise n_ctx"):
        await judge.judge(JudgeContext(CTX.claims, (Evidence("p1", "word " * 2000),)))
    assert judge.stats().failures == 1


async def test_one_generation_at_a_time(model_file: Path) -> None:
    judge = make(model_file)
    contexts = [JudgeContext(CTX.claims, CTX.passages, f"q{i}") for i in range(6)]
    results = await asyncio.gather(*(judge.judge(ctx) for ctx in contexts))
    assert all(len(r) == 2 for r in results)  # FakeLlama raises if re-entered
    assert len(loaded(judge).calls) == 6 and threading.active_count() >= 1


async def test_model_exception_and_bad_output(model_file: Path) -> None:
    judge = make(model_file, parse_retries=1)
    await judge.judge(CTX)
    loaded(judge).reply = RuntimeError("llama_decode returned -3")
    with pytest.raises(JudgeError, match="RuntimeError: llama_decode returned -3"):
        await judge.judge(JudgeContext(CTX.claims, CTX.passages, "other"))
    loaded(judge).reply = '{"verdicts": []}'
    with pytest.raises(JudgeError, match="expected 2 verdict") as caught:
        await judge.judge(JudgeContext(CTX.claims, CTX.passages, "third"))
    assert caught.value.raw == '{"verdicts": []}'
    assert len(loaded(judge).calls) == 1 + 1 + 2  # a model error is not retried; bad output is


async def test_shares_the_cache(model_file: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "cache.sqlite3")
    first = make(model_file, cache=path)
    await first.judge(CTX)
    first.close()
    second = make(model_file, cache=path)
    assert [v.label for v in await second.judge(CTX)] == ["supported", "contradicted"]
    assert second._llama is None  # the model was never even loaded
    assert second.stats().cache_hits == 1
    second.close()


def test_grammar_compiles_when_llama_cpp_is_installed() -> None:
    grammar = pytest.importorskip("llama_cpp.llama_grammar", reason="llama-cpp-python absent")
    from ragcard.judges.prompts import verdict_schema

    schema = verdict_schema(3, ["a#1", 'b "2"'], positional=True)
    compiled = grammar.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    assert compiled is not None


async def test_answer_check_uses_the_grammar_form_of_its_schema(model_file: Path) -> None:
    from ragcard.judges.answer_check import answer_schema

    judge = make(model_file)
    llama_reply = {"declines": "yes", "declines_score": 0.95, "addresses": "yes",
                   "addresses_score": 0.8}  # fmt: skip
    await judge.judge(CTX)  # loads the model
    loaded(judge).reply = llama_reply
    (declines,) = await judge.judge(JudgeContext(("Not in the handbook.",), (), "Q?", "abstention"))
    (addresses,) = await judge.judge(JudgeContext(("Not in the handbook.",), (), "Q?", "relevance"))
    assert declines.supported and addresses.supported
    call = loaded(judge).calls[-1]
    assert call["response_format"] == {"type": "json_object", "schema": answer_schema(grammar=True)}
    assert len(loaded(judge).calls) == 2  # support + one answer check for both tasks
    assert set(judge.identity.tasks) == {"abstention", "relevance", "correctness"}
    judge.close()
    assert "logits_processor" not in call  # probabilities are read for support verdicts only


async def test_scores_are_the_models_probability_of_supported(model_file: Path) -> None:
    judge = make(model_file)
    verdicts = await judge.judge(CTX)
    # the reply states 0.9 and 0.05; the fake's logits give every verdict P(supported) 0.786
    assert [v.score for v in verdicts] == [round(P_SUPPORTED, 6)] * 2
    assert [v.label for v in verdicts] == ["supported", "contradicted"]  # as written
    assert "next-token probability" in judge.identity.settings["score"]
    (call,) = loaded(judge).calls
    assert len(call["logits_processor"]) == 1


async def test_stated_scores_on_request_and_apart_in_the_cache(
    model_file: Path, tmp_path: Path
) -> None:
    path = str(tmp_path / "cache.sqlite3")
    stated = make(model_file, score="stated", cache=path)
    assert [v.score for v in await stated.judge(CTX)] == [0.9, 0.05]
    assert "logits_processor" not in loaded(stated).calls[0]
    assert "writes in its reply" in stated.identity.settings["score"]
    stated.close()
    probability = make(model_file, cache=path)  # a stated score is not served as a probability
    assert [v.score for v in await probability.judge(CTX)] == [round(P_SUPPORTED, 6)] * 2
    assert probability.stats().cache_hits == 0
    probability.close()
    with pytest.raises(ConfigError, match="score"):
        make(model_file, score="vibes")


async def test_below_threshold_probability_is_not_supported(model_file: Path) -> None:
    judge = make(model_file, threshold=0.8)  # P(supported) 0.786 < 0.8
    verdicts = await judge.judge(CTX)
    assert [v.label for v in verdicts] == ["not_supported", "contradicted"]
    assert "score 0.785" in (verdicts[0].reason or "")
