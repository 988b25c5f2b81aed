"""Import a blind review into its run (``ragcard review import``), record actions on answers
rated wrong (``ragcard review act``), and what shipping and ``stale`` need to know.

Importing unblinds the ratings with the packet's key, computes the docs/metrics.md#measures measures
(:mod:`.measures`), writes them into the run's ``scorecard.json`` and ``scorecard.md`` — as
measures like any other, so that the thresholds recorded with the run gate them — decides
again, and records the measures and the decision in the run history. Each generated answer
rated wrong holds the run until it has an action (a corpus fix, a rule or an authored answer,
with who and why): ``ragcard ship`` refuses the run until then, even with an override.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError, ExitCode, InputError, Problem
from ragcard.metrics.base import MetricValue, Unscored, parse_metric_name
from ragcard.metrics.recorded import RECORDED_SPECS
from ragcard.outputs.history import HistoryStore, RunEntry
from ragcard.report.loaded import decide_again, load_scorecard
from ragcard.report.markdown import render_markdown
from ragcard.report.scorecard import Scorecard
from ragcard.review._run import RunData, load_run
from ragcard.review.measures import ReviewSummary, summarise
from ragcard.review.packet import Packet, ReviewKey, load_key, load_packet
from ragcard.review.ratings import Rating, check_ratings, read_ratings
from ragcard.review.records import (
    actions_of,
    latest_review,
    packet_record,
    record_action,
    record_review,
)
from ragcard.review.render import review_line
from ragcard.review.store import STORE_FILE, ReviewStore

__all__ = [
    "ACTION_REASON",
    "ImportOutcome",
    "act_on_item",
    "ensure_recorded",
    "import_review",
    "judge_verdicts",
    "key_for",
    "ship_blockers",
    "write_scorecard",
]

#: Decision reasons this module adds start with this (and are replaced, not piled up).
ACTION_REASON = "blind review: "


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    summary: ReviewSummary
    scorecard: Scorecard
    run_id: str
    missing_actions: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def exit_code(self) -> int:
        return ExitCode.OK if self.scorecard.decision.decision == "ship" else ExitCode.HOLD


def ensure_recorded(store: HistoryStore, folder: Path, scorecard: Mapping[str, Any]) -> RunEntry:
    """The run of ``folder`` in the history, recorded now if it was not (a scored run)."""
    try:
        return store.get(str(folder))
    except ConfigError:
        return store.record_run(scorecard, folder)


def key_for(packet: Packet, store: HistoryStore, given: Path | None) -> ReviewKey:
    """The packet's key: the file given, else the one the history says was written."""
    if given is not None:
        return load_key(given, packet)
    record = packet_record(store, packet.manifest.packet_id)
    if record is None or not record.get("key_path"):
        raise ConfigError(
            f"the history at {store.url} knows no key of packet {packet.manifest.packet_id}: "
            "pass --key (the file `ragcard review make` wrote), or the --db/--project the packet "
            "was made with"
        )
    return load_key(Path(record["key_path"]), packet)


def judge_verdicts(run: RunData) -> dict[tuple[str, int], str]:
    """The run's correctness verdict on each attempt that has one (docs/metrics.md#measures answer
    correctness:
    ``evidence.correctness.verdict``; absent in runs from before it was judged)."""
    found = {}
    for key, line in run.attempts.items():
        correctness = (line.get("evidence") or {}).get("correctness")
        if isinstance(correctness, dict) and correctness.get("verdict") in (
            "correct", "partial", "wrong"
        ):  # fmt: skip
            found[key] = str(correctness["verdict"])
    return found


def _app_ratings(packet: Packet) -> list[Rating]:
    path = packet.folder / STORE_FILE
    if not path.exists():
        return []
    ratings, problems = [], []
    for saved in ReviewStore(path).answers():
        if not saved.data.get("rating"):
            continue  # a voice or a comment saved, not rated yet: no rating to import
        try:
            ratings.append(Rating.model_validate({**saved.data, "item": saved.item,
                                                  "reviewer": saved.reviewer}))  # fmt: skip
        except ValueError as error:
            problems.append(Problem(str(path), None, saved.item, f"bad saved rating: {error}"))
    if problems:
        raise InputError(problems)
    return ratings


def _check_run(run: RunData, key: ReviewKey) -> None:
    if str(run.scorecard.get("created_at")) != key.run_created_at:
        raise InputError(
            Problem(
                str(run.folder / "scorecard.json"),
                None,
                "created_at",
                f"not the run packet {key.packet_id} was drawn from (that run was made at "
                f"{key.run_created_at}); the folder holds another run now",
                str(run.scorecard.get("created_at")),
                fix="restore that run's folder, or draw a new packet from this run",
            )  # fmt: skip
        )


def _breakdowns(
    card: Scorecard, summary: ReviewSummary
) -> dict[str, dict[str, MetricValue | Unscored]]:
    """The card's breakdowns with the review's; a category a threshold names but the packet
    has no rated answer of is unscored, with the reason."""
    wrong: dict[str, MetricValue | Unscored] = dict(summary.breakdowns["review_wrong"])
    for result in card.decision.results:
        base, _k, label = parse_metric_name(result.threshold.measure)
        if base == "review_wrong" and label is not None and label not in wrong:
            wrong[label] = Unscored(
                RECORDED_SPECS["review_wrong"],
                f"no generated answer of category {label!r} in the packet was rated",
            )
    return {**card.breakdowns, "review_wrong": wrong}


def _missing(block: Mapping[str, Any]) -> list[str]:
    return [w["item"] for w in block.get("wrong", []) if not w.get("action")]


def _action_reasons(missing: Sequence[str], folder: Path) -> list[str]:
    return [
        f"{ACTION_REASON}{item} rated wrong has no recorded action (ragcard review act "
        f'{folder} {item} --action corpus-fix|rule|authored-answer --by NAME --why "…")'
        for item in missing
    ]


def _coverage_reasons(card: Scorecard, block: Mapping[str, Any]) -> list[str]:
    """A review gate decides on the whole packet only: while any packet item is unrated (by
    every reviewer), a run whose thresholds gate a review measure holds, saying which."""
    gated = sorted({t.measure for t in (r.threshold for r in card.decision.results)
                    if t.measure.split("[", 1)[0] in RECORDED_SPECS})  # fmt: skip
    items = list(block.get("items", []))
    unrated = [str(i.get("packet_item")) for i in items if i.get("rating") is None]
    if not gated or not unrated:
        return []
    more = f" and {len(unrated) - 10} more" if len(unrated) > 10 else ""
    shown = ", ".join(unrated[:10]) + more
    return [
        f"{ACTION_REASON}{len(items) - len(unrated)} of {len(items)} packet items rated: the "
        f"review gates ({', '.join(gated)}) decide on the whole packet; rate {shown} and "
        "import the review again"
    ]


def write_scorecard(folder: Path, card: Scorecard) -> None:
    """Rewrite ``scorecard.json`` and ``scorecard.md`` of a run (each file replaced whole)."""
    data = card.to_json()
    text = render_markdown(card)  # (with the review's section: report.sections)
    for name, content in (
        ("scorecard.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n"),
        ("scorecard.md", text),
    ):
        partial = folder / f".{name}.partial"
        partial.write_text(content, encoding="utf-8")
        os.replace(partial, folder / name)


def _settle(
    card: Scorecard,
    block: dict[str, Any],
    folder: Path,
    metrics: Mapping[str, MetricValue | Unscored],
    breakdowns: Mapping[str, Mapping[str, MetricValue | Unscored]],
) -> Scorecard:
    """``card`` with the review ``block`` and measures, decided again."""
    missing = _missing(block)
    dropped = [r for r in card.decision.reasons if r.startswith(ACTION_REASON)]
    added = [*_coverage_reasons(card, block), *_action_reasons(missing, folder)]
    decision = decide_again(card, metrics, breakdowns, added, dropped)
    specs = {**card.specs, **{n: RECORDED_SPECS[n] for n in metrics if n in RECORDED_SPECS}}
    header = {**card.header, "review": block}
    return dataclasses.replace(
        card, header=header, metrics=dict(metrics), specs=specs,
        breakdowns={k: dict(v) for k, v in breakdowns.items()}, decision=decision,
    )  # fmt: skip


def _block(
    packet: Packet,
    key: ReviewKey,
    summary: ReviewSummary,
    actions: Mapping[str, dict[str, Any]],
    by: str,
) -> dict[str, Any]:
    generated = summary.generated
    wrong = [
        {
            "item": i.entry.item,
            "packet_item": i.packet_item,
            "attempt": i.entry.attempt,
            "category": i.entry.category,
            "must_pass": i.entry.must_pass,
            "reviewers": sorted(n for n, r in i.ratings.items() if r.rating == "wrong"),
            "comments": [r.comment for r in i.ratings.values() if r.comment],
            "action": actions.get(i.entry.item),
        }
        for i in summary.wrong
    ]
    block: dict[str, Any] = {
        "packet": packet.manifest.packet_id,
        "imported_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "imported_by": by,
        "reviewers": list(summary.reviewers),
        "generated": len(generated),
        "rated": sum(i.combined is not None for i in generated),
        "controls": key.controls,
        "measures": {
            n: m.to_json() for n, m in summary.metrics.items() if isinstance(m, MetricValue)
        },  # fmt: skip
        "unscored": {n: m.reason for n, m in summary.metrics.items() if isinstance(m, Unscored)},
        "pairs": list(summary.pairs),
        "wrong": wrong,
        "notes": list(summary.notes),
        "items": [i.to_json() for i in summary.items],
    }
    block["line"] = review_line(block)
    return block


def import_review(
    packet_path: Path,
    store: HistoryStore,
    *,
    key_path: Path | None = None,
    rating_files: Sequence[Path] = (),
    by: str,
    after_ship: str | None = None,
) -> ImportOutcome:
    """Unblind a packet's ratings (the review app's and ``rating_files``), record the review's
    measures in its run's scorecard and history, and decide the run again.

    A shipped run's decision changes only by an explicit, recorded act: an import that would
    change it is refused, naming the fix, unless ``after_ship`` gives the reason — then who,
    why and the decision before are kept in the review block (scorecard and history)."""
    packet = load_packet(packet_path)
    key = key_for(packet, store, key_path)
    if key.kind != "blind":
        raise ConfigError(f"packet {key.packet_id} is a {key.kind} packet, not a blind review")
    run = load_run(Path(key.run_folder))
    _check_run(run, key)
    known = [item.id for item in packet.items]
    app = _app_ratings(packet)
    problems = check_ratings(app, known, str(packet.folder / STORE_FILE))
    if problems:
        raise InputError(problems)
    files = read_ratings(rating_files, known)
    ratings = {(r.item, r.reviewer): r for r in app}
    ratings.update({(r.item, r.reviewer): r for r in files})  # a sheet given wins
    if not ratings:
        raise InputError(
            Problem(
                str(packet.folder),
                None,
                None,
                "no rating to import",
                fix="rate the packet in `ragcard review serve`, or pass --ratings "
                "packet.csv filled in",
            )  # fmt: skip
        )
    summary = summarise(key, list(ratings.values()), judge_verdicts(run))
    entry = ensure_recorded(store, run.folder, run.scorecard)
    block = _block(packet, key, summary, actions_of(store, entry.id), by)
    card = load_scorecard(run.folder / "scorecard.json")
    recorded = {n: m for n, m in card.metrics.items() if n not in RECORDED_SPECS}
    was = card.decision.decision
    card = _settle(card, block, run.folder, {**recorded, **summary.metrics},
                   _breakdowns(card, summary))  # fmt: skip
    if entry.shipped_at is not None and card.decision.decision != was:
        block["after_ship"] = _after_ship(entry, was, card, after_ship, by)
        block["line"] = review_line(block)
        card = dataclasses.replace(card, header={**card.header, "review": block})
    write_scorecard(run.folder, card)
    store.record_outcome(entry.id, card.to_json())
    frozen = run.scorecard.get("config", {}).get("frozen")
    record_review(store, run_id=entry.id, project=entry.project, packet_id=key.packet_id,
                  kind="blind", block=block, frozen=frozen, by=by)  # fmt: skip
    notes = list(summary.notes)
    if (run.folder / "signature.json").exists():
        notes.append("the run was signed before this review: its signature no longer covers "
                     "the scorecard; sign it again")  # fmt: skip
    return ImportOutcome(summary, card, entry.id, tuple(_missing(block)), tuple(notes))


def _after_ship(
    entry: RunEntry, was: str, card: Scorecard, reason: str | None, by: str
) -> dict[str, Any]:
    """The record of a shipped run's decision changed by an import, or the refusal."""
    now = card.decision.decision
    shipped = f"{entry.shipped_by} on {entry.shipped_at:%Y-%m-%d %H:%M} UTC"
    if not (reason or "").strip():
        why = "; ".join(card.decision.reasons[:3]) or "the review's measures"
        raise ConfigError(
            f"run {entry.id} was shipped by {shipped}: this review would change its decision "
            f"from {was.upper()} to {now.upper()} ({why}), and a shipped run's decision changes "
            'only by an explicit, recorded act. Pass --after-ship "why" to record the change '
            "(who, why and the decision before are kept in the scorecard and the history), or "
            "review a new run"
        )
    return {"shipped_by": entry.shipped_by, "shipped_at": entry.shipped_at.isoformat()
            if entry.shipped_at else None, "was": was, "now": now, "by": by,
            "reason": reason.strip() if reason else ""}  # fmt: skip


def act_on_item(
    store: HistoryStore, run_ref: str, item: str, action: str, by: str, why: str
) -> Scorecard:
    """Record the action on an answer rated wrong in a run's latest review, and decide the run
    again (it holds while any wrong answer has none)."""
    entry = store.get(run_ref)
    review = latest_review(store, entry.id)
    if review is None:
        raise ConfigError(f"run {entry.id} has no imported review: `ragcard review import` first")
    wrong = [w["item"] for w in review["block"].get("wrong", [])]
    if item not in wrong:
        listed = ", ".join(wrong) or "none"
        raise ConfigError(
            f"{item} was not rated wrong in the review of run {entry.id} (wrong: {listed})"
        )
    record_action(store, entry.id, item, action, by, why)
    folder = Path(entry.out_dir)
    card = load_scorecard(folder / "scorecard.json")
    block = dict(card.header.get("review") or review["block"])
    acts = actions_of(store, entry.id)
    block["wrong"] = [{**w, "action": acts.get(w["item"])} for w in block.get("wrong", [])]
    block["line"] = review_line(block)
    card = _settle(card, block, folder, card.metrics, card.breakdowns)
    write_scorecard(folder, card)
    store.record_outcome(entry.id, card.to_json())
    return card


def ship_blockers(store: HistoryStore, run_id: str) -> list[str]:
    """The answers rated wrong in the run's latest review that have no action yet."""
    review = latest_review(store, run_id)
    if review is None:
        return []
    acts = actions_of(store, run_id)
    return [w["item"] for w in review["block"].get("wrong", []) if w["item"] not in acts]
