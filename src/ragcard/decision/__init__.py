"""Stage 6, the decision: ``thresholds`` (fixed before the run) decide ship or hold;
``baseline`` compares a run with the last shipped one (the regression gate); ``governance``
records who shipped what, and overrides."""
