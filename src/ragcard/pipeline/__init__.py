"""The run pipeline, top-down — one home for what ``ragcard run`` and ``ragcard score`` do:

1. ``project`` reads a project folder (``ragcard.toml``) into what a run needs, and
   ``preflight`` checks every input of every stage — questions, corpus, thresholds, the agent's
   and the judge's settings — listing all problems before anything runs;
2. ``running.run_evaluation`` runs the agent on every item and attempt (:mod:`ragcard.agent`),
   resumably, then scores what it recorded;
3. ``evaluation.score_responses`` scores recorded answers: the judges (:mod:`ragcard.judges`),
   the metric layers (:mod:`ragcard.metrics`), aggregation (:mod:`ragcard.aggregation`), the
   decision (:mod:`ragcard.decision`) and the outputs (:mod:`ragcard.outputs`,
   :mod:`ragcard.report`).

Each stage package imports only the stages before it, but for the exceptions
``tests/test_tree.py`` lists.
"""
