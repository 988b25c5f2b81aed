"""A figure changed in a copied sentence (:mod:`ragcard.judges.figures`) and the ensemble rule
built on it (``ensemble-rules/3``)."""

from __future__ import annotations

import asyncio

import pytest
from test_embedding import StubEncoder  # tests/judges is on sys.path

from ragcard.judges.base import Evidence, JudgeContext
from ragcard.judges.ensemble import RULES_VERSION, EnsembleJudge
from ragcard.judges.figures import MAX_ALIGNED, conflicting_figures

SEASONS = ("The stars were paid $75,000 per episode in season three, $85,000 in season four "
           "and $100,000 in season five.")


@pytest.mark.parametrize(
    ("claim", "evidence", "found"),
    [
        # the new figure is stated elsewhere in the same sentence: a presence check passes it
        ("The stars were paid $75,000 per episode in season four, $85,000 in season four and "
         "$100,000 in season five.", SEASONS, (("4", "3"),)),
        ("Every word comprises two or more morphemes.",
         "The difference between the two is that every word comprises one or more morphemes.",
         (("2", "1"),)),
        ("at least 12 votes in Oregon", "Oregon requires at least 11 votes, Louisiana all 12.",
         (("12", "11"),)),
        ("The office reopens on 3 July.", "The office reopens on 3 June.", (("july", "june"),)),
    ],
)
def test_a_figure_replaced_between_the_same_words_is_found(
    claim: str, evidence: str, found: tuple[tuple[str, str], ...]
) -> None:
    assert conflicting_figures(claim, [evidence]) == found


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("It has four wheels.", "It has 4 wheels."),  # the same figure, written differently
        ("Staff get 25 days of leave.", "Staff get 25 days of leave a year."),
        ("Louisiana requires 12 and Oregon 11.", "Oregon requires 11 votes, Louisiana 12."),
        ("Leave is 25 days.", "Managers approve 30 requests."),  # no shared words around it
        ("The fee rose to 40 euros per month in 2020.",  # a rewrite, not one figure replaced
         "In 2020 a monthly charge of 35 euros was introduced for members."),
        ("Staff receive paid leave.", "Staff receive 25 days of paid leave."),  # no figure
    ],
)
def test_a_paraphrase_or_the_same_figure_is_not_a_change(claim: str, evidence: str) -> None:
    assert conflicting_figures(claim, [evidence]) == ()


def test_the_best_aligned_sentence_decides_and_a_copied_figure_is_not_a_change() -> None:
    sentences = ["Part-time staff get 15 days of leave.", "Full-time staff get 25 days of leave."]
    assert conflicting_figures("Full-time staff get 25 days of leave.", sentences) == ()
    assert conflicting_figures("Full-time staff get 20 days of leave.", sentences) == (
        ("20", "25"),)
    # "15 days of leave" is stated word for word: what differs is a word, not a figure (the
    # ensemble's other checks see the rest)
    assert conflicting_figures("Full-time staff get 15 days of leave.", sentences) == ()


def test_a_figure_a_less_aligned_sentence_states_in_context_is_not_a_change() -> None:
    """FaithBench-738: the best-aligned sentence has "between 2002 and 2012", a longer one
    states the claim's "rose 17.2 percent between 2005 and 2012"."""
    claim = "A study found that heavy drinking among Americans rose 17.2% between 2005 and 2012."
    sentences = [
        "A study found that binge drinking among women rose 36 percent between 2002 and 2012.",
        "Heavy drinking among Americans rose 17.2 percent between 2005 and 2012, largely due to "
        "rising rates among women, according to a study published on Thursday by the institute.",
    ]
    assert conflicting_figures(claim, sentences[:1]) == (("2005", "2002"),)
    assert conflicting_figures(claim, sentences) == ()


def test_a_day_dropped_beside_a_month_is_not_a_changed_figure() -> None:
    """WiCE test01084: "In June 2017" from "On June 14, 2017": a month is only ever changed
    into a month, a number into a number."""
    assert conflicting_figures("In June 2017, the station reopened.",
                               ["On June 14, 2017, the station reopened."]) == ()


def test_the_ensemble_never_supports_a_changed_figure_its_evidence_also_states() -> None:
    passage = (Evidence("p1", SEASONS),)
    judge = EnsembleJudge(encoder=StubEncoder())
    right, changed = asyncio.run(judge.judge(JudgeContext(
        (SEASONS, SEASONS.replace("season three", "season four")), passage, "pay?")))
    assert RULES_VERSION == "ensemble-rules/5"
    assert judge.identity.settings["rules"] == RULES_VERSION
    assert right.reason is not None and "figure changed" not in right.reason
    assert changed.label == "not_supported" and changed.score <= 0.3
    assert changed.reason is not None and "figure changed: 4 where its evidence says 3" in (
        changed.reason)


def test_unsplit_text_longer_than_the_alignment_bound_is_not_aligned() -> None:
    """A 'sentence' of thousands of tokens (text the splitter could not cut) is left to the
    other checks: aligning it would cost the product of the lengths."""
    copied = "Full-time staff get 25 days of leave."
    filler = " ".join(["policy"] * (MAX_ALIGNED + 1))
    claim = "Full-time staff get 20 days of leave."
    assert conflicting_figures(claim, [copied]) == (("20", "25"),)
    assert conflicting_figures(claim, [f"{copied} {filler}"]) == ()
    assert conflicting_figures(f"{claim} {filler}", [copied]) == ()  # nor is a long claim
