"""Which items and attempts each measure is computed over (docs/metrics.md#measures,
docs/formats.md#resultsjsonl), in one table.

The aggregation reads it to give the true reason when a measure could not be computed
(:func:`ragcard.aggregation.scoring.ScoreAccumulator` — no item in the population, every attempt
failed, every attempt abstained, or what the layer recorded, such as "needs a judge"), and
``docs/metrics.md`` is checked against it. A measure not listed here is over every item, and
its layer's own ``empty_reason`` is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragcard.inputs.questions import Question
from ragcard.metrics.base import MetricSpec

__all__ = ["POPULATIONS", "Population", "population_of"]


def _every(question: Question) -> bool:
    return True


def _answerable_with_gold(question: Question) -> bool:
    return question.is_answerable and bool(question.gold)


def _answerable(question: Question) -> bool:
    return question.is_answerable


def _answerable_with_expected_answer(question: Question) -> bool:
    return question.is_answerable and bool(question.expected_answer)


def _unanswerable(question: Question) -> bool:
    return not question.is_answerable


def _flag_checked(question: Question) -> bool:
    return question.flag_checked


def _currency_trap(question: Question) -> bool:
    return question.category == "currency_trap"


def _must_pass(question: Question) -> bool:
    return question.must_pass


@dataclass(frozen=True, slots=True)
class Population:
    """``items``: which items, in words, and the test; ``answers``: only attempts that gave an
    answer count (not failed, not abstained); ``attempts``: which of those, in words; ``empty``:
    why it is unscored when items and answers exist but none qualifies."""

    items: str
    test: Callable[[Question], bool]
    answers: bool
    attempts: str
    empty: str


_ANSWERED = "answered attempts (not failed, not abstained)"

#: Base metric name (``recall`` for ``recall@5``) → its population.
POPULATIONS: dict[str, Population] = {
    "recall": Population("answerable items with a gold passage", _answerable_with_gold, False,
                         "attempts that returned", "no answerable item with a gold passage"),
    "mrr": Population("answerable items with a gold passage", _answerable_with_gold, False,
                      "attempts that returned", "no answerable item with a gold passage"),
    "ndcg": Population("answerable items with a gold passage", _answerable_with_gold, False,
                       "attempts that returned", "no answerable item with a gold passage"),
    "id_recall": Population("every item", _every, False, "attempts that returned",
                            "no attempt returned"),
    "id_precision": Population("every item", _every, False, "attempts that returned",
                               "no attempt returned"),
    "faithfulness": Population("every item", _every, True, _ANSWERED + " with a sentence",
                               "no answer had a sentence to judge"),
    "citation_validity": Population("every item", _every, False,
                                    "attempts whose answer cites at least one passage",
                                    "no answer cites a passage"),
    "citation_accuracy": Population("every item", _every, False,
                                    "(sentence, cited passage) pairs of the answers",
                                    "no answer cites a passage of the corpus"),
    "uncited_sentences": Population("every item", _every, False,
                                    "attempts with an answer (an abstention that cites "
                                    "nothing is left out)", "no answer had a sentence"),
    "superseded_answers": Population("every item", _every, False, "attempts that returned",
                                     "no attempt returned"),
    "superseded_answers_currency_traps": Population(
        "items of category currency_trap", _currency_trap, False, "attempts that returned",
        "no currency_trap item"),
    "correct_abstention": Population("unanswerable items", _unanswerable, False,
                                     "attempts that returned", "no unanswerable item"),
    "false_abstention": Population("answerable items", _answerable, False,
                                   "attempts that returned", "no answerable item"),
    "flag_accuracy": Population("items that state an expected_flag (null included)",
                                _flag_checked, False, "attempts that returned",
                                "no item states an expected_flag"),
    "access_leaks": Population("every item", _every, False, "attempts that returned",
                               "no attempt returned"),
    "b_attribution": Population("every item", _every, False,
                                "attempts whose answer uses a tier-B passage",
                                "no answer cites a tier-B passage"),
    "answer_relevance": Population("every item", _every, True, _ANSWERED,
                                   "no answer to judge"),
    "answer_correctness": Population("answerable items with an expected_answer",
                                     _answerable_with_expected_answer, True, _ANSWERED,
                                     "no answer to judge"),
    "answer_wrong": Population("answerable items with an expected_answer",
                               _answerable_with_expected_answer, True, _ANSWERED,
                               "no answer to judge"),
    "must_pass_zeros": Population("must-pass items", _must_pass, False,
                                  "every attempt (a failed one is a zero)", "no must-pass item"),
    "rubric_mean": Population("every item", _every, False,
                              "attempts that returned (hard zeros and abstentions included)",
                              "no attempt was judged"),
    "latency_p50_ms": Population("every item", _every, False, "attempts that returned",
                                 "no latency measured"),
    "latency_p95_ms": Population("every item", _every, False, "attempts that returned",
                                 "no latency measured"),
    "first_token_p50_ms": Population("every item", _every, False,
                                     "attempts with a first-token time",
                                     "the agent reported no first-token time and the "
                                     "adapter did not stream"),
    "first_token_p95_ms": Population("every item", _every, False,
                                     "attempts with a first-token time",
                                     "the agent reported no first-token time and the "
                                     "adapter did not stream"),
    "agent_error_rate": Population("every item", _every, False,
                                   "every attempt, failed ones included", "no item"),
}  # fmt: skip


def population_of(spec: MetricSpec) -> Population | None:
    """The population of ``spec`` (by its base name), or None when it is not listed."""
    return POPULATIONS.get(spec.name) or POPULATIONS.get(spec.base)


def empty_reason(spec: MetricSpec) -> str:
    """Why ``spec`` has no value when its population holds no item: the population's reason,
    else its layer's own."""
    population = population_of(spec)
    return population.empty if population is not None else spec.empty_reason
