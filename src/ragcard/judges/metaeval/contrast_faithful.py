"""The faithful rewrites that must stay supported: ``reordered`` and ``number-unit``
(:mod:`.contrast`; docs/metrics.md, "The contrast benchmark")."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ragcard.judges.metaeval.contrast import NUMBER_WORDS, Variant, replace_span
from ragcard.judges.metaeval.contrast_names import find_names, name_class

__all__ = ["number_unit", "reorder"]


# -- faithful rewrites ---------------------------------------------------------------------

_LEADING = re.compile(
    r"^(In|On|At|During|By|After|Before|Since|From|Under|Until|Throughout|Between|Following) "
    r"([^,;:]{3,60}), (.{12,})\.$"
)
_TRAILING = re.compile(r"^(.{12,}?),? ((?:in|on|during|since|by) (?:\w+ )?(?:1[5-9]|20)\d\d)\.$")
_LOWER_FIRST = set(
    "The A An It This These There They He She Its His Her Their Some Many Most Each Every Both "
    "All You We Our Your Full-time Part-time Employees Staff".split()
)
_TWO_NAMES = re.compile(
    r"(?<!between )(?<!from )(?<!both )\b([A-Z][a-z]+(?: [A-Z][a-z]+)?) and "
    r"([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b(?! respectively)"
)


_CLAUSE_BREAK = re.compile(
    r"[,;:()]|\b(?:and|or|but|which|who|whom|that|while|where|when|before|after|until|"
    r"because|if|then|in (?:1[5-9]|20)\d\d)\b"
)


def _one_clause(text: str) -> bool:
    """Whether a phrase moved to its other end would still attach to the whole sentence: the
    rest is one short clause (no comma, conjunction, relative clause or date of its own)."""
    return len(text.split()) <= 25 and not _CLAUSE_BREAK.search(text)


#: Two plain words joined by "and" ("civil and religious", "heat and fuel"), not after a word
#: that orders them ("between", "from", "first") and not before "respectively" or "then".
_TWO_WORDS = re.compile(
    r"(?<!between )(?<!from )(?<!first )(?<!then )(?<![-\w])([a-z]{3,}) and ([a-z]{3,})\b"
    r"(?! respectively| then| later)(?![-'])"
)
_BEFORE_PAIR = set("the a an of for in by with to his her their its who on at".split())
_NOT_SWAPPED = set(
    "the and but that this these those then than with from into onto upon over under after "
    "before which who whom whose where when what while also was were are has have had been "
    "its his her their our your they them she him you can could will would should must may "
    "might not all any each some more most less other such only very was did does done there yes "
    "according".split()
)


def _subject_first(phrase: str, rest: str) -> bool:
    """Whether ``rest`` starts with its subject (a name, a pronoun, a determiner) after a short
    leading ``phrase``: "During probation only sick pay applies, topped up …" does not."""
    first = rest.split(maxsplit=1)[0]
    return len(phrase.split()) <= 8 and (first[:1].isupper() or first.capitalize() in _LOWER_FIRST)


def _lower_first(text: str) -> str:
    first = text.split(maxsplit=1)[0]
    return text[:1].lower() + text[1:] if first in _LOWER_FIRST else text


_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
_PREPOSITION_BEFORE = re.compile(
    r"\b(of|in|for|to|by|on|at|with)\s+(?:the|a|an|his|her|their|its)\s+$"
)


def _parallel(before: str, rest: str) -> bool:
    """Whether the pair stands between "<preposition> the" and the same preposition again."""
    found = _PREPOSITION_BEFORE.search(before)
    return found is not None and re.match(rf"\s*{found.group(1)}\b", rest) is not None


def reorder(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """A leading adverbial phrase moved to the end, a trailing date phrase to the front, or two
    names joined by "and" swapped; ``None`` when none of these shapes is there."""
    del passage, rng
    lead = _LEADING.match(sentence)
    if lead and _one_clause(lead.group(3)) and _subject_first(lead.group(2), lead.group(3)):
        word, phrase, rest = lead.groups()
        rest = rest[:1].upper() + rest[1:]
        text = f"{rest} {word.lower()} {phrase}."
        return Variant("reordered", text, f"'{word} {phrase},' moved to the end")
    trail = _TRAILING.match(sentence)
    if trail and _one_clause(trail.group(1)):
        rest, phrase = trail.groups()
        text = f"{phrase[:1].upper()}{phrase[1:]}, {_lower_first(rest)}."
        return Variant("reordered", text, f"'{phrase}' moved to the front")
    if _RESPECTIVELY.search(sentence):
        return None  # "A and B … as X and Y, respectively": swapping either pair remaps them
    names = {(start, end) for start, end, _name in find_names(sentence)}
    for pair in _TWO_NAMES.finditer(sentence):
        one, two = pair.groups()
        before = sentence[: pair.start()].split()[-1:]
        after = sentence[pair.end() :].split()[:2]
        if (
            one == two
            or pair.start() == 0  # a title such as "Jekyll and Hyde" may lead a sentence
            or sentence[: pair.start()].endswith(("the ", "The "))  # "the X and Y Museum"
            or name_class(two) == "institution" != name_class(one)
            or pair.span(1) not in names
            or pair.span(2) not in names
            or (before and (before[0][:1].isupper() or any(c.isdigit() for c in before[0])))
            or (len(after) == 2 and after[0].islower() and after[1][:1].isupper())
        ):
            continue
        text = replace_span(sentence, *pair.span(), f"{two} and {one}")
        return Variant("reordered", text, f"'{one} and {two}' swapped")
    for pair in _TWO_WORDS.finditer(sentence):
        one, two = pair.groups()
        before = sentence[: pair.start()].split()[-1:]
        rest = sentence[pair.end() :]
        if (
            one == two
            or {one, two} & _NOT_SWAPPED
            or {one, two} == {"rock", "roll"}
            or one.endswith("ed") != two.endswith("ed")  # "of pine and consisted of": clauses
            or not before
            or before[0].lower() not in _BEFORE_PAIR
            # "player of the tournament and captain of the team": the words end two parallel
            # phrases, each of its own head, not one pair
            or _parallel(sentence[: pair.start()], rest)
            # Both words must be whole conjuncts: punctuation or a preposition after the pair.
            or not re.match(r"\s*(?:[,.;:!?)]|$|(?:of|in|for|to|that|which|by|on|at|with)\b)", rest)
        ):
            continue
        text = replace_span(sentence, *pair.span(), f"{two} and {one}")
        return Variant("reordered", text, f"'{one} and {two}' swapped")
    return None


_UNITS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r"(?<![–-])£(\d[\d,.]*\d|\d)(?![\d.,]*\s*(?:million|billion|bn|m)\b)"),
     lambda m: f"{m.group(1)} pounds"),
    (re.compile(r"(?<![–-])\$(\d[\d,.]*\d|\d)(?![\d.,]*\s*(?:million|billion|bn|m)\b)"),
     lambda m: f"{m.group(1)} dollars"),
    (re.compile(r"(?<![–-])€(\d[\d,.]*\d|\d)(?![\d.,]*\s*(?:million|billion|bn|m)\b)"),
     lambda m: f"{m.group(1)} euros"),
    (re.compile(r"(?<![\d.,])(\d[\d.,]*)\s?%"), lambda m: f"{m.group(1)} percent"),
    (re.compile(r"(\d)\s?(?:km)\b"), lambda m: f"{m.group(1)} kilometres"),
    (re.compile(r"(\d)\s?(?:kg)\b"), lambda m: f"{m.group(1)} kilograms"),
    (re.compile(r"\b(?:per|a|each) (day|week|month|year)\b(?!s)"),
     lambda m: {"day": "daily", "week": "weekly", "month": "monthly", "year": "annually"}[
         m.group(1)]),
    (re.compile(r"\b(\d{1,3}),000\b(?!,)"), lambda m: f"{m.group(1)} thousand"),
]  # fmt: skip
_DIGIT_WORDS = dict(zip(map(str, range(2, 13)), NUMBER_WORDS, strict=True))
_SMALL_DIGIT = re.compile(r"(?<![\w.,£$€:/-])([2-9]|1[0-2])(?![\w.,:/%-]|\s*(?:%|percent))")
_SMALL_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b(?!-)", re.I)
_MONTHS = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b")


def number_unit(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """One figure written another way: a unit or currency in words, "per day" as "daily",
    a small number as a word or a number word as digits; ``None`` without one."""
    del passage
    options: list[tuple[int, int, str]] = []
    for pattern, spell in _UNITS:
        options += [(*m.span(), spell(m)) for m in pattern.finditer(sentence)]
    for match in _SMALL_DIGIT.finditer(sentence):
        near = sentence[max(0, match.start() - 12) : match.end() + 12]
        if not _MONTHS.search(near):
            options.append((*match.span(), _DIGIT_WORDS[match.group(1)]))
    for match in _SMALL_WORD.finditer(sentence):
        word = match.group(1).lower()
        options.append((*match.span(), str(NUMBER_WORDS.index(word) + 2)))
    if not options:
        return None
    start, end, new = rng.choice(options)
    old = sentence[start:end]
    return Variant("number-unit", replace_span(sentence, start, end, new), f"{old} -> {new}")


#: kind → generator(sentence, passage, rng); ``paraphrase`` and ``original`` are not generated.
