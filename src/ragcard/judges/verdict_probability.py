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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ragcard.judges.base import Label

__all__ = ["VerdictProbe", "VerdictCapture"]

_SPACE = re.compile(r"\s+")
# In the reply with whitespace removed (a key, not an escaped quote inside a string value):
_KEY = re.compile(r'(?<!\\)"verdict":')
_KEY_AT_END = re.compile(r'(?<!\\)"verdict":\Z')  # the value's opening quote is next
_OPEN_AT_END = re.compile(r'(?<!\\)"verdict":"\Z')  # the value's first letters are next


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
            start = text.lstrip() if with_quote else text
            if with_quote:
                if not start.startswith('"'):
                    continue
                start = start[1:]
            if not start:
                continue
            for index, label in enumerate(self.labels):
                if label.startswith(start):
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
    generated token; keeps each verdict's label distribution, in order (:attr:`found`)."""

    def __init__(self, probe: VerdictProbe) -> None:
        self.probe = probe
        self.found: dict[int, tuple[float, ...] | None] = {}
        self._start: int | None = None
        self._after_quote: set[int] = set()

    def __call__(self, input_ids: Any, logits: Any) -> Any:
        if self._start is None:
            self._start = len(input_ids)  # the prompt ends here
        generated = self.probe.text([int(t) for t in input_ids[self._start :]])
        reply = _SPACE.sub("", generated)
        if _OPEN_AT_END.search(reply):
            verdict = len(_KEY.findall(reply))
            self.found[verdict] = self.probe.distribution(logits, with_quote=False)
            self._after_quote.add(verdict)
        elif _KEY_AT_END.search(reply):
            verdict = len(_KEY.findall(reply))
            if verdict not in self._after_quote:
                self.found[verdict] = self.probe.distribution(logits, with_quote=True)
        return logits

    def distributions(self) -> tuple[tuple[float, ...] | None, ...]:
        """One entry per verdict written, in order (None where the mass could not be read)."""
        return tuple(self.found.get(k) for k in range(1, max(self.found, default=0) + 1))
