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

Everything is deterministic: a generator's choices come from the ``random.Random`` it is given,
seeded by the sentence's id.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from ragcard._sentences import split_sentences

__all__ = [
    "CONTRAST_KINDS",
    "FAITHFUL_KINDS",
    "GENERATORS",
    "KINDS",
    "Variant",
    "change_figure",
    "flip_relation",
    "negate",
    "number_unit",
    "reorder",
    "swap_name",
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


def _case_like(word: str, model: str) -> str:
    """``word`` in the case of ``model`` (capitalised or upper)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# -- negation -----------------------------------------------------------------------------

_NEGATED = re.compile(
    r"\b(?:(can)not|(\w+)n['’]t|(is|are|was|were|do|does|did|has|have|had|will|would|should|"
    r"could|must|may|might|need) not(?! only)|(never) |(no longer)|(without))\b",
    re.I,
)
_REMOVED = {"no longer": "still", "without": "with"}
_NEGATIVE = re.compile(r"\b(no|not|none|nothing|nobody|neither|nor|never|without|n't)\b", re.I)
_AUX = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|must|may|might|has|have|had)\b(?! to\b)",
    re.I,
)
_IRREGULAR_N_T = {"wo": "will", "ca": "can", "sha": "shall"}
_PARTICIPLE = re.compile(
    r"^(\w+ed|\w+en|been|got|made|won|become|begun|done|had|held|led|"
    r"left|lost|met|paid|run|said|sent|sold|spent|told|built|brought|"
    r"bought|found|kept|taught|thought|come|gone|grown|known|shown)$",
    re.I,
)
_POSSESSIVE = {"has": "does not have", "have": "do not have", "had": "did not have"}
_PAST = re.compile(
    r"(?<![-'])\b([a-z]{3,}ed|won|became|began|made|wrote|took|gave|led|held|"
    r"left|lost|found|built|sold|died|ran|came|went|grew|knew|became)\b"
)
_NOT_VERB_BEFORE = set(
    "the a an of to be been is are was were has have had and or his her its their very most "
    "more well so first which who that this".split()
)


def negate(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """The sentence with one negation removed, or one added; ``None`` when neither applies."""
    del passage, rng
    found = _NEGATED.search(sentence)
    if found:
        whole = found.group(0)
        if found.group(1):
            new = found.group(1)
        elif found.group(2):
            stem = found.group(2)
            new = _case_like(_IRREGULAR_N_T.get(stem.lower(), stem), stem)
        elif found.group(3):
            new = found.group(3)
        elif found.group(4):
            start, end = found.span(4)
            rest = _replace(sentence, start, end + 1, "")
            return Variant("negation", rest[:1].upper() + rest[1:], "never -> (removed)")
        else:
            new = _case_like(_REMOVED[whole.lower()], whole)
        return Variant("negation", _replace(sentence, *found.span(), new), f"{whole} -> {new}")
    if _NEGATIVE.search(sentence):
        return None  # a second negative word would make a double negation, not a contrast
    for aux in _AUX.finditer(sentence):
        if aux.start() == 0:
            continue
        word = aux.group(1)
        after = sentence[aux.end() :].split(maxsplit=1)
        following = after[0].strip(",.;:") if after else ""
        if word.lower() in _POSSESSIVE and not _PARTICIPLE.match(following):
            new = _case_like(_POSSESSIVE[word.lower()], word)
        elif word.lower() == "can":
            new = _case_like("cannot", word)
        else:
            new = f"{word} not"
        return Variant("negation", _replace(sentence, *aux.span(), new), f"{word} -> {new}")
    for verb in _PAST.finditer(sentence):
        before = sentence[: verb.start()].split()
        if not before or before[-1].lower().strip(",") in _NOT_VERB_BEFORE:
            continue
        if before[-1].endswith(","):
            continue
        text = _replace(sentence, verb.start(), verb.start(), "never ")
        return Variant("negation", text, f"{verb.group(1)} -> never {verb.group(1)}")
    return None


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
    "November", "December", "Mr", "Mrs", "Ms", "Dr", "Sir", "St",
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


def _names(text: str) -> list[tuple[int, int, str]]:
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


def _name_class(name: str) -> str:
    return "code" if _CODE.match(name.replace(" ", "")) else "name"


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
        for start, _e, value in _names(passage)
        if not re.search(r"(?:^|[.!?:;])[\s\"'“‘(\[]*$", passage[:start])
    ]
    return [
        name
        for name in dict.fromkeys(inside)
        if name.lower() not in _NUMBER_WORDS_ALL
        and "'" not in name
        and (" " in name or name.lower() not in lower)
    ]


def swap_name(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """One name of the sentence replaced by another name the passage states; ``None`` when the
    sentence has no name the passage states, or the passage no other name of its class."""
    mine = [span for span in _names(sentence) if span[2] in passage]
    if sentence[:1].isupper() and mine and mine[0][0] == 0:
        first = mine[0][2]
        if f" {first}" not in passage and first.split()[0] not in passage[1:]:
            mine = mine[1:]  # a capital only because the sentence starts there
    theirs = _passage_names(passage)
    options: list[tuple[int, int, str, str]] = []
    for start, end, name in mine:
        words = set(name.lower().split())
        fitting = [
            other
            for other in theirs
            if other not in sentence
            and not words & set(other.lower().split())
            and _name_class(other) == _name_class(name)
            and not _listed_together(passage, name, other)
        ]
        # A name of as many words is likelier to be of the same sort (a person for a person).
        alike = [other for other in fitting if len(other.split()) == len(name.split())]
        options += [(start, end, name, other) for other in alike or fitting]
    if not options:
        return None
    start, end, name, other = rng.choice(options)
    return Variant("swapped-name", _replace(sentence, start, end, other), f"{name} -> {other}")


# -- flipped relation ----------------------------------------------------------------------

_PAIRS = [
    ("before", "after"), ("highest", "lowest"), ("higher", "lower"), ("increase", "decrease"),
    ("increased", "decreased"), ("increases", "decreases"), ("increasing", "decreasing"),
    ("more", "less"), ("most", "least"), ("fewer", "more"), ("first", "last"),
    ("minimum", "maximum"), ("must", "may"), ("largest", "smallest"), ("larger", "smaller"),
    ("biggest", "smallest"), ("longest", "shortest"), ("longer", "shorter"),
    ("earliest", "latest"), ("earlier", "later"), ("oldest", "youngest"), ("older", "younger"),
    ("above", "below"), ("inside", "outside"), ("north", "south"), ("east", "west"),
    ("northern", "southern"), ("eastern", "western"), ("always", "never"), ("some", "all"),
    ("required", "optional"), ("mandatory", "optional"), ("allowed", "forbidden"),
    ("male", "female"), ("positive", "negative"), ("majority", "minority"),
    ("best", "worst"), ("better", "worse"), ("same", "different"), ("rise", "fall"),
    ("rose", "fell"), ("won", "lost"), ("win", "lose"), ("wins", "loses"), ("early", "late"),
    ("beginning", "end"), ("start", "end"), ("at least", "at most"), ("upper", "lower"),
    ("top", "bottom"), ("maximum", "minimum"), ("cheapest", "most expensive"),
]  # fmt: skip
_FLIP: dict[str, str] = {}
for _a, _b in _PAIRS:
    _FLIP.setdefault(_a, _b)
    _FLIP.setdefault(_b, _a)
_FLIP.pop("all")  # "all" -> "some" is entailed (a weaker claim), not a contrast
_FLIP_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _FLIP), key=len, reverse=True)) + r")\b", re.I
)
#: Fixed phrases whose relation word flips into nonsense, not into a contradiction.
_IDIOMS = re.compile(
    r"\b(?:named after|after all|look(?:s|ed)? after|more or less|at (?:the )?last|at first|"
    r"first (?:name|lady|world war)|last (?:name|supper)|the same time|(?:in|at) the end|"
    r"end of|some of|all of|more than one|no more|in all|all over|once more|after which|"
    r"before long|top of|bottom of|the end|to an end|end up|ended up|fall(?:s)? in love|"
    r"first of all|all the|all in all|some time|sometimes|east end|west end|"
    r"some \d|more and more|at least one|the late|last (?:year|week|month|night|time))\b",
    re.I,
)


def flip_relation(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """One relation, quantifier or modality word flipped; ``None`` without one."""
    del passage
    idioms = [m.span() for m in _IDIOMS.finditer(sentence)]
    options = [
        m
        for m in _FLIP_RE.finditer(sentence)
        if m.group(1)[:1].islower() or m.start() == 0
        if not any(s <= m.start() < e for s, e in idioms)
    ]
    if not options:
        return None
    match = rng.choice(options)
    word = match.group(1)
    new = _case_like(_FLIP[word.lower()], word)
    return Variant("flipped-relation", _replace(sentence, *match.span(), new), f"{word} -> {new}")


# -- changed figure ------------------------------------------------------------------------

_NUMBER_WORDS = "two three four five six seven eight nine ten eleven twelve".split()
_FIGURE = re.compile(
    r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w-]|[.,]\d)|\b("
    + "|".join(_NUMBER_WORDS)
    + r")\b",
    re.I,
)


_UPPER_BOUND = re.compile(
    r"\b(?:before|under|up to|less than|fewer than|within|no more than|at most|maximum(?: of)?|"
    r"below|until|by|max\.?)\s+[£$€]?$",
    re.I,
)


def change_figure(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """One figure changed: a digit value +1..3 (a year too), a number word to the next one."""
    del passage
    options = list(_FIGURE.finditer(sentence))
    if not options:
        return None
    match = rng.choice(options)
    if match.group(1):
        raw = match.group(1)
        step = rng.randint(1, 3)
        # Under an upper bound ("up to 20", "before 12") a larger figure is a weaker claim the
        # passage may still entail; a smaller one is a stronger claim, and unsupported.
        if _UPPER_BOUND.search(sentence[: match.start()]) and float(raw.replace(",", "")) > step:
            step = -step
        if "," in raw:
            new = f"{int(raw.replace(',', '')) + step * 10 ** (len(raw.split(',')[-1])):,}"
        elif "." in raw:
            decimals = len(raw.split(".")[1])
            new = f"{float(raw) + step:.{decimals}f}"
        else:
            new = str(int(raw) + step)
    else:
        word = match.group(2)
        index = _NUMBER_WORDS.index(word.lower())
        new = _case_like(_NUMBER_WORDS[(index + 1) % len(_NUMBER_WORDS)], word)
    old = match.group(0)
    return Variant("changed-figure", _replace(sentence, *match.span(), new), f"{old} -> {new}")


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


def _lower_first(text: str) -> str:
    first = text.split(maxsplit=1)[0]
    return text[:1].lower() + text[1:] if first in _LOWER_FIRST else text


def reorder(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """A leading adverbial phrase moved to the end, a trailing date phrase to the front, or two
    names joined by "and" swapped; ``None`` when none of these shapes is there."""
    del passage, rng
    lead = _LEADING.match(sentence)
    if lead and _one_clause(lead.group(3)):
        word, phrase, rest = lead.groups()
        rest = rest[:1].upper() + rest[1:]
        text = f"{rest} {word.lower()} {phrase}."
        return Variant("reordered", text, f"'{word} {phrase},' moved to the end")
    trail = _TRAILING.match(sentence)
    if trail and _one_clause(trail.group(1)):
        rest, phrase = trail.groups()
        text = f"{phrase[:1].upper()}{phrase[1:]}, {_lower_first(rest)}."
        return Variant("reordered", text, f"'{phrase}' moved to the front")
    names = {(start, end) for start, end, _name in _names(sentence)}
    for pair in _TWO_NAMES.finditer(sentence):
        one, two = pair.groups()
        before = sentence[: pair.start()].split()[-1:]
        after = sentence[pair.end() :].split()[:2]
        if (
            one == two
            or pair.start() == 0  # a title such as "Jekyll and Hyde" may lead a sentence
            or pair.span(1) not in names
            or pair.span(2) not in names
            or (before and (before[0][:1].isupper() or any(c.isdigit() for c in before[0])))
            or (len(after) == 2 and after[0].islower() and after[1][:1].isupper())
        ):
            continue
        text = _replace(sentence, *pair.span(), f"{two} and {one}")
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
_DIGIT_WORDS = dict(zip(map(str, range(2, 13)), _NUMBER_WORDS, strict=True))
_SMALL_DIGIT = re.compile(r"(?<![\w.,£$€:/-])([2-9]|1[0-2])(?![\w.,:/%-]|\s*(?:%|percent))")
_SMALL_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b(?!-)", re.I)
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
        options.append((*match.span(), str(_NUMBER_WORDS.index(word) + 2)))
    if not options:
        return None
    start, end, new = rng.choice(options)
    old = sentence[start:end]
    return Variant("number-unit", _replace(sentence, start, end, new), f"{old} -> {new}")


#: kind → generator(sentence, passage, rng); ``paraphrase`` and ``original`` are not generated.
GENERATORS: dict[str, Callable[[str, str, random.Random], Variant | None]] = {
    "negation": negate,
    "swapped-name": swap_name,
    "flipped-relation": flip_relation,
    "changed-figure": change_figure,
    "reordered": reorder,
    "number-unit": number_unit,
}
