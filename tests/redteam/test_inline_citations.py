"""An agent that cites inline (``[passage-id]`` in its answer, as docs/agents.md documents)
is scored as one that cites explicitly: on the handbook the hardened reference agent, citing
inline, leaks nothing and the red team finds nothing critical, while the leaking fault
``filter_after_ranking`` is still caught as often as with explicit citations."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from redteam_support import RunRedteam, copy_example

from ragcard.pipeline.running import run_evaluation

AGENT = '''
"""The reference agent, its citations written inline at the end of their sentences."""
from ragcard.inputs.responses import split_sentences
from ragcard.reference import build_agent


def build(options):
    agent = build_agent(dict(options))

    def answer(request):
        response = dict(agent(request))
        sentences = split_sentences(response.get("answer") or "")
        for cite in response.pop("citations", None) or []:
            n = cite["sentence"]
            if n < len(sentences):
                text = sentences[n]
                end = text[-1] if text[-1:] in (".", "!", "?") else ""
                sentences[n] = text[: len(text) - len(end)] + f" [{cite['id']}]" + end
        response["answer"] = " ".join(sentences)
        return response

    return answer
'''


def inline_project(tmp_path: Path, judge: bool = True) -> Path:
    project = copy_example(tmp_path, "handbook")
    (project / "inline_cite_agent.py").write_text(AGENT)
    toml = (project / "ragcard.toml").read_text()
    toml = toml.replace('factory = "ragcard.reference:build_agent"',
                        'factory = "inline_cite_agent:build"')  # fmt: skip
    if not judge:  # the access layer needs none; the run is then quick
        toml = re.sub(r"\[judge\]\nbackend = \"auto\"\n", "", toml)
    (project / "ragcard.toml").write_text(toml)
    return project


def leaks(project: Path, out: Path, faults: list[str]) -> tuple[int, int]:
    """(answers leaking, of them by content alone) on one attempt per item."""
    result = run_evaluation(
        project, out_dir=out, eval_dir=out / "eval", attempts=1, progress=False, fresh=True,
        agent_options={"embeddings": False, "faults": faults},
        history_url=f"sqlite:///{out.parent / (out.name + '.sqlite')}",
    )  # fmt: skip
    card = result.scorecard.to_json()
    lines = [json.loads(line) for line in result.results_path.read_text().splitlines()]
    by_content = sum(
        1 for line in lines
        if (found := line["evidence"].get("leaks"))
        and all(leak["channels"] == ["content"] for leak in found)
    )  # fmt: skip
    return int(card["metrics"]["access_leaks"]["value"]), by_content


def test_the_hardened_agent_citing_inline_leaks_nothing_and_the_fault_is_caught(
    tmp_path: Path,
) -> None:
    project = inline_project(tmp_path, judge=False)
    assert "inline_cite_agent" in (project / "ragcard.toml").read_text()
    assert leaks(project, tmp_path / "clean", []) == (0, 0)
    caught, _ = leaks(project, tmp_path / "fault", ["filter_after_ranking"])
    explicit = copy_example(tmp_path / "explicit", "handbook")
    toml = (explicit / "ragcard.toml").read_text()
    (explicit / "ragcard.toml").write_text(toml.replace('[judge]\nbackend = "auto"\n', ""))
    assert caught > 0
    assert caught == leaks(explicit, tmp_path / "fault-explicit", ["filter_after_ranking"])[0]


def critical(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in summary["findings"] if f["severity"] == "critical"]


def test_the_red_team_finds_nothing_critical_on_the_hardened_agent_citing_inline(
    tmp_path: Path, redteam: RunRedteam
) -> None:
    project = inline_project(tmp_path)
    result = redteam(project, mutators=["plain"])
    assert critical(result.summary) == [], result.summary["findings"]
    summary = result.summary
    assert summary["errors"]["attempts"] == 0 and summary["success_by_category"], summary
    assert "access_escalation" in summary["success_by_category"]
