"""How likely a local model finds each verdict: read from its next-token distribution.

A small model asked to state how sure it is writes ``"score": 1.0`` nearly every time
(Qwen2.5-Coder-1.5B did on 93 of 100 WiCE claims), so its stated score cannot rank claims. The
distribution it samples the verdict from can: at the point where the reply reaches
``"verdict": "``, the probability mass of the tokens that begin ``supported``, of those that
begin ``not_supported`` and of those that begin ``contradicted``, normalised over the three, is
the model's own belief in each verdict. The ``local`` judge uses ``P(supported)`` as the score.

The probe is a llama-cpp-python logits processor: it sees the raw logits before the grammar
and the sampler, and returns them unchanged (generation is not altered). It finds the verdicts
in the text generated so far, so the k-th distribution belongs to the k-th verdict, i.e. the
k-th claim under the positional schema.

The three labels start with different letters, so every token that begins a label begins one
only. When the model writes the opening quote and the first letters as one token, only the
position before the quote is seen, and only tokens that hold the quote and a label's start
count; when the quote comes alone (the usual case with Qwen's and Llama's tokenisers), the
position after it is used instead.

The ``llm`` judge reads the same distributions from an OpenAI-compatible server's
``logprobs`` (:func:`distributions_from_logprobs`): the reply's tokens, each with its
``top_logprobs``. Only the top alternatives are known there (20 at most, OpenAI's limit), so a
label outside them counts as no mass.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ragcard.judges.base import Label

__all__ = ["VerdictCapture", "VerdictProbe", "distributions_from_logprobs", "label_index"]

_SPACE = re.compile(r"\s+")
# In the reply with whitespace removed (a key, not an escaped quote inside a string value):
_KEY = re.compile(r'(?<!\\)"verdict":')
_KEY_AT_END = re.compile(r'(?<!\\)"verdict":\Z')  # the value's opening quote is next
_OPEN_AT_END = re.compile(r'(?<!\\)"verdict":"\Z')  # the value's first letters are next

Shares = tuple[float, ...]


def label_index(token: str, labels: Sequence[str], with_quote: bool) -> int | None:
    """Which label ``token`` begins (its first letters, or with ``with_quote`` the opening
    quote and its first letters, after any whitespace); None: none."""
    start = token.lstrip() if with_quote else token
    if with_quote:
        if not start.startswith('"'):
            return None
        start = start[1:]
    if not start:
        return None
    for index, label in enumerate(labels):
        if label.startswith(start):
            return index
    return None


class _Verdicts:
    """Finds the verdicts in a reply as it grows and keeps each one's label shares, read at
    the position after the value's opening quote, or failing that before it."""

    def __init__(self) -> None:
        self.found: dict[int, Shares | None] = {}
        self._after_quote: set[int] = set()

    def see(self, generated: str, read: Callable[[bool], Shares | None]) -> None:
        """``generated``: the reply so far; ``read(with_quote)``: the next token's shares."""
        reply = _SPACE.sub("", generated)
        if _OPEN_AT_END.search(reply):
            verdict = len(_KEY.findall(reply))
            self.found[verdict] = read(False)
            self._after_quote.add(verdict)
        elif _KEY_AT_END.search(reply):
            verdict = len(_KEY.findall(reply))
            if verdict not in self._after_quote:
                self.found[verdict] = read(True)

    def distributions(self) -> tuple[Shares | None, ...]:
        return tuple(self.found.get(k) for k in range(1, max(self.found, default=0) + 1))


class VerdictProbe:
    """For one model's vocabulary: which tokens begin which verdict label."""

    def __init__(self, llama: Any, labels: Sequence[Label]) -> None:
        self.labels = tuple(labels)
        self._detokenize = llama.detokenize
        texts = [self.text([token]) for token in range(int(llama.n_vocab()))]
        # after the quote: tokens that are a label's first letters; before it: '"' + letters
        self._letters = self._token_ids(texts, with_quote=False)
        self._quoted = self._token_ids(texts, with_quote=True)

    def text(self, tokens: list[int]) -> str:
        """The text of ``tokens`` (bytes that do not decode on their own are dropped)."""
        return bytes(self._detokenize(tokens)).decode("utf-8", "ignore")

    def _token_ids(self, texts: list[str], with_quote: bool) -> list[npt.NDArray[np.intp]]:
        found: list[list[int]] = [[] for _ in self.labels]
        for token, text in enumerate(texts):
            index = label_index(text, self.labels, with_quote)
            if index is not None:
                found[index].append(token)
        return [np.array(ids, dtype=np.intp) for ids in found]

    def capture(self) -> VerdictCapture:
        """A logits processor for one generation (a new one for each call)."""
        return VerdictCapture(self)

    def distribution(self, logits: Any, with_quote: bool) -> tuple[float, ...] | None:
        """The labels' shares of the probability mass in ``logits`` (None: no mass), over the
        tokens that begin a label, or (``with_quote``) that open the string and begin one."""
        ids = self._quoted if with_quote else self._letters
        x = np.asarray(logits, dtype=np.float64)
        picked = [x[token_ids] for token_ids in ids]
        top = max((float(v.max()) for v in picked if v.size), default=None)
        if top is None or not np.isfinite(top):
            return None
        mass = np.array([float(np.exp(v - top).sum()) for v in picked])
        total = float(mass.sum())
        return tuple(float(m / total) for m in mass) if total > 0 else None


class VerdictCapture:
    """Called by llama-cpp-python with the tokens so far and the next token's logits, at every
    generated token; keeps each verdict's label distribution, in order."""

    def __init__(self, probe: VerdictProbe) -> None:
        self.probe = probe
        self._verdicts = _Verdicts()
        self._start: int | None = None

    def __call__(self, input_ids: Any, logits: Any) -> Any:
        if self._start is None:
            self._start = len(input_ids)  # the prompt ends here
        generated = self.probe.text([int(t) for t in input_ids[self._start :]])
        self._verdicts.see(generated, lambda quote: self.probe.distribution(logits, quote))
        return logits

    def distributions(self) -> tuple[Shares | None, ...]:
        """One entry per verdict written, in order (None where the mass could not be read)."""
        return self._verdicts.distributions()


def _shares(
    alternatives: Iterable[Mapping[str, Any]], labels: Sequence[str], with_quote: bool
) -> Shares | None:
    mass = [0.0] * len(labels)
    for alternative in alternatives:
        if not isinstance(alternative, Mapping):
            continue
        token, logprob = alternative.get("token"), alternative.get("logprob")
        if not isinstance(token, str) or not isinstance(logprob, int | float):
            continue
        index = label_index(token, labels, with_quote)
        if index is not None and math.isfinite(logprob):
            mass[index] += math.exp(min(float(logprob), 0.0))  # a log-probability is <= 0
    total = sum(mass)
    return tuple(m / total for m in mass) if total > 0 else None


def distributions_from_logprobs(
    content: Sequence[Mapping[str, Any]], labels: Sequence[str]
) -> tuple[Shares | None, ...]:
    """Each verdict's label shares, in order, from a chat completion's ``logprobs.content``
    (the reply's tokens, each ``{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}``)."""
    verdicts = _Verdicts()
    generated: list[str] = []
    for entry in content:
        top = entry.get("top_logprobs")
        top = top if isinstance(top, list) else ()
        verdicts.see("".join(generated), functools.partial(_shares, top, labels))
        token = entry.get("token")
        generated.append(token if isinstance(token, str) else "")
    return verdicts.distributions()
