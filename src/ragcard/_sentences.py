"""The one sentence splitter: answers (citations by sentence index), passages (the judges'
evidence sentences), the reference agent and the meta-evaluation's summaries all split here.

A sentence ends

* at ``.``, ``!`` or ``?`` (a run such as ``?!`` or ``...``), with any closing quotes or
  brackets and any inline citation markers after it (``rule. [p1] Next`` keeps ``[p1]`` with
  ``rule.``), when whitespace follows and the next sentence starts with a capital or caseless
  letter, a digit, an opening quote or bracket, ``¿``/``¡`` or a currency sign; and
* at a line break, unless the next line starts with a lower-case letter (a wrapped line).

A ``.`` does not end a sentence after

* an abbreviation that is always followed by more (``e.g.``, ``i.e.``, ``Mr.``, ``Dr.``,
  ``vs.``, ``cf.``, ``approx.``, ``Fig.`` …), matched as a whole word: ``trip.`` is no ``p.``;
* an abbreviation before a number (``No. 5``, ``p. 12``, ``pp. 3–4``, ``Sec. 2``), only when a
  digit follows;
* an initial (``J. K. Rowling``, but not the pronoun ``I``) or a dotted acronym (``U.S. Army``,
  so "in the U.S. It" stays one sentence: the rule cannot tell the two apart; ``a.m.`` and
  ``p.m.`` do end one before a capital);
* a list number at the start of a line (``1. Fill in the form``).

Decimals, amounts and section numbers (``£1,000.00``, ``4.2.1``) never end one: no whitespace
follows their dots. What it cannot see: an abbreviation it does not list followed by a capital
("Acme Inc. Board") ends a sentence; lower-case sentence starts ("iPhone sales rose.") do
not start one; it is English-centric. Agents that need exact control cite with explicit
``{"id", "sentence"}`` objects numbered as :func:`split_sentences` numbers them.
"""

from __future__ import annotations

import functools
import re

__all__ = ["sentence_spans", "split_sentences"]

# A candidate end within a line: end punctuation, closing quotes/brackets, inline markers and
# the whitespace after (the next sentence's first character follows).
_CANDIDATE = re.compile(r"[.!?][.!?\"'”’)\]]*(?:[^\S\n]*\[[^\[\]\s]+\])*+(\s+)(?=\S)")
_LINE = re.compile(r"[^\n]*\S[^\n]*")  # a line that is not blank
_LONGEST = 12  # no abbreviation, initial or list number is longer (with its dot)
_ALWAYS = frozenset(
    "e.g. i.e. mr. mrs. ms. dr. prof. st. jr. sr. mt. vs. cf. approx. incl. excl. fig. figs. "
    "al. ca. resp. viz. dept.".split()
)
_CLOCK = frozenset(("a.m.", "p.m."))  # "… at 5 p.m. Visitors …": these do end sentences
_BEFORE_NUMBER = frozenset("no. nos. p. pp. vol. vols. ch. sec. art. para. ref. tel.".split())
_INITIAL = re.compile(r"(?:[A-Za-z]\.)+")
_LIST_NUMBER = re.compile(r"(?:\d{1,3}|[a-zA-Z])\.")
_OPENERS = frozenset("\"'“‘([¿¡£$€¥")
_LEADING = "([\"'“‘"  # stripped from a word before it is compared with the abbreviations


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` character spans of the sentences of ``text``, in order, each
    without surrounding whitespace; an empty or blank text has none."""
    spans: list[tuple[int, int]] = []
    if "\n" not in text:
        _split_line(text, 0, len(text), spans)
        return spans
    start = end = -1  # the lines read so far that make one piece (wrapped lines join)
    for line in _LINE.finditer(text):
        first = line.start()
        while text[first].isspace():
            first += 1
        if start >= 0 and text[first].islower():
            end = line.end()  # a wrapped line: the sentence goes on
            continue
        if start >= 0:
            _split_line(text, start, end, spans)
        start, end = first, line.end()
    if start >= 0:
        _split_line(text, start, end, spans)
    return spans


def _split_line(text: str, start: int, last: int, spans: list[tuple[int, int]]) -> None:
    """Add the sentences of ``text[start:last]`` (no line break ends one inside it)."""
    while start < last and text[start].isspace():
        start += 1
    while last > start and text[last - 1].isspace():
        last -= 1
    if start == last:
        return
    floor = start  # a word before a dot starts at this line's start at the earliest
    for match in _CANDIDATE.finditer(text, start, last):
        following = match.end()
        nxt = text[following]
        if nxt in _OPENERS or (nxt.isalnum() and not nxt.islower()):
            dot = match.start()
            if text[dot] != "." or text[dot + 1] == "." or _ends_at_dot(text, floor, dot, nxt):
                spans.append((start, match.start(1)))
                start = following
    spans.append((start, last))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see the module docstring for the rules), stripped."""
    return [text[start:end] for start, end in sentence_spans(text)]


def _ends_at_dot(text: str, floor: int, dot: int, nxt: str) -> bool:
    """Whether the single ``.`` at ``dot`` ends a sentence (``nxt``, the next sentence's
    first character, is a capital, a digit or an opener): not after an abbreviation, an
    initial or a list number. The line (or wrapped lines) being split starts at ``floor``."""
    begin = max(floor, dot - _LONGEST)
    space = text.rfind(" ", begin, dot)
    if space < 0 or "\n" in text[space:dot]:
        pieces = text[begin:dot].rsplit(None, 1)  # (another kind of space, or none)
        if len(pieces) == 1 and begin > floor and not text[begin - 1].isspace():
            return True  # a word longer than any abbreviation
        word = (pieces[-1] if pieces else "") + "."
    elif dot - space > 8 and text.find(".", space, dot) < 0:
        return True  # a long word without dots: no abbreviation (the usual case)
    else:
        word = text[space + 1 : dot + 1]
    kind = _kind(word)
    if kind == _NUMBERED:
        return not nxt.isdigit()
    if kind == _LISTED:
        return not _starts_line(text, dot + 1 - len(word.lstrip(_LEADING)))
    return kind == _WORD


_WORD, _ABBREVIATION, _NUMBERED, _LISTED = range(4)


@functools.lru_cache(maxsize=4096)
def _kind(word: str) -> int:
    """What a word ending in ``.`` is: an ordinary word (or ``a.m.``), an abbreviation that
    never ends a sentence (or an initial), one that does not before a number, or what may be
    a list number."""
    word = word.lstrip(_LEADING)
    lowered = word.lower()
    if lowered in _ALWAYS:
        return _ABBREVIATION
    if lowered in _BEFORE_NUMBER:
        return _NUMBERED
    if (len(word) > 4 and "." not in word[:-1]) or lowered in _CLOCK:
        return _WORD
    if _INITIAL.fullmatch(word) and (len(word) > 2 or (word[0].isupper() and word != "I.")):
        return _ABBREVIATION  # "J." or "U.S." (not "a." nor the pronoun: "… did I. Then …")
    return _LISTED if _LIST_NUMBER.fullmatch(word) else _WORD


def _starts_line(text: str, index: int) -> bool:
    while index > 0 and text[index - 1] in " \t":
        index -= 1
    return index == 0 or text[index - 1] == "\n"
