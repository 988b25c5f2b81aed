"""build_agent as ragcard's callable adapter calls it: one ``[agent.options]`` mapping."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from ragcard.adapters.base import AgentCall
from ragcard.adapters.callable import CallableAdapter
from ragcard.errors import ConfigError
from ragcard.reference import ReferenceAgent, build_agent

OPTIONS = """
today = "2026-06-01"
embeddings = false
retrieval = "keyword"
k = 3
faults = []
"""


def test_the_whole_options_table_as_one_argument(corpus_path: Path) -> None:
    options = {"corpus": str(corpus_path), **tomllib.loads(OPTIONS)}
    agent = build_agent(options)
    assert isinstance(agent, ReferenceAgent) and agent.k == 3
    assert agent({"question": "Can I work from home?"})["citations"]


def test_unknown_option_lists_the_valid_ones(corpus_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'top_k'.*valid: corpus, faults, retrieval, k"):
        build_agent({"corpus": str(corpus_path), "top_k": 3})


def test_corpus_is_required() -> None:
    with pytest.raises(ConfigError, match="corpus is required"):
        build_agent({"k": 3})


async def test_through_the_callable_adapter(corpus_path: Path) -> None:
    options = {"corpus": str(corpus_path), **tomllib.loads(OPTIONS)}
    adapter = CallableAdapter.from_factory("ragcard.reference:build_agent", options)
    try:
        assert adapter.supports_retrieval
        request = {"question": "What are the Band C salaries?", "asker": "manager"}
        call = AgentCall(request=request, item_id="T-1", attempt=1, timeout_s=10)
        reply = await adapter.respond(call)
        assert reply.response.retrieved_ids[0] == "salary-bands#1"
        assert reply.response.cited_ids() == ["salary-bands#1"]
        retrieved = await adapter.retrieve(call)
        assert retrieved.response.retrieved_ids[0] == "salary-bands#1"
    finally:
        await adapter.aclose()
