"""The run's judge as ``[judge]`` describes it: file paths are the project's."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.inputs.config import load_config
from ragcard.judges.llm import LlmJudge
from ragcard.pipeline.project import build_run_judge


def _project(folder: Path, judge: str) -> Path:
    folder.mkdir()
    path = folder / "ragcard.toml"
    path.write_text(
        '[project]\nname = "t"\nkit = "knowledge-base"\nquestions = "q.jsonl"\n'
        'corpus = "c.jsonl"\nthresholds = "t.toml"\n\n[agent]\ntype = "callable"\n'
        'factory = "x:y"\n\n[judge]\nbackend = "llm"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "m"\n' + judge,
        encoding="utf-8",
    )
    return path


def test_a_relative_cache_path_is_the_projects_not_the_shells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(_project(tmp_path / "project", 'cache = "cache/judge.sqlite3"\n'))
    judge = build_run_judge(config)
    assert isinstance(judge, LlmJudge) and judge.cache is not None
    assert judge.cache.path == tmp_path / "project" / "cache" / "judge.sqlite3"
    judge.close()


def test_an_in_memory_cache_stays_in_memory(tmp_path: Path) -> None:
    judge = build_run_judge(load_config(_project(tmp_path / "p", 'cache = ":memory:"\n')))
    assert isinstance(judge, LlmJudge) and judge.cache is not None
    assert str(judge.cache.path) == ":memory:"
    judge.close()
