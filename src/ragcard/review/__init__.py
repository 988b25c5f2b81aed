"""People in the loop (docs/metrics.md#measures): blind review of a run's answers, the grading
queue, the
human baseline.

* :func:`make_packet` draws a blind-review packet from a run (answers stratified by category,
  authored answers mixed in as controls, nothing that identifies the system) and its sealed
  key;
* people rate it in the review app (``ragcard review serve``) or in its CSV;
* :func:`import_review` unblinds the ratings and records the review measures
  (``review_wrong``, ``review_wrong[policy]``, ``review_control_agreement``, ``review_kappa``,
  ``judge_human_agreement``) in the run's scorecard and history, where thresholds gate them;
* :func:`act_on_item` records the action each answer rated wrong must get before the run
  ships; :func:`review_due` says when a review is due again.
"""

from __future__ import annotations

from ragcard.review._run import RunData, load_run
from ragcard.review.apply import (
    ImportOutcome,
    act_on_item,
    ensure_recorded,
    import_review,
    ship_blockers,
)
from ragcard.review.due import review_due
from ragcard.review.measures import ItemReview, ReviewSummary, summarise
from ragcard.review.packet import (
    Packet,
    PacketItem,
    ReviewKey,
    load_key,
    load_packet,
    make_packet,
)
from ragcard.review.ratings import Rating, read_ratings

__all__ = [
    "ImportOutcome",
    "ItemReview",
    "Packet",
    "PacketItem",
    "Rating",
    "ReviewKey",
    "ReviewSummary",
    "RunData",
    "act_on_item",
    "ensure_recorded",
    "import_review",
    "load_key",
    "load_packet",
    "load_run",
    "make_packet",
    "read_ratings",
    "review_due",
    "ship_blockers",
    "summarise",
]
