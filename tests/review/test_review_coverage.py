"""Review data is changed only by what carries it, and review gates decide on the whole
packet: a save without a rating keeps the stored rating; a review that left packet items
unrated holds the run, naming them; a reviewer without a role is refused, not made public."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

pytest.importorskip("starlette", reason="the review extra is not installed")

from ragcard._cli.main import app
from ragcard.review import load_run, make_packet
from ragcard.review.app import create_app
from ragcard.review.store import STORE_FILE, ReviewStore

runner = CliRunner()


def test_a_save_without_a_rating_keeps_the_stored_rating(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    make_packet(load_run(scored_run()), tmp_path / "packet", n=3, controls=0, seed=1)
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    token = store.add_reviewer("pat", "public")
    autosave = {"X-Autosave": "1"}
    with serve(create_app(tmp_path / "packet")) as url, httpx.Client(base_url=url) as client:
        first = client.post(
            f"/r/{token}/item/R01",
            headers=autosave,
            data={"rating": "wrong", "voice": "off", "comment": "why"},
        )
        assert first.json()["saved"] is True
        for stale in ({}, {"comment": "why, again"}, {"garbage": "x"}, {"voice": "in"}):
            saved = client.post(f"/r/{token}/item/R01", data=stale, headers=autosave)
            assert saved.json() == {"saved": True, "rated": 1, "total": 3}, stale
        changed = client.post(f"/r/{token}/item/R01", data={"rating": "minor"}, headers=autosave)
        assert changed.json()["saved"] is True
    (answer,) = store.answers("pat")
    assert answer.data == {"rating": "minor", "voice": "in", "comment": "why, again"}


def _make(run: Path, packet: Path, db: str) -> dict[str, Any]:
    args = ["review", "make", str(run), "--out", str(packet), "--n", "10", "--controls", "2",
            "--seed", "5", "--db", db]  # fmt: skip
    assert runner.invoke(app, args).exit_code == 0
    (key_path,) = (run / "review").glob("*.key.json")
    return dict(json.loads(key_path.read_text()))


def _sheet(packet: Path, rated: int) -> Path:
    """``ada``'s sheet: the first ``rated`` packet items rated accurate, the rest left blank."""
    rows = list(csv.DictReader((packet / "packet.csv").read_text("utf-8").splitlines()))
    for row in rows[:rated]:
        row.update(reviewer="ada", rating="accurate", voice="in", attributed="yes")
    sheet = packet.parent / f"ada-{rated}.csv"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows[:rated])
    return sheet


def test_a_partial_review_holds_its_gates_until_every_item_is_rated(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    run, packet = scored_run(), tmp_path / "packet"
    _make(run, packet, db)
    args = ["review", "import", str(packet), "--db", db, "--by", "ada"]
    partial = runner.invoke(app, [*args, "--ratings", str(_sheet(packet, 3))])
    assert partial.exit_code == 1, partial.output
    card = json.loads((run / "scorecard.json").read_text())
    assert all(t["status"] == "met" for t in card["thresholds"])  # "0 of 2" would meet them
    (reason,) = card["decision_reasons"]
    assert reason.startswith("blind review: 3 of 12 packet items rated")
    assert "review_wrong, review_wrong[policy]" in reason
    full = runner.invoke(app, [*args, "--ratings", str(_sheet(packet, 12))])
    assert full.exit_code == 0, full.output
    card = json.loads((run / "scorecard.json").read_text())
    assert card["decision"] == "ship" and card["decision_reasons"] == []


def test_a_reviewer_without_a_role_is_refused_and_a_known_one_keeps_theirs(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    make_packet(load_run(scored_run()), tmp_path / "packet", n=3, controls=0, seed=1)
    args = ["review", "serve", str(tmp_path / "packet"), "--no-serve"]
    bare = runner.invoke(app, [*args, "--reviewer", "bob"])
    assert bare.exit_code == 2 and "--reviewer bob:ROLE" in " ".join(bare.output.split())
    empty = runner.invoke(app, [*args, "--reviewer", "bob:"])
    assert empty.exit_code == 2
    assert runner.invoke(app, [*args, "--reviewer", "bob:hr"]).exit_code == 0
    again = runner.invoke(app, [*args, "--reviewer", "bob", "--new-token"])
    assert again.exit_code == 0, again.output
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    assert [(r.name, r.role) for r in store.reviewers()] == [("bob", "hr")]


def test_the_app_keeps_only_what_the_packet_asks_and_refuses_an_overlong_comment(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    made = make_packet(load_run(scored_run()), tmp_path / "packet", n=3, controls=0, seed=1)
    plain = next(i.id for i in made.packet.items if not any(p.tier == "B" for p in i.passages))
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    token = store.add_reviewer("pat", "public")
    autosave = {"X-Autosave": "1"}
    with serve(create_app(tmp_path / "packet")) as url, httpx.Client(base_url=url) as client:
        saved = client.post(
            f"/r/{token}/item/{plain}",
            headers=autosave,
            data={"rating": "accurate", "voice": "in", "attributed": "no"},
        )
        assert saved.json()["saved"] is True
        long = client.post(
            f"/r/{token}/item/{plain}",
            headers=autosave,
            data={"rating": "wrong", "comment": "x" * 20_001},
        )
        assert long.status_code == 422 and "comment" in long.json()["error"]
    (answer,) = store.answers("pat")
    assert answer.data == {"rating": "accurate", "voice": "in", "comment": ""}  # the fixture
    # is a persona packet (voice asked); this answer cites no tier-B source (no attribution)


def test_a_key_inside_the_packet_folder_is_refused(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    from ragcard.errors import ConfigError

    with pytest.raises(ConfigError, match="inside the packet folder"):
        make_packet(
            load_run(scored_run()),
            tmp_path / "packet",
            n=3,
            controls=0,
            seed=1,
            key_path=tmp_path / "packet" / "key.json",
        )
    assert not (tmp_path / "packet").exists()


def test_a_body_over_a_megabyte_is_a_clear_json_error_the_page_can_show(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    made = make_packet(load_run(scored_run()), tmp_path / "packet", n=2, controls=0, seed=1)
    token = ReviewStore(tmp_path / "packet" / STORE_FILE).add_reviewer("pat", "public")
    item = made.packet.items[0].id
    with serve(create_app(tmp_path / "packet")) as url, httpx.Client(base_url=url) as client:
        form = {"rating": "wrong", "comment": "x" * 1_100_000}
        huge = client.post(f"/r/{token}/item/{item}", headers={"X-Autosave": "1"}, data=form)
        assert huge.status_code == 413, huge.text[:200]
        body = huge.json()  # the script's save: JSON it shows beside the form
        assert body["saved"] is False and "over 1 MB" in body["error"]
        plain = client.post(f"/r/{token}/item/{item}", data=form)  # the form without the script
        assert plain.status_code == 413 and "over 1 MB" in plain.text
        # a body sent in chunks (no length said) is stopped by the parser: the same message
        chunks = iter([b"rating=wrong&comment=", *([b"x" * 65536] * 20)])
        streamed = client.post(f"/r/{token}/item/{item}", content=chunks, headers={
            "X-Autosave": "1", "Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
        assert streamed.status_code == 413 and "over 1 MB" in streamed.json()["error"]
    assert ReviewStore(tmp_path / "packet" / STORE_FILE).answers("pat") == []
    script = (Path(__file__).parents[2] / "src/ragcard/review/static/app.js").read_text()
    assert "response.text()" in script  # a body that is not JSON is shown as text, not parsed
