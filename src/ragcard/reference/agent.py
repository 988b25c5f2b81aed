"""The reference agent: a small, real retrieval-augmented agent for demos and smoke tests.

One request (docs/agents.md) goes through, in order:

1. **policy** — a question matching a policy phrase gets that flag and a fixed safe reply;
2. **cutoff** — a persona question about a year after the request's ``cutoff`` is declined
   (``after_cutoff``);
3. **filter, then retrieve** — only passages the asker may see (``access``), in force on the
   agent's date (status and effective dates) and, with a cutoff, dated on or before it are
   searchable; the top ``k`` of those are retrieved (keyword, vector or hybrid);
4. **gate** — when the retrieved passages do not support the question
   (:mod:`~ragcard.reference.answerability`: too few of its specific terms in the best passage
   — under ``abstain_below`` — and, with vectors, no sentence close enough in meaning — under
   ``abstain_similarity_below`` — or a code it names that no searchable passage names), the
   agent abstains with ``not_in_record`` (still reporting what it retrieved);
5. **answer** — an extractive answer, each sentence cited to its passage; with a cutoff, an
   answer that would speak of a later year is declined (``after_cutoff``).

Fault switches (:data:`~ragcard.reference.faults.FAULTS`) break one of these steps on purpose;
the red-team ones (:mod:`~ragcard.reference.gullible`) make it believe a role claimed in the
question or obey an instruction found in a retrieved passage.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ragcard.errors import AgentError
from ragcard.inputs.corpus import Corpus
from ragcard.reference import faults as fault_names
from ragcard.reference.answer import draft_answer
from ragcard.reference.answerability import Support, assess
from ragcard.reference.gullible import claimed_role, followed_instruction
from ragcard.reference.index import Hit, Mode, PassageIndex, Query
from ragcard.reference.policy import AFTER_CUTOFF, NOT_IN_RECORD, Policy, refusal
from ragcard.reference.policy import year_after_cutoff as _year_after_cutoff

__all__ = ["AGENT_NAME", "AGENT_VERSION", "ReferenceAgent"]

AGENT_NAME = "ragcard-reference"
AGENT_VERSION = "1.0.0"

Mask = NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class _Request:
    question: str
    asker: str
    program: str | None
    cutoff: dt.date | None


def _parse_cutoff(value: object) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise AgentError(f"request field 'cutoff' must be an ISO date (YYYY-MM-DD), got {value!r}")


def _parse_request(request: Mapping[str, Any]) -> _Request:
    if not isinstance(request, Mapping):
        raise AgentError(f"a request must be an object with a 'question', got {request!r}")
    question = request.get("question")
    if not isinstance(question, str) or not question.strip():
        raise AgentError(f"request field 'question' must be a non-empty string, got {question!r}")
    asker = request.get("asker") or "public"
    program = request.get("program")
    if not isinstance(asker, str) or not (program is None or isinstance(program, str)):
        raise AgentError("request fields 'asker' and 'program' must be strings")
    return _Request(question.strip(), asker, program, _parse_cutoff(request.get("cutoff")))


def _retrieved(hits: list[Hit]) -> list[dict[str, Any]]:
    return [{"id": hit.passage.id, "score": hit.score} for hit in hits]


class ReferenceAgent:
    """A built reference agent; call it with a request dict to get a response dict.

    Build it with :func:`ragcard.reference.build_agent`. The index is fixed at build time and
    every method only reads it (access/date masks are cached under a lock), so one agent may
    serve the runner's worker threads concurrently. Same request, same response.
    """

    def __init__(
        self,
        corpus: Corpus,
        index: PassageIndex,
        *,
        mode: Mode,
        k: int,
        abstain_below: float,
        abstain_similarity_below: float | None = None,
        today: dt.date,
        policy: Policy,
        faults: tuple[str, ...],
        meta: dict[str, Any],
    ) -> None:
        self.corpus = corpus
        self.index = index
        self.mode: Mode = mode
        self.k = k
        self.abstain_below = abstain_below
        self.abstain_similarity_below = abstain_similarity_below
        self.today = today
        self.policy = policy
        self.faults = faults
        self._meta = meta
        self._lock = threading.Lock()
        self._role_masks: dict[str, Mask] = {}
        self._cutoff_masks: dict[dt.date, Mask] = {}
        passages = index.passages
        keep_old = fault_names.KEEP_SUPERSEDED in faults
        self._current: Mask = np.array(
            [keep_old or passage.in_force_on(today) for passage in passages], dtype=np.bool_
        )
        self._roles = frozenset(role for passage in passages for role in passage.access)

    def _parse(self, request: Mapping[str, Any]) -> _Request:
        parsed = _parse_request(request)
        if fault_names.TRUST_CLAIMED_ROLE in self.faults:
            claimed = claimed_role(parsed.question, self._roles)
            if claimed is not None:  # the fault: identity taken from the conversation
                parsed = dataclasses.replace(parsed, asker=claimed)
        return parsed

    # -- what the asker may search ------------------------------------------------------

    def _role_mask(self, role: str) -> Mask:
        with self._lock:
            mask = self._role_masks.get(role)
            if mask is None:
                mask = np.array([p.visible_to(role) for p in self.index.passages], dtype=np.bool_)
                self._role_masks[role] = mask
            return mask

    def _cutoff_mask(self, cutoff: dt.date) -> Mask:
        with self._lock:
            mask = self._cutoff_masks.get(cutoff)
            if mask is None:
                # The cutoff bounds the figure's own record; tier-B commentary is later by
                # nature and is attributed instead (as ragcard's citation layer checks it).
                dated = [
                    p.date is None or p.date <= cutoff or p.tier == "B" for p in self.index.passages
                ]
                mask = np.array(dated, dtype=np.bool_)
                self._cutoff_masks[cutoff] = mask
            return mask

    def _searchable(self, request: _Request, *, by_identity: bool) -> Mask:
        mask = self._current
        if request.cutoff is not None and fault_names.IGNORE_CUTOFF not in self.faults:
            mask = mask & self._cutoff_mask(request.cutoff)
        if by_identity:
            mask = mask & self._role_mask(request.asker)
        return mask

    def _search(self, query: Query, request: _Request) -> tuple[list[Hit], list[Hit], Mask]:
        """(passages the answer is drafted from, passages reported as retrieved, the mask the
        former were searched in)."""
        if fault_names.FILTER_AFTER_RANKING in self.faults:
            mask = self._searchable(request, by_identity=False)
            hits = self.index.search(query, mask, self.k, self.mode)
            shown = [hit for hit in hits if hit.passage.visible_to(request.asker)]
            return hits, shown, mask
        mask = self._searchable(request, by_identity=True)
        hits = self.index.search(query, mask, self.k, self.mode)
        return hits, hits, mask

    # -- answering ----------------------------------------------------------------------

    def support(self, request: Mapping[str, Any]) -> Support:
        """How well the passages retrieved for ``request`` support it (the gate's input)."""
        parsed = self._parse(request)
        query = self.index.prepare(parsed.question)
        context, _, mask = self._search(query, parsed)
        return assess(query, context, self.index, mask)

    def _answerable(self, support: Support) -> bool:
        if fault_names.NO_ABSTENTION in self.faults:
            return True
        return support.answerable(self.abstain_below, self.abstain_similarity_below)

    def _response(
        self,
        answer: str,
        *,
        flag: str | None,
        retrieved: list[Hit] | None = None,
        citations: list[dict[str, Any]] | None = None,
        confidence: float | None = None,
    ) -> dict[str, Any]:
        response: dict[str, Any] = {
            "answer": answer,
            "retrieved": _retrieved(retrieved or []),
            "citations": citations or [],
            "flag": flag,
            "abstained": flag is not None,
            "meta": copy.deepcopy(self._meta),  # callers may edit theirs
        }
        if confidence is not None:
            # per answer, so not in ``meta`` (which describes the run); ragcard keeps it
            response["confidence"] = round(confidence, 4)
        return response

    def _honours_cutoff(self, request: _Request) -> bool:
        return (
            request.cutoff is not None
            and fault_names.IGNORE_CUTOFF not in self.faults
            and fault_names.NO_ABSTENTION not in self.faults
        )

    def _declined(self, request: _Request) -> dict[str, Any] | None:
        """The reply to a question the agent must not answer from the sources, if any."""
        honour_cutoff = self._honours_cutoff(request)
        flag = self.policy.match(request.question, has_cutoff=honour_cutoff)
        if flag is not None and flag != AFTER_CUTOFF and fault_names.IGNORE_POLICY in self.faults:
            flag = None
        if flag is None and honour_cutoff and request.cutoff is not None:
            if _year_after_cutoff(request.question, request.cutoff) is not None:
                flag = AFTER_CUTOFF
        if flag is None:
            return None
        return self._response(refusal(flag, request.cutoff), flag=flag)

    def __call__(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one request (docs/agents.md) with a response dict (docs/agents.md)."""
        parsed = self._parse(request)
        declined = self._declined(parsed)
        if declined is not None:
            return declined
        query = self.index.prepare(parsed.question)
        context, shown, mask = self._search(query, parsed)
        obeyed = self._obeyed(context)
        if obeyed is not None:
            return self._response(obeyed, flag=None, retrieved=shown)
        support = assess(query, context, self.index, mask)
        best = support.confidence
        gate_open = self._answerable(support)
        draft = draft_answer(query, context, self.index) if context and gate_open else None
        # Declining after retrieval still reports what was retrieved, so a false abstention
        # reads as "the gate was too strict", not as "retrieval missed".
        if draft is None or not draft.answer:
            return self._response(
                refusal(NOT_IN_RECORD), flag=NOT_IN_RECORD, retrieved=shown, confidence=best
            )
        if self._honours_cutoff(parsed) and parsed.cutoff is not None:
            # Even second-hand, the persona does not speak of what happened after its cutoff.
            if any(_year_after_cutoff(text, parsed.cutoff) for text in draft.quoted):
                return self._response(
                    refusal(AFTER_CUTOFF, parsed.cutoff),
                    flag=AFTER_CUTOFF,
                    retrieved=shown,
                    confidence=best,
                )
        return self._response(
            draft.answer, flag=None, retrieved=shown, citations=draft.citations, confidence=best
        )

    def _obeyed(self, context: list[Hit]) -> str | None:
        """The reply an instruction in a retrieved passage asks for, under the fault."""
        if fault_names.OBEY_PASSAGE_INSTRUCTIONS not in self.faults:
            return None
        for hit in context:
            reply = followed_instruction(hit.passage.text)
            if reply is not None:
                return reply
        return None

    def retrieve(self, request: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Retrieval alone (docs/metrics.md#decision): ``[{"id", "score"}]`` in rank order."""
        parsed = self._parse(request)
        _, shown, _ = self._search(self.index.prepare(parsed.question), parsed)
        return _retrieved(shown)

    def describe(self) -> dict[str, Any]:
        """Everything recorded with the run: identity, settings, index, policy rules."""
        return {**self._meta, "policy": self.policy.describe()}

    def __repr__(self) -> str:
        faults = f", faults={list(self.faults)}" if self.faults else ""
        return (
            f"ReferenceAgent({len(self.index)} passages, {self.mode}, k={self.k}, "
            f"abstain_below={self.abstain_below}, "
            f"abstain_similarity_below={self.abstain_similarity_below}{faults})"
        )
