"""The reference agent: a small, real retrieval-augmented agent to evaluate with ragcard.

It retrieves with bm25s keyword search (plus MiniLM vectors when the ``embed`` extra is
installed), filters by the asker's role, the date in force and the persona cutoff *before*
ranking, answers extractively with one citation per sentence, abstains when the sources are
silent, and can break itself on purpose (:data:`FAULTS`) so you can watch ragcard catch it::

    from ragcard.reference import build_agent

    agent = build_agent("examples/handbook/corpus.jsonl", today="2026-06-01")
    agent({"question": "How many days of annual leave do I get?", "asker": "employee"})

In ``ragcard.toml``: ``[agent] type = "callable"``, ``factory = "ragcard.reference:build_agent"``
and the keyword arguments of :func:`build_agent` under ``[agent.options]``.
"""

from ragcard.reference.agent import AGENT_NAME, AGENT_VERSION, ReferenceAgent
from ragcard.reference.build import DEFAULT_ABSTAIN_BELOW, RETRIEVAL_MODES, build_agent
from ragcard.reference.embeddings import embeddings_available
from ragcard.reference.faults import FAULTS
from ragcard.reference.policy import DEFAULT_POLICY

__all__ = [
    "AGENT_NAME",
    "AGENT_VERSION",
    "DEFAULT_ABSTAIN_BELOW",
    "DEFAULT_POLICY",
    "FAULTS",
    "RETRIEVAL_MODES",
    "ReferenceAgent",
    "build_agent",
    "embeddings_available",
]
