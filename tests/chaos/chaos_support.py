"""Small self-contained projects for the chaos tests: synthetic questions whose gold passage is
the one the fault agents retrieve first, a corpus holding every passage they can name, and an
agent table pointing at a :class:`~ragcard.adapters.testing.FaultServer` or a callable."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragcard.adapters.testing import canned_response, synthetic_questions

SHIP_THRESHOLDS = """
[[threshold]]
measure = "access_leaks"
comparison = "<="
value = 0
type = "must-pass"
reason = "Restricted passages must never reach people without access."

[[threshold]]
measure = "recall@5"
comparison = ">="
value = 0.9
type = "graded"
reason = "Answers start from the right passages."
"""

NO_FAILURES = """
[[threshold]]
measure = "agent_error_rate"
comparison = "<="
value = 0
type = "must-pass"
reason = "A decision is never made on attempts that failed."
"""


def _toml_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


def make_project(
    folder: Path,
    agent: Mapping[str, Any],
    *,
    questions: int = 12,
    thresholds: str = SHIP_THRESHOLDS + NO_FAILURES,
    run: Mapping[str, Any] | None = None,
    name: str = "chaos",
) -> Path:
    """Write ragcard.toml, questions.jsonl, corpus.jsonl and thresholds.toml into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "questions.jsonl").open("w", encoding="utf-8") as handle:
        for question in synthetic_questions(questions):
            gold = canned_response(question.question)["retrieved"][0]
            record = {"id": question.id, "question": question.question, "gold": [gold],
                      "category": "typical", "expected_answer": "The sources answer it."}
            handle.write(json.dumps(record) + "\n")
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for number in range(97):
            for step in range(3):
                passage = {"id": f"doc-{number}#p{step}", "doc": f"doc-{number}",
                           "text": f"Rule {number} part {step} says what the handbook says."}
                handle.write(json.dumps(passage) + "\n")
    if "[evidence]" not in thresholds:  # a handful of items: the harness, not a decision's size
        thresholds += '\n[evidence]\nmin_items = 1\nreason = "a chaos fixture"\n'
    (folder / "thresholds.toml").write_text(thresholds, encoding="utf-8")
    settings = {"attempts": 1, "concurrency": 4, "timeout_s": 5, "retries": 1, "seed": 7,
                **(run or {})}
    lines = [
        "[project]", f"name = {json.dumps(name)}", 'kit = "knowledge-base"',
        'questions = "questions.jsonl"', 'corpus = "corpus.jsonl"',
        'thresholds = "thresholds.toml"', 'corpus_version = "chaos-1"', "",
        "[agent]", *(f"{k} = {_toml_value(v)}" for k, v in agent.items()), "",
        "[run]", *(f"{k} = {_toml_value(v)}" for k, v in settings.items()), "",
    ]
    (folder / "ragcard.toml").write_text("\n".join(lines), encoding="utf-8")
    return folder


def http_agent(url: str, **extra: Any) -> dict[str, Any]:
    """An ``[agent]`` table for a FaultServer endpoint (the attempt is sent, as it counts)."""
    return {"type": "http", "url": url, "send_attempt": True, **extra}


def callable_agent(**plan: Any) -> dict[str, Any]:
    """An ``[agent]`` table for :func:`ragcard.adapters.testing.faulty_agent`."""
    return {"type": "callable", "factory": "ragcard.adapters.testing:faulty_agent",
            "send_attempt": True, "options": plan}


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


#: How each fault ends over HTTP: (verdict kind, transient?). ``cut`` is an incomplete stream
#: or a short body (retried); ``wrong_body`` a 200 that is not the declared format.
HTTP_OUTCOME = {
    "ok": ("ok", False),
    "timeout": ("timeout", True),
    "error": ("transport", True),
    "malformed": ("malformed_output", False),
    "bug": ("transport", False),
    "refused": ("transport", False),
    "rate_limited": ("transport", True),
    "closed": ("transport", True),
    "cut": ("transport", True),
    "wrong_body": ("malformed_output", False),
    "echo": ("transport", False),
}


def planned(plan: Any, questions: list[Any], attempts: int, retries: int
            ) -> dict[tuple[str, int], tuple[str, int]]:
    """What the plan says each item-attempt ends as over HTTP: ``(verdict, tries)``."""
    expected = {}
    for question in questions:
        for attempt in range(1, attempts + 1):
            for try_number in range(1, retries + 2):
                verdict, transient = HTTP_OUTCOME[plan.fault(question.question, attempt,
                                                             try_number)]
                if not transient or try_number == retries + 1:
                    expected[(question.id, attempt)] = (verdict, try_number)
                    break
    return expected
