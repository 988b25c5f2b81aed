"""The persistent verdict cache, the ledger and option loading."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ragcard.errors import ConfigError
from ragcard.judges.base import Evidence, JudgeContext, Verdict
from ragcard.judges.cache import (
    ChatOptions,
    JudgeCache,
    Ledger,
    cache_key,
    default_cache_path,
    load_options,
)

CTX = JudgeContext(("a claim",), (Evidence("p1", "some text"),), "a question")
VERDICTS = [
    Verdict("supported", 0.8, "p1", (0, 4), "some"),
    Verdict("not_supported", 0.1),
]


def test_key_depends_on_every_input() -> None:
    base = cache_key("m", "v1", CTX)
    assert base == cache_key(
        "m", "v1", JudgeContext(("a claim",), (Evidence("p1", "some text"),), "a question")
    )
    assert len(base) == 64
    changed = [
        cache_key("m2", "v1", CTX),
        cache_key("m", "v2", CTX),
        cache_key("m", "v1", JudgeContext(("another",), CTX.passages, CTX.question)),
        cache_key(
            "m", "v1", JudgeContext(CTX.claims, (Evidence("p2", "some text"),), CTX.question)
        ),
        cache_key("m", "v1", JudgeContext(CTX.claims, (Evidence("p1", "other"),), CTX.question)),
        cache_key("m", "v1", JudgeContext(CTX.claims, CTX.passages, None)),
    ]
    assert base not in changed and len(set(changed)) == len(changed)


def test_round_trip_and_counts(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    assert cache.get("k") is None
    cache.put("k", "m", "v1", VERDICTS)
    assert cache.get("k") == VERDICTS
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)
    cache.put("k", "m", "v1", VERDICTS[:1])  # replaced, not duplicated
    assert cache.get("k") == VERDICTS[:1] and len(cache) == 1
    cache.close()


def test_persists_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "c.sqlite3"
    first = JudgeCache(path)
    first.put("k", "m", "v1", VERDICTS)
    first.close()
    second = JudgeCache(path)
    assert second.get("k") == VERDICTS
    second.close()


def test_a_broken_database_only_costs_calls(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    cache.put("k", "m", "v1", VERDICTS)
    cache._db.execute("DROP TABLE verdicts")
    assert cache.get("k") is None
    cache.put("k", "m", "v1", VERDICTS)
    assert (cache.misses, cache.errors) == (1, 2)
    cache.close()


def test_in_memory_and_threads() -> None:
    cache = JudgeCache(":memory:")

    def write(index: int) -> None:
        for j in range(20):
            cache.put(f"{index}-{j}", "m", "v1", VERDICTS)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 80
    cache.close()


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / "ragcard" / "judge-cache.sqlite3"


def test_ledger_cost_and_snapshot() -> None:
    plain = Ledger()
    plain.add_usage(1000, 500, estimated=False)
    assert plain.cost() is None
    priced = Ledger(price_prompt_per_1k=1.0, price_completion_per_1k=4.0)
    priced.add_usage(1500, 250, estimated=False)
    priced.add_usage(10, 10, estimated=True)
    priced.calls, priced.failures = 3, 1
    stats = priced.snapshot(None)
    assert stats.cost == pytest.approx(1.51 + 1.04)
    assert stats.tokens_estimated and (stats.calls, stats.failures) == (3, 1)
    assert stats.to_json()["prompt_tokens"] == 1510


def test_load_options_reports_every_problem_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        load_options(ChatOptions, {"threshhold": 0.5, "parse_retries": -1, "token": "x"}, "llm")
    message = str(caught.value)
    assert message.startswith("judge 'llm':")
    assert "unknown option 'threshhold' (did you mean 'threshold'?)" in message
    assert "parse_retries" in message and "environment only" in message
    assert "'x'" not in message  # a secret-looking value is never echoed
    assert load_options(ChatOptions, {"backend": "llm", "threshold": 0.6}, "llm").threshold == 0.6
