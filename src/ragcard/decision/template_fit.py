"""A kit's thresholds template fitted to the inputs a folder already holds (``ragcard init``
on an imported dataset): a gate on a measure these inputs can never score would hold every
run, so it is written commented out, with why and how to bring it back.

Which items a measure needs is :data:`ragcard.metrics.populations.POPULATIONS` (no
``currency_trap`` item: no ``superseded_answers_currency_traps``); recorded responses that
cite nothing cannot give ``citation_accuracy`` (docs/metrics.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragcard.inputs.questions import Question
from ragcard.metrics.base import parse_metric_name
from ragcard.metrics.populations import POPULATIONS

__all__ = ["fit_template"]

_CITING = frozenset({"citation_accuracy", "citation_validity", "uncited_sentences"})
_MEASURE = re.compile(r'^measure = "([^"]+)"$', re.M)


def _why_unscorable(measure: str, questions: Sequence[Question], cites: bool | None) -> str | None:
    base = parse_metric_name(measure)[0]
    if base in _CITING and cites is False:
        return "no recorded response cites a passage"
    population = POPULATIONS.get(measure) or POPULATIONS.get(base)
    if population is None or any(population.test(q) for q in questions):
        return None
    return f"the question set has no {population.items}"


def fit_template(
    text: str, questions: Sequence[Question], cites: bool | None = None
) -> tuple[str, list[str]]:
    """``text`` with each ``[[threshold]]`` block these inputs can never score commented out
    (a line says why), and one note per block left out. ``cites``: whether any recorded
    response cites a passage (None: no responses recorded — an agent will be called)."""
    blocks = text.split("\n\n")
    notes = []
    for index, block in enumerate(blocks):
        found = _MEASURE.search(block)
        if not block.lstrip().startswith("[[threshold]]") or found is None:
            continue
        why = _why_unscorable(found.group(1), questions, cites)
        if why is None:
            continue
        notes.append(f"{found.group(1)}: {why}")
        body = "\n".join(f"# {line}" if line else "#" for line in block.strip("\n").split("\n"))
        blocks[index] = (f"# Left out by `ragcard init`: {why}, so this gate could never\n"
                         f"# be met and would hold every run. Uncomment it once the inputs can "
                         f"score it.\n{body}")  # fmt: skip
    return "\n\n".join(blocks), notes
