"""The ``swapped-name`` contrast: a name, place or code of a sentence replaced by another its
passage states (:mod:`.contrast`; docs/metrics.md, "The contrast benchmark")."""

from __future__ import annotations

import random
import re

from ragcard._sentences import split_sentences
from ragcard.judges.metaeval.contrast import Variant, replace_span

__all__ = ["find_names", "name_class", "swap_name"]


# -- swapped name --------------------------------------------------------------------------

_NAME = re.compile(
    r"\b(?:[A-Z][\w'’.&-]*[A-Za-z0-9]|[A-Z])(?:\s+(?:of|de|la|von|van|the)?\s*"
    r"[A-Z][\w'’.&-]*[A-Za-z0-9])*"
)
_CODE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9-]+$|^[A-Z]{2,}$")
_NOT_NAMES = {
    "I", "The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "We", "You", "This",
    "That", "These", "Those", "There", "His", "Her", "Its", "Their", "Our", "Your", "If",
    "When", "After", "Before", "During", "For", "From", "As", "By", "But", "And", "Or", "Yes",
    "No", "Not", "Also", "However", "Some", "All", "Each", "Every", "Most", "Many", "One",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January",
    "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept",
    "Oct", "Nov", "Dec", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Mr", "Mrs", "Ms",
    "Dr", "Sir", "St", "AM", "PM", "OK",
}  # fmt: skip
_NUMBER_WORDS_ALL = {
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "hundred",
    "thousand",
    "million",
    "billion",
}
_LIST_GAP = re.compile(r"^\W*(?:,|and|or|&|/|,\s*and|,\s*or|\s)*\W*$")


def find_names(text: str) -> list[tuple[int, int, str]]:
    """Capitalised spans of ``text`` (leading function words such as 'The' dropped)."""
    spans = []
    for match in _NAME.finditer(text):
        start, value = match.start(), match.group(0)
        words = value.split()
        while words and words[0] in _NOT_NAMES:
            start = text.index(words[1], start + len(words[0])) if len(words) > 1 else -1
            words = words[1:]
        while words and words[-1].lower() in {"of", "de", "la", "von", "van", "the"}:
            words = words[:-1]
        if not words or start < 0:
            continue
        value = text[start : start + len(" ".join(words))]
        if value != " ".join(words):  # whitespace other than one space inside: keep it exact
            value = " ".join(words)
            if text.find(value, start) != start:
                continue
        spans.append((start, start + len(value), value))
    return spans


_ORG_WORDS = set(
    "University College School Church Court Department Office Officer Act Party Museum Council "
    "Committee Ministry Board Bank Company Team Service Agency Institute Society Club League "
    "Association Union Army Navy Force Corporation Group Foundation Commission Parliament "
    "Editor Director Manager President Head Partner Chief Minister Secretary Lady Lord King "
    "Queen Prince Duke General Captain Professor Award Prize Cup Tour Championship Festival "
    "River Lake Mount Mountain Island Sea Ocean Bay Valley Park Street Road Avenue City County "
    "State States Province Republic Kingdom Empire North South East West Northern Southern".split()
)


def name_class(name: str) -> str:
    """A rough sort of name, so a person is swapped for a person and a code for a code: code
    (digits or capitals), institution, role or place (by its words), person-like (several
    capitalised words), single word."""
    if _CODE.match(name.replace(" ", "")) or any(_CODE.match(w) for w in name.split()):
        return "code"
    words = name.split()
    if _ORG_WORDS & set(words):
        return "institution"
    return "several" if len(words) > 1 else "single"


def _same_referent(one: str, other: str) -> bool:
    """An acronym and its expansion ("UCF" and "University of Central Florida")."""
    for short, long in ((one, other), (other, one)):
        initials = "".join(w[0] for w in long.split() if w[:1].isupper())
        if any(len(w) > 1 and w.isupper() and w == initials for w in short.split()):
            return True
    return False


def _listed_together(passage: str, one: str, other: str) -> bool:
    """Whether the passage lists ``one`` and ``other`` side by side ("A, B and C")."""
    for sentence in split_sentences(passage):
        for a, b in ((one, other), (other, one)):
            i, j = sentence.find(a), sentence.find(b)
            if i >= 0 and j > i and _LIST_GAP.match(sentence[i + len(a) : j]):
                return True
    return False


_WORD = re.compile(r"[a-z][\w'-]*")


def _passage_names(passage: str) -> list[str]:
    """The passage's names: capitalised spans seen somewhere other than a sentence's start
    (where any word is capitalised), and never written in lower case in the passage."""
    lower = set(_WORD.findall(passage))
    inside = [
        value
        for start, _e, value in find_names(passage)
        if not re.search(r"(?:^|[.!?:;])[\s\"'“‘(\[]*$", passage[:start])
    ]
    return [
        name
        for name in dict.fromkeys(inside)
        if name.lower() not in _NUMBER_WORDS_ALL
        and "'" not in name
        and (" " in name or name.lower() not in lower)
    ]


_THE_BEFORE = re.compile(r"\b[Tt]he\s+$")


def _takes_the(passage: str, name: str) -> bool:
    """Whether the passage writes ``name`` after "the" (an institution, a title, a hotel)."""
    return bool(re.search(r"\b[Tt]he\s+" + re.escape(name), passage))


def swap_name(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """One name of the sentence replaced by another name the passage states; ``None`` when the
    sentence has no name the passage states, or the passage no other name of its class."""
    theirs = _passage_names(passage)
    mine = [span for span in find_names(sentence) if span[2] in passage]
    if mine and mine[0][0] == 0 and mine[0][2] not in theirs:
        mine = mine[1:]  # a capital only because the sentence starts there
    # A name joined to the next by "and" may be half of one ("National Air and Space Museum").
    mine = [
        (start, end, name)
        for start, end, name in mine
        if not re.match(r"\s+and\s+[A-Z]", sentence[end:])
        and not re.search(r"[A-Z]\w*\s+and\s+$", sentence[:start])
    ]
    in_sentence = set(re.findall(r"[a-z0-9]+", sentence.lower()))
    options: list[tuple[int, int, str, str]] = []
    for start, end, name in mine:
        words = set(name.lower().split())
        fitting = [
            other
            for other in theirs
            if other not in sentence
            and not (words | in_sentence) & set(other.lower().split())
            and name_class(other) == name_class(name)
            and not _same_referent(name, other)
            and not _listed_together(passage, name, other)
        ]
        # A name of as many words, taking "the" as this one does, is likelier to be of the
        # same sort (a person for a person, not "the Billboard Hot 100" for "Mickey Thomas").
        the = bool(_THE_BEFORE.search(sentence[:start]))
        fitting = [other for other in fitting if _takes_the(passage, other) == the] or fitting
        alike = [other for other in fitting if len(other.split()) == len(name.split())]
        options += [(start, end, name, other) for other in alike or fitting]
    if not options:
        return None
    start, end, name, other = rng.choice(options)
    return Variant("swapped-name", replace_span(sentence, start, end, other), f"{name} -> {other}")
