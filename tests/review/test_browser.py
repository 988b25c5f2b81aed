"""The review app in a real headless Chromium: two reviewers rate a 12-item packet with two
controls — one by keyboard with autosave, stopping and resuming; one by mouse and the form's
button — and importing their ratings gives the expected counts, κ and control agreement.
No page a reviewer sees holds the model name, a score or a flag. Screenshots are kept in
``tests/artifacts/<test>/``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the review extra is not installed")
pytest.importorskip("selenium", reason="selenium (dev extra) is not installed")

from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from ragcard.metrics.base import MetricValue
from ragcard.outputs.history import HistoryStore
from ragcard.review import import_review, load_run, make_packet
from ragcard.review.app import create_app
from ragcard.review.packet import sealed_path_of
from ragcard.review.store import STORE_FILE, ReviewStore

SECRETS = ("secret-model-x9", "p-7", "self_harm", "companionship", "not_in_record", "rubric",
           "verdict", "correctness", "judge", "score", "flag")  # fmt: skip


class Reviewer:
    """One reviewer's browser session: reads the item on screen, rates it, checks the page."""

    def __init__(self, driver: Any, base: str, token: str, shots: Path, name: str) -> None:
        self.driver, self.base, self.token, self.shots, self.name = driver, base, token, shots, name
        self.sources: list[str] = []

    def wait(self, condition: Callable[[Any], Any]) -> Any:
        # a page being replaced answers with one of these until the next one is there
        ignored = (StaleElementReferenceException, NoSuchElementException, WebDriverException)
        return WebDriverWait(self.driver, 15, ignored_exceptions=ignored).until(condition)

    def start(self) -> None:
        before = self.driver.current_url
        self.driver.find_element(By.ID, "start").click()
        self.loaded(before)

    def open_home(self) -> None:
        self.driver.get(f"{self.base}/r/{self.token}")
        self.wait(lambda d: d.find_element(By.ID, "progress"))
        self.keep()

    def keep(self, shot: str | None = None) -> None:
        self.sources.append(self.driver.page_source)
        if shot:
            self.driver.save_screenshot(str(self.shots / f"{self.name}-{shot}.png"))

    def item(self) -> str:
        return str(self.wait(lambda d: d.find_element(By.CSS_SELECTOR, "h1 .id").text))

    def saved_mark(self) -> str:
        form = self.driver.find_element(By.ID, "rating-form")
        return str(form.get_attribute("data-saved") or "")

    def autosaved(self, before: str) -> None:
        """Wait until the script has saved a change made after ``before``."""
        self.wait(lambda d: self.saved_mark() != before)
        assert self.driver.find_element(By.ID, "status").text == "saved"

    def by_keys(self, key: str, comment: str = "") -> None:
        before = self.saved_mark()
        self.driver.find_element(By.TAG_NAME, "body").send_keys(key)
        self.autosaved(before)
        if comment:
            before = self.saved_mark()
            self.driver.find_element(By.ID, "comment").send_keys(comment)
            self.autosaved(before)

    def loaded(self, before: str) -> None:
        """Wait until the browser has left the page at ``before`` and shows the next one."""
        self.wait(lambda d: d.current_url != before)
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete")

    def next_by_key(self) -> None:
        before = self.driver.current_url
        self.driver.find_element(By.TAG_NAME, "body").send_keys("j")
        self.loaded(before)

    def by_mouse(self, rating: str) -> None:
        before = self.driver.current_url
        self.driver.find_element(By.CSS_SELECTOR, f'input[name="rating"][value="{rating}"]').click()
        self.driver.find_element(By.ID, "save").click()  # POST, then the next item (or home)
        self.loaded(before)


def test_two_reviewers_rate_a_packet_in_chromium(
    scored_run: Callable[..., Path],
    tmp_path: Path,
    serve: Callable[..., Any],
    browser: Any,
    artifacts: Path,
) -> None:
    folder = scored_run()
    run = load_run(folder)
    for seed in range(100):  # a draw whose answers include one citing a restricted passage
        made = make_packet(run, tmp_path / f"p{seed}", n=10, controls=2, seed=seed,
                           key_path=tmp_path / f"k{seed}.json")  # fmt: skip
        if any(e.item == "Q03" for e in made.key.items.values()):
            break
    packet = made.packet.folder
    key = made.key.items
    assert len(made.packet.items) == 12
    generated = [pid for pid, e in key.items() if e.kind == "generated"]
    wrong = next(pid for pid in generated if key[pid].category == "common")
    minor = next(pid for pid in generated if key[pid].category == "policy")
    controls = sorted(pid for pid, e in key.items() if e.kind == "control")
    store = ReviewStore(packet / STORE_FILE)
    tokens = {name: store.add_reviewer(name, role) for name, role in
              (("ann", "public"), ("ben", "curator"))}  # fmt: skip

    with serve(create_app(packet, sealed_path_of(made.key_path, made.key.packet_id))) as base:
        ann = Reviewer(browser, base, str(tokens["ann"]), artifacts, "ann")
        ann.open_home()
        ann.keep("home")
        ann.start()
        for step in range(12):
            pid = ann.item()
            assert pid == f"R{step + 1:02d}"
            if any(p.access for p in made.packet.by_id()[pid].passages):
                assert "Curators only" not in browser.page_source  # her role does not allow it
                assert "your role does not allow you to read it" in browser.page_source
                ann.keep("restricted-passage")
            if pid == wrong:
                ann.by_keys("3", comment="wrong year: the letter says 1851")
                ann.keep("wrong-with-comment")
            else:
                ann.by_keys("1")
            ann.by_keys("i")  # in voice
            ann.keep()
            if step == 5:  # stop halfway; the link resumes where she stopped
                ann.open_home()
                assert browser.find_element(By.ID, "start").text == "Resume with R07"
                ann.keep("resume")
                ann.start()
                continue
            if step < 11:
                ann.next_by_key()
        ann.open_home()
        assert browser.find_element(By.ID, "all-done").is_displayed()
        ann.keep("done")

        ben = Reviewer(browser, base, str(tokens["ben"]), artifacts, "ben")
        ben.open_home()
        ben.start()
        for _ in range(12):
            pid = ben.item()
            ben.keep("item" if pid == "R01" else None)
            if any(p.access for p in made.packet.by_id()[pid].passages):
                assert "Curators only" in browser.page_source  # his role allows it
                ben.keep("restricted-passage")
            if pid == wrong:
                ben.by_mouse("wrong")
            elif pid == minor or pid == controls[1]:
                ben.by_mouse("minor")
            else:
                ben.by_mouse("accurate")
        assert browser.find_element(By.ID, "all-done").is_displayed()
        ben.keep("done")
        for sources in (ann.sources, ben.sources):
            for source in sources:
                leaked = [s for s in (*SECRETS, str(folder)) if s in source]
                assert not leaked, leaked
        requests = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
        urls = {m["params"]["request"]["url"] for m in requests
                if m["method"] == "Network.requestWillBeSent"}  # fmt: skip
        web = {u for u in urls if not u.startswith(("chrome://", "chrome-untrusted://", "data:"))}
        assert web and all(u.startswith(base) for u in web), web  # nothing leaves the app

    with HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite'}") as history:
        outcome = import_review(packet, history, key_path=made.key_path, by="lead")
    m = outcome.summary.metrics

    def value(name: str) -> float:
        metric = m[name]
        assert isinstance(metric, MetricValue), metric
        return metric.value

    # 10 generated answers: 8 accurate, `minor` minor (ben), `wrong` wrong (both)
    assert (value("review_accurate"), value("review_minor"), value("review_wrong")) == (8, 1, 1)
    # ann: 9 accurate 1 wrong; ben: 8 accurate 1 wrong 1 minor → pₒ .9, pₑ .73, κ = .17/.27
    assert value("review_kappa") == pytest.approx(0.17 / 0.27)
    assert value("review_control_agreement") == 0.75  # ben rated one control minor
    assert value("review_off_voice") == 0
    assert [w.packet_item for w in outcome.summary.wrong] == [wrong]
    assert outcome.summary.items[0].ratings["ann"].voice == "in"
    comment = next(i for i in outcome.summary.items if i.packet_item == wrong).ratings["ann"]
    assert comment.comment == "wrong year: the letter says 1851"
