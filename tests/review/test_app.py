"""The review app over HTTP, on a real server: blindness on every response, roles, saving."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("starlette", reason="the review extra is not installed")

from ragcard.review import load_run, make_packet
from ragcard.review.app import create_app
from ragcard.review.packet import sealed_path_of
from ragcard.review.store import STORE_FILE, ReviewStore

SECRETS = (
    "secret-model-x9", "p-7", "self_harm", "companionship", "not_in_record", "rubric",
    "verdict", "correctness", "judge", "answer_wrong", "must_pass", "category", "abstained",
)  # fmt: skip


def _leaks(body: str, run: Path) -> list[str]:
    found = [s for s in (*SECRETS, str(run)) if s in body]
    return found + re.findall(r"\bQ\d\d\b", body)  # the items' own ids


def test_every_response_is_blind_and_roles_gate_restricted_text(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    folder = scored_run()
    made = make_packet(load_run(folder), tmp_path / "packet", n=14, controls=0, seed=3)
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    public = store.add_reviewer("pat", "public")
    curator = store.add_reviewer("cu", "curator")
    assert public and curator
    restricted = next(i.id for i in made.packet.items if any(p.access for p in i.passages))
    seen: list[str] = []
    sealed = sealed_path_of(made.key_path, made.key.packet_id)
    app = create_app(tmp_path / "packet", sealed)
    with serve(app) as url, httpx.Client(base_url=url) as client:
        for token in (public, curator):
            pages = [f"/r/{token}", *(f"/r/{token}/item/{i.id}" for i in made.packet.items)]
            for page in pages:
                response = client.get(page)
                assert response.status_code == 200
                assert response.headers["content-security-policy"].startswith("default-src 'none'")
                assert response.headers["referrer-policy"] == "no-referrer"
                seen.append(response.text)
            saved = client.post(f"/r/{token}/item/R01", data={"rating": "minor", "comment": "x"},
                                headers={"X-Autosave": "1"})  # fmt: skip
            assert saved.json() == {"saved": True, "rated": 1, "total": 14}
            seen.append(saved.text)
            moved = client.post(f"/r/{token}/item/R02", data={"rating": "wrong"})
            assert moved.status_code == 303 and moved.headers["location"].endswith("/item/R03")
        for name in ("app.css", "app.js"):
            static = client.get(f"/static/{name}")
            assert static.status_code == 200
            seen.append(static.text)
        bad = client.post(f"/r/{public}/item/R01", data={"rating": "great"},
                          headers={"X-Autosave": "1"})  # fmt: skip
        assert bad.status_code == 422 and bad.json()["saved"] is False
        for page in ("/r/not-a-token", f"/r/{public}/item/R99", "/static/../packet.json",
                     "/static/key.json"):  # fmt: skip
            assert client.get(page).status_code == 404
        public_page = client.get(f"/r/{public}/item/{restricted}").text
        curator_page = client.get(f"/r/{curator}/item/{restricted}").text
    for body in seen:
        assert not _leaks(body, folder), _leaks(body, folder)
    assert "Curators only" not in public_page and "your role does not allow" in public_page
    assert "Curators only" in curator_page
    assert not re.search(r"https?://(?!127\.0\.0\.1)", "".join(seen))  # no external request
    saved_ratings = {(a.item, a.reviewer): a.data for a in store.answers()}
    assert saved_ratings[("R01", "pat")] == {"rating": "minor", "comment": "x"}
    assert saved_ratings[("R02", "cu")]["rating"] == "wrong"


def test_hostile_text_is_escaped(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    folder = scored_run()
    made = make_packet(load_run(folder), tmp_path / "packet", n=3, controls=0, seed=3)
    items = tmp_path / "packet" / "packet.jsonl"
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    text = items.read_text().replace('"answer": "', f'"answer": "{hostile} ', 1)
    # the manifest's sha256 guards the items: rewrite both as an attacker would have to
    manifest = json.loads((tmp_path / "packet" / "packet.json").read_text())
    manifest["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    items.write_text(text)
    (tmp_path / "packet" / "packet.json").write_text(json.dumps(manifest))
    token = ReviewStore(tmp_path / "packet" / STORE_FILE).add_reviewer("x")
    with serve(create_app(tmp_path / "packet")) as url:
        body = httpx.get(f"{url}/r/{token}/item/{made.packet.items[0].id}").text
    assert "<script>alert(1)</script>" not in body and "<img src=x" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_serve_adds_reviewers_and_a_missing_extra_says_what_to_install(
    scored_run: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from typer.testing import CliRunner

    from ragcard._cli.main import app
    from ragcard.errors import MissingExtraError

    make_packet(load_run(scored_run()), tmp_path / "packet", n=3, controls=0, seed=1)
    runner = CliRunner()
    args = ["review", "serve", str(tmp_path / "packet"), "--no-serve"]
    first = runner.invoke(app, [*args, "--reviewer", "ann:curator"])
    assert first.exit_code == 0 and re.match(r"ann: http://localhost:8765/r/\S+\n", first.output)
    again = runner.invoke(app, [*args, "--reviewer", "ann:curator"])
    assert again.exit_code == 0 and "already a reviewer" in again.output
    fresh = runner.invoke(app, [*args, "--reviewer", "ann", "--new-token"])
    token = fresh.output.strip().rsplit("/", 1)[-1]
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    assert store.reviewer_by_token(token) == store.reviewers()[0]
    assert store.reviewer_by_token(first.output.strip().rsplit("/", 1)[-1]) is None
    nobody = runner.invoke(app, ["review", "serve", str(tmp_path / "nowhere")])
    assert nobody.exit_code == 2 and "no packet here" in nobody.output
    monkeypatch.setitem(sys.modules, "starlette", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'ragcard\[review\]'"):
        create_app(tmp_path / "packet")


def test_grading_queue_pages_ask_correctness_and_support_per_sentence(
    scored_run: Callable[..., Path], tmp_path: Path, serve: Callable[..., Any]
) -> None:
    from ragcard.review.queue import make_queue

    folder = scored_run(judge=True)
    made = make_queue(load_run(folder), tmp_path / "queue", sample=0, seed=2)
    token = ReviewStore(tmp_path / "queue" / STORE_FILE).add_reviewer("gr")
    item = next(i for i in made.packet.items if i.sentences and len(i.sentences) > 1)
    with serve(create_app(tmp_path / "queue")) as url, httpx.Client(base_url=url) as client:
        page = client.get(f"/r/{token}/item/{item.id}").text
        assert "Expected answer" in page and 'name="grade"' in page
        assert 'name="support-0"' in page and 'name="support-1"' in page
        assert not _leaks(page, folder) and "rubric" not in page
        saved = client.post(f"/r/{token}/item/{item.id}", headers={"X-Autosave": "1"},
                            data={"grade": "partial", "support-0": "supported",
                                  "support-1": "contradicted"})  # fmt: skip
        assert saved.json()["saved"] is True and saved.json()["rated"] == 1
        bad = client.post(f"/r/{token}/item/{item.id}", headers={"X-Autosave": "1"},
                          data={"support-0": "maybe"})  # fmt: skip
        assert bad.status_code == 422
    (answer,) = ReviewStore(tmp_path / "queue" / STORE_FILE).answers()
    support = {"0": "supported", "1": "contradicted"}
    assert answer.data == {"correctness": "partial", "support": support, "comment": ""}


def test_an_item_with_a_comment_but_no_rating_yet_is_not_imported(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    from ragcard.outputs.history import HistoryStore
    from ragcard.review import import_review

    folder = scored_run()
    made = make_packet(load_run(folder), tmp_path / "packet", n=3, controls=0, seed=3)
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    store.add_reviewer("ann")
    store.save("R01", "ann", {"rating": "accurate", "comment": ""})
    store.save("R02", "ann", {"voice": "off", "comment": "still thinking"})
    with HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite'}") as history:
        outcome = import_review(made.packet.folder, history, key_path=made.key_path, by="x")
    assert outcome.summary.metrics["review_accurate"].n == 1  # type: ignore[union-attr]
    assert "2 packet item(s) not rated by anyone: R02, R03" in outcome.summary.notes[0]
