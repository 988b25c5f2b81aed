"""The lexical judge: deterministic word overlap, no model, always installed.

For each claim it finds the passage sentence that covers most of the claim's content words,
adds the sentence of the same passage that covers most of what is still missing (the best 1–2
sentences), and scores the claim by the share of its content words those sentences hold.
Words are lower-cased and lightly stemmed (``-s``, ``-es``, ``-ies``, ``-ed``, ``-ing``,
``-ly``, final ``e``); stop words and negation words do not count. Each content word is
weighted by its inverse document frequency over the sentences of the given passages, so a
name or a rare term weighs more than a word every sentence shares, and a word found in no
passage weighs most of all.

Two hard checks override the score:

* **Numbers** — a number, date or amount in the claim (``1998``, ``$160 million``, ``five``)
  that appears nowhere in the passages makes the claim ``not_supported``.
* **Negation** — when the matched sentences would support the claim but a clause of the claim
  and the passage clause that holds most of its words differ in polarity (a negation word —
  ``not``, ``never``, ``no``, ``n't``… — or an antonym such as "closed" for "not open", an even
  number cancelling), the claim is ``contradicted`` (:func:`negation_clash`). Negation is read
  per clause, not parsed: a "cannot" elsewhere in the matched sentence, about something else,
  no longer flips the verdict, but "not only X but Y" still reads as negative.

A failed hard check multiplies the score by :data:`HARD_FAIL_FACTOR`, so the score stays a
graded belief that ranks such claims low, and the label never says ``supported``.

What it cannot see, by construction:

* **Paraphrase and synonymy** — "purchased" does not match "bought"; a faithful paraphrase
  scores low and is marked ``not_supported``.
* **Derivational morphology** — "creation" does not match "created".
* **Word order and roles** — "A hired B" is fully covered by "B hired A".
* **Most antonyms, wrong values** — beyond a short list ("closed", "unpaid", "prohibited"…),
  "rose" vs "fell" is not a contradiction to it; a wrong number is ``not_supported``, never
  ``contradicted``; "not only X but Y" still reads as negative.
* **World knowledge and inference** — anything the passages imply but do not say.

It is a baseline and an offline default, not a faithfulness oracle: run
``ragcard judges evaluate --judge lexical`` to see its agreement with human labels.

The default threshold, :data:`DEFAULT_THRESHOLD`, was tuned (maximum balanced accuracy) on the
BEGIN *dev* file only (430 rows; 180 attributable, 250 not), so every figure reported on WiCE,
on BEGIN *test* and on FaithBench is on data the threshold never saw.

Measured with ``lexical/3`` (one sentence splitter, negation per clause, dates as figures;
``ragcard judges evaluate --judge lexical --threshold judge --dataset wice --dataset begin
--dataset faithbench``; 95% bootstrap; the shipped calibration ``calibrations/lexical.json``;
``lexical/1`` in brackets):

* WiCE, all 358 claims at the default threshold: AUROC 0.765 (0.772), balanced accuracy 0.590
  (0.579), κ 0.23 (0.20). The best threshold on WiCE is about 0.38, not 0.74: long multi-fact
  claims rarely have all their words in 1–2 sentences. A threshold does not transfer between
  domains; measure it on your own labels (``--dataset mine.jsonl``) before trusting it.
* BEGIN test (3,601 rows): AUROC 0.918 (0.915), balanced accuracy 0.848 (0.844), κ 0.69.
* FaithBench (800 summaries, default threshold): AUROC 0.564 (0.568), balanced accuracy 0.571
  (0.563) — near the published detectors (0.45–0.55), i.e. close to chance on hard cases.
* All 4,759 pooled: balanced accuracy 0.798 (0.792), κ 0.61 (0.60).
* WiCE's published 100 claims, threshold tuned on the other 258: AUROC 0.779 (0.769),
  balanced accuracy 0.707 (0.678), F1 (supported) 0.508 (0.478), accuracy 0.67 (0.65),
  κ 0.30 (0.26) (GPT-4, same subset: AUROC 0.802, F1 0.610, accuracy 0.77).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragcard._sentences import sentence_spans
from ragcard.errors import ConfigError
from ragcard.judges.base import Evidence, JudgeContext, JudgeIdentity, Label, Verdict
from ragcard.judges.registry import check_options

__all__ = [
    "DEFAULT_THRESHOLD",
    "HARD_FAIL_FACTOR",
    "LexicalJudge",
    "content_terms",
    "negation_clash",
    "numbers_in",
    "split_sentences",
    "stem",
]

#: Tuned on BEGIN dev (430 rows): ``ragcard judges evaluate --judge lexical --dataset begin``
#: reports 0.7368 "tuned on the dev part" (the middle of the plateau 0.7266–0.7470 of equal
#: balanced accuracy, 0.847); rounded to 0.74, which gives the same labels on BEGIN dev.
DEFAULT_THRESHOLD = 0.74
#: A claim failing a hard check keeps this share of its coverage score.
HARD_FAIL_FACTOR = 0.5
#: Bumped whenever tokenising, weighting or the checks change: a calibration is only valid
#: for the algorithm version it was measured on.
ALGORITHM_VERSION = "lexical/3"  # 2: one sentence splitter; 3: negation per clause, dates

_STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself of off on once one only or other
    our ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up very was
    we were what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m re ve o y well really think like yes oh yeah lot much many get got
    said says say""".split()
)
_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor cannot without nowhere".split()
)
_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
    if word != "_"  # "one" is left out: "one of the…" is rarely a count
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
     "eighty": "80", "ninety": "90"}  # fmt: skip

_TOKEN = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light suffix stripping, enough to match plural/singular and tense variants (cached: a
    corpus repeats its words, and the rules are pure)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ing") and len(w) >= 6:
        w = _undouble(w[:-3])
    elif w.endswith("ed") and len(w) >= 4:
        w = _undouble(w[:-2])
    elif w.endswith("ly") and len(w) >= 6:
        w = w[:-2]
    elif w.endswith("es") and len(w) >= 5 and w[-3] in "sxz":
        w = w[:-2]
    elif w.endswith("s") and len(w) >= 4 and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("e") and len(w) >= 3:
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    # "stopp" → "stop", "runn" → "run"; but keep "ll"/"ss" ("fill", "pass") whole.
    if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "aeioulsz":
        return w[:-1]
    return w


def _normalise_number(token: str) -> str:
    text = token.replace(",", "")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.lstrip("0") or "0"


def _tokens(text: str) -> list[str]:
    return [m.group(0).lower().replace("’", "'") for m in _TOKEN.finditer(text)]


#: Month names read as figures by :func:`figure_tokens` ("may" is left out: mostly a verb).
_MONTH_FIGURES = frozenset(
    "january february march april june july august september october november december".split()
)


def figure_tokens(text: str) -> list[tuple[str, bool]]:
    """``text``'s tokens, lower-cased, numbers normalised as :func:`numbers_in` does them
    ("four" → "4", "1,000" → "1000", and "one" → "1"), each with whether it is a figure (a
    number or a month name): what :mod:`ragcard.judges.figures` aligns."""
    out = []
    for token in _tokens(text):
        if token[0].isdigit():
            out.append((_normalise_number(token), True))
        elif token in _NUMBER_WORDS or token == "one":
            out.append((_NUMBER_WORDS.get(token, "1"), True))
        else:
            out.append((token, token in _MONTH_FIGURES))
    return out


def _is_negation(token: str) -> bool:
    return token in _NEGATIONS or token.endswith("n't")


def content_terms(text: str) -> set[str]:
    """The stemmed content words and normalised numbers of ``text``."""
    return set(_surface_forms(text))


def first_term(text: str) -> str:
    """The first content term of ``text`` in text order ("Jean-Paul" → "jean"), "" if none:
    one term chosen the same way on every run (a set's first element depends on the hash
    seed)."""
    return next(iter(_surface_forms(text)), "")


def _surface_forms(text: str) -> dict[str, str]:
    """Each content term of ``text`` → the first word it came from (for readable reasons)."""
    terms: dict[str, str] = {}
    for token in _tokens(text):
        if token[0].isdigit():
            terms.setdefault(_normalise_number(token), token)
        elif token in _NUMBER_WORDS:
            terms.setdefault(_NUMBER_WORDS[token], token)
        elif token not in _STOPWORDS and not _is_negation(token) and len(token) > 1:
            terms.setdefault(stem(token), token)
    return terms


_MONTHS = frozenset(
    "january february march april may june july august september october november "
    "december".split()
)


def numbers_in(text: str) -> set[str]:
    """The numbers of ``text``, normalised ("1,000" → "1000", "five" → "5", "2.50" → "2.5"),
    and its dates as day and month ("1 January", "January 1" → "1 january"), so that a changed
    month is a changed figure."""
    found: set[str] = set()
    tokens = _tokens(text)
    for i, token in enumerate(tokens):
        if token[0].isdigit():
            number = _normalise_number(token)
            found.add(number)
            if i + 1 < len(tokens) and tokens[i + 1] in _MONTHS:
                found.add(f"{number} {tokens[i + 1]}")
            if i and tokens[i - 1] in _MONTHS and len(number) <= 2:
                found.add(f"{number} {tokens[i - 1]}")
        elif token in _NUMBER_WORDS:
            found.add(_NUMBER_WORDS[token])
    return found


def _negated(text: str) -> bool:
    return any(_is_negation(token) for token in _tokens(text))


_CLAUSE = re.compile(
    r"[;:,()\u2013\u2014]|(?<=[.!?])\s+|\s(?:and|but|or|which|while|whereas|although|so|unless)\s",
    re.I,
)
#: Antonyms read as a negation of their base ("closed" = "not open"), so that "the branch is
#: closed on Sundays" agrees with "does not open on Sundays".
_ANTONYMS = frozenset(
    "closed closes shut unpaid forbidden prohibited banned disallowed ineligible excluded "
    "exclude excludes refused rejected denied".split()
)


def _clause_negative(text: str) -> bool:
    flips = sum(1 for t in _tokens(text) if _is_negation(t) or t in _ANTONYMS)
    return flips % 2 == 1


def _clause_terms(text: str) -> set[str]:
    return {stem(t) for t in _tokens(text) if t not in _STOPWORDS and not _is_negation(t)
            and len(t) > 1 and not t[0].isdigit()}  # fmt: skip


def negation_clash(claim: str, evidence: str, match: float = 0.6) -> str | None:
    """Why ``claim`` contradicts ``evidence`` by negation, or None.

    Negation is read per clause. For each clause of the claim with two content words or more,
    the evidence clauses that cover its words are taken greedily (the one holding most of
    them, then the one adding most of the rest, and so on while one adds any); when they cover
    at least ``match`` of its words, their polarity together (negation words and antonyms such
    as "closed" counted, an even number cancelling) must be the claim clause's. So "the
    portrait … hangs in Gallery 4 and is not available for loan" still contradicts "the
    portrait … is available for loan", while a "cannot" in a clause about something else no
    longer flips the verdict."""
    pieces = [(piece, _clause_terms(piece)) for piece in _CLAUSE.split(evidence) if piece.strip()]
    for clause in (p for p in _CLAUSE.split(claim) if p.strip()):
        terms = _clause_terms(clause)
        if len(terms) < 2:
            continue
        covered: set[str] = set()
        chosen: list[str] = []
        while True:
            piece, own = max(
                pieces, key=lambda p: len((terms - covered) & p[1]), default=("", set())
            )
            if not (terms - covered) & own:
                break
            covered |= terms & own
            chosen.append(piece)
        if len(covered) < match * len(terms):
            continue
        negative = sum(_clause_negative(piece) for piece in chosen) % 2 == 1
        if negative != _clause_negative(clause):
            said = "; ".join(piece.strip() for piece in chosen)
            return f"opposite polarity: claim '{clause.strip()}', passage '{said}'"
    return None


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``, split as answers are
    (:func:`ragcard._sentences.sentence_spans`)."""
    return sentence_spans(text)


@dataclass(frozen=True, slots=True)
class _Sentence:
    passage: int
    start: int
    end: int
    terms: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Match:
    coverage: float
    passage: int
    span: tuple[int, int]
    missing: tuple[str, ...]


class _Index:
    """The sentences of one context's passages, with IDF weights over them."""

    def __init__(self, passages: Sequence[Evidence]) -> None:
        self.passages = passages
        self.sentences = [
            _Sentence(p, start, end, frozenset(content_terms(evidence.text[start:end])))
            for p, evidence in enumerate(passages)
            for start, end in split_sentences(evidence.text)
        ]
        self.document_frequency: dict[str, int] = {}
        for sentence in self.sentences:
            for term in sentence.terms:
                self.document_frequency[term] = self.document_frequency.get(term, 0) + 1
        self.numbers = set().union(*(numbers_in(e.text) for e in passages)) if passages else set()

    def weight(self, term: str) -> float:
        # Smoothed IDF, always >= 1: a term in every sentence still counts, a term in none
        # counts most.
        n = len(self.sentences)
        return 1.0 + math.log((n + 1) / (self.document_frequency.get(term, 0) + 1))

    def best_match(self, terms: set[str]) -> _Match | None:
        """The best sentence, plus the sentence of its passage that adds the most coverage."""
        if not self.sentences:
            return None
        weights = {term: self.weight(term) for term in terms}
        # exact sums (math.fsum): the same whatever order a set iterates in, so a score never
        # depends on PYTHONHASHSEED (issue 16: a plain sum changed 9-11 of 8,358 WiCE claim scores)
        total = math.fsum(weights.values())

        def covered(found: frozenset[str]) -> float:
            return math.fsum(weights[t] for t in terms & found)

        first = max(self.sentences, key=lambda s: covered(s.terms))  # first of equals wins
        union, span = first.terms, (first.start, first.end)
        best_gain, second = 0.0, None
        for sentence in self.sentences:
            if sentence.passage == first.passage and sentence is not first:
                gain = covered(first.terms | sentence.terms) - covered(first.terms)
                if gain > best_gain:
                    best_gain, second = gain, sentence
        if second is not None:
            union = first.terms | second.terms
            span = (min(first.start, second.start), max(first.end, second.end))
        missing = tuple(sorted(terms - union))
        return _Match(covered(union) / total, first.passage, span, missing)


class LexicalJudge:
    """Deterministic word-overlap judge; see the module docstring for what it cannot see.

    Options (``[judge]`` table): ``threshold`` (float in [0, 1], default
    :data:`DEFAULT_THRESHOLD`), ``check_numbers`` and ``check_negation`` (bool, default true).
    """

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        check_numbers: bool = True,
        check_negation: bool = True,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"judge 'lexical': threshold must be in [0, 1], got {threshold}")
        self.threshold = float(threshold)
        self.check_numbers = check_numbers
        self.check_negation = check_negation
        self.identity = JudgeIdentity(
            name="lexical",
            threshold=self.threshold,
            settings={
                "algorithm": ALGORITHM_VERSION,
                "check_numbers": check_numbers,
                "check_negation": check_negation,
                "threshold_source": "default, tuned on BEGIN dev (430 rows)"
                if self.threshold == DEFAULT_THRESHOLD
                else "set in the configuration",
            },
            tasks=_task_versions(),
        )

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> LexicalJudge:
        """Build from a ``[judge]`` table's options (``backend`` already removed)."""
        checked = check_options(
            "lexical",
            options,
            {"threshold": (float, int), "check_numbers": bool, "check_negation": bool},
        )
        return cls(**checked)

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        """One verdict per claim, in order; never raises on content. Relevance and abstention
        are answered by :mod:`ragcard.judges.lexical_tasks`."""
        if ctx.task != "support":
            from ragcard.judges.lexical_tasks import judge_task

            return judge_task(ctx)
        index = _Index(ctx.passages)
        return [self._judge_claim(claim, index) for claim in ctx.claims]

    def _judge_claim(self, claim: str, index: _Index) -> Verdict:
        """The verdict on one claim against an index of the context's passages."""
        surface = _surface_forms(claim)
        terms = set(surface)
        if not terms:
            return Verdict("not_supported", 0.0, reason="no content words: nothing to check")
        match = index.best_match(terms)
        if match is None:
            return Verdict("not_supported", 0.0, reason="no passage text to check against")
        passage_id: str | None = index.passages[match.passage].id
        span: tuple[int, int] | None = match.span
        if match.coverage == 0:  # nothing matched: pointing at a sentence would mislead
            passage_id = span = None
        coverage = round(match.coverage, 6)  # stable across platforms' float summation
        shown = f"covers {coverage:.0%} of the claim's weighted content words"
        if match.missing:
            shown += "; missing: " + ", ".join(surface[t] for t in match.missing[:8])
        if self.check_numbers:
            absent = sorted(numbers_in(claim) - index.numbers)
            if absent:
                reason = f"number(s) {', '.join(absent)} appear in no passage; {shown}"
                score = coverage * HARD_FAIL_FACTOR
                return Verdict("not_supported", score, passage_id, span, reason)
        label: Label = "supported" if coverage >= self.threshold else "not_supported"
        if label == "supported" and self.check_negation:
            text = index.passages[match.passage].text[match.span[0] : match.span[1]]
            clash = negation_clash(claim, text)
            if clash is not None:
                reason = f"{clash}; {shown}"
                score = coverage * HARD_FAIL_FACTOR
                return Verdict("contradicted", score, passage_id, span, reason)
        return Verdict(label, coverage, passage_id, span, shown)


def _task_versions() -> dict[str, str]:
    from ragcard.judges.lexical_tasks import TASK_VERSIONS  # (it imports this module)

    return dict(TASK_VERSIONS)
