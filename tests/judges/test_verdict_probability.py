"""Reading each verdict's label probabilities from a model's next-token logits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragcard.judges.base import Verdict
from ragcard.judges.prompts import LABELS, STATED_SCORE_NOTE, Reply, with_probabilities
from ragcard.judges.verdict_probability import (
    VerdictCapture,
    VerdictProbe,
    distributions_from_logprobs,
)

# A tokeniser's vocabulary in miniature: the JSON around the verdicts, a quote on its own and
# with a space, label starts of several lengths, and a quote merged with a label's start.
VOCAB = [
    '{"verdicts": [', "{", '"verdict"', ":", ' "', '"', "supported", "sup", "s", "not",
    "not_supported", "contr", "contradicted", '"sup', '", "claim": 0}', ", ", "]}", "n", "c",
    ' "not', "x", "1}", '", "passage": "', 'a\\"verdict\\":', '"}',
]  # fmt: skip


class Vocabulary:
    def n_vocab(self) -> int:
        return len(VOCAB)

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(VOCAB[t] for t in tokens).encode()


def ids(*pieces: str) -> list[int]:
    return [VOCAB.index(piece) for piece in pieces]


def logits(**values: float) -> np.ndarray:
    """Logits of -inf but for the tokens named (by their text)."""
    out = np.full(len(VOCAB), -np.inf, dtype=np.float32)
    for text, value in values.items():
        out[VOCAB.index(text.replace("_q_", '"'))] = value
    return out


def generate(capture: VerdictCapture, steps: list[tuple[list[int], np.ndarray]]) -> None:
    """Call ``capture`` as llama-cpp-python does: first on the prompt alone, then after each
    step's tokens with that step's logits."""
    prompt = ids("x", "x", "x")
    capture(np.array(prompt), logits(x=0.0))
    generated: list[int] = []
    for tokens, values in steps:
        generated += tokens
        assert capture(np.array(prompt + generated), values) is values  # passed on unchanged


def shares(*weights: float) -> tuple[float, ...]:
    total = sum(math.exp(w) for w in weights)
    return tuple(math.exp(w) / total for w in weights)


def test_tokens_that_begin_each_label() -> None:
    probe = VerdictProbe(Vocabulary(), LABELS)
    letters = [{VOCAB[i] for i in group} for group in probe._letters]
    assert letters == [
        {"supported", "sup", "s"},
        {"not", "not_supported", "n"},
        {"contr", "contradicted", "c"},
    ]
    quoted = [{VOCAB[i] for i in group} for group in probe._quoted]
    assert quoted == [{'"sup'}, {' "not'}, set()]


def test_each_verdict_read_after_its_quote_in_order() -> None:
    probe = VerdictProbe(Vocabulary(), LABELS)
    capture = probe.capture()
    generate(
        capture,
        [
            (ids('{"verdicts": [', "{", '"verdict"', ":"), logits(_q_sup=9.0, **{" _q_": 1.0})),
            (ids(' "'), logits(s=1.0, n=0.0, c=-1.0)),  # verdict 1, after the quote
            (ids("supported", '", "claim": 0}', ", ", "{", '"verdict"', ":", '"'),
             logits(sup=-2.0, **{"not": 0.5}, contr=0.5)),  # verdict 2
        ],
    )  # fmt: skip
    first, second = capture.distributions()
    assert first == pytest.approx(shares(1.0, 0.0, -1.0))  # not the before-quote reading
    assert second == pytest.approx(shares(-2.0, 0.5, 0.5))


def test_quote_merged_with_the_label_is_read_before_the_quote() -> None:
    probe = VerdictProbe(Vocabulary(), LABELS)
    capture = probe.capture()
    tokens = ids('{"verdicts": [', "{", '"verdict"', ":")
    generate(capture, [(tokens, logits(_q_sup=2.0, **{" _q_not": 1.0, "x": 5.0}))])
    (found,) = capture.distributions()
    assert found == pytest.approx((*shares(2.0, 1.0), 0.0))


def test_no_mass_on_any_label_reads_as_none() -> None:
    probe = VerdictProbe(Vocabulary(), LABELS)
    capture = probe.capture()
    tokens = ids('{"verdicts": [', "{", '"verdict"', ":", '"')
    generate(capture, [(tokens, logits(x=3.0))])
    assert capture.distributions() == (None,)


def test_scores_replaced_only_when_every_verdict_has_its_probabilities() -> None:
    verdicts = [Verdict("supported", 0.9), Verdict("contradicted", 0.1)]
    both = Reply("{}", probabilities=((0.6, 0.3, 0.1), (0.2, 0.1, 0.7)))
    assert [v.score for v in with_probabilities(verdicts, both)] == [0.6, 0.2]
    assert [v.label for v in with_probabilities(verdicts, both)] == ["supported", "contradicted"]
    for partial in (((0.6, 0.3, 0.1),), ((0.6, 0.3, 0.1), None), ()):
        assert with_probabilities(verdicts, Reply("{}", probabilities=partial)) == verdicts
        probed = with_probabilities(verdicts, Reply("{}", probabilities=partial, probed=True))
        assert [v.score for v in probed] == [0.9, 0.1]  # as stated, and said so
        assert all(v.reason == STATED_SCORE_NOTE for v in probed)


def test_an_escaped_verdict_key_inside_a_string_is_not_a_verdict() -> None:
    probe = VerdictProbe(Vocabulary(), LABELS)
    capture = probe.capture()
    generate(
        capture,
        [
            (ids('{"verdicts": [', "{", '"verdict"', ":", '"'), logits(s=0.0, n=0.0, c=0.0)),
            (ids("supported", '", "passage": "', 'a\\"verdict\\":'), logits(s=5.0)),
            (ids('"}', ", ", "{", '"verdict"', ":", '"'), logits(s=0.0, n=1.0)),
        ],
    )
    first, second = capture.distributions()
    assert first == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert second == pytest.approx(shares(0.0, 1.0) + (0.0,))


# ---- the same, from an OpenAI-compatible server's logprobs (the llm judge) -----------------


def entry(token: str, **top: float) -> dict[str, object]:
    """One reply token with its top alternatives (``_q_`` stands for a quote)."""
    alternatives = [{"token": t.replace("_q_", '"'), "logprob": v} for t, v in top.items()]
    return {"token": token, "logprob": -0.1, "top_logprobs": alternatives}


def test_distributions_from_logprobs_after_the_quote_in_order() -> None:
    # as llama-cpp-python's server tokenises it: '{', ' "', 'ver', 'dict', '":', ' "', label…
    content = [
        entry("{"), entry(' "'), entry("ver"), entry("dict"), entry('":'), entry(' "'),
        entry("supported", supported=-0.2, sup=-2.0, no=-3.0, contr=-1.0, other=-0.5),
        entry('",'), entry(' "verdict": "'),
        entry("not", supported=-3.0, no=-0.1, contradicted=-2.5),
        entry("_supported"), entry('"}'),
    ]  # fmt: skip
    first, second = distributions_from_logprobs(content, LABELS)
    assert first == pytest.approx(shares(math.log(math.exp(-0.2) + math.exp(-2.0)), -3.0, -1.0))
    assert second == pytest.approx(shares(-3.0, -0.1, -2.5))


def test_distributions_from_logprobs_before_a_merged_quote_and_with_labels_missing() -> None:
    # a token's top_logprobs are the alternatives at its own position
    content = [
        entry('{"verdict":'),  # the key, then the quote merged with the label's start
        entry(' "sup', **{" _q_sup": -0.3, "_q_not": -1.0, "x": -0.1}),
        entry('ported", "claim": 0}'),
        entry(', {"verdict":'),
        entry('"contradicted"}', _q_contr=-0.2),  # only one label among the top: 1.0
        entry(', {"verdict":'),
        entry('"no', x=-0.1),  # no label among the top: unknown
    ]
    first, second, third = distributions_from_logprobs(content, LABELS)
    assert first == pytest.approx(shares(-0.3, -1.0, -math.inf))
    assert second == (0.0, 0.0, 1.0) and third is None


def test_logprobs_escaped_keys_and_junk_entries_are_ignored() -> None:
    content = [
        entry('{"passage": "a\\"verdict\\": "'),  # a key's text inside a string value
        entry("supported", supported=0.0),  # so not read
        entry('", "verdict": "'),
        {
            "token": "supported",
            "top_logprobs": [
                {"token": "supported", "logprob": -0.1},
                {"token": "no", "logprob": float("nan")},
                {"token": 3, "logprob": "x"},
                "supported",
                {"token": "contr", "logprob": 1e6},  # invalid (> 0): counted as 0, no overflow
            ],
        },
        {"token": None, "top_logprobs": None},
        {"token": '", {"verdict": "', "top_logprobs": {"supported": -0.1}},
        {"token": "no", "top_logprobs": "junk"},
    ]
    only, unreadable = distributions_from_logprobs(content, LABELS)
    assert only == pytest.approx(shares(-0.1, -math.inf, 0.0))
    assert unreadable is None
    assert distributions_from_logprobs([], LABELS) == ()
