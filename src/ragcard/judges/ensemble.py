"""The ``ensemble`` judge: one calibrated score from several offline signals.

Needs the ``embed`` extra. Per claim it computes the signals of
:mod:`~ragcard.judges.ensemble_features` — the lexical judge's coverage with its number and
negation checks, the MiniLM cosines of the nearest passage sentences, lexical coverage against
those embedding-selected sentences, the claim's length, and, with ``llm_vote = true``, the
``local`` LLM judge's score — and combines them with a logistic regression whose weights ship
in ``judges/weights/ensemble.json`` (``ensemble-llm.json`` with the LLM vote). The weights file
records the data it was trained on (never the part reported as its accuracy), its licence and
credit; ``ragcard judges train-ensemble`` writes a new one from your own labels.

Verdict: ``supported`` when the probability reaches the threshold and every number, date and
amount of the claim is stated by one of its evidence sentences (the lexical judge's best 1–2
and the 3 embedding-nearest) and none is replaced by another figure in the evidence sentence
the claim copies (:mod:`~ragcard.judges.figures`: "season four" where the copied sentence
says "season three" and, later, "season four"); otherwise ``contradicted`` when the lexical
judge saw a negation mismatch, else ``not_supported`` (a changed figure in an otherwise
matching sentence scores at most :data:`NUMBER_CAP`). Evidence: the lexical judge's best 1–2
sentences, or the embedding-nearest sentence when no word matched.

TOML::

    [judge]
    backend = "ensemble"
    threshold = 0.5            # absent: the weights file's (chosen on its training data)
    weights = "mine.json"      # absent: the shipped weights
    llm_vote = false           # true: add the local LLM judge's vote (slow: ~2–4 s a claim)
    llm = { model = "qwen2.5-1.5b" }   # options of that local judge
    llm_band = [0.10, 0.85]    # with llm_vote: ask the LLM only where the vote-free model's
                               # P(supported) is in this band; false: ask it about every claim
    relevance_threshold = 0.36 # question-answer cosine from which an answer is relevant
                               # (tune it on your labels: judges evaluate --threshold tune)

Measured with the shipped weights (``ragcard judges evaluate --judge ensemble --threshold judge
--dataset wice-100 --dataset begin --dataset faithbench``; 95% bootstrap intervals in
``calibrations/ensemble.json``), on parts the weights never saw:

* WiCE, published 100-claim subset, oracle retrieval: AUROC 0.807 [0.697, 0.897], accuracy
  0.80, F1 (supported) 0.524, κ 0.40 at its own threshold (``ensemble-rules/2`` and ``/3`` over
  ``lexical/3``; ``rules/1`` over ``lexical/2``: AUROC 0.795, accuracy 0.77, F1 0.511). GPT-4
  on the same 100 claims: AUROC 0.802, F1 0.610, accuracy 0.77. **The target is not met**:
  AUROC and accuracy reach GPT-4's, F1 stays below it. (Lexical, same protocol: AUROC 0.779,
  F1 0.508.)
* BEGIN test (3,601): AUROC 0.928, balanced accuracy 0.841, κ 0.641 (lexical: 0.918, 0.848,
  0.69 — the pooled threshold suits WiCE's long claims more than BEGIN's).
* FaithBench (800, evaluation only): AUROC 0.553, balanced accuracy 0.563 — near chance, like
  the published detectors (0.45–0.55) and the lexical judge (0.564).
* All 4,501 pooled: balanced accuracy 0.802, AUROC 0.870, κ 0.57.
* Trained on BEGIN dev only (``train-ensemble --dataset begin``), so WiCE is wholly unseen:
  WiCE 358 AUROC 0.777, balanced accuracy 0.615, κ 0.28 (lexical 0.772 / 0.579 / 0.20);
  WiCE 100 AUROC 0.783; FaithBench AUROC 0.565.

With ``llm_vote = true`` and the shipped ``ensemble-llm.json`` (trained on the 258 WiCE
claims outside the published subset, with the ``local`` judge's defaults: Qwen2.5-Coder-1.5B,
probability score), on the published 100 at its own threshold 0.385 (``ragcard judges
evaluate --judge ensemble --option llm_vote=true --dataset wice-100 --threshold judge``;
``calibrations/ensemble-llm.json``): F1 (supported) 0.615 [0.449, 0.750], accuracy 0.800,
AUROC 0.832 [0.730, 0.917], κ 0.485. Its point estimates are above GPT-4's, but the 100
claims' intervals hold GPT-4's values: as good as GPT-4 here, with no API, not shown better.

The vote is slow, so by default the LLM is asked only about claims the vote-free model is
unsure of: its P(supported) in ``llm_band`` = [0.10, 0.85]; outside the band the vote-free
model (``ensemble.json``, its own threshold) decides. The band was chosen on the 258 training
claims, by a rule fixed beforehand: the fewest LLM calls whose AUROC stays within 0.005 and
F1 within 0.01 of voting on every claim there. On the published 100 it asks the LLM about 58%
of the claim-chunk pairs, with F1 0.615, accuracy 0.800 and AUROC 0.833 (0.615 / 0.800 /
0.832 voting on every pair). ``llm_band = false`` asks about every claim.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ragcard.errors import ConfigError
from ragcard.judges.base import Judge, JudgeContext, JudgeIdentity, Label, Verdict
from ragcard.judges.embedding import (
    Encoder,
    SentenceVectors,
    answer_task,
    load_default_encoder,
    relevance_threshold_of,
    task_versions,
)
from ragcard.judges.ensemble_features import (
    FEATURES,
    LLM_FEATURE,
    ClaimFeatures,
    FeatureExtractor,
)
from ragcard.judges.ensemble_model import LogisticModel, load_weights, shipped_weights_path
from ragcard.judges.lexical import ALGORITHM_VERSION as LEXICAL_ALGORITHM
from ragcard.judges.registry import check_options

__all__ = ["EnsembleJudge", "ensemble_available"]

_OPTIONS: dict[str, type | tuple[type, ...]] = {
    "threshold": (float, int),
    "weights": str,
    "llm_vote": bool,
    "llm": dict,
    "llm_band": (list, bool),
    "relevance_threshold": (float, int),
}

#: The highest score a claim gets when a number of it is in none of its evidence sentences.
NUMBER_CAP = 0.3
#: Bumped whenever the verdict rule around the weights changes (recorded in the identity, so a
#: calibration measured with another rule is not shown as this judge's).
RULES_VERSION = "ensemble-rules/5"  # 2: numbers must be in the evidence sentences; 3: and
# not replaced by another figure in the sentence the claim copies (ragcard.judges.figures);
# 4: no negation, name or relation word changed there either, and a copy of an evidence
# sentence up to synonyms and units is supported (ragcard.judges.contrast); 5: and no name
# put where another name stands, no relation or modal word flipped beside a shared word, no
# one-sided negation (ragcard.judges.contrast_anchor)
#: Where the vote-free model's P(supported) leaves the shipped LLM-vote weights to the LLM
#: (chosen on the WiCE training claims; see the module docstring).
DEFAULT_LLM_BAND = (0.10, 0.85)


def ensemble_available() -> bool:
    """True when the ``embed`` extra the ensemble needs is installed."""
    from ragcard.reference.embeddings import embeddings_available

    return embeddings_available()


class EnsembleJudge:
    """Logistic regression over lexical, embedding and (optionally) LLM signals."""

    def __init__(
        self,
        threshold: float | None = None,
        weights: str | None = None,
        llm_vote: bool = False,
        llm: Mapping[str, Any] | None = None,
        encoder: Encoder | None = None,
        llm_judge: Judge | None = None,
        llm_band: list[float] | bool | None = None,
        relevance_threshold: float | None = None,
    ) -> None:
        self.relevance_threshold = relevance_threshold_of("ensemble", relevance_threshold)
        vectors = SentenceVectors(encoder or load_default_encoder("The ensemble judge"))
        path = Path(weights).expanduser() if weights else _default_weights(llm_vote)
        if llm_vote and not weights and not path.is_file():
            raise ConfigError(
                "judge 'ensemble': no shipped weights use the LLM vote yet; train some with "
                "`ragcard judges train-ensemble --llm-vote --out FILE` and set weights = FILE"
            )
        self.model = load_weights(path, FEATURES)
        uses_llm = LLM_FEATURE in self.model.features
        if uses_llm != llm_vote:
            raise ConfigError(
                f"{path}: weights {'use' if uses_llm else 'do not use'} the '{LLM_FEATURE}' "
                f"feature but llm_vote is {str(llm_vote).lower()}; set llm_vote = "
                f"{str(uses_llm).lower()} or use weights trained "
                f"{'with' if llm_vote else 'without'} it (ragcard judges train-ensemble"
                f"{' --llm-vote' if llm_vote else ''} --out FILE)"
            )
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"judge 'ensemble': threshold must be in [0, 1], got {threshold}")
        self.threshold = float(self.model.threshold if threshold is None else threshold)
        if llm_vote and llm_judge is None:
            from ragcard.judges.local import LocalJudge  # the local extra, only when asked

            if not weights and dict(llm or {}).get("score", "probability") != "probability":
                raise ConfigError(
                    "judge 'ensemble': the shipped LLM-vote weights were trained on the local "
                    "judge's probability score; remove llm.score, or train weights with it "
                    "(ragcard judges train-ensemble --llm-vote --out FILE) and set weights = FILE"
                )
            llm_judge = LocalJudge.from_config(dict(llm or {}))
        self.llm = llm_judge if llm_vote else None
        self.band = _band(llm_band, llm_vote, weights) if llm_vote else None
        # outside the band the vote-free model decides, at its own threshold unless one is set
        self.fast = load_weights(_default_weights(False), FEATURES) if self.band else None
        self.fast_threshold = (
            self.threshold if threshold is not None or self.fast is None else self.fast.threshold
        )
        self.extractor = FeatureExtractor(vectors, self.llm)
        self.identity = _identity(self.model, self.threshold, weights, vectors, self.llm)
        if self.llm is not None:
            self.identity.settings["llm_band"] = list(self.band) if self.band else None
            if self.fast is not None:
                self.identity.settings["band_model"] = {
                    "weights": Path(self.fast.source).name,
                    "weights_date": self.fast.record.get("date"),
                    "threshold": self.fast_threshold,
                }
        # relevance by the embeddings, abstention by the lexical judge (see judge()), said so
        self.identity = dataclasses.replace(
            self.identity, tasks=task_versions(self.relevance_threshold)
        )

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> EnsembleJudge:
        """Build from a ``[judge]`` table's options (``backend`` already removed)."""
        return cls(**check_options("ensemble", options, _OPTIONS))

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        """One verdict per claim, in order. Tasks other than support are answered as the
        ``embedding`` judge answers them (relevance by the question–answer cosine,
        abstention by the lexical judge's phrases)."""
        if getattr(ctx, "task", "support") != "support":
            return await answer_task(self.extractor.vectors, ctx, self.relevance_threshold)
        vote_free: list[float] = []  # with a band: the vote-free P(supported), read once

        def unsure(extracted: list[ClaimFeatures]) -> list[bool]:
            assert self.fast is not None and self.band is not None
            rows = np.vstack([f.vector(self.fast.features) for f in extracted])
            vote_free.extend(float(p) for p in self.fast.probability(rows))
            return [self.band[0] <= p <= self.band[1] for p in vote_free]

        extracted = await self.extractor.extract(ctx, unsure if self.band else None)
        if not extracted:
            return []
        voted = [not vote_free or LLM_FEATURE in f.values for f in extracted]
        probabilities = np.array(vote_free or [0.0] * len(extracted), dtype=np.float64)
        chosen = [i for i, with_vote in enumerate(voted) if with_vote]
        if chosen:
            rows = np.vstack([extracted[i].vector(self.model.features) for i in chosen])
            probabilities[chosen] = self.model.probability(rows)
        verdicts = []
        for features, p, with_vote in zip(extracted, probabilities, voted, strict=True):
            values = features.values
            score = round(float(p), 6)
            label: Label = "supported"
            if score < (self.threshold if with_vote else self.fast_threshold):
                label = "contradicted" if values["negation_mismatch"] else "not_supported"
            changed = features.unmatched_numbers or features.conflicting_figures
            if features.copied and not changed and label != "supported":
                # its evidence sentence restated up to synonyms, units and stop words, with no
                # contrast: supported, however low the words' overlap scores it
                label, score = "supported", max(score, self.threshold)
            if changed and label == "supported":
                # a figure its evidence does not state, or states otherwise in the sentence it
                # copies, is never supported, however close the rest of the sentence: a
                # changed amount is the error that matters
                label, score = "not_supported", min(score, NUMBER_CAP)
            if features.contrast is not None:
                # a negation, a swapped name or a flipped relation says the opposite of the
                # sentence the claim copies, however many words they share
                label, score = "contradicted", min(score, NUMBER_CAP)
            reason = self._reason(features, score)
            verdicts.append(Verdict(label, score, features.passage_id, features.span, reason))
        return verdicts

    def _reason(self, features: ClaimFeatures, score: float) -> str:
        """What decided the verdict: the probability, its main signals, and any hard rule."""
        values = features.values
        reason = (
            f"p(supported) {score:.2f}: lexical coverage {values['lexical_coverage']:.0%}, "
            f"nearest-sentence cosine {values['emb_max']:.2f}"
        )
        if values["numbers_absent"]:
            reason += ", a number appears in no passage"
        elif features.unmatched_numbers:
            shown = ", ".join(features.unmatched_numbers[:4])
            reason += f", number(s) {shown} in none of its evidence sentences"
        elif features.conflicting_figures:
            shown = ", ".join(f"{a} where its evidence says {b}"
                              for a, b in features.conflicting_figures[:3])
            reason += f", figure changed: {shown}"
        if features.copied and not features.contrast:
            reason += ", a copy of its evidence sentence up to synonyms and units"
        if features.contrast is not None:  # the deciding fact first
            reason = f"{features.contrast.kind}: {features.contrast.reason}; {reason}"
        elif values["negation_mismatch"]:
            reason += ", negation on one side only"
        if LLM_FEATURE in values:
            reason += f", LLM vote {values[LLM_FEATURE]:.2f}"
        elif self.band is not None:
            reason += f", LLM not asked (outside [{self.band[0]:g}, {self.band[1]:g}])"
        return reason

    def close(self) -> None:
        """Free the LLM judge's model, if any."""
        close = getattr(self.llm, "close", None)
        if callable(close):
            close()


def _band(
    setting: list[float] | bool | None, llm_vote: bool, weights: str | None
) -> tuple[float, float] | None:
    """The LLM band from the ``llm_band`` option: the default band for the shipped weights,
    none (every claim) for your own unless you give one, none for ``false``."""
    if setting is None:
        return DEFAULT_LLM_BAND if llm_vote and not weights else None
    if setting is False:
        return None
    if (
        setting is True
        or len(setting) != 2
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in setting)
        or not 0.0 <= setting[0] < setting[1] <= 1.0
    ):
        raise ConfigError(
            f"judge 'ensemble': llm_band must be two numbers 0 <= low < high <= 1 (the "
            f"vote-free P(supported) at which the LLM is asked) or false, got {setting!r}"
        )
    return float(setting[0]), float(setting[1])


def _default_weights(llm_vote: bool) -> Path:
    return shipped_weights_path("ensemble-llm" if llm_vote else "ensemble")


def _identity(
    model: LogisticModel,
    threshold: float,
    weights: str | None,
    vectors: SentenceVectors,
    llm: Judge | None,
) -> JudgeIdentity:
    encoder = vectors.encoder.describe()
    training = model.record.get("training", {})
    names = [str(d.get("dataset")) + " " + str(d.get("part")) for d in training.get("data", [])]
    settings: dict[str, Any] = {
        "rules": RULES_VERSION,
        "lexical": LEXICAL_ALGORITHM,
        "weights": str(weights) if weights else Path(model.source).name,
        "weights_date": model.record.get("date"),
        "trained_on": ", ".join(names) or None,
        "features": list(model.features),
        "encoder_sha256": encoder.get("sha256"),
        "llm_vote": llm is not None,
    }
    name = str(encoder.get("model"))
    if llm is not None:
        settings["llm"] = llm.identity.to_json()
        name += f" + {llm.identity.model}"
    return JudgeIdentity("ensemble", model=name, threshold=threshold, settings=settings)
