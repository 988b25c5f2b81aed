"""Stage 2, the agent: ``runner`` calls the configured adapter (:mod:`ragcard.adapters`) for
every item and attempt — concurrency, retries (``_retry``), secrets kept out of what is written
(``_secrets``) — and records each attempt as it finishes."""
