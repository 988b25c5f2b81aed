"""The public surface of ragcard.reference is pinned."""

from __future__ import annotations

import ragcard.reference


def test_public_api() -> None:
    assert sorted(ragcard.reference.__all__) == [
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
    for name in ragcard.reference.__all__:
        assert getattr(ragcard.reference, name).__doc__ or name.isupper()


def test_every_fault_is_described() -> None:
    assert set(ragcard.reference.FAULTS) == {
        "filter_after_ranking",
        "keep_superseded",
        "keyword_only",
        "vector_only",
        "no_abstention",
        "ignore_cutoff",
        "trust_claimed_role",
        "obey_passage_instructions",
        "ignore_policy",
    }
    assert all(len(text) > 20 for text in ragcard.reference.FAULTS.values())
