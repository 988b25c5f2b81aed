"""Answer correctness by key facts: does the answer state what the expected answer states?

The offline judges grade an answer against the item's expected answer (docs/metrics.md,
"Answer correctness") from the expected answer's **key facts**, read deterministically:

* **figures** — numbers with what they count (``four weeks``, ``25 days``, ``£2,000``, ``55
  pounds``, ``50%``, ``10:00``, ``1 January``, ordinals such as ``eighth calendar day``), and
  identifiers (``HR-22``, ``MATB1``, e-mail addresses, phone numbers);
* **terms** — the expected answer's content words that the question does not already hold
  (stemmed as the lexical judge stems them; a capitalised name counts double; "PIP" states
  "Performance Improvement Plan"), i.e. what the answer must add to the question;
* **polarity** — a clause that says "not", "cannot", "never" or an antonym ("closed" for "not
  open", "unpaid" for "not paid"), read per clause, and a leading "Yes"/"No";
* **the main point** and the **secondary** parts (:mod:`ragcard.judges.main_point`): a
  parenthetical and an attributed answer's source are checked for conflicts, never required.

Inline citation markers (``[working-hours@2024#1.1]``) are removed before the answer is read.

The grade:

* ``wrong`` — a **conflict** with the key fact: another value in the **same slot** (the same
  kind of figure — any currency for an amount, any duration — about the same thing: the terms
  of its clause and its period, :func:`_slot`) and never the expected one (``two weeks'
  notice`` for ``four weeks' notice``, "£1,400" for "€1,400"; a true figure about something
  else is no conflict); the other end of a range; two figures swapped between their rules; the
  expected figure bounded the other way ("after 45 days" for "within 45 days"); the opposite
  polarity on a clause that otherwise matches, or on the rule a "Yes"/"No" answers; the
  opposite "Yes"/"No"; a negation, name or relation word changed (:mod:`ragcard.judges.contrast`)
  against the expected answer or against the gold passage sentence stating the main point that
  the answer copies (where a figure changed there counts too); or a **rival limit**: the
  expected time limit is there, and another sentence gives another limit about the same thing
  ("respond within five working days … must give a written decision within four weeks": which
  one holds?). Or **no key fact**: none of the figures and too few of the terms — a
  neighbouring question answered.
* ``correct`` — every required figure, and at least :data:`CORRECT_TERMS` of the terms.
* ``partial`` — some of the key facts and no conflict. Its score (the share of figures found,
  weighted 0.6, plus the share of terms, 0.4) says how much; with the main point (each of its
  facts covered to :data:`LEAD_MAIN`) it is at least :data:`MAIN_POINT`, which the rubric reads
  as "the main question answered, a secondary detail missing". The reason names what is
  missing: of the main point when it is missed, else of the whole.

What it cannot see: a paraphrase with none of the expected words ("a fortnight" for "two
weeks"), a wrong figure of a kind the expected answer does not state, a conflict worded in
other words (a reworded sentence with a name swapped). The embedding and ensemble judges add a
meaning check for the first; the LLM judges read the answer. Measured against a careful reader
on the demo's answers: ``ragcard judges evaluate --judge lexical --dataset demo-correctness``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace

from ragcard._sentences import sentence_spans
from ragcard.inputs.responses import strip_markers
from ragcard.judges.base import MAIN_POINT, Evidence, Grade, Verdict, correctness_verdict
from ragcard.judges.contrast import Contrast, contrast_in, is_copy
from ragcard.judges.contrast_lexicon import AXES, PHRASES
from ragcard.judges.figures import conflicting_figures
from ragcard.judges.lexical import (
    _NUMBER_WORDS,
    _STOPWORDS,
    _is_negation,
    _normalise_number,
    _tokens,
    stem,
)
from ragcard.judges.main_point import main_point, secondary_spans

__all__ = [
    "ALGORITHM",
    "CORRECT_TERMS",
    "LEAD_MAIN",
    "SIMILAR_CORRECT",
    "SIMILAR_PARTIAL",
    "Coverage",
    "KeyFacts",
    "Quantity",
    "clause_polarity",
    "coverage",
    "grade_answer",
    "key_facts",
    "quantities",
]

#: Bumped whenever extraction or the grading rule changes meaning.
ALGORITHM = "key-facts/5"  # 2: a rival time limit in another sentence; 3: "1.5x" a figure;
# 4: main-point credit, slot-aware values, contrast rules on the key fact, citation markers;
# 5: a sentence that restates a passage sentence is not read against the expected answer,
# which is read clause by clause
#: Share of the expected answer's new terms a correct answer holds (with every figure).
CORRECT_TERMS = 0.5
#: A partial answer has the main point (a score of at least
#: :data:`~ragcard.judges.base.MAIN_POINT`, rubric level 2, not 1) when each fact of the
#: expected answer's main point is covered to this (chosen on the handbook labels' dev split).
LEAD_MAIN = 0.7
#: Share of the expected answer's new terms below which an answer with no figure is wrong.
WRONG_TERMS = 0.3
#: A clause of the answer "matches" an expected clause when it holds this share of its terms.
CLAUSE_MATCH = 0.75
#: A meaning score (``similarity``) from which an answer with every figure is correct …
SIMILAR_CORRECT = 0.80
#: … and from which an answer with no figure to check is at least partial.
SIMILAR_PARTIAL = 0.70

_ORDINALS = {
    word: str(value)
    for value, word in enumerate(
        "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
        "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split()
    )
}
_NUMBER_NAMES = {**_NUMBER_WORDS, "one": "1", "hundred": "100", "dozen": "12"}
_MONTHS = frozenset(
    "january february march april may june july august september october november "
    "december".split()
)
#: Words between a number and what it counts ("three consecutive working days").
_UNIT_FILLERS = frozenset(
    "consecutive working calendar business full extra further more additional paid unpaid "
    "whole clear work".split()
)
_UNITS = {
    stem(word): canonical
    for canonical, words in {
        "day": "day days",
        "week": "week weeks fortnight",
        "month": "month months",
        "year": "year years",
        "hour": "hour hours",
        "minute": "minute minutes",
        "time": "time times",
        "percent": "percent per cent",
        "£": "pound pounds quid",  # "55 pounds" is "£55"
        "€": "euro euros",
        "$": "dollar dollars",
    }.items()
    for word in words.split()
}
#: What an ordinal counts besides time units ("third work anniversary").
_ORDINAL_COUNTS = frozenset(stem(word) for word in ("anniversary", "birthday"))
#: Antonyms whose use flips a clause's polarity: "closed" reads as "not open".
_ANTONYMS = {
    stem(word): stem(base)
    for word, base in {
        "closed": "open",
        "closes": "open",
        "shut": "open",
        "unpaid": "paid",
        "forbidden": "allowed",
        "prohibited": "allowed",
        "banned": "allowed",
        "disallowed": "allowed",
        "ineligible": "eligible",
        "excluded": "included",
        "exclude": "include",
        "excludes": "include",
        "refused": "approved",
        "rejected": "approved",
        "denied": "approved",
        "optional": "required",
        "unlimited": "limited",
    }.items()
}
_IDENTIFIER = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an e-mail address
    r"|\+?\d[\d ]{6,}\d"  # a phone number
    r"|\b[A-Za-z\d]+(?:-[A-Za-z\d]+)*\b"  # a code if it mixes letters and digits: HR-22, MATB1
)
_NOT_A_CODE = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|s|p|x)|\d+(?:-[A-Za-z]+)+|\d+-\d+|[A-Za-z]+(?:-[A-Za-z]+)*|\d+",
    re.I,
)  # ordinals, times, pence, multipliers, "48-hour", ranges, words, numbers
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))\b|\b(\d{1,2})\s?(am|pm)\b", re.IGNORECASE)
_CURRENCY = re.compile(r"([£$€])\s?(\d[\d,]*(?:\.\d+)?)")
_PENCE = re.compile(r"\b(\d+(?:\.\d+)?)p\b")
_PERCENT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s?%")
_MULTIPLIER = re.compile(r"\b(\d+(?:\.\d+)?)\s?[x×](?![\w])")  # "1.5x", "2 ×": times
_CLAUSE = re.compile(
    r"[.;:,!?()\u2013\u2014]|\s(?:and|but|or|which|while|whereas|unless|although|so)\s", re.I
)
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A figure: its normalised value, what it counts (None when nothing follows it), where
    it is (character offsets) and the clause it sits in."""

    value: str
    unit: str | None
    start: int
    end: int
    clause: int

    def shown(self, text: str) -> str:
        return text[self.start : self.end]


@dataclass(frozen=True, slots=True)
class KeyFacts:
    """What an expected answer states, for grading answers against it."""

    text: str
    quantities: tuple[Quantity, ...]
    identifiers: frozenset[str]
    terms: dict[str, float]  # stemmed new term → weight
    clauses: tuple[tuple[frozenset[str], bool], ...]  # per clause: its terms, its polarity
    yes_no: str | None
    #: The key facts of the main point alone (:func:`~ragcard.judges.main_point.main_point`),
    #: one per thing the question asks, when there are other facts.
    points: tuple[KeyFacts, ...] = ()
    #: Figures of the secondary parts (a parenthetical, an attributed answer's source year):
    #: a conflict with them counts, their absence does not.
    secondary: tuple[Quantity, ...] = ()
    #: stemmed term → the word it came from (for reasons)
    surface: dict[str, str] = field(default_factory=dict)
    question: str | None = None
    point: str = ""  # the main point's words
    core: str = ""  # the text, its secondary parts blanked out

    @property
    def required(self) -> tuple[Quantity, ...]:
        return tuple(q for q in self.quantities if q not in self.secondary)


def _clauses(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _CLAUSE.finditer(text):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _clause_of(position: int, clauses: Sequence[tuple[int, int]]) -> int:
    for index, (start, end) in enumerate(clauses):
        if start <= position < end:
            return index
    return max(0, len(clauses) - 1)


_WORD = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:st|nd|rd|th)?|[^\W\d_]+(?:['’][^\W\d_]*)?")


@functools.lru_cache(maxsize=1 << 14)
def quantities(text: str) -> tuple[Quantity, ...]:
    """The figures of ``text`` in order: amounts (``£2,000``), percentages, times, dates
    (``1 January``), and numbers or number words with the noun they count (``four weeks``,
    ``eighth calendar day``; the unit is None when no counted noun follows)."""
    clauses = _clauses(text)
    found: list[Quantity] = []
    # phone numbers and codes are identifiers, not figures
    taken = [span for span, kind in _identifier_spans(text) if kind != "email"]

    def add(value: str, unit: str | None, start: int, end: int) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        found.append(Quantity(value, unit, start, end, _clause_of(start, clauses)))

    for figure in _symbol_figures(text):
        add(*figure)
    words = list(_WORD.finditer(text))
    i = -1
    while (i := i + 1) < len(words):
        match = words[i]
        token = match.group(0).lower().replace("’", "'")
        single = _number_value(token)
        if single is None:
            continue
        value, first, last = single, i, i
        if token in _NUMBER_NAMES:  # "one hundred and forty-two": one figure, 142
            value, last = _number_words(words, i)
        limit = clauses[_clause_of(words[last].start(), clauses)][1] if clauses else len(text)
        following = [w for w in words[last + 1 : last + 4] if w.end() <= limit]
        i = last
        month = following[0].group(0).lower() if following else ""
        if month in _MONTHS:
            add(f"{value} {month}", "date", match.start(), following[0].end())
            continue
        unit, end = _counted(following, words[last].end())
        if token == "one" and last == first and unit is None:
            continue  # "one of the…": not a count
        if token in _ORDINALS or re.fullmatch(r"\d+(?:st|nd|rd|th)", token):
            if unit not in _UNITS.values() and unit not in _ORDINAL_COUNTS:
                continue  # "first class", "second reviewer": an ordinal counts only a time unit
            unit = f"#{unit}"  # a position ("the eighth day"), never a duration ("eight days")
        add(value, unit, match.start(), end)
    found.sort(key=lambda q: q.start)
    return tuple(found)


def _symbol_figures(text: str) -> list[tuple[str, str, int, int]]:
    """(value, unit, start, end) of the amounts, percentages, multipliers ("1.5x": 1.5 times)
    and clock times of ``text``."""
    figures = []
    for match in _CURRENCY.finditer(text):
        figures.append((_normalise_number(match.group(2)), match.group(1), *match.span()))
    for match in _PENCE.finditer(text):
        figures.append((_normalise_number(match.group(1)), "p", *match.span()))
    for match in _PERCENT.finditer(text):
        figures.append((_normalise_number(match.group(1)), "percent", *match.span()))
    for match in _MULTIPLIER.finditer(text):
        figures.append((_normalise_number(match.group(1)), "time", *match.span()))
    for match in _TIME.finditer(text):
        if match.group(1) is not None:
            value = f"{int(match.group(1))}:{match.group(2)}"
        else:
            hour = int(match.group(3)) % 12 + (12 if match.group(4).lower() == "pm" else 0)
            value = f"{hour}:00"
        figures.append((value, "clock", *match.span()))
    return figures


def _counted(following: Sequence[re.Match[str]], end: int) -> tuple[str | None, int]:
    """What a number counts, from the words after it (fillers such as "working" skipped), and
    where the figure ends; (None, ``end``) when a stop word comes first."""
    for match in following:
        word = _bare(match.group(0).lower().replace("’", "'"))
        if word in _UNIT_FILLERS:
            continue
        unit = _UNITS.get(stem(word))
        if unit is None and word not in _STOPWORDS and word.isalpha():
            unit = stem(word)  # what it counts: "25 passages", "3 visits"
        return (unit, match.end()) if unit is not None else (None, end)
    return None, end


def _bare(word: str) -> str:
    """A word without its possessive: "weeks'" → "weeks", "week's" → "week"."""
    word = word.rstrip("'")
    return word[:-2] if word.endswith("'s") else word


_SCALES = {"hundred": 100, "thousand": 1000}


def _number_words(words: Sequence[re.Match[str]], i: int) -> tuple[str, int]:
    """The value of the number words from ``words[i]`` on ("four hundred and twelve" → 412)
    and the index of the last word used."""
    total, current, last, j = 0, 0, i, i
    while j < len(words):
        token = words[j].group(0).lower()
        if token in _SCALES:
            current = max(current, 1) * _SCALES[token]
            if token == "thousand":
                total, current = total + current, 0
        elif token in _NUMBER_NAMES and token != "dozen":
            current += int(_NUMBER_NAMES[token])
        elif token == "and" and j + 1 < len(words) and words[j + 1].group(0).lower() in (
            _NUMBER_NAMES
        ):
            j += 1
            continue
        else:
            break
        last, j = j, j + 1
    return str(total + current), last


def _number_value(token: str) -> str | None:
    if token[0].isdigit():
        return _normalise_number(re.sub(r"(st|nd|rd|th)$", "", token))
    if token in _ORDINALS:
        return _ORDINALS[token]
    return _NUMBER_NAMES.get(token)


@functools.lru_cache(maxsize=1 << 14)
def _identifier_spans(text: str) -> tuple[tuple[tuple[int, int], str], ...]:
    """(span, kind) of the e-mail addresses, phone numbers and codes of ``text``."""
    found = []
    for match in _IDENTIFIER.finditer(text):
        token = match.group(0)
        if "@" in token:
            found.append((match.span(), "email"))
        elif sum(ch.isdigit() for ch in token) >= 7 and not token.isalnum():
            found.append((match.span(), "phone"))
        elif not _NOT_A_CODE.fullmatch(token):
            found.append((match.span(), "code"))
    return tuple(found)


#: Words that set a rule's scope: an answer that drops them ("always", "whatever the cost")
#: may state a narrower rule than the source, so they are key facts like figures.
_CONDITION_WORDS = {
    "always": "always",
    "never": "never",
    "whatever": "whatever",
    "regardless": "whatever",
    "unless": "unless",
    "except": "except",
    "apart": "except",
}


def _conditions(text: str) -> frozenset[str]:
    """The scope words of ``text`` (:data:`_CONDITION_WORDS`), as facts named ``~word``."""
    return frozenset(
        f"~{_CONDITION_WORDS[t]}" for t in _tokens(text) if t in _CONDITION_WORDS
    )


def _identifiers(text: str) -> frozenset[str]:
    """The normalised identifiers of ``text``: e-mail addresses (lower case), phone numbers
    (digits only, however spaced), codes (upper case)."""
    found = set()
    for (start, end), kind in _identifier_spans(text):
        token = text[start:end]
        if kind == "email":
            found.add(token.lower().rstrip("."))
        elif kind == "phone":
            found.add(re.sub(r"\D", "", token))
        else:
            found.add(token.upper())
    return frozenset(found)


def _term_weights(text: str, question: str | None) -> dict[str, float]:
    """The stemmed content words of ``text`` the question does not hold; names weigh 2."""
    asked = _content(question or "")
    weights: dict[str, float] = {}
    for index, raw in enumerate(re.finditer(r"[^\W\d_]+(?:['’][^\W\d_]+)?", text)):
        token = raw.group(0)
        lower = token.lower().replace("’", "'")
        if lower in _STOPWORDS or _is_negation(lower) or len(lower) < 2 or lower in _NUMBER_NAMES:
            continue
        if lower in _ORDINALS or lower in ("yes",) or lower in _MODALS:
            continue
        term = _term(lower)
        if term in asked:
            continue
        name = token[0].isupper() and index > 0 and lower not in _MONTHS
        weights[term] = max(weights.get(term, 0.0), 2.0 if name else 1.0)
    return weights


#: Modal verbs: they set a rule's force (the contrast rules read them), not what it is about.
_MODALS = frozenset({"must", "may", "might", "shall"})


def _term(token: str) -> str:
    """A word as a key-fact term: stemmed as the lexical judge stems it, an antonym as its base,
    and "carried" / "carries" / "carry" one term (the stemmer leaves "carri")."""
    term = stem(token)
    term = _ANTONYMS.get(term, term)
    return term[:-1] + "y" if term.endswith("i") and len(term) > 3 else term


@functools.lru_cache(maxsize=1 << 16)  # passages and expected answers are read again and again
def _content(text: str) -> frozenset[str]:
    """Stemmed content words (antonyms as their base), numbers and number words left out."""
    terms = set()
    for token in _tokens(text):
        if token[0].isdigit() or token in _STOPWORDS or _is_negation(token) or len(token) < 2:
            continue
        if token in _NUMBER_NAMES or token in _ORDINALS or token in _MODALS:
            continue
        terms.add(_term(token))
    return frozenset(terms)


def clause_polarity(text: str) -> bool:
    """True when a clause is negative: an odd count of negation words and antonyms
    ("is closed" and "does not open" agree; "is not closed" is positive)."""
    flips = 0
    for token in _tokens(text):
        if _is_negation(token) or stem(token) in _ANTONYMS:
            flips += 1
    return flips % 2 == 1


def key_facts(expected: str, question: str | None = None) -> KeyFacts:
    """The key facts of an expected answer (module docstring); its secondary parts
    (:func:`ragcard.judges.main_point.secondary_spans`) are checked for conflicts but not
    required, and :attr:`KeyFacts.lead` holds the main point's."""
    spans = secondary_spans(expected)
    core = _blank(expected, spans)
    points = main_point(core, question, _has_fact)
    facts = _facts(expected, question, core, spans)
    if len(points) > 1 or _words(points[0]) != _words(core):
        parts = tuple(_facts(point, question, point, []) for point in points)
        facts = replace(facts, points=parts)
    return replace(facts, point="; ".join(points), core=core)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _has_fact(text: str) -> bool:
    return bool(quantities(text) or _identifiers(text))


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with ``spans`` blanked out (offsets kept)."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _facts(
    expected: str, question: str | None, core: str, spans: Sequence[tuple[int, int]]
) -> KeyFacts:
    clauses = []
    for start, end in _clauses(expected):
        piece = expected[start:end]
        clauses.append((frozenset(_content(piece)), clause_polarity(piece)))
    found = _YES_NO.match(expected)
    figures = quantities(expected)
    return KeyFacts(
        expected,
        figures,
        _identifiers(core) | _conditions(core),
        _term_weights(core, question),
        tuple(clauses),
        found.group(1).lower() if found else None,
        (),
        tuple(q for q in figures if any(s <= q.start < e for s, e in spans)),
        _surfaces(core),
        question,
    )


def _surfaces(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for raw in re.finditer(r"[^\W\d_]+(?:['’][^\W\d_]+)?", text):
        found.setdefault(_term(raw.group(0).lower().replace("’", "'")), raw.group(0))
    return found


_KNOWN_UNITS = (
    frozenset(_UNITS.values())
    | {f"#{unit}" for unit in _UNITS.values()}
    | {"£", "$", "€", "p", "clock", "date"}
)


def _same_figure(want: Quantity, have: Quantity) -> bool:
    """The same value of the same kind: a time or money unit must agree; a counted noun may
    differ ("six free sessions" / "six counselling sessions")."""
    if want.value != have.value:
        return False
    if (want.unit or "").startswith("#") or (have.unit or "").startswith("#"):
        return want.unit == have.unit  # a position ("third anniversary") is no count
    if want.unit in _KNOWN_UNITS and have.unit in _KNOWN_UNITS:
        return want.unit == have.unit
    return True


def _matched(wanted: Sequence[Quantity], have: Sequence[Quantity]) -> list[Quantity]:
    """The wanted figures the answer states, each answer figure standing for one of them only
    ("20 days … a further 20 days" needs two twenties)."""
    return [want for want, _ in _pairs(wanted, have)]


def _pairs(
    wanted: Sequence[Quantity], have: Sequence[Quantity]
) -> list[tuple[Quantity, Quantity]]:
    free = list(have)
    pairs = []
    for want in wanted:
        same = next((h for h in free if _same_figure(want, h)), None)
        if same is not None:
            free.remove(same)
            pairs.append((want, same))
    return pairs


_COARSE = re.compile(r"[;!?\u2013\u2014]|\.(?=\s|$)")


def _context_of(text: str, position: int, unit: str | None) -> frozenset[str]:
    """The content terms of the part of ``text`` (cut at sentence ends, ';' and dashes) that
    holds ``position``, the unit left out: what a figure is about."""
    start = max((m.end() for m in _COARSE.finditer(text, 0, position)), default=0)
    found = _COARSE.search(text, position)
    end = found.start() if found else len(text)
    return frozenset(t for t in _content(text[start:end]) if t != unit)


def _conflict(
    facts: KeyFacts, answer: str, have: Sequence[Quantity], passages: Sequence[Evidence] = ()
) -> str | None:
    """Why the answer contradicts the expected answer, or None."""
    answer_clauses = _clauses(answer)
    pairs = _pairs(facts.quantities, have)
    best = _other_value(facts, answer, have, pairs) or _rival(facts, answer, have, pairs)
    if best is not None:
        return best[1]
    swapped = (
        _swapped(facts, answer, pairs)
        or _bound_flipped(facts, answer, pairs)
        or _other_identifier(facts, answer)
        or _relation_flip(facts, answer)
    )
    if swapped is not None:
        return swapped
    contrast = _contrast(facts, answer, passages)
    if contrast is not None:
        return contrast
    opening = _YES_NO.match(answer)
    if facts.yes_no and opening and opening.group(1).lower() != facts.yes_no:
        return (
            f"the answer says '{opening.group(1)}' where the expected answer says "
            f"'{facts.yes_no}'"
        )
    return _polarity_conflict(facts, answer, answer_clauses)


_MONEY = frozenset("£€$")
#: Words that bound or place a figure, not what it is about ("within 24 hours").
_FILLER_TERMS = frozenset(
    stem(word) for word in _UNIT_FILLERS | {"within", "least", "up", "per", "each", "every",
                                             "than", "most", "maximum", "minimum", "only"}
)  # fmt: skip
_PERIOD = re.compile(
    r"\s*(?:a|an|per|each|every)\s+(?:calendar\s+|policy\s+|tax\s+|holiday\s+|working\s+)?"
    r"(day|week|month|year|night|mile|hour)s?\b",
    re.IGNORECASE,
)


def _slot(
    text: str,
    figure: Quantity,
    question: str | None = None,
    wide: bool = False,
    period: bool = True,
) -> frozenset[str]:
    """What a figure is about: the content terms of its clause, its unit left out, with its
    period ("£55 a day": "per day") and a parenthetical right after it ("£350 (UK)"); a clause
    without a term borrows the one before it, and a bare figure that is the whole
    expected answer ("Six months.") is about what the question asks. ``wide`` (an answer's
    figure, set beside an expected one): a clause with fewer than three terms borrows both
    neighbours in its sentence, since the answer may split the sentence elsewhere. ``period``:
    whether the period counts (not where figures are compared with each other's slots: "up
    to 28 days" and "up to a maximum of 28 days a year" are one)."""
    clauses = _clauses(text)
    index = _clause_of(figure.start, clauses)
    terms = _slot_terms(text, clauses[index], figure) if clauses else set()
    if wide and len(terms) < 3:
        sentences = _sentences(text)
        home = _clause_of(figure.start, sentences)
        for near in (index - 1, index + 1):
            if 0 <= near < len(clauses) and _clause_of(clauses[near][0], sentences) == home:
                terms |= _slot_terms(text, clauses[near], figure)
    elif not terms and index > 0:
        terms |= _slot_terms(text, clauses[index - 1], figure)
    every = _PERIOD.match(text, figure.end)
    if every and period:
        terms.add(f"per {every.group(1).lower()}")
    aside = _ASIDE.match(text, figure.end)  # "£350 (UK)": the parenthetical says where
    if aside:
        terms |= _content(aside.group(1))
    if not terms and question:
        terms = set(_content(question))
    return frozenset(terms)


def _slot_terms(text: str, span: tuple[int, int], figure: Quantity) -> set[str]:
    skip = {figure.unit, stem(figure.unit or "")} | _FILLER_TERMS
    return {t for t in _content(text[span[0] : span[1]]) if t not in skip}


def _contrast(facts: KeyFacts, answer: str, passages: Sequence[Evidence]) -> str | None:
    """A negation, name or relation word of the key fact changed (:mod:`ragcard.judges.contrast`),
    each answer sentence read against the text it is nearest (its words, shared over all):
    the expected answer, or the gold
    passage sentence stating the main point that it copies (where a changed figure or bound
    counts too). So "may not order" for "may order", "the first working day" for "the last" is
    wrong however the expected answer is worded, and an answer that rewords the expected answer
    is not read against the passage it rewords. A negation against the expected answer counts
    only for a sentence strictly nearer it (shared words over all words) than any passage
    sentence — with no passage given, it is left to the clause check
    (:func:`_polarity_conflict`): a copied passage sentence often negates in other words what
    the expected answer says ("should respond within five days" for
    "hasn't responded within five days")."""
    sentences = [answer[a:b] for a, b in sentence_spans(answer)]
    key = _key_sentences(facts, passages)
    every = [p.text[a:b] for p in passages for a, b in sentence_spans(p.text)]
    expected = _words_of(facts.text)  # its secondary parts too: they may be what it rewords
    # each clause of the expected answer on its own: "may be used only with Open files; use a
    # tablet for Internal or Secret files" does not state "may be used with Internal and Secret"
    clauses = [c for c in re.split(r";\s+", facts.core or facts.text) if c.strip()]
    for sentence in sentences:
        words = _words_of(sentence)
        near = _likeness(words, expected)
        nearest = max((_likeness(words, _words_of(k)) for k in every), default=None)
        found = contrast_in(sentence, clauses)
        nearer = nearest is not None and nearest < near  # nearer the expected answer
        # a sentence that restates a passage sentence says what the source says: "Only AI
        # tools on the approved list may be used with company information" is another rule of
        # the passage, not 'AI' said where the expected answer says 'Public'
        if found is not None and (not _negation_change(found) or nearer) and not is_copy(
            sentence, every
        ):
            return _contrast_reason(found.kind, found.reason, "the expected answer")
        copied = [
            k for k in key if _copies(sentence, k) and _likeness(words, _words_of(k)) >= near
        ]
        if not copied:
            continue  # a sentence about something else, or the expected answer reworded
        # read against every passage sentence (the one it copies is the one it changes), and
        # counted only where the change holds against the key sentences it copies too
        found = contrast_in(sentence, every)
        if found is not None and contrast_in(sentence, copied) is not None:
            return _contrast_reason(found.kind, found.reason, "the passage that states the "
                                    "expected answer")  # fmt: skip
        changed = conflicting_figures(sentence, every)
        if changed and conflicting_figures(sentence, copied):
            ours, theirs = changed[0]
            return (
                f"the answer says '{ours}' where the passage that states the expected answer "
                f"says '{theirs}'"
            )
        flipped = _bound_flipped_in(sentence, copied)
        if flipped is not None:
            return flipped
    return None


def _negation_change(found: Contrast) -> bool:
    """Whether a contrast adds or drops a negation (whatever its kind: "software that is not
    on" for "software on" is one)."""
    if found.kind == "negation":
        return True
    negated = [any(_is_negation(t) for t in _tokens(w)) for w in (found.claim_word,
                                                                  found.evidence_word)]
    return negated[0] != negated[1]


@functools.lru_cache(maxsize=1 << 14)
def _words_of(text: str) -> frozenset[str]:
    """Every word of ``text`` (stop words too: which text a sentence copies is told by them
    as well), lower-cased."""
    return frozenset(_tokens(text))


def _likeness(one: AbstractSet[str], other: AbstractSet[str]) -> float:
    """Shared words over all words of the two (Jaccard)."""
    return len(one & other) / len(one | other) if one | other else 0.0


#: Share of an answer sentence's words a passage sentence holds when the answer copies it.
COPIED = 0.6


def _copies(sentence: str, source: str) -> bool:
    words = _content(sentence)
    return bool(words) and len(words & _content(source)) >= COPIED * len(words)


def _same_lead(sentence: str, figure: Quantity, key: Sequence[str]) -> bool:
    """Whether the word before the bound of ``figure`` comes before the same figure's bound in a
    key sentence: a bound replaced in a copied context ("Spendwise after 45 days" for
    "Spendwise within 45 days"), not a rewording ("leave longer than three days" for "requests
    of up to three days")."""

    def lead(text: str, q: Quantity) -> str:
        before = _tokens(text[: q.start - len(_bounded(text, q)) + len(q.shown(text))])
        return before[-1] if before else ""

    ours = lead(sentence, figure)
    return any(
        lead(text, w) == ours for text in key for w in quantities(text) if _same_figure(w, figure)
    )


def _bound_flipped_in(sentence: str, key: Sequence[str]) -> str | None:
    """A figure of the key passage sentences it copies bounded the other way ("after three
    days of receiving it" for "within three days"), where none of them bounds it the answer's
    way."""
    for same in quantities(sentence):
        ours = _bound(sentence, same)
        if ours is None:
            continue
        bounds = {
            _bound(text, w) for text in key for w in quantities(text) if _same_figure(w, same)
        }
        opposite = any(
            _bound(text, w) not in (None, ours) for text in key for w in quantities(text)
            if _same_figure(w, same)
        )
        if opposite and ours not in bounds and _same_lead(sentence, same, key):
            theirs = next(
                _bounded(text, w) for text in key for w in quantities(text)
                if _same_figure(w, same) and _bound(text, w) not in (None, ours)
            )  # fmt: skip
            return (
                f"the answer says '{_bounded(sentence, same)}' where the passage that states "
                f"the expected answer says '{theirs}'"
            )
    return None


def _contrast_reason(kind: str, reason: str, source: str) -> str:
    """A contrast's reason as a correctness reason: a changed name is a wrong value; a negation
    or a flipped relation word denies what ``source`` states."""
    said = reason.replace("the passage", source)
    if kind == "name":
        return f"the answer {said}"
    return f"the answer denies what {source} states: {said}"


def _key_sentences(facts: KeyFacts, passages: Sequence[Evidence]) -> list[str]:
    """The gold passage sentences that state the main point: one of its figures, or half its
    words and more."""
    points = facts.points or (facts,)
    key = []
    for passage in passages:
        for a, b in sentence_spans(passage.text):
            sentence = passage.text[a:b]
            have = quantities(sentence)
            for point in points:
                found = coverage(sentence, point, have)
                if found.figures_found or (found.terms >= 0.5 and point.terms):
                    key.append(sentence)
                    break
    return key


def _other_identifier(facts: KeyFacts, answer: str) -> str | None:
    """Another phone number, or another code of the same series ("HR-17" for "HR-22"), where
    the main point gives one the answer never states: the number to call, the form to use."""
    point = facts.point or facts.core or facts.text
    found = _identifiers(answer)
    theirs = [(answer[a:b], kind) for (a, b), kind in _identifier_spans(answer)]
    for (start, end), kind in _identifier_spans(point):
        token = point[start:end]
        if kind not in ("phone", "code") or _identifiers(token) <= found:
            continue
        for other, other_kind in theirs:
            if other_kind != kind or _identifiers(other) & facts.identifiers:
                continue
            if kind == "code" and _series(other) != _series(token):
                continue
            return f"the answer says '{other}' where the expected answer says '{token}'"
    return None


#: The relation axes read in a reworded sentence (:data:`ragcard.judges.contrast_lexicon.AXES`):
#: those whose other value contradicts in nearly every context ("must"/"may", "all"/"some" and
#: periods are left to the tight contrast rules).
_FLIP_AXES = frozenset(
    "order sequence superlative change level start trade inside north east front result truth "
    "sign".split()
)


def _axis_values(text: str) -> dict[str, set[str]]:
    """axis → the values its words take in ``text`` ("before" → order: {before})."""
    tokens = _tokens(text)
    found: dict[str, set[str]] = {}
    for i, token in enumerate(tokens):
        pair = tuple(tokens[i : i + 2])
        entry = PHRASES.get(pair) or AXES.get(stem(token))
        if entry is not None and entry[0] in _FLIP_AXES:
            found.setdefault(entry[0], set()).add(entry[1])
    return found


def _axis_words(text: str, axis: str) -> str:
    tokens = _tokens(text)
    words = [
        " ".join(tokens[i : i + 2]) if PHRASES.get(tuple(tokens[i : i + 2])) else token
        for i, token in enumerate(tokens)
        if (PHRASES.get(tuple(tokens[i : i + 2])) or AXES.get(stem(token)) or ("",))[0] == axis
    ]
    return ", ".join(dict.fromkeys(words))


def _relation_flip(facts: KeyFacts, answer: str) -> str | None:
    """A relation word of the main point with the other value of its axis in the answer
    sentence that states the main point in other words ("completed in Harbour after you have
    started working from home" for "to complete in Harbour before working from home")."""
    for point in facts.points or (facts,):
        wanted = _axis_values(point.point or point.core or point.text)
        terms = set(point.terms)
        if not wanted or len(terms) < 3:
            continue
        for a, b in _sentences(answer):
            sentence = answer[a:b]
            held = {t for t in terms if _has_term(t, _content(sentence))}
            if len(held) < max(3, 0.6 * len(terms)):
                continue
            stated = coverage(sentence, point)
            if stated.figures and not stated.figures_found:
                continue  # a sentence about another figure
            for axis, values in _axis_values(sentence).items():
                if axis in wanted and not values & wanted[axis]:
                    return (
                        f"the answer denies what the expected answer states: says "
                        f"'{_axis_words(sentence, axis)}' where the expected answer says "
                        f"'{_axis_words(point.point or point.text, axis)}'"
                    )
    return None


def _series(code: str) -> str:
    """A code's letters before its number ("HR" of "HR-22", "MG-PIP" of "MG-PIP-2")."""
    return re.sub(r"[-\s]*\d[\w-]*$", "", code).upper()


def _year_like(figure: Quantity) -> bool:
    return figure.unit is None and figure.value.isdigit() and 1000 <= int(figure.value) <= 2100


_ASIDE = re.compile(r"\s*\(([^()]*)\)")
_RANGE = re.compile(r"\s*(?:to|until|and|[-–—])\s*", re.IGNORECASE)


def _range_partner(
    facts: KeyFacts,
    want: Quantity,
    answer: str,
    have: Sequence[Quantity],
    pairs: Sequence[tuple[Quantity, Quantity]],
) -> Quantity | None:
    """The other end of a range: the expected answer says "10:00 to 16:00", the answer states
    "16:00" with another figure of the kind at the same end ("13:00 to 16:00")."""
    stated = {id(w): h for w, h in pairs}
    for other in facts.quantities:
        if id(other) not in stated or not _same_kind(want, other):
            continue
        if other.start >= want.end:
            between, before = facts.text[want.end : other.start], True
        else:
            between, before = facts.text[other.end : want.start], False
        if not _RANGE.fullmatch(between):
            continue
        anchor = stated[id(other)]
        for found in have:
            if found is anchor or not _same_kind(want, found) or found.value == want.value:
                continue
            gap = answer[found.end : anchor.start] if before else answer[anchor.end : found.start]
            if (found.start < anchor.start) == before and _RANGE.fullmatch(gap):
                return found
    return None


#: Words that bound a figure from above or below ("within 45 days", "after 45 days").
_BOUNDS = {
    **dict.fromkeys(("within", "by", "before", "until", "under", "below", "max", "maximum",
                     "most", "up to", "no more than", "not more than", "less than",
                     "fewer than", "no later than"), "upper"),
    **dict.fromkeys(("after", "over", "above", "beyond", "min", "minimum", "least",
                     "more than", "no less than", "longer than", "later than"), "lower"),
}  # fmt: skip
_BOUND = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _BOUNDS), key=len, reverse=True)) + r")\s+"
    r"(?:(?:the|a|an|first|last|next|of|your)\s+){0,2}$",
    re.IGNORECASE,
)


def _bound(text: str, figure: Quantity) -> str | None:
    """Whether a figure is an upper or a lower bound, from the words just before it."""
    found = _BOUND.search(text[max(0, figure.start - 40) : figure.start])
    return _BOUNDS[found.group(1).lower()] if found else None


def _bounded(text: str, figure: Quantity) -> str:
    """The figure with the words that bound it ("within 45 days")."""
    start = max(0, figure.start - 40)
    found = _BOUND.search(text[start : figure.start])
    return text[start + found.start() if found else figure.start : figure.end]


def _bound_flipped(
    facts: KeyFacts, answer: str, pairs: Sequence[tuple[Quantity, Quantity]]
) -> str | None:
    """The expected figure, bounded the other way: "after 45 days" for "within 45 days", "at
    least 20 days" for "up to 20 days"."""
    for want, same in pairs:
        if want.unit is None or want.unit != same.unit:
            continue  # "within four" (what?) and "at least four weeks' notice"
        slot = _slot(facts.text, want, facts.question)
        if len(slot & _slot(answer, same, wide=True)) < 0.5 * len(slot):
            continue  # the same figure about something else
        ours, theirs = _bound(answer, same), _bound(facts.text, want)
        if ours and theirs and ours != theirs:
            return (
                f"the answer says '{_bounded(answer, same)}' where the expected answer says "
                f"'{_bounded(facts.text, want)}'"
            )
    return None


def _same_kind(one: Quantity, other: Quantity) -> bool:
    """Figures of one kind: the same unit, or two amounts of money, or two durations ("two
    days" / "two weeks")."""
    if one.unit == other.unit:
        return True
    return any(one.unit in group and other.unit in group for group in (_MONEY, _DURATIONS))


def _swapped(
    facts: KeyFacts, answer: str, pairs: Sequence[tuple[Quantity, Quantity]]
) -> str | None:
    """A stated figure put in another expected figure's slot ("every four years for
    engineering roles and every three years for other roles" for the reverse): the answer's
    figure shares more of the other figure's slot than of its own."""
    for want, same in pairs:
        if want.unit is None:
            continue
        where = _slot(answer, same, period=False)
        own = max(  # how well it fits the slot of an expected figure of its value
            len(_slot(facts.text, twin, facts.question, period=False) & where)
            for twin in facts.quantities
            if (twin.value, twin.unit) == (want.value, want.unit)
        )
        for other in facts.quantities:
            if other.value == want.value or other.unit != want.unit:
                continue
            slot = _slot(facts.text, other, facts.question, period=False)
            theirs = len(slot & where)
            if theirs > own and slot and theirs / len(slot) >= 0.5:
                return (
                    f"the answer says '{same.shown(answer)}' where the expected answer says "
                    f"'{other.shown(facts.text)}' (the figures of two rules swapped)"
                )
    return None


def _other_value(
    facts: KeyFacts,
    answer: str,
    have: Sequence[Quantity],
    pairs: Sequence[tuple[Quantity, Quantity]],
) -> tuple[float, str] | None:
    """Another value where the expected answer has a figure the answer never states: a figure of
    the same kind (unit; any currency for an amount) filling the same slot — the same quantity
    about the same thing (:func:`_slot`). The same number in another currency ("£1,400" for
    "€1,400") conflicts wherever it stands; a second true figure about something else ("£140
    elsewhere in the UK" beside a missing "£55 a day" for meals) is no conflict."""
    stated, used = {id(w) for w, _ in pairs}, {id(h) for _, h in pairs}
    best: tuple[float, str] | None = None  # the conflict in the most similar slot
    question = facts.question
    for want in facts.quantities:
        if id(want) in stated or (want.unit is None and _year_like(want)):
            continue
        partner = _range_partner(facts, want, answer, have, pairs)
        if partner is not None:
            return 1.0, (
                f"the answer says '{partner.shown(answer)}' where the expected answer says "
                f"'{want.shown(facts.text)}'"
            )
        money = want.unit in _MONEY
        slot = _slot(facts.text, want, question)
        for other in have:
            same = (other.value, other.unit) == (want.value, want.unit)
            if not _same_kind(want, other) or id(other) in used or same:
                continue
            if want.unit is None and _year_like(other):
                continue
            shared = slot & _slot(answer, other, wide=True)
            share = len(shared) / len(slot) if slot else 0.0
            # a date, which answers mention for many reasons, needs the closer slot
            loose = want.unit not in ("date", None)  # a bare number needs the closer slot too
            close = share >= 0.5 or (loose and len(shared) >= 2 and share >= 0.3)
            if money and other.value == want.value:
                close, share = True, max(share, 1.0)  # "£1,400" for "€1,400"
            # of equal slots, the figure in the same unit ("two weeks'" for "four weeks'", not
            # for "three consecutive working days" in the same clause)
            share += 0.001 * (other.unit == want.unit)
            if close and (best is None or share > best[0]):
                said = (
                    f"the answer says '{other.shown(answer)}' where the expected answer says "
                    f"'{want.shown(facts.text)}'"
                )
                best = (share, said)
    return best


_DURATIONS = frozenset({"day", "week", "month", "year", "hour", "minute"})


def _rival(
    facts: KeyFacts,
    answer: str,
    have: Sequence[Quantity],
    pairs: Sequence[tuple[Quantity, Quantity]],
) -> tuple[float, str] | None:
    """An expected time limit the answer states, and another limit it gives about the same
    thing in another sentence ("managers respond within five working days … your manager must
    give a written decision within four weeks"): two rules for one case, one of them wrong for
    the asker — a conflict, in the most similar context."""
    sentences = _sentences(answer)
    best: tuple[float, str] | None = None
    used = {id(h) for _, h in pairs}
    for want, same in pairs:
        if want.unit not in _DURATIONS:
            continue
        context = _context_of(facts.text, want.start, want.unit)
        home = _clause_of(same.start, sentences)
        for other in have:
            if id(other) in used or other.unit not in _DURATIONS:
                continue
            if _clause_of(other.start, sentences) == home:
                continue  # the same sentence qualifies its own figure ("5 days, 2 weeks in all")
            shared = context & _context_of(answer, other.start, other.unit)
            share = len(shared) / len(context) if context else 0.0
            if len(shared) >= 2 and share >= 0.5 and (best is None or share > best[0]):
                said = (  # worded as a wrong value (docs/metrics.md, "Diagnosis")
                    f"the answer says '{other.shown(answer)}' about what the expected answer "
                    f"gives as '{want.shown(facts.text)}' (it also says '{same.shown(answer)}': "
                    f"two limits for one case)"
                )
                best = (share, said)
    return best


_EXCEPTION = re.compile(
    r"\b(?:except|unless|if|when|provided|as long as|only if)\b|,", re.IGNORECASE
)


def _polarity_conflict(
    facts: KeyFacts, answer: str, answer_clauses: Sequence[tuple[int, int]]
) -> str | None:
    """An answer clause that matches an expected clause with the opposite polarity. Where the
    expected clause is negative, the whole answer sentence must be free of negation, since a
    "must not" may scope over a list ("you must not install…, use systems for streaming");
    where it is positive, the negation must sit in the matching clause itself."""
    sentences = _sentences(answer)
    clauses = [(terms, negative, 3) for terms, negative in facts.clauses]
    if facts.yes_no and facts.point:
        # the rule a "Yes"/"No" answers, before its exceptions ("alcohol is not reimbursed"
        # of "No, alcohol is not reimbursed except at client entertainment …"): two words do
        head = _EXCEPTION.split(facts.point.split(";")[0], maxsplit=1)[0]
        clauses.append((frozenset(_content(head)), clause_polarity(head), 2))
    for terms, negative, least in clauses:
        if len(terms) < least:
            continue
        best, best_share = None, 0.0
        for start, end in answer_clauses:
            share = len(terms & _content(answer[start:end])) / len(terms)
            if share > best_share:
                best, best_share = (start, end), share
        if best is None or best_share < CLAUSE_MATCH:
            continue
        clause = answer[best[0] : best[1]]
        if negative:
            at = best[0] + len(clause) - len(clause.lstrip())  # its first word's sentence
            sentence = next((answer[s:e] for s, e in sentences if s <= at < e), clause)
            if not any(_is_negation(t) or stem(t) in _ANTONYMS for t in _tokens(sentence)):
                return f"the answer affirms what the expected answer denies: '{clause.strip()}'"
        elif _negates(clause, terms):
            return f"the answer denies what the expected answer states: '{clause.strip()}'"
    return None


def _negates(clause: str, terms: frozenset[str]) -> bool:
    """Whether a clause negates what ``terms`` say: an odd count of antonyms of them and of
    negations whose next content word is one of them ("support … have not worked" does not
    deny "four weeks of documented informal support")."""
    tokens = _tokens(clause)
    flips = 0
    for i, token in enumerate(tokens):
        if stem(token) in _ANTONYMS:
            flips += _ANTONYMS[stem(token)] in terms
        elif _is_negation(token):
            following = [t for t in tokens[i + 1 : i + 5] if t not in _STOPWORDS]
            flips += bool(following) and _term(following[0]) in terms
    return flips % 2 == 1


_SENTENCE_END = re.compile(r"[.!?](?:\s+|$)|\n")


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.end()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


@dataclass(frozen=True, slots=True)
class Coverage:
    """How much of an expected answer's key facts an answer states (no conflict found)."""

    figures_found: float  # weighted: a bare number (a year, no counted noun) weighs half
    figures: float
    terms: float  # weighted share of the new terms found
    missing: tuple[str, ...]
    missing_terms: float = 0.0  # weight of the new terms not found
    counted: tuple[int, int] = (0, 0)  # figures found, figures (unweighted, for reasons)
    terms_missing: tuple[str, ...] = ()  # the stemmed terms not found

    @property
    def score(self) -> float:
        """The belief that the answer is correct: 0.6 × figures found + 0.4 × terms."""
        if not self.figures:
            return self.terms
        return 0.6 * self.figures_found / self.figures + 0.4 * self.terms

    def shown(self) -> str:
        terms = f"{self.terms:.0%} of the expected answer's terms"
        if not self.figures:
            return terms
        return f"{self.counted[0]} of {self.counted[1]} figure(s) and {terms}"


def coverage(answer: str, facts: KeyFacts, have: Sequence[Quantity] | None = None) -> Coverage:
    """The key facts of ``facts`` that ``answer`` states (the secondary figures not required)."""
    have = quantities(answer) if have is None else have
    required = facts.required
    found = _matched(required, have)
    answer_ids = _identifiers(answer) | _conditions(answer)
    ids_found = [i for i in sorted(facts.identifiers) if i in answer_ids]
    answer_terms = _content(answer) | _acronym_terms(answer, facts.text)
    total = sum(facts.terms.values())
    held = sum(w for t, w in facts.terms.items() if _has_term(t, answer_terms))
    missing = [q.shown(facts.text) for q in required if q not in found]
    missing += sorted(facts.identifiers - set(ids_found))
    return Coverage(
        sum(_weight(q) for q in found) + len(ids_found),
        sum(_weight(q) for q in required) + len(facts.identifiers),
        held / total if total else 1.0,
        tuple(missing),
        total - held,
        (len(found) + len(ids_found), len(required) + len(facts.identifiers)),
        tuple(t for t in facts.terms if not _has_term(t, answer_terms)),
    )


_ACRONYM = re.compile(r"\b[A-Z]{2,6}\b")
_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:[\s-]+[A-Z][a-z]+){1,5}\b")


def _acronym_terms(answer: str, expected: str) -> set[str]:
    """Terms an answer states by abbreviation: the words of "Performance Improvement Plan"
    where the answer says "PIP", and "pip" where the expected answer says "PIP" and the answer
    spells it out."""
    found: set[str] = set()
    for acronyms, runs, spelt in ((answer, expected, False), (expected, answer, True)):
        short = {m.group(0) for m in _ACRONYM.finditer(acronyms)}
        if not short:
            continue
        for run in _CAPITALISED_RUN.finditer(runs):
            words = re.split(r"[\s-]+", run.group(0))
            initials = "".join(w[0] for w in words)
            if initials in short:
                found |= {initials.lower()} if spelt else _content(run.group(0))
    return found


def _weight(figure: Quantity) -> float:
    """A figure with what it counts weighs 1; a bare number (often a year) 0.5."""
    return 1.0 if figure.unit is not None else 0.5


def grade_answer(
    answer: str,
    expected: str,
    question: str | None = None,
    passages: Sequence[Evidence] = (),
    facts: KeyFacts | None = None,
    similarity: Callable[[str, str], float] | None = None,
) -> Verdict:
    """The correctness verdict of ``answer`` against ``expected`` by key facts (module
    docstring). ``passages`` (the gold passages) are context for judges that read them; the
    key facts come from ``expected``. ``similarity(expected, answer)`` — a meaning score in
    [0, 1] such as the best sentence cosine of the embedding judges — lets an answer in other
    words count: from :data:`SIMILAR_CORRECT` with every figure it is correct, from
    :data:`SIMILAR_PARTIAL` it is at least partial; it never outweighs a conflict. Inline
    citation markers (``[working-hours@2024#1.1]``) are not answer words."""
    facts = facts or key_facts(expected, question)
    answer = strip_markers(answer)
    if not answer.strip():
        return correctness_verdict("wrong", 0.0, "empty answer")
    have = quantities(answer)
    conflict = _conflict(facts, answer, have, passages)
    if conflict is not None:
        return correctness_verdict("wrong", 0.0, conflict)
    found = coverage(answer, facts, have)
    grade = _grade(found)
    score, shown = found.score, found.shown()
    if similarity is not None and grade != "correct":
        meaning = similarity(expected, answer)
        all_figures = found.figures_found == found.figures
        if meaning >= SIMILAR_CORRECT and all_figures:
            grade, shown = "correct", f"{shown}; same meaning (similarity {meaning:.2f})"
            score = max(score, meaning)
        elif meaning >= SIMILAR_PARTIAL and grade == "wrong" and not found.figures:
            grade, shown = "partial", f"{shown}; close in meaning (similarity {meaning:.2f})"
            score = max(score, MAIN_POINT)
    if grade == "correct":
        return correctness_verdict("correct", max(score, 0.75), f"states {shown}")
    # the main point: the expected answer's key fact (main_point.py), each of them when the
    # question asks several things
    points = [(p, coverage(answer, p, have)) for p in facts.points or (facts,)]
    if all(c.score >= LEAD_MAIN - 1e-9 for _, c in points) and (grade == "partial" or facts.points):
        score = max(MAIN_POINT, min(score, 0.74))
        return correctness_verdict(
            "partial", score, f"states the main point ({_quoted(facts.point)}); {shown}"
            f"{_missing(facts, found)}"
        )
    point, lead = min(points, key=lambda pair: pair[1].score)
    if grade == "wrong":
        if found.figures and not found.figures_found:
            why = f"none of the expected figures ({', '.join(found.missing[:4])}); {shown}"
        else:
            why = f"states only {shown}"
        return correctness_verdict("wrong", min(score, 0.49), f"{why}{_missing(facts, found)}")
    return correctness_verdict(
        "partial", min(score, MAIN_POINT - 0.01),
        f"misses the main point ({_quoted(point.point or point.text)})"
        f"{_missing(point, lead, 'of it')}; {shown}",
    )  # fmt: skip


def _quoted(text: str, limit: int = 90) -> str:
    text = " ".join(text.split()).strip(" ,;.")
    return f"'{text}'" if len(text) <= limit else f"'{text[: limit - 1].rstrip()}…'"


def _missing(facts: KeyFacts, found: Coverage, where: str = "") -> str:
    """What of ``facts`` the answer does not state: the figures and codes, then the words."""
    figures = " ".join(found.missing).lower()
    words = [facts.surface.get(t, t) for t in found.terms_missing]
    words = [w for w in words if w.lower() not in figures]
    shown = list(found.missing[:4]) + words[: max(0, 6 - len(found.missing[:4]))]
    if not shown:
        return ""
    return f"; missing{' ' + where if where else ''}: {', '.join(shown)}"


def _grade(found: Coverage) -> Grade:
    """The grade by key facts alone."""
    if found.figures:
        if found.figures_found == found.figures and (
            found.terms >= CORRECT_TERMS or found.missing_terms <= 1.0
        ):
            return "correct"
        if found.figures_found == 0 and found.terms < WRONG_TERMS:
            return "wrong"
        return "partial"
    if found.terms >= CORRECT_TERMS + 0.1:
        return "correct"
    return "wrong" if found.terms < WRONG_TERMS else "partial"


def _has_term(term: str, found: AbstractSet[str], prefix: int = 5) -> bool:
    """The term, or one sharing its first ``prefix`` letters ("resign" / "resignation")."""
    if term in found:
        return True
    if len(term) < prefix:
        return False
    return any(len(o) >= prefix and (o.startswith(term) or term.startswith(o)) for o in found)
