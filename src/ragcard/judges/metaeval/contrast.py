"""Minimal contrasts of supported sentences, and faithful rewrites of them (the ``contrast``
dataset of ``ragcard judges evaluate``; docs/metrics.md, "The contrast benchmark").

Each generator takes a sentence the passage supports and returns one variant, or ``None`` when
its rule does not apply; every variant differs from the sentence. The *contrast* kinds must be
judged unsupported:

* ``negation`` — a negation added after the first auxiliary ("is" → "is not", "can" →
  "cannot", "has two" → "does not have two"), "never" before a past-tense verb, or one
  removed ("not", "n't", "never", "no longer", "without");
* ``swapped-name`` — a capitalised name, place or code replaced by another one the *same
  passage* states (never one listed beside it: "A and B" keeps both true);
* ``flipped-relation`` — one relation, polarity, quantifier or modality word flipped
  (before/after, highest/lowest, increase/decrease, more/less, first/last, must/may, all/some …);
* ``changed-figure`` — one number changed (a digit +1..3, a number word to the next, a year).

The *faithful* kinds must stay supported: ``reordered`` (a leading or trailing adverbial
phrase moved, two names in "A and B" swapped), ``number-unit`` ("3" ↔ "three", "£55" →
"55 pounds", "per day" → "daily", "40%" → "40 percent") and ``paraphrase`` (written by hand,
:mod:`.contrast_data`). ``original`` is the sentence itself.

The generators live in :mod:`.contrast_polarity` (negation, flipped relation, changed figure),
:mod:`.contrast_names` (swapped name) and :mod:`.contrast_faithful` (reordered, number-unit);
:data:`.contrast_data.GENERATORS` names them. Everything is deterministic: a generator's choices
come from the ``random.Random`` it is given, seeded by the sentence's id.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CONTRAST_KINDS",
    "FAITHFUL_KINDS",
    "KINDS",
    "NUMBER_WORDS",
    "Variant",
    "case_like",
    "replace_span",
]

CONTRAST_KINDS = ("negation", "swapped-name", "flipped-relation", "changed-figure")
FAITHFUL_KINDS = ("original", "reordered", "number-unit", "paraphrase")
KINDS = (*CONTRAST_KINDS, *FAITHFUL_KINDS)


@dataclass(frozen=True, slots=True)
class Variant:
    """One sentence to judge against its source's passage; ``supported`` is the right verdict."""

    kind: str
    text: str
    change: str  # what was changed, in words ("is -> is not")

    @property
    def supported(self) -> bool:
        return self.kind in FAITHFUL_KINDS


def case_like(word: str, model: str) -> str:
    """``word`` in the case of ``model`` (capitalised or upper)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


#: The number words a figure may be written in (one is left out: "one of", "no one").
NUMBER_WORDS = "two three four five six seven eight nine ten eleven twelve".split()
