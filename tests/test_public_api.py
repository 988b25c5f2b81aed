"""The public surface is deliberate: adding or removing a name must change this test."""

from __future__ import annotations

import ragcard
import ragcard.adapters
import ragcard.reference

EXPECTED = {
    # the seams a plugin implements, and the exit codes
    "Adapter", "AgentCall", "AgentReply", "AttemptContext", "Evidence", "ExitCode", "Judge",
    "JudgeContext", "JudgeError", "JudgeIdentity", "Layer", "RetrievingAdapter", "Verdict",
    "AgentError", "AgentResponse", "ConfigError", "Corpus", "EvaluationResult", "InputError",
    "MetricSpec", "MetricValue", "MissingExtraError", "Passage", "Problem", "Question",
    "QuestionSet", "RagcardError", "RecordedResponse", "Threshold", "Thresholds", "Unscored",
    "__version__", "load_corpus", "load_inputs", "load_questions", "load_responses",
    "load_thresholds", "run_evaluation", "score_responses",
}


def test_top_level_all_is_pinned() -> None:
    assert set(ragcard.__all__) == EXPECTED
    for name in ragcard.__all__:
        assert hasattr(ragcard, name), name


def test_subpackages_export_what_they_declare() -> None:
    for module in (ragcard.adapters, ragcard.reference):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
