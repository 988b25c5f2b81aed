"""Held-out items are never used to tune anything (docs/formats.md#questionsjsonl ``split``).

Tuning commands — prompt search, threshold calibration, retrieval sweeps — take their items
through :func:`heldout_guard`, so the rule is enforced in one place rather than remembered
in each command.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragcard.errors import ConfigError
from ragcard.inputs.questions import Question, QuestionSet

__all__ = ["heldout_guard"]

_SHOWN = 10


def heldout_guard(
    questions: QuestionSet | Iterable[Question], purpose: str, *, allow_heldout: bool = False
) -> list[Question]:
    """The items that ``purpose`` may use.

    Given a whole :class:`QuestionSet`, returns its dev items: the held-out ones are left out,
    as intended. Given items chosen explicitly (any other iterable), refuses with
    :class:`ConfigError` naming the held-out ones, since a caller that picked them is about
    to tune on them. ``allow_heldout=True`` returns every item given, for the final,
    non-tuning evaluation that held-out items exist for.
    """
    if isinstance(questions, QuestionSet):
        items = list(questions.questions)
        return items if allow_heldout else [q for q in items if q.split != "heldout"]
    items = list(questions)
    if allow_heldout:
        return items
    held = [q.id for q in items if q.split == "heldout"]
    if held:
        shown = ", ".join(held[:_SHOWN]) + (
            f" … and {len(held) - _SHOWN} more" if len(held) > _SHOWN else ""
        )
        raise ConfigError(
            f"{purpose}: refused to use {len(held)} held-out item(s) ({shown}); held-out "
            "items are never used for tuning — select dev items only, or pass the whole "
            "question set to use its dev part"
        )
    return items
