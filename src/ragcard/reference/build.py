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

from ragcard.corpus import Corpus, load_corpus
from ragcard.errors import ConfigError
from ragcard.reference import faults as fault_names
from ragcard.reference.agent import AGENT_NAME, AGENT_VERSION, ReferenceAgent
from ragcard.reference.embeddings import MiniLMEncoder, embeddings_available, load_encoder
from ragcard.reference.index import Mode, PassageIndex
from ragcard.reference.policy import Policy

__all__ = ["DEFAULT_ABSTAIN_BELOW", "RETRIEVAL_MODES", "build_agent"]

RETRIEVAL_MODES: tuple[Mode, ...] = ("hybrid", "keyword", "vector")

#: Gate thresholds per retrieval mode. Tuned on the dev split of the bundled examples
#: (handbook + persona, 169 items, 36 of them unanswerable): each value maximises the share of
#: items handled right — answered with a gold passage retrieved, or abstained when the sources
#: are silent. Near-domain unanswerable questions ("is there a Christmas bonus?") score like
#: paraphrased answerable ones, so no retrieval-score gate meets both abstention thresholds of
#: SPEC §3 there: hybrid at 0.25 abstains on 47% of unanswerable dev items and 13% of
#: answerable ones (held out: 33% and 9%); keyword at 0.12: 25% and 5% (held out: 25%, 7%).
DEFAULT_ABSTAIN_BELOW: Mapping[Mode, float] = {"keyword": 0.12, "vector": 0.26, "hybrid": 0.25}


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
    if embeddings is None and mode == "hybrid" and not embeddings_available():
        return None  # hybrid degrades to keyword; recorded in meta
    return load_encoder()  # raises MissingExtraError when the extra is missing


def _check_numbers(k: object, abstain_below: object) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"k: expected a whole number of passages >= 1, got {k!r}")
    if abstain_below is not None and (
        isinstance(abstain_below, bool)
        or not isinstance(abstain_below, int | float)
        or not 0.0 <= float(abstain_below) <= 1.0
    ):
        raise ConfigError(f"abstain_below: expected a number from 0 to 1, got {abstain_below!r}")


_OPTIONS = (
    "corpus",
    "faults",
    "retrieval",
    "k",
    "abstain_below",
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
        abstain_below: abstain (``not_in_record``) when the best passage matches the question
            less than this, in [0, 1]; default: tuned per mode (:data:`DEFAULT_ABSTAIN_BELOW`).
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
    _check_numbers(k, abstain_below)
    day = _as_date(today)
    rules = Policy.build(policy)
    if not isinstance(corpus, Corpus):
        corpus = load_corpus(corpus)
    encoder = _encoder(mode, embeddings)
    if encoder is None:
        mode = "keyword"
    index = PassageIndex(list(corpus), encoder)
    threshold = float(DEFAULT_ABSTAIN_BELOW[mode] if abstain_below is None else abstain_below)
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
        today=day,
        policy=rules,
        faults=chosen_faults,
        meta=meta,
    )
