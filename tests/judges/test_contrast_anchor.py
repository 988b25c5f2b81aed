"""The contrast checks read against the best-aligned evidence sentence when the change is too
wide for a tight alignment (:mod:`ragcard.judges.contrast_anchor`). Tiny hand-written
examples, none taken from the contrast benchmark."""

from __future__ import annotations

from ragcard.judges.contrast import find_contrast
from ragcard.judges.contrast_anchor import name_by_anchor, name_in_slot, relation_by_anchor
from ragcard.judges.contrast_text import _named, _split, _tokens

MUSEUM = (
    "In 2004 Tomas Brenner made the decision to open the museum on Sundays to attract more "
    "families. His deputy, Mira Castell, later ran the gift shop."
)
LABS = "Kettil Labs, Limited, is a network of small Norwegian research centres."
DEPOT = "Everyone who works at the depot earns more than the regional minimum wage."
DESK = "At the front desk, porters accept parcels with a signed form from the sender."


def _read(claim: str, evidence: str) -> tuple[list, list]:
    sentences = [_tokens(s) for s in _split(evidence)]
    ours = _tokens(claim)
    proper = {t.norm for tokens in (ours, *sentences) for t in tokens if t.name}
    return _named(ours, proper), [_named(s, proper) for s in sentences]


def test_a_name_said_in_another_names_place_in_a_reworded_sentence() -> None:
    claim = "Mira Castell came up with the plan of opening the museum on Sundays for families."
    found = name_in_slot(*_read(claim, MUSEUM))
    assert found is not None and found.kind == "name"
    assert found.reason == "says 'Mira Castell' where the passage says 'Tomas Brenner'"
    assert find_contrast(claim, MUSEUM) == found


def test_the_right_name_in_the_reworded_sentence_is_no_contrast() -> None:
    claim = "Tomas Brenner came up with the plan of opening the museum on Sundays for families."
    assert find_contrast(claim, MUSEUM) is None


def test_a_name_between_the_words_another_name_has() -> None:
    found = name_by_anchor(*_read("The lab is a Swedish research centre.", LABS))
    assert found is not None and found.kind == "name"
    assert (found.claim_word, found.evidence_word) == ("Swedish", "Norwegian")
    # the passage's other name, stated elsewhere in the sentence, put in that slot
    found = find_contrast("The lab is a Limited research centre.", LABS)
    assert found is not None and found.kind == "name"


def test_a_relation_word_flipped_beside_a_shared_word() -> None:
    claim = "Staff who work there earn less than the regional minimum wage."
    found = find_contrast(claim, DEPOT)
    assert found is not None and found.kind == "relation"
    ours, sentences = _read(
        "The shortest serving member is Ana Ruiz, on the council since 1981.",
        "The longest - serving council member is Ana Ruiz, since 1981.",
    )
    found = relation_by_anchor(ours, sentences)
    assert found is not None and found.kind == "relation"
    assert "'shortest' where the passage says 'longest'" in found.reason


def test_obligation_for_permission_is_a_flip() -> None:
    found = find_contrast(
        "Visitors must be accompanied by a member of staff in the archive reading room.",
        "In the archive reading room, visitors may be accompanied by staff if they wish.",
    )
    assert found is not None and found.kind == "relation"


def test_a_negation_added_to_a_reworded_sentence() -> None:
    found = find_contrast("Parcels are accepted without a signed form at the front desk.", DESK)
    assert found is not None and found.kind == "negation"
    found = find_contrast(
        "Yes, the grant can be spent in any school year with written approval from the bursar.",
        "Teachers may spend the grant on books and software in any school year, without written "
        "approval from the bursar.",
    )
    assert found is not None and found.kind == "negation"
    assert "drops the negation" in found.reason


def test_faithful_paraphrases_stay_uncontrasted() -> None:
    assert (
        find_contrast(
            "Porters at the front desk take parcels that come with a signed form from the sender.",
            DESK,
        )
        is None
    )
    assert (
        find_contrast(
            "Ana Ruiz, who has held her seat since 1981, is the council's longest-serving member.",
            "The longest - serving council member is Ana Ruiz, who has held her seat since 1981, "
            "ahead of Peter Olsen.",
        )
        is None
    )
    assert (
        find_contrast(
            "The grant may be spent on books and software in any school year without the bursar's "
            "written approval.",
            "Teachers may spend the grant on books and software in any school year, without "
            "written approval from the bursar.",
        )
        is None
    )
    # two names of a list in another order swap no name
    assert (
        find_contrast(
            "Peter Olsen and Ana Ruiz were both elected in 1981.",
            "Ana Ruiz and Peter Olsen were both elected in 1981.",
        )
        is None
    )
