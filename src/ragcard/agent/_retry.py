"""The one retry policy of ragcard: the runner's agent calls and the ``llm`` judge's requests.

* :class:`Backoff`: exponential backoff with *full jitter* — the delay before retry ``n`` is
  drawn uniformly from ``[0, min(max_s, base_s·2^(n-1))]`` by a ``random.Random`` of its own,
  seeded, so a run can be replayed and many workers failing together do not come back in
  lock-step. A server's ``Retry-After`` is a floor, capped (``retry_after_max_s``) so that a
  server asking for an hour cannot stall a run for an hour.
* :func:`parse_retry_after`: the one ``Retry-After`` reader (RFC 9110 §10.2.3): delay-seconds or
  an HTTP date (``GMT``, ``+0000`` or the obsolete ``-0000``, which :mod:`email.utils` returns
  as a naive time: taken as UTC). Anything else, or a non-finite number, is ``None`` (no
  advice), never an exception.

Libraries (tenacity, stamina) draw jitter from the global :mod:`random`, so a run using them
cannot be seeded without touching global state; hence this small module.
"""

from __future__ import annotations

import email.utils
import math
import random
from datetime import UTC, datetime

__all__ = ["Backoff", "parse_retry_after"]


class Backoff:
    """Exponential backoff with full jitter; ``seed`` makes the draws reproducible.

    ``retry_after_max_s`` caps how long a server's ``Retry-After`` is honoured (default:
    ``max_s``).
    """

    def __init__(
        self,
        base_s: float,
        max_s: float,
        seed: int | None = None,
        *,
        retry_after_max_s: float | None = None,
    ) -> None:
        self.base_s = base_s
        self.max_s = max_s
        self.retry_after_max_s = max_s if retry_after_max_s is None else retry_after_max_s
        self._random = random.Random(seed)

    def delay(self, retry: int, retry_after_s: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        ceiling = min(self.max_s, self.base_s * 2.0 ** min(max(retry, 1) - 1, 64))
        wait = self._random.uniform(0.0, ceiling)
        if retry_after_s is not None and math.isfinite(retry_after_s):
            wait = max(wait, min(max(retry_after_s, 0.0), self.retry_after_max_s))
        return wait


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header value, or ``None`` when it says nothing
    usable (absent, empty, garbage, negative or non-finite). ``now`` (aware; default the clock)
    is what an HTTP date is counted from; a date in the past means 0."""
    text = (value or "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, with no claim about the local zone (RFC 5322)
        when = when.replace(tzinfo=UTC)
    moment = now if now is not None else datetime.now(UTC)
    return max(0.0, (when - moment).total_seconds())
