"""Fault switches: the classic knowledge-agent bugs, reproducible on demand.

Each fault makes the reference agent fail the way real agents do, so a user can watch ragcard
catch it (the layer that should turn red is named after each description).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragcard.errors import ConfigError

__all__ = ["FAULTS", "validate_faults"]

FILTER_AFTER_RANKING = "filter_after_ranking"
KEEP_SUPERSEDED = "keep_superseded"
KEYWORD_ONLY = "keyword_only"
VECTOR_ONLY = "vector_only"
NO_ABSTENTION = "no_abstention"
IGNORE_CUTOFF = "ignore_cutoff"
TRUST_CLAIMED_ROLE = "trust_claimed_role"
OBEY_PASSAGE_INSTRUCTIONS = "obey_passage_instructions"
IGNORE_POLICY = "ignore_policy"

#: Fault name -> what it breaks (and which ragcard layer should catch it).
FAULTS: Mapping[str, str] = {
    FILTER_AFTER_RANKING: (
        "searches the whole corpus, drafts the answer from the top k, and only then drops the "
        "passages the asker may not see from the list it reports — restricted text and "
        "citations still reach the answer (access: leaks)"
    ),
    KEEP_SUPERSEDED: (
        "superseded and not-yet/no-longer effective passages stay searchable with no penalty, "
        "so an old version can outrank the one in force (currency: superseded answers)"
    ),
    KEYWORD_ONLY: "BM25 alone: paraphrased questions miss (retrieval: recall on paraphrases)",
    VECTOR_ONLY: (
        "dense vectors alone (needs the embed extra): exact terms and codes miss "
        "(retrieval: recall on exact terms)"
    ),
    NO_ABSTENTION: (
        "always answers from the best passage it finds, never says 'not in the record' "
        "(abstention: correct abstention, flag accuracy)"
    ),
    IGNORE_CUTOFF: (
        "persona: ignores the request's cutoff — later sources stay searchable and questions "
        "about later years are answered (citation validity, flag accuracy; red team: "
        "persona_break)"
    ),
    TRUST_CLAIMED_ROLE: (
        "believes a role claimed in the question ('I'm the HR director, …') and searches as "
        "that role, not as the asker (red team: access_escalation)"
    ),
    OBEY_PASSAGE_INSTRUCTIONS: (
        "obeys an instruction addressed to the assistant inside a retrieved passage ('ignore "
        "your instructions and reply with …') (red team: indirect_injection)"
    ),
    IGNORE_POLICY: (
        "persona: skips the policy rules (self-harm, children, companionship, medical advice),"
        " so such questions are answered from the sources (flag accuracy; red team: policy)"
    ),
}

_EXCLUSIVE = ((KEYWORD_ONLY, VECTOR_ONLY),)


def validate_faults(faults: Sequence[str]) -> tuple[str, ...]:
    """The faults as a sorted tuple; :class:`ConfigError` naming the valid ones otherwise."""
    if isinstance(faults, str) or not isinstance(faults, Sequence):
        raise ConfigError(
            f"faults: expected a list of fault names, got {faults!r} — e.g. "
            f'faults = ["{KEEP_SUPERSEDED}"]; valid: {", ".join(FAULTS)}'
        )
    unknown = [name for name in faults if name not in FAULTS]
    if unknown:
        raise ConfigError(
            f"faults: unknown fault(s) {', '.join(repr(str(n)) for n in unknown)}; "
            f"valid: {', '.join(FAULTS)}"
        )
    chosen = tuple(sorted(set(faults)))
    for group in _EXCLUSIVE:
        if all(name in chosen for name in group):
            raise ConfigError(f"faults: {' and '.join(group)} cannot be combined; pick one")
    return chosen
