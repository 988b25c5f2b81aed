"""The ``local`` judge in-process on a real GGUF model (SmolLM2-135M: plumbing, not judgement).

Skipped, saying why, without llama-cpp-python or the model (tests/judges/README.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ragcard.judges.base import Evidence, JudgeContext
from ragcard.judges.local import LocalJudge
from ragcard.judges.models import find_model


def _why_skip() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "needs llama-cpp-python (pip install 'ragcard[local]'; see tests/judges/README.md)"
    if find_model("smollm2-135m") is None:
        return "needs the smollm2-135m model: ragcard judges install-local --model smollm2-135m"
    return None


pytestmark = pytest.mark.skipif(_why_skip() is not None, reason=_why_skip() or "")

PASSAGES = (
    Evidence("leave#1", "Full-time staff get 25 days of paid annual leave."),
    Evidence("leave#2", "Leave requests are approved by the line manager."),
)


async def test_grammar_constrained_verdicts_and_cache(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite3")
    ctx = JudgeContext(
        ("Staff get 25 days of leave.", "Managers approve leave.", "Leave is unpaid."),
        PASSAGES,
        "How much leave do I get?",
    )
    judge = LocalJudge.from_config({"model": "smollm2-135m", "cache": cache, "n_ctx": 2048})
    verdicts = await judge.judge(ctx)
    assert len(verdicts) == 3
    for verdict in verdicts:
        assert verdict.label in ("supported", "not_supported", "contradicted")
        assert 0.0 <= verdict.score <= 1.0 and verdict.passage_id in (None, "leave#1", "leave#2")
    # scores are read from the model's logits, not written under the grammar (steps of 0.05)
    assert any(round(v.score * 20, 6) != round(v.score * 20) for v in verdicts)
    stats = judge.stats()
    # the grammar makes the first answer usable: one call, real token counts
    assert stats.calls == 1 and stats.invalid_outputs == 0
    assert stats.prompt_tokens > 100 and not stats.tokens_estimated
    assert judge.identity.model == "smollm2-135m-instruct-q4_1"
    judge.close()

    again = LocalJudge.from_config({"model": "smollm2-135m", "cache": cache})
    assert await again.judge(ctx) == verdicts
    assert again.stats().calls == 0 and again.n_ctx == 0  # answered without loading the model
    again.close()
