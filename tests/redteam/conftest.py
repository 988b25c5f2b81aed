"""Fixtures for the red team: a history and a run helper (plain helpers: redteam_support)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from redteam_support import RunRedteam

from ragcard.redteam import RedteamResult, run_redteam


@pytest.fixture
def history(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'history.sqlite'}"


@pytest.fixture
def redteam(tmp_path: Path, history: str) -> RunRedteam:
    """``run_redteam`` with a fresh out folder per call, one attempt, the test's history, and
    the reference agent on keyword search (``embeddings = false``): with the embed extra every
    run would encode the corpus twice, minutes on a busy machine. The default (hybrid) agent is
    red-teamed by benchmarks/redteam_examples.py."""
    calls = {"n": 0}

    def run(project: Path, faults: list[str] | None = None, **options: Any) -> RedteamResult:
        calls["n"] += 1
        settings: dict[str, Any] = {
            "out_dir": tmp_path / f"redteam-{calls['n']}",
            "attempts": 1,
            "progress": False,
            "history_url": history,
            "fresh": True,
        }
        settings.update(options)
        if "agent_options" not in settings:  # (a test's own agent takes none)
            settings["agent_options"] = {"embeddings": False, "faults": faults or []}
        return run_redteam(project, **settings)

    return run
