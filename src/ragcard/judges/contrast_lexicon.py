"""The words :mod:`ragcard.judges.contrast` reads: negations, neutral phrases, and the axes of
relation words whose values contradict each other (README.md, "Judges": contrast rules).

An axis maps each of its words (stemmed as :func:`ragcard.judges.lexical.stem` stems them) to
a value; two different values of one axis in the same slot of a claim and its evidence are a
flipped relation. Words of one value are synonyms for this purpose ("before" = "prior",
"daily" = "day"). Kept small on purpose: a word belongs here only if swapping it for another
value of its axis changes what a sentence says in nearly every context.
"""

from __future__ import annotations

from ragcard.judges.lexical import stem

__all__ = ["AXES", "MODAL_AXIS", "NEGATIVE_WORDS", "NEUTRAL_PHRASES", "PHRASES", "STOPWORDS",
           "SYNONYMS", "TITLES", "UNIT_WORDS"]  # fmt: skip

#: Negation words and words that carry a negation ("forbidden" = "not allowed").
NEGATIVE_WORDS = frozenset(
    "not no never none nobody nothing neither nor without nowhere cannot "
    "closed shut unpaid forbidden forbid forbids prohibited prohibit prohibits banned ban bans "
    "disallowed ineligible excluded refused rejected denied unable".split()
)

#: Phrases with a negation word that negate nothing (read as their plain sense).
NEUTRAL_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(p.split())
    for p in (
        "no later than", "not later than", "no more than", "not more than", "no less than",
        "not less than", "no fewer than", "not fewer than", "no earlier than",
        "not earlier than", "no longer than", "not longer than", "no sooner than",
        "not only", "not just", "no matter", "no doubt", "none other than", "nothing but",
        "not least", "no exception",
    )
)

MODAL_AXIS = "modal"

_AXIS_WORDS: dict[str, dict[str, str]] = {
    # obligation and permission: read together with negation (contrast._deontic)
    MODAL_AXIS: {
        "must": "must shall obliged obligated compulsory mandatory obligatory",
        "need": "required require requires need needs necessary",
        "may": "may can could might allowed permitted entitled able",
        "optional": "optional voluntary",
    },
    "order": {"before": "before prior earlier previously", "after": "after later subsequently"},
    "sequence": {"first": "first earliest initial", "last": "last latest final"},
    "comparative": {
        "more": "more greater higher larger bigger over above exceeds exceed longer upper",
        "less": "less fewer lower smaller under below shorter",
    },
    "superlative": {
        "most": "most highest largest biggest greatest maximum max longest",
        "least": "least lowest smallest minimum min shortest fewest",
    },
    "change": {
        "up": "increase increases increased increasing rise rises rose risen grow grew grows "
              "grown raise raised gain gained enhance enhances enhanced boost boosted",
        "down": "decrease decreases decreased decreasing fall falls fell fallen decline "
                "declined declines drop dropped drops reduce reduced reduces shrink shrank",
    },
    "quantity": {
        "all": "all every each always everyone everybody everything",
        "some": "some sometimes several few occasionally usually often",
    },
    "inside": {"in": "inside indoors interior", "out": "outside outdoors exterior"},
    "level": {
        "top": "roof rooftop attic upstairs top",
        "bottom": "basement cellar downstairs bottom underground",
    },
    "north": {"north": "north northern", "south": "south southern"},
    "east": {"east": "east eastern", "west": "west western"},
    "front": {"front": "front", "back": "back rear"},
    "start": {"start": "start starts begin begins beginning", "end": "end ends finish"},
    "age": {"old": "older oldest", "young": "younger youngest newer newest"},
    "trade": {"buy": "buy buys bought purchase", "sell": "sell sells sold"},
    "flow": {"import": "import imports imported", "export": "export exports exported"},
    "result": {"win": "win wins won victory", "lose": "lose loses lost defeat"},
    "truth": {"true": "true", "false": "false"},
    "quality": {"best": "best better", "worst": "worst worse"},
    "sameness": {"same": "same identical", "different": "different"},
    "sign": {"positive": "positive", "negative": "negative"},
    "sex": {"male": "male men man boy boys", "female": "female women woman girl girls"},
    "period": {
        "hour": "hour hourly", "day": "day days daily", "week": "week weekly",
        "month": "month monthly", "year": "year annual annually yearly",
    },
    "role": {
        "employer": "employer", "employee": "employee",
        "buyer": "buyer", "seller": "seller", "landlord": "landlord", "tenant": "tenant",
        "lender": "lender", "borrower": "borrower", "sender": "sender",
        "recipient": "recipient receiver",
    },
}

#: stemmed word → (axis, value)
AXES: dict[str, tuple[str, str]] = {
    stem(word): (axis, value)
    for axis, values in _AXIS_WORDS.items()
    for value, words in values.items()
    for word in words.split()
}

#: Multi-word phrases that take a value ("up to" = at most).
PHRASES: dict[tuple[str, ...], tuple[str, str]] = {
    ("up", "to"): ("superlative", "most"),
    ("at", "most"): ("superlative", "most"),
    ("at", "least"): ("superlative", "least"),
    ("have", "to"): (MODAL_AXIS, "need"),
    ("has", "to"): (MODAL_AXIS, "need"),
    ("had", "to"): (MODAL_AXIS, "need"),
    ("per", "day"): ("period", "day"),
}

#: Words never a name though capitalised inside a sentence.
STOPWORDS = frozenset(
    """a an the and or but if of in on at to for from by with as is are was were be been
    it its this that these those he she they we you i his her their our your my me him them
    us there here then than so not no yes do does did has have had will would can could may
    might must shall should which who whom whose what when where why how all any some each
    every also only just very more most such into onto over under about after before""".split()
)

#: Titles and honorifics: "President Obama" for "Barack Obama" swaps no name.
TITLES = frozenset(
    """mr mrs ms miss dr prof professor sir dame lord lady saint st king queen prince princess
    president senator governor general captain colonel pope emperor empress sheikh
    chancellor minister mayor judge gen col capt lt sgt rev hon gov sen rep great""".split()
)

#: Words a faithful rewrite swaps for each other (stemmed → the group's first word): a claim
#: that copies its evidence sentence up to these, unit words and stop words is a copy.
_SYNONYM_GROUPS = (
    "bicycle bike bicycles bikes cycle cycles",
    "car vehicle cars vehicles",
    "child kid children kids",
    "buy purchase bought purchased",
    "get receive got received",
    "start begin started began",
    "big large",
    "small little",
    "staff employee employees colleague colleagues worker workers",
    "manager boss",
    "holiday vacation holidays",
    "go goes parked kept stored stay stays belong belongs",
    "use using used",
    "allowance budget",
    "claim claims reclaim",
    "company employer firm",
    "leave time-off",
)
SYNONYMS: dict[str, str] = {
    stem(word): group.split()[0] for group in _SYNONYM_GROUPS for word in group.split()
}

#: Words that only name a figure's unit or restate it: "55 pounds" for "£55".
UNIT_WORDS = frozenset(
    "pounds pound euros euro dollars dollar percent per cent gbp eur usd sterling".split()
)
