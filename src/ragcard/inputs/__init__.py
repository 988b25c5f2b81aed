"""Stage 1, inputs: the question set, the corpus, recorded responses and ``ragcard.toml``, each
read with every bad line listed (file, line, field, value, fix), through the bounded readers
they share (``_jsonl``, ``_toml``, ``_files``, ``_limits``); the importers of other tools'
datasets (``interop``)."""
