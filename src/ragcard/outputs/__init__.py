"""Stage 7, outputs: ``results.jsonl`` (``results``), the run folder and its atomic writes
(``_runfolder``, ``_writing``), the run history (``history``) and signatures (``signing``).
The scorecard's renderers are :mod:`ragcard.report`."""
