"""The contrast generators that flip what a sentence says: ``negation``, ``flipped-relation``
and ``changed-figure`` (:mod:`.contrast`; docs/metrics.md, "The contrast benchmark")."""

from __future__ import annotations

import random
import re

from ragcard.judges.metaeval.contrast import NUMBER_WORDS, Variant, case_like, replace_span

__all__ = ["change_figure", "flip_relation", "negate"]


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


_SUBORDINATE = re.compile(
    r"\b(?:when|which|who|whom|whose|that|where|if|because|while|although|though|since|"
    r"after|before|until|as)\b[^,;]*$",
    re.I,
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
            new = case_like(_IRREGULAR_N_T.get(stem.lower(), stem), stem)
        elif found.group(3):
            new = found.group(3)
        elif found.group(4):
            start, end = found.span(4)
            rest = replace_span(sentence, start, end + 1, "")
            return Variant("negation", rest[:1].upper() + rest[1:], "never -> (removed)")
        else:
            new = case_like(_REMOVED[whole.lower()], whole)
        return Variant("negation", replace_span(sentence, *found.span(), new), f"{whole} -> {new}")
    if _NEGATIVE.search(sentence):
        return None  # a second negative word would make a double negation, not a contrast
    auxiliaries = [aux for aux in _AUX.finditer(sentence) if aux.start() > 0]
    # The main clause's auxiliary first: one in a "when …" or "which …" clause negates a detail.
    auxiliaries.sort(key=lambda aux: bool(_SUBORDINATE.search(sentence[: aux.start()])))
    for aux in auxiliaries:
        word = aux.group(1)
        after = sentence[aux.end() :].split(maxsplit=1)
        following = after[0].strip(",.;:") if after else ""
        if word.lower() in _POSSESSIVE and not _PARTICIPLE.match(following):
            new = case_like(_POSSESSIVE[word.lower()], word)
        elif word.lower() == "can":
            new = case_like("cannot", word)
        else:
            new = f"{word} not"
        return Variant("negation", replace_span(sentence, *aux.span(), new), f"{word} -> {new}")
    for verb in _PAST.finditer(sentence):
        before = sentence[: verb.start()].split()
        if not before or before[-1].lower().strip(",") in _NOT_VERB_BEFORE:
            continue
        if before[-1].endswith(","):
            continue
        text = replace_span(sentence, verb.start(), verb.start(), "never ")
        return Variant("negation", text, f"{verb.group(1)} -> never {verb.group(1)}")
    return None


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


_NEGATED_NEXT = re.compile(r"\s+(?:not|never|only)\b", re.I)


def flip_relation(sentence: str, passage: str, rng: random.Random) -> Variant | None:
    """One relation, quantifier or modality word flipped; ``None`` without one."""
    del passage
    idioms = [m.span() for m in _IDIOMS.finditer(sentence)]
    options = [
        m
        for m in _FLIP_RE.finditer(sentence)
        if m.group(1)[:1].islower() or m.start() == 0
        if not any(s <= m.start() < e for s, e in idioms)
        # "must not" and "may not", "must never" and "may never" forbid alike.
        if not (m.group(1).lower() in {"must", "may"} and _NEGATED_NEXT.match(sentence[m.end() :]))
    ]
    if not options:
        return None
    match = rng.choice(options)
    word = match.group(1)
    new = case_like(_FLIP[word.lower()], word)
    return Variant(
        "flipped-relation", replace_span(sentence, *match.span(), new), f"{word} -> {new}"
    )


# -- changed figure ------------------------------------------------------------------------

_FIGURE = re.compile(
    r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w-]|[.,]\d)|\b("
    + "|".join(NUMBER_WORDS)
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
        index = NUMBER_WORDS.index(word.lower())
        down = index > 0 and _UPPER_BOUND.search(sentence[: match.start()])
        new = case_like(NUMBER_WORDS[(index + (-1 if down else 1)) % len(NUMBER_WORDS)], word)
    old = match.group(0)
    return Variant("changed-figure", replace_span(sentence, *match.span(), new), f"{old} -> {new}")
