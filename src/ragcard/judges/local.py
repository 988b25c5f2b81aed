"""The ``local`` judge: the ``llm`` judge's prompt, run in-process on a GGUF model.

Needs the ``local`` extra (``pip install 'ragcard[local]'``, i.e. ``llama-cpp-python``) and a
model: ``ragcard judges install-local`` installs Qwen2.5-Coder-1.5B-Instruct (see
:mod:`ragcard.judges.models`).

TOML (``[judge]`` table)::

    [judge]
    backend = "local"
    model = "qwen2.5-coder-1.5b" # an installed model's name, or:
    model_path = "/models/x.gguf"
    threshold = 0.5
    n_ctx = 4096                 # absent: sized for the prompts (the model is reloaded larger
                                 # when a prompt does not fit, up to its training context)
    n_threads = 8                # absent: every core
    seed = 0
    parse_retries = 2
    max_tokens = 1024            # absent: sized from the number of claims
    cache = true                 # the same cache as the llm judge; or a path, or false
    score = "probability"        # or "stated": the score the model writes

Output is grammar-constrained to the verdict schema (``response_format = {"type":
"json_object", "schema": …}``, item *i* pinned to claim *i*), at temperature 0. Generation
runs in a worker thread, one call at a time: a ``llama_cpp.Llama`` is not re-entrant.

Score: by default each verdict's score is the model's own probability of "supported" at the
point where it writes the verdict (:mod:`ragcard.judges.verdict_probability`), not the number
it writes in the ``score`` field, which a small model sets to 1.0 almost always. The label is
still the one the model wrote; the threshold then demotes a "supported" whose probability is
below it. The cache keeps the two kinds of score apart.

Speed: llama-cpp-python checks the grammar against the whole vocabulary at every token, so
free text is slow to write under it; the prompt asks for none. On two cores
Qwen2.5-Coder-1.5B takes 4–6 s a claim (tests/judges/README.md has the figures); asking
unconstrained first was slower, since the model's unconstrained JSON often had the wrong shape
and had to be asked again.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field

from ragcard.errors import ConfigError, MissingExtraError
from ragcard.judges.base import JudgeContext, JudgeError, JudgeIdentity
from ragcard.judges.cache import ChatOptions, estimate_tokens, load_options
from ragcard.judges.models import ALIASES, MODELS, find_model
from ragcard.judges.prompts import (
    LABELS,
    PROMPT_VERSION,
    TASK_PROMPT_VERSIONS,
    ChatJudge,
    Reply,
    reply_schema,
)
from ragcard.judges.verdict_probability import VerdictCapture, VerdictProbe

__all__ = ["LocalJudge", "LocalOptions"]

_MIN_CTX = 2048
_PER_MESSAGE_TOKENS = 8  # chat-template tokens around each message


class LocalOptions(ChatOptions):
    """The ``[judge]`` keys of the ``local`` backend."""

    model: str = "qwen2.5-coder-1.5b"
    model_path: str | None = None
    score: Literal["probability", "stated"] = "probability"
    n_ctx: int | None = Field(default=None, ge=256)
    n_threads: int | None = Field(default=None, ge=1)


def _llama_class() -> Callable[..., Any]:
    try:
        from llama_cpp import Llama  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise MissingExtraError("llama-cpp-python", "local", "The local judge") from None
    return Llama  # type: ignore[no-any-return,unused-ignore]


def _model_file(options: LocalOptions) -> Path:
    if options.model_path:
        path = Path(options.model_path).expanduser()
        if not path.is_file():
            raise ConfigError(f"judge 'local': model_path {str(path)!r} is not a file")
        return path
    if options.model not in MODELS and options.model not in ALIASES:
        raise ConfigError(
            f"judge 'local': unknown model {options.model!r}; choose one of "
            f"{', '.join(MODELS)}, or set model_path to a GGUF file"
        )
    found = find_model(options.model)
    if found is None:
        raise ConfigError(
            f"judge 'local': model {options.model!r} is not installed; install it with "
            f"'ragcard judges install-local --model {options.model}', or set model_path"
        )
    return found


class LocalJudge(ChatJudge):
    """Judges claims with a GGUF chat model loaded in this process by llama-cpp-python."""

    backend = "local"

    def __init__(self, *, llama_factory: Callable[..., Any] | None = None, **options: Any) -> None:
        """``options``: the ``[judge]`` keys; ``llama_factory``: replaces ``llama_cpp.Llama``
        (tests)."""
        self.options = load_options(LocalOptions, options, self.backend)
        self._factory = llama_factory or _llama_class()
        self.model_path = _model_file(self.options)
        super().__init__(self.options, self.model_path.stem.lower())
        self.n_threads = self.options.n_threads or os.cpu_count() or 1
        self._llama: Any = None
        self._probe: VerdictProbe | None = None
        self._lock = threading.Lock()
        if self.options.score == "probability":
            self.score_source = "+verdict-probability"
        settings = {
            "model_file": self.model_path.name,
            "mode": "json_object_schema (grammar)",
            "score": _SCORE_SOURCES[self.options.score],
            "temperature": 0,
            "seed": self.options.seed,
            "cache": self.cache is not None,
        }
        self.identity = JudgeIdentity(
            "local",
            self.model,
            PROMPT_VERSION,
            self.options.threshold,
            None,
            settings,
            dict(TASK_PROMPT_VERSIONS),
        )

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> Self:
        """Build from the ``[judge]`` table; raises MissingExtraError without llama-cpp-python."""
        return cls(**dict(options))

    @property
    def n_ctx(self) -> int:
        """The context size of the loaded model (0 before the first call)."""
        return int(self._llama.n_ctx()) if self._llama is not None else 0

    def close(self) -> None:
        """Free the model and close the cache."""
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None
        super().close()

    async def _complete(
        self, messages: list[dict[str, str]], ctx: JudgeContext, max_tokens: int
    ) -> Reply:
        schema = reply_schema(ctx, positional=True)
        probe = self.options.score == "probability" and ctx.task == "support"
        return await asyncio.to_thread(self._generate, messages, schema, max_tokens, probe)

    def _load(self, n_ctx: int) -> Any:
        if self._llama is not None:
            self._llama.close()
            self._llama = None
        self._llama = self._factory(
            model_path=str(self.model_path),
            n_ctx=n_ctx,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads,
            seed=self.options.seed if self.options.seed is not None else 0,
            verbose=False,
        )
        return self._llama

    def _context_for(self, messages: list[dict[str, str]], max_tokens: int) -> Any:
        """The model, loaded with a context large enough for ``messages`` + ``max_tokens``."""
        llama = self._llama or self._load(self.options.n_ctx or _MIN_CTX)
        text = "\n".join(m["content"] for m in messages).encode("utf-8")
        needed = len(llama.tokenize(text, add_bos=True, special=False))
        needed += _PER_MESSAGE_TOKENS * len(messages) + max_tokens
        if needed <= llama.n_ctx():
            return llama
        limit = _trained_context(llama)
        if self.options.n_ctx is not None or needed > limit:
            allowed = self.options.n_ctx or limit
            raise JudgeError(
                f"local judge ({self.model}): the prompt needs about {needed} tokens of "
                f"context, more than the {allowed} available; judge fewer claims or "
                "passages at once" + (", or raise n_ctx" if self.options.n_ctx else "")
            )
        return self._load(min(limit, -(-needed // 1024) * 1024))

    def _capture(self, llama: Any) -> VerdictCapture:
        """A verdict-probability processor for the next generation (the vocabulary is read
        once per model file: reloading with a larger context keeps it)."""
        if self._probe is None:
            self._probe = VerdictProbe(llama, LABELS)
        return self._probe.capture()

    def _generate(
        self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int, probe: bool
    ) -> Reply:
        capture = None
        with self._lock:
            try:
                llama = self._context_for(messages, max_tokens)
                extra: dict[str, Any] = {}
                if probe:
                    capture = self._capture(llama)
                    extra["logits_processor"] = [capture]
                self.ledger.calls += 1
                result = llama.create_chat_completion(
                    messages=messages,
                    response_format={"type": "json_object", "schema": schema},
                    temperature=0.0,
                    seed=self.options.seed,
                    max_tokens=max_tokens,
                    **extra,
                )
            except JudgeError:
                raise
            except Exception as error:  # llama.cpp reports failures as assorted exceptions
                raise JudgeError(
                    f"local judge ({self.model}): {type(error).__name__}: {error}"
                ) from error
        choice = result["choices"][0]
        text = choice["message"].get("content") or ""
        usage = result.get("usage") or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        estimated = not (isinstance(prompt, int) and isinstance(completion, int))
        if estimated:
            prompt = sum(estimate_tokens(m["content"]) + 4 for m in messages)
            completion = estimate_tokens(str(text))
        self.ledger.add_usage(int(prompt or 0), int(completion or 0), estimated)
        found = capture.distributions() if capture is not None else ()
        truncated = choice.get("finish_reason") == "length"
        return Reply(str(text), truncated, found, probed=capture is not None)


_SCORE_SOURCES = {
    "probability": "P(supported): the model's next-token probability of the verdict",
    "stated": "the score the model writes in its reply",
}


def _trained_context(llama: Any) -> int:
    """The model's training context (how far ``n_ctx`` may grow)."""
    try:
        return int(llama._model.n_ctx_train())
    except (AttributeError, TypeError, ValueError):
        return 32768
