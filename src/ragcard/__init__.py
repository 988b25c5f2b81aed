"""ragcard: is this knowledge agent good enough to ship — and if not, what exactly is broken?

The public API, stage by stage (the tree under ``ragcard/`` follows the same pipeline):
inputs (questions, corpus) → adapters → runner → results → metrics → thresholds → report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragcard._version import __version__

if TYPE_CHECKING:
    from ragcard.adapters.base import Adapter, AgentCall, AgentReply, RetrievingAdapter
    from ragcard.decision.thresholds import Threshold, Thresholds, load_thresholds
    from ragcard.errors import (
        AgentError,
        ConfigError,
        ExitCode,
        InputError,
        JudgeError,
        MissingExtraError,
        Problem,
        RagcardError,
    )
    from ragcard.inputs.corpus import Corpus, Passage, load_corpus
    from ragcard.inputs.questions import Question, QuestionSet, load_questions
    from ragcard.inputs.responses import AgentResponse, RecordedResponse, load_responses
    from ragcard.judges.base import Evidence, Judge, JudgeContext, JudgeIdentity, Verdict
    from ragcard.metrics.base import AttemptContext, Layer, MetricSpec, MetricValue, Unscored
    from ragcard.pipeline.evaluation import EvaluationResult, load_inputs, score_responses
    from ragcard.pipeline.running import run_evaluation

# Each public name is imported on first use (PEP 562), so `import ragcard` — and every
# `ragcard` command, `--version` first — loads only what it needs.
_HOME = {
    # the seams a plugin implements: an agent adapter (docs/agents.md), a judge, a layer
    "ragcard.adapters.base": ("Adapter", "AgentCall", "AgentReply", "RetrievingAdapter"),
    "ragcard.judges.base": ("Evidence", "Judge", "JudgeContext", "JudgeIdentity", "Verdict"),
    "ragcard.decision.thresholds": ("Threshold", "Thresholds", "load_thresholds"),
    "ragcard.errors": (
        "AgentError", "ConfigError", "ExitCode", "InputError", "JudgeError", "MissingExtraError",
        "Problem", "RagcardError",
    ),
    "ragcard.inputs.corpus": ("Corpus", "Passage", "load_corpus"),
    "ragcard.inputs.questions": ("Question", "QuestionSet", "load_questions"),
    "ragcard.inputs.responses": ("AgentResponse", "RecordedResponse", "load_responses"),
    "ragcard.metrics.base": ("AttemptContext", "Layer", "MetricSpec", "MetricValue", "Unscored"),
    "ragcard.pipeline.evaluation": ("EvaluationResult", "load_inputs", "score_responses"),
    "ragcard.pipeline.running": ("run_evaluation",),
}
_MODULE_OF = {name: module for module, names in _HOME.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'ragcard' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE_OF))


__all__ = [
    "Adapter",
    "AgentCall",
    "AgentError",
    "AgentReply",
    "AgentResponse",
    "AttemptContext",
    "ConfigError",
    "Corpus",
    "EvaluationResult",
    "Evidence",
    "ExitCode",
    "InputError",
    "Judge",
    "JudgeContext",
    "JudgeError",
    "JudgeIdentity",
    "Layer",
    "MetricSpec",
    "MetricValue",
    "MissingExtraError",
    "Passage",
    "Problem",
    "Question",
    "QuestionSet",
    "RagcardError",
    "RecordedResponse",
    "RetrievingAdapter",
    "Threshold",
    "Thresholds",
    "Unscored",
    "Verdict",
    "load_corpus",
    "load_inputs",
    "load_questions",
    "load_responses",
    "load_thresholds",
    "run_evaluation",
    "score_responses",
    "__version__",
]
