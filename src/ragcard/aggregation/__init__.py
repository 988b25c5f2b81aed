"""Stages 4–5, layers to measures: ``scoring`` runs the metric layers (:mod:`ragcard.metrics`,
after the judges of :mod:`ragcard.judges`) on every attempt — in worker processes for big runs
(``_parallel``) — and aggregates them with intervals (``stats``); ``coverage`` says what failed
attempts left unmeasured; ``diagnosis`` names the cause of every failing item."""
