"""A negated, flipped or changed-figure copy of a right answer never passes (issue 19).

Every answer the reader graded ``correct`` in ``demo-correctness`` is changed by hand-written
rules below — the main verb negated (in the sentence that carries the key fact, and in every
sentence), a relation word flipped, the expected figure changed — and graded against its
expected answer: none of the copies may pass (``correct``, or ``partial`` with the main point).
Beside them, wrong answers written by hand before the rules were designed
(``correctness_handwritten.py``), and the main-point credit on the held-out labels.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from correctness_handwritten import HANDWRITTEN

from ragcard.judges.base import MAIN_POINT, Evidence, Verdict
from ragcard.judges.correctness import grade_answer

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "src" / "ragcard" / "judges" / "metaeval" / "data" / "demo-correctness.jsonl"
ROWS: list[dict[str, Any]] = [json.loads(line) for line in LABELS.read_text().splitlines()]
BY_ID = {row["id"]: row for row in ROWS}
CORRECT = [row for row in ROWS if row["label"] == "correct"]


def _grade(row: dict[str, Any], answer: str) -> Verdict:
    passages = tuple(Evidence(p["id"], p["text"]) for p in row["passages"])
    return grade_answer(answer, row["expected_answer"], row["question"], passages)


def _passes(verdict: Verdict) -> bool:
    return verdict.grade == "correct" or (
        verdict.grade == "partial" and verdict.score >= MAIN_POINT
    )


# --- the variant generator (written for this test; it knows nothing of the judge) ----------

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NEGATED = re.compile(r"\b(?:is not|are not|cannot|must never|must not|may not|never|not)\b", re.I)
_UNNEGATED = {"is not": "is", "are not": "are", "cannot": "can", "must never": "must",
              "must not": "must", "may not": "may", "never": "always", "not": ""}  # fmt: skip
_VERBS = [  # (a verb, its negation): the earliest in the clause is negated
    ("is", "is not"), ("are", "are not"), ("was", "was not"), ("must", "must not"),
    ("may", "may not"), ("can", "cannot"), ("will", "will not"), ("should", "should not"),
    ("has", "does not have"), ("needs", "does not need"), ("need", "do not need"),
    ("applies", "does not apply"), ("covers", "does not cover"), ("offers", "does not offer"),
    ("receive", "do not receive"), ("get", "do not get"), ("runs", "does not run"),
    ("stays", "does not stay"), ("earn", "do not earn"), ("grow", "do not grow"),
    ("said", "did not say"), ("holds", "does not hold"), ("tells", "does not tell"),
    ("belongs", "does not belong"), ("want", "do not want"), ("called", "did not call"),
    ("recall", "do not recall"), ("counted", "did not count"), ("approves", "does not approve"),
    ("have climbed", "have not climbed"), ("give", "do not give"),
    # imperatives
    ("claim", "do not claim"), ("submit", "do not submit"), ("store", "do not store"),
    ("request", "do not request"), ("write", "do not write"), ("declare", "do not declare"),
    ("raise", "do not raise"), ("repay", "do not repay"), ("complete", "do not complete"),
    ("book", "do not book"), ("report", "do not report"), ("use", "do not use"),
]  # fmt: skip
_RELATIONS = [
    ("no more than", "at least"), ("at least", "at most"), ("up to", "at least"),
    ("more than", "less than"), ("over", "under"), ("before", "after"), ("after", "before"),
    ("first", "last"), ("last", "first"), ("minimum", "maximum"), ("maximum", "minimum"),
    ("within", "after"), ("above", "below"), ("higher", "lower"), ("every", "no"),
    ("only", "never"), ("rising", "falling"), ("peak", "low"),
]  # fmt: skip
_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split()
)
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}|\d+", text.lower())}


def _key_sentence(row: dict[str, Any]) -> int:
    """The answer sentence sharing most words with the expected answer."""
    wanted = _words(row["expected_answer"])
    sentences = _sentences(row["answer"])
    return max(range(len(sentences)), key=lambda i: len(_words(sentences[i]) & wanted))


_CLAUSE = re.compile(r"(?<=[;:,])\s+")


def _key_clause(sentence: str, expected: str) -> tuple[int, int]:
    """The span of the clause of ``sentence`` sharing most words with ``expected``."""
    spans, start = [], 0
    for match in _CLAUSE.finditer(sentence):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(sentence)))
    wanted = _words(expected)
    return max(spans, key=lambda span: len(_words(sentence[span[0] : span[1]]) & wanted))


def _negate(sentence: str, expected: str) -> str | None:
    """The key clause's negation removed, or its earliest verb negated (the whole sentence's
    where the clause has none)."""
    start, end = _key_clause(sentence, expected)
    return _negate_in(sentence, start, end) or _negate_in(sentence, 0, len(sentence))


def _negate_in(sentence: str, start: int, end: int) -> str | None:
    clause = sentence[start:end]
    if (found := _NEGATED.search(clause)) is not None:
        new = clause[: found.start()] + _UNNEGATED[found.group(0).lower()] + clause[found.end() :]
    else:
        hits = [(m.start(), m.end(), neg) for verb, neg in _VERBS
                if (m := re.search(rf"\b{verb}\b", clause, re.I))]  # fmt: skip
        if not hits:
            return None
        a, b, neg = min(hits, key=lambda h: (h[0], -(h[1] - h[0])))
        if start + a == 0 and clause[a].isupper():
            neg = neg[0].upper() + neg[1:]  # "Do not submit …" at the sentence's start
        new = clause[:a] + neg + clause[b:]
    return re.sub(r"\s+", " ", sentence[:start] + new + sentence[end:])


def _flip(sentence: str) -> str | None:
    found = [(m.start(), m.end(), new) for old, new in _RELATIONS
             if (m := re.search(rf"\b{old}\b", sentence, re.I))]  # fmt: skip
    if not found:
        return None
    start, end, new = min(found)
    return sentence[:start] + new + sentence[end:]


def _change_figure(sentence: str, expected: str) -> str | None:
    """The first figure of the sentence that the expected answer also holds, made another."""
    wanted = {m.group(0).lower().replace(",", "") for m in _FIGURE.finditer(expected)}
    for match in _FIGURE.finditer(sentence):
        token = match.group(0)
        if token.lower().replace(",", "") not in wanted:
            continue
        if re.match(r"-|\s+of\b", sentence[match.end() :]):
            continue  # "one-off", "one of": not a figure
        if token[0].isdigit():
            number = float(token.replace(",", ""))
            changed = f"{number * 2 + 1:,.0f}" if number >= 1000 else f"{int(number) + 3}"
        else:
            index = _NUMBER_WORDS.index(token.lower())
            changed = _NUMBER_WORDS[(index + 3) % len(_NUMBER_WORDS)]
        return sentence[: match.start()] + changed + sentence[match.end() :]
    return None


def _replace(row: dict[str, Any], index: int, new: str) -> str:
    sentences = _sentences(row["answer"])
    sentences[index] = new
    return " ".join(sentences)


def _variants(row: dict[str, Any]) -> list[tuple[str, str]]:
    key = _key_sentence(row)
    sentence = _sentences(row["answer"])[key]
    out = []
    expected = row["expected_answer"]
    if (negated := _negate(sentence, expected)) is not None:
        out.append(("negated key sentence", _replace(row, key, negated)))
        every = [_negate(s, expected) or s for s in _sentences(row["answer"])]
        out.append(("every sentence negated", " ".join(every)))
    if (flipped := _flip(sentence)) is not None:
        out.append(("relation flipped", _replace(row, key, flipped)))
    if (changed := _change_figure(sentence, row["expected_answer"])) is not None:
        out.append(("figure changed", _replace(row, key, changed)))
    return out


VARIANTS = [(row["id"], kind, text) for row in CORRECT for kind, text in _variants(row)]


def test_the_generator_changes_every_correct_answer() -> None:
    """Each right answer gets a negation, and those with a relation word or an expected
    figure in their key sentence a flip or a changed figure (no answer left untested)."""
    negated = {i for i, kind, _ in VARIANTS if kind == "negated key sentence"}
    assert {row["id"] for row in CORRECT} == negated
    assert sum(kind == "figure changed" for _, kind, _ in VARIANTS) >= 40
    assert sum(kind == "relation flipped" for _, kind, _ in VARIANTS) >= 30


@pytest.mark.parametrize(
    ("item", "kind", "answer"), VARIANTS, ids=[f"{i}-{k}" for i, k, _ in VARIANTS]
)
def test_no_changed_copy_of_a_right_answer_passes(item: str, kind: str, answer: str) -> None:
    row = BY_ID[item]
    assert answer != row["answer"]
    verdict = _grade(row, answer)
    assert not _passes(verdict), (kind, answer, verdict.grade, verdict.reason)
    assert verdict.grade == "wrong", (kind, answer, verdict.reason)  # not partial: a conflict


#: Hand-written wrong answers the grade still passes (none today). Four passed when first run
#: against the rules, before any was designed on (HB-0024, HB-0029, HB-0095, HB-0169); all four
#: were then fixed by general rules (swapped figures, ordinals of an anniversary, a relation word
#: flipped in a reworded sentence, and a name replaced in the clause aligned with the expected
#: answer's: "with Confidential" where it says "with Public"). A miss found later goes here, with
#: a strict xfail, so that its fix is noticed.
KNOWN_MISSES: set[str] = set()


@pytest.mark.parametrize(
    ("item", "answer", "what"),
    [pytest.param(*h, marks=pytest.mark.xfail(strict=True)) if h[0] in KNOWN_MISSES else h
     for h in HANDWRITTEN],
    ids=[h[0] for h in HANDWRITTEN],
)  # fmt: skip
def test_no_handwritten_wrong_answer_passes(item: str, answer: str, what: str) -> None:
    verdict = _grade(BY_ID[item], answer)
    assert not _passes(verdict), (what, verdict.grade, verdict.reason)


def test_right_answers_still_pass() -> None:
    """The unchanged answers: at least 9 in 10 of the reader's ``correct`` are graded so."""
    graded = [_grade(row, row["answer"]).grade for row in CORRECT]
    assert graded.count("correct") >= 0.9 * len(CORRECT)


def test_the_expected_answer_itself_is_correct() -> None:
    """Every expected answer, given as the answer, with its gold passages: a rewording of the
    passage is never read as a change of it."""
    wrong = [(r["id"], v.reason) for r in ROWS
             if (v := _grade(r, r["expected_answer"])).grade != "correct"]  # fmt: skip
    assert not wrong


def test_false_fails_on_minor_omissions_held_out() -> None:
    """Of the held-out answers a reader passes (correct, or partial with the main point), at
    most 10% fail; the split is the question set's own (``heldout``), never tuned on."""
    held = [r for r in ROWS if r["split"] == "heldout"]
    passing = [r for r in held if r["label"] == "correct" or (r["label"] == "partial"
                                                              and r["main_point"])]  # fmt: skip
    failed = [r["id"] for r in passing if not _passes(_grade(r, r["answer"]))]
    assert len(failed) <= 0.10 * len(passing), failed
    wrong = [r["id"] for r in held if r["label"] == "wrong" and _passes(_grade(r, r["answer"]))]
    assert not wrong


# --- a sentence about another rule of the passage (written after HB-0024's false alarm) -------

GALLERY = (
    Evidence(
        "museum-rules@2024#3",
        "Visitors may bring cameras into the East Gallery. Flash photography is allowed only in "
        "the Sculpture Hall; tripods need a permit from the front desk.",
    ),
)
FLASH_QUESTION = "Where can I use a flash?"
FLASH = "Flash photography is allowed only in the Sculpture Hall."


@pytest.mark.parametrize("answer", [
    "Visitors may bring cameras into the East Gallery. Flash photography is allowed only in "
    "the Sculpture Hall.",
    "You can bring a camera into the East Gallery, and flash photography is allowed only in the "
    "Sculpture Hall.",
])  # fmt: skip
def test_a_copied_sentence_about_another_rule_is_no_changed_name(answer: str) -> None:
    verdict = grade_answer(answer, FLASH, FLASH_QUESTION, GALLERY)
    assert _passes(verdict), verdict.reason


@pytest.mark.parametrize("answer", [
    "Flash photography is allowed only in the East Gallery.",
    "Visitors may bring cameras into the East Gallery. Flash photography is allowed only in "
    "the East Gallery.",
    "Flash photography is not allowed in the Sculpture Hall.",
])  # fmt: skip
def test_the_key_rule_with_another_room_or_negated_is_wrong(answer: str) -> None:
    verdict = grade_answer(answer, FLASH, FLASH_QUESTION, GALLERY)
    assert verdict.grade == "wrong", (answer, verdict.reason)


DEVICES = (
    Evidence(
        "devices@2024#4",
        "Only VPN clients on the approved list in Helm may be used with company networks. "
        "Tablets, the shared devices, may be used with Internal and Secret files; personal "
        "phones may be used only with Open files. Report a lost device to the service desk.",
    ),
)
PHONES = ("Personal phones may be used only with Open files; use a tablet for Internal or Secret "
          "files.")
PHONES_QUESTION = "Can I open work files on my own phone?"


def test_a_copy_of_the_passage_with_a_rule_the_expected_answer_leaves_out_is_right() -> None:
    answer = ("Only VPN clients on the approved list in Helm may be used with company networks. "
              "Tablets, the shared devices, may be used with Internal and Secret files; personal "
              "phones may be used only with Open files.")  # fmt: skip
    verdict = grade_answer(answer, PHONES, PHONES_QUESTION, DEVICES)
    assert verdict.grade == "correct", verdict.reason


@pytest.mark.parametrize("answer", [
    # the tablets' rule said of phones: names of the expected answer's other clause
    "Personal phones may be used with Internal and Secret files.",
    "Only VPN clients on the approved list in Helm may be used with company networks. Personal "
    "phones may be used only with Secret files.",
])  # fmt: skip
def test_another_clauses_names_bound_to_the_key_fact_are_wrong(answer: str) -> None:
    verdict = grade_answer(answer, PHONES, PHONES_QUESTION, DEVICES)
    assert verdict.grade == "wrong", (answer, verdict.reason)
