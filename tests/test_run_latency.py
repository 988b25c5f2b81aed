"""Latency measures the agent: under ``ragcard run`` the judge and the scoring never hold the
loop that calls and times the agent (issue 20 item 11; docs/metrics.md#latency).

No clock is read: a judge that blocks its thread until the agent has answered every call can
only finish when the agent keeps being called while the judge works — on today's single loop
it would wait out its guard and say so; off the loop the agent's last call releases it. The
benchmark (benchmarks/bench_run_latency.py) measures the recorded latency itself.
"""

from __future__ import annotations

import shutil
import sys
import threading
import types
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from ragcard.judges import registry
from ragcard.judges.base import JudgeContext, JudgeIdentity, Verdict
from ragcard.pipeline.running import run_evaluation

ANSWERED = threading.Event()  # set by the agent's last call
SEEN: dict[str, Any] = {"calls": 0, "expected": 0, "judge_waited": False, "judge_waited_out": 0,
                        "judge_threads": set()}  # fmt: skip

AGENT = """
import asyncio

import ragcard_latency_plugin as shared


async def answer(request):  # an async agent: it runs on the loop that times it
    await asyncio.sleep(0)  # (yields to that loop, as any I/O would)
    shared.on_call()
    return {"answer": "You get 25 days of annual leave.", "retrieved": ["leave@2025#1"]}
"""


def on_call() -> None:
    SEEN["calls"] += 1
    if SEEN["calls"] >= SEEN["expected"]:
        ANSWERED.set()


class BlockingJudge:
    """Its first call blocks its thread (synchronously, like a model on the CPU) until every
    agent call is in; the wait's bound is a guard against a deadlock, not a timing margin."""

    identity = JudgeIdentity(name="blocking", model="1")

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> BlockingJudge:
        return cls()

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        SEEN["judge_threads"].add(threading.get_ident())
        if not SEEN["judge_waited"]:
            SEEN["judge_waited"] = True
            if not ANSWERED.wait(timeout=10):
                SEEN["judge_waited_out"] += 1
        return [Verdict("supported", 1.0) for _ in ctx.claims]


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("ragcard_latency_plugin")
    module.BlockingJudge = BlockingJudge  # type: ignore[attr-defined]
    module.on_call = on_call  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ragcard_latency_plugin", module)
    point = metadata.EntryPoint(
        "blocking", "ragcard_latency_plugin:BlockingJudge", registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "_entry_points", lambda: [point])
    ANSWERED.clear()
    SEEN.update(calls=0, judge_waited=False, judge_waited_out=0, judge_threads=set())


def test_a_judge_holding_its_thread_does_not_stop_the_agent_being_called(
    plugin: None, mini: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    for name in ("questions.jsonl", "corpus.jsonl"):
        shutil.copy(mini / name, folder / name)
    (folder / "thresholds.toml").write_text(
        '[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 0\ntype = "graded"\n'
        'reason = "anything"\n'
    )
    (folder / "latency_agent.py").write_text(AGENT)
    (folder / "ragcard.toml").write_text(
        '[project]\nname = "latency"\n\n[agent]\ntype = "callable"\n'
        'function = "latency_agent:answer"\n\n[judge]\nbackend = "blocking"\n\n'
        "[run]\nattempts = 2\nconcurrency = 1\nrun_date = 2026-01-01\n"
    )
    items = sum(1 for line in (folder / "questions.jsonl").read_text().splitlines() if line)
    SEEN["expected"] = items * 2
    agent_thread = threading.get_ident()  # asyncio.run runs the agent's loop on this thread
    history = f"sqlite:///{tmp_path / 'h.sqlite'}"
    result = run_evaluation(folder, out_dir=folder / "out", eval_dir=folder / "eval",
                            progress=False, history_url=history)  # fmt: skip
    assert SEEN["calls"] == items * 2
    assert SEEN["judge_waited"] and SEEN["judge_waited_out"] == 0  # the agent kept being called
    assert agent_thread not in SEEN["judge_threads"]
    lines = result.results_path.read_text().splitlines()
    assert len(lines) == items * 2 and '"judge_error"' not in "".join(lines)
