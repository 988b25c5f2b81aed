"""The contrast rules (:mod:`ragcard.judges.contrast`): a negation, a swapped name or a flipped
relation word in a claim that copies an evidence sentence is found and named; a faithful
rewrite is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.judges.contrast import Contrast, find_contrast

PASSAGE = "Bicycles are parked in the basement of building B."
HELD_OUT = Path(__file__).parent / "fixtures" / "contrast_heldout.jsonl"


def test_roof_of_building_a_is_a_contrast_with_its_place_named() -> None:
    found = find_contrast("Bicycles are parked on the roof of building A.", PASSAGE)
    assert found is not None
    assert found.kind == "relation"
    assert found.reason == "says 'the roof' where the passage says 'the basement'"


def test_a_swapped_building_is_a_name() -> None:
    found = find_contrast("Bicycles are parked in the basement of building A.", PASSAGE)
    assert found == Contrast(
        "name", "building A", "building B",
        "says 'building A' where the passage says 'building B'",
    )  # fmt: skip


def test_a_faithful_paraphrase_is_no_contrast() -> None:
    assert find_contrast("Bikes go in the basement of building B.", PASSAGE) is None
    assert find_contrast(PASSAGE, PASSAGE) is None


def test_a_negated_claim_names_what_it_negates() -> None:
    found = find_contrast("Bicycles are not parked in the basement of building B.", PASSAGE)
    assert found is not None and found.kind == "negation"
    assert found.reason == "negates 'are parked' (says 'are not parked')"


def test_a_dropped_negation_is_a_negation() -> None:
    found = find_contrast("Pets are allowed in the flats.", "Pets are not allowed in the flats.")
    assert found is not None and found.kind == "negation"
    assert "drops the negation" in found.reason


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("You must not install Spotify.", "Installing Spotify is forbidden."),
        ("Submit the form no later than 5 June.", "Submit the form by 5 June."),
        ("It is not uncommon for staff to work late.", "It is common for staff to work late."),
        ("A note is not required for the first week.", "A note is optional for the first week."),
        ("You cannot carry over more than 8 days.", "You may not carry over more than 8 days."),
        ("No, you cannot carry over unused days.", "You cannot carry over unused days."),
        ("The daily meal allowance is 55 pounds.", "The meal allowance is £55 per day."),
        ("The US joined the war in 1917.", "The United States joined the war in 1917."),
        ("President Obama signed the bill in 2010.", "Barack Obama signed the bill in 2010."),
        ("The treaty was signed on 4 July 1990.", "The treaty was signed on 4 Jul 1990."),
    ],
)
def test_compensating_rewrites_are_no_contrast(claim: str, evidence: str) -> None:
    assert find_contrast(claim, evidence) is None


@pytest.mark.parametrize(
    ("claim", "evidence", "kind"),
    [
        ("You may not install Spotify on a laptop.", "You may install Spotify on a laptop.",
         "negation"),
        ("You can't carry over more than 8 days.", "You can carry over more than 8 days.",
         "negation"),
        ("A doctor's note is required for the first week.",
         "A doctor's note is optional for the first week.", "relation"),
        ("The price increased sharply after the war.", "The price decreased sharply after the war.",
         "relation"),
        ("The price rose sharply before the war.", "The price rose sharply after the war.",
         "relation"),
        ("OH-1 is a form used by occupational health.",
         "OH-2 is a form used by occupational health.", "name"),
        ("The museum is open on Sundays.", "The museum is closed on Sundays.", "negation"),
    ],
)  # fmt: skip
def test_contrasts(claim: str, evidence: str, kind: str) -> None:
    found = find_contrast(claim, evidence)
    assert found is not None and found.kind == kind


def test_a_title_with_a_negation_word_is_no_negation() -> None:
    passage = "`` Ca n't Get You Out of My Head '' is a song recorded by Kylie Minogue."
    claim = '"Can\'t Get You Out of My Head" is a song recorded by Kylie Minogue.'
    assert find_contrast(claim, passage) is None


def test_an_outdated_sentence_is_not_read_against() -> None:
    old = "Bikes are parked on the roof of building B at night."
    new = "Bicycles now go to the basement in building B."
    claim = "Bikes are parked in the basement of building B at night."
    # the old version aligns best: read against it, the claim flips a place
    found = find_contrast(claim, f"{old} {new}")
    assert found is not None and found.kind == "relation"
    # but a claim that differs from an old version is the currency layer's business
    assert find_contrast(claim, f"{old} {new}", outdated=[old]) is None


def test_held_out_pairs_written_before_the_rules_were_tuned() -> None:
    """44 pairs written before they were first run (42 right then; the two misses, "upper"
    for "lower" and "may not" for "must not", were fixed after): every one is right."""
    rows = [json.loads(line) for line in HELD_OUT.read_text(encoding="utf-8").splitlines()]
    wrong = []
    for row in rows:
        found = find_contrast(row["claim"], row["evidence"])
        if (found.kind if found else None) != row["kind"]:
            wrong.append((row["id"], found))
    assert not wrong
