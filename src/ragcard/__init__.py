"""ragcard: is this knowledge agent good enough to ship — and if not, what exactly is broken?

The public API, stage by stage (the tree under ``ragcard/`` follows the same pipeline):
inputs (questions, corpus) → adapters → runner → results → metrics → thresholds → report.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ragcard")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+local"

from ragcard.decision.thresholds import Threshold, Thresholds, load_thresholds  # noqa: E402
from ragcard.errors import (  # noqa: E402
    AgentError,
    ConfigError,
    InputError,
    MissingExtraError,
    Problem,
    RagcardError,
)
from ragcard.inputs.corpus import Corpus, Passage, load_corpus  # noqa: E402
from ragcard.inputs.questions import Question, QuestionSet, load_questions  # noqa: E402
from ragcard.inputs.responses import AgentResponse, RecordedResponse, load_responses  # noqa: E402
from ragcard.metrics.base import MetricSpec, MetricValue, Unscored  # noqa: E402
from ragcard.pipeline.evaluation import EvaluationResult, load_inputs, score_responses  # noqa: E402
from ragcard.pipeline.running import run_evaluation  # noqa: E402

__all__ = [
    "AgentError",
    "AgentResponse",
    "ConfigError",
    "Corpus",
    "EvaluationResult",
    "InputError",
    "MetricSpec",
    "MetricValue",
    "MissingExtraError",
    "Passage",
    "Problem",
    "Question",
    "QuestionSet",
    "RagcardError",
    "RecordedResponse",
    "Threshold",
    "Thresholds",
    "Unscored",
    "__version__",
    "load_corpus",
    "load_inputs",
    "load_questions",
    "load_responses",
    "load_thresholds",
    "run_evaluation",
    "score_responses",
]
