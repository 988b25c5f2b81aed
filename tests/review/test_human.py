"""The human baseline: people's answers scored with the same rubric, layers and judge as the
run, side by side on its scorecard and in ``compare``; or typed into the review app."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.review import load_run

runner = CliRunner()


def _people(folder: Path, path: Path) -> Path:
    """Two people's answers: correct and cited (no restricted passage retrieved), abstaining
    where they should."""
    run = load_run(folder)
    lines = []
    for q in run.questions.questions:
        for person in (1, 2):
            if not q.is_answerable:
                lines.append({"item": q.id, "attempt": person, "answer": "I can't help with "
                              "that here; please call the helpline.", "flag": q.expected_flag,
                              "abstained": True})  # fmt: skip
            else:
                lines.append({"item": q.id, "attempt": person,
                              "answer": f"{q.expected_answer} [{q.gold_ids[0]}]",
                              "retrieved": q.gold_ids, "abstained": False})  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_people_scored_like_the_agent_side_by_side(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    folder = scored_run(judge=True)
    people = _people(folder, tmp_path / "people.jsonl")
    refused = runner.invoke(app, ["review", "human", str(folder), "--responses", str(people)])
    assert refused.exit_code == 2 and "judged by 'fake'" in refused.output
    done = runner.invoke(app, ["review", "human", str(folder), "--responses", str(people),
                               "--judge", "fake"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert done.output.startswith("human baseline (14 of 14 items answered by people)")
    card = json.loads((folder / "scorecard.json").read_text())
    block = card["human_baseline"]
    rows = {r["name"]: r for r in block["measures"]}
    assert rows["pass_rate"]["people"] > rows["pass_rate"]["agent"]  # the agent leaks
    assert rows["access_leaks"]["people"] == 0 and rows["access_leaks"]["agent"] > 0
    people_card = json.loads((folder / "human" / "scorecard.json").read_text())
    assert people_card["config"]["judge"]["name"] == "fake"
    assert people_card["config"]["questions"]["sha256"] == card["config"]["questions"]["sha256"]
    assert "## Human baseline" in (folder / "scorecard.md").read_text()
    compared = runner.invoke(app, ["compare", str(folder / "human"), str(folder)],
                             env={"COLUMNS": "200"})  # fmt: skip
    assert compared.exit_code == 1, compared.output  # the agent regresses against the people
    assert "pass→fail" in compared.output


def test_people_type_their_answers_in_the_app(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    pytest.importorskip("starlette", reason="the review extra is not installed")
    from ragcard.review.app import create_app
    from ragcard.review.store import STORE_FILE, ReviewStore

    folder = scored_run(verdicts=False)  # not judged: the people's answers are scored unjudged
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    packet = tmp_path / "answers"
    made = runner.invoke(app, ["review", "answers", str(folder), "--out", str(packet), "--db", db])
    assert made.exit_code == 0, made.output
    assert (packet / "sources.jsonl").exists()
    store = ReviewStore(packet / STORE_FILE)
    token = store.add_reviewer("pat", "public")
    with serve(create_app(packet)) as url, httpx.Client(base_url=url) as client:
        page = client.get(f"/r/{token}/item/A01", params={"q": "letters curators keeper"}).text
        assert 'name="cite"' in page and "Curators only" not in page  # restricted: not hers
        assert "appointed keeper" in page
        typed = {"answer": "From 1 April 1852.", "cite": ["L-1852-a", "nope"]}
        saved = client.post(f"/r/{token}/item/A03", headers={"X-Autosave": "1"}, data=typed)
        assert saved.json()["saved"] is True
        client.post(f"/r/{token}/item/A10", data={"abstained": "yes", "answer": ""})
        page = client.get(f"/r/{token}/item/A03").text
        assert 'value="L-1852-a" checked' in page  # what she cited stays on the page
    (first, second) = sorted(store.answers(), key=lambda a: a.item)
    assert first.data["cited"] == ["L-1852-a"]  # an unknown id is dropped
    imported = runner.invoke(app, ["review", "import", str(packet), "--db", db])
    assert imported.exit_code == 0, imported.output
    assert "2 answers" in imported.output
    lines = [json.loads(x) for x in (packet / "responses.jsonl").read_text().splitlines()]
    assert [x["item"] for x in lines] == ["Q03", "Q10"] and lines[1]["abstained"] is True
    card = json.loads((folder / "scorecard.json").read_text())
    assert card["human_baseline"]["answered"] == 2


def test_a_responses_file_is_scored_like_the_app_and_compared_on_the_items_answered(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    from ragcard.review.human import score_people

    folder = scored_run(verdicts=False)
    run = load_run(folder)
    answerable = [q for q in run.questions.questions if q.is_answerable][:4]

    def people(path: Path, with_retrieved: bool) -> Path:
        lines = []
        for q in answerable:  # a person cites the passage they used, as the app records it
            line = {
                "item": q.id,
                "attempt": 1,
                "answer": q.expected_answer,
                "citations": [{"id": q.gold_ids[0], "sentence": 0}],
                "abstained": False,
            }
            if with_retrieved:
                line["retrieved"] = [q.gold_ids[0]]  # what the app path writes
            lines.append(line)
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        return path

    bare = score_people(folder, people(tmp_path / "bare.jsonl", False), out=tmp_path / "bare")
    app_like = score_people(folder, people(tmp_path / "app.jsonl", True), out=tmp_path / "app")
    rows = {r["name"]: r for r in bare.block["measures"]}
    assert rows == {r["name"]: r for r in app_like.block["measures"]}  # scored alike
    assert rows["pass_rate"]["n"] == 4  # 4 answers against the agent's same 4 items, not 14
    assert bare.block["answered"] == 4
    assert bare.block["line"].startswith("human baseline (4 of 14 items answered by people)")
