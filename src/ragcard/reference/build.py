"""``build_agent``: the factory ragcard's callable adapter calls with ``[agent.options]``.

Every argument can be written in TOML::

    [agent]
    type = "callable"
    factory = "ragcard.reference:build_agent"
    [agent.options]
    corpus = "corpus.jsonl"
    retrieval = "hybrid"          # hybrid | keyword | vector
    k = 5
    faults = ["keep_superseded"]  # see ragcard.reference.FAULTS
    today = "2026-06-01"          # the date passages must be in force on
    abstain_below = 0.5           # lexical support needed to answer (default: per mode)
    abstain_similarity_below = 0.36  # or a sentence this close in meaning (vectors only)
    [agent.options.policy]
    medical = ["what dose", "diagnose me"]
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError
from ragcard.inputs.corpus import Corpus, load_corpus
from ragcard.reference import faults as fault_names
from ragcard.reference.agent import AGENT_NAME, AGENT_VERSION, ReferenceAgent
from ragcard.reference.embeddings import MiniLMEncoder, load_encoder
from ragcard.reference.index import Mode, PassageIndex
from ragcard.reference.policy import Policy

__all__ = [
    "DEFAULT_ABSTAIN_BELOW",
    "DEFAULT_ABSTAIN_SIMILARITY_BELOW",
    "RETRIEVAL_MODES",
    "build_agent",
]

RETRIEVAL_MODES: tuple[Mode, ...] = ("hybrid", "keyword", "vector")

#: Lexical-support threshold per retrieval mode (``abstain_below``): the share of the question's
#: specific terms, IDF-weighted over the passages the asker may search, that the best retrieved
#: passage must contain (:mod:`ragcard.reference.answerability`). Keyword mode has nothing else
#: to go on, so its bar is low enough to spare paraphrases; with vectors a sentence close in
#: meaning can carry the answer instead, so the lexical bar is higher.
#:
#: Chosen on the dev split of the bundled examples only (handbook + persona, 133 answerable and
#: 36 unanswerable items): the values that abstain most while false abstention stays near 5%,
#: each in the middle of its plateau. Handbook, correct / false abstention, dev then held out:
#: keyword 0.40 / 0.01 and 0.10 / 0.06 (the retrieval-score gate before: 0.27 / 0.02 and
#: 0.10 / 0.06); hybrid 0.50 / 0.05 and 0.20 / 0.06 (before: 0.43 / 0.10 and 0.20 / 0.08).
#: docs/formats.md#thresholdstoml 0.90 / 0.05 stays out of reach: see "Where it stops" in the
#: answerability module.
DEFAULT_ABSTAIN_BELOW: Mapping[Mode, float] = {"keyword": 0.135, "vector": 0.5, "hybrid": 0.5}
#: Semantic-support threshold (``abstain_similarity_below``): the cosine similarity between the
#: question and the closest sentence of the retrieved passages at which that sentence carries
#: the answer on its own, whatever the lexical support. None: no vectors, no semantic support.
DEFAULT_ABSTAIN_SIMILARITY_BELOW: Mapping[Mode, float | None] = {
    "keyword": None,
    "vector": 0.36,
    "hybrid": 0.36,
}


def _ragcard_version() -> str:
    try:
        return version("ragcard")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def _as_date(value: dt.date | str | None) -> dt.date:
    if value is None:
        return dt.date.today()
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"today: expected a date like 2026-06-01, got {value!r}") from None


def _mode(retrieval: str, faults: tuple[str, ...]) -> Mode:
    if retrieval not in RETRIEVAL_MODES:
        raise ConfigError(
            f"retrieval: unknown mode {retrieval!r}; valid: {', '.join(RETRIEVAL_MODES)}"
        )
    if fault_names.KEYWORD_ONLY in faults:
        return "keyword"
    if fault_names.VECTOR_ONLY in faults:
        return "vector"
    return retrieval


def _encoder(mode: Mode, embeddings: bool | None) -> MiniLMEncoder | None:
    """The encoder the mode needs, or None when keyword search will do."""
    if mode == "keyword" or embeddings is False:
        if mode == "vector":
            raise ConfigError(
                "vector retrieval needs embeddings, but embeddings = false; set embeddings = "
                "true (pip install 'ragcard[embed]') or use retrieval = \"keyword\""
            )
        return None
    # never a silent switch to keyword search: that would change the answers, and the decision
    return load_encoder()  # raises MissingExtraError (how to repair the install) without it


def _check_fraction(name: str, value: object) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0
    ):
        raise ConfigError(f"{name}: expected a number from 0 to 1, got {value!r}")


def _check_numbers(k: object, abstain_below: object, abstain_similarity_below: object) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"k: expected a whole number of passages >= 1, got {k!r}")
    _check_fraction("abstain_below", abstain_below)
    _check_fraction("abstain_similarity_below", abstain_similarity_below)


_OPTIONS = (
    "corpus",
    "faults",
    "retrieval",
    "k",
    "abstain_below",
    "abstain_similarity_below",
    "today",
    "policy",
    "embeddings",
)


def _from_options(options: Mapping[str, Any]) -> ReferenceAgent:
    """``build_agent({...})``: the whole ``[agent.options]`` table as one argument."""
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ConfigError(
            f"[agent.options]: unknown option(s) {', '.join(map(repr, unknown))}; "
            f"valid: {', '.join(_OPTIONS)}"
        )
    if "corpus" not in options:
        raise ConfigError(
            '[agent.options]: corpus is required — e.g. corpus = "corpus.jsonl" (the manifest '
            "the agent retrieves from)"
        )
    settings = dict(options)
    corpus = settings.pop("corpus")
    if isinstance(corpus, Mapping):
        raise ConfigError("[agent.options]: corpus must be a path to a corpus manifest")
    return build_agent(corpus, **settings)


def build_agent(
    corpus: str | Path | Corpus | Mapping[str, Any],
    *,
    faults: Sequence[str] = (),
    retrieval: str = "hybrid",
    k: int = 5,
    abstain_below: float | None = None,
    abstain_similarity_below: float | None = None,
    today: dt.date | str | None = None,
    policy: Mapping[str, Sequence[str]] | None = None,
    embeddings: bool | None = None,
) -> ReferenceAgent:
    """Build the reference agent over ``corpus`` (a manifest path or a loaded :class:`Corpus`).

    Called as ``build_agent(options)`` with one mapping, the mapping is the whole
    ``[agent.options]`` table (``corpus`` included), as ragcard's callable adapter passes it.

    Args:
        faults: fault switches to turn on (:data:`ragcard.reference.FAULTS`).
        retrieval: ``hybrid`` (vectors + BM25, mixed scores), ``keyword`` or
            ``vector``. Without the ``embed`` extra, ``hybrid`` runs as keyword search.
        k: passages retrieved per question.
        abstain_below: lexical support needed to answer, in [0, 1]: the IDF-weighted share of
            the question's specific terms (fillers such as ``get``/``actually`` left out) that
            the best retrieved passage must contain; IDF counts only the passages the asker may
            search. Default: tuned per mode (:data:`DEFAULT_ABSTAIN_BELOW`). ``0`` never
            abstains for want of support; ``1`` needs every specific term in one passage.
        abstain_similarity_below: with vectors, the semantic support that answers even when
            lexical support falls short: the cosine similarity of the question and the closest
            sentence of the retrieved passages, in [0, 1]. Default: tuned per mode
            (:data:`DEFAULT_ABSTAIN_SIMILARITY_BELOW`); ignored without vectors. The agent
            abstains (``not_in_record``) when both supports are short, or when the question
            names a code (``P3``, ``HR-17``) that no passage the asker may search names — see
            :mod:`ragcard.reference.answerability`. The ``no_abstention`` fault turns all of
            this off.
        today: the date passages must be in force on; default: today (pass the run date).
        policy: flag -> phrases, merged over :data:`~ragcard.reference.DEFAULT_POLICY` per flag
            (an empty list turns a default flag off).
        embeddings: use dense vectors: ``True`` requires the extra, ``False`` never, ``None``
            when installed.

    Raises:
        ConfigError: an unknown fault or mode, or a bad value.
        MissingExtraError: vectors needed (``vector``, ``vector_only``, ``embeddings = true``)
            but the ``embed`` extra is not installed.
    """
    if isinstance(corpus, Mapping):
        return _from_options(corpus)
    chosen_faults = fault_names.validate_faults(faults)
    mode = _mode(retrieval, chosen_faults)
    _check_numbers(k, abstain_below, abstain_similarity_below)
    day = _as_date(today)
    rules = Policy.build(policy)
    if not isinstance(corpus, Corpus):
        corpus = load_corpus(corpus)
    encoder = _encoder(mode, embeddings)
    if encoder is None:
        mode = "keyword"
    index = PassageIndex(list(corpus), encoder)
    threshold = float(DEFAULT_ABSTAIN_BELOW[mode] if abstain_below is None else abstain_below)
    similarity: float | None = None
    if index.dense:
        default = DEFAULT_ABSTAIN_SIMILARITY_BELOW[mode]
        similarity = default if abstain_similarity_below is None else abstain_similarity_below
        similarity = None if similarity is None else float(similarity)
    policy_digest = hashlib.sha256(
        json.dumps(rules.describe(), sort_keys=True).encode("utf-8")
    ).hexdigest()
    meta: dict[str, Any] = {
        "model": AGENT_NAME,
        "version": AGENT_VERSION,
        "ragcard": _ragcard_version(),
        "retrieval": mode,
        "retrieval_requested": retrieval,
        "k": k,
        "faults": list(chosen_faults),
        "abstain_below": threshold,
        "abstain_similarity_below": similarity,
        "today": day.isoformat(),
        "corpus": {"path": str(corpus.path), "sha256": corpus.sha256, "passages": len(corpus)},
        "index": index.describe(),
        "policy": {"flags": [flag for flag, _ in rules.rules], "sha256": policy_digest[:16]},
    }
    return ReferenceAgent(
        corpus,
        index,
        mode=mode,
        k=k,
        abstain_below=threshold,
        abstain_similarity_below=similarity,
        today=day,
        policy=rules,
        faults=chosen_faults,
        meta=meta,
    )
