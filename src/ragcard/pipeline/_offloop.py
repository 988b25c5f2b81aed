"""A second event loop on a thread of its own, for the work that must not hold the loop that
times the agent's calls: judging and scoring each answer as it comes in.

The runner's loop measures every call's latency from the moment it starts the call to the
moment it sees the reply; anything else running on that loop (the ensemble judge's model,
the deterministic layers, writing ``results.jsonl``) would be counted as the agent's latency
and delay the calls behind it. So ``ragcard run`` hands each finished attempt to this loop
(:meth:`OffLoop.submit`) and the runner's loop only calls the agent (docs/metrics.md#latency).
Everything that uses the judge happens here, its connections closed here at the end.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["OffLoop", "Stopped", "unwrap"]

T = TypeVar("T")


class Stopped(Exception):
    """A ``KeyboardInterrupt`` or ``SystemExit`` raised by work on the off-loop thread; the
    caller re-raises :attr:`original` (an event loop that let it escape would stop serving and
    leave every other submitted job waiting for ever)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


async def _guarded(job: Awaitable[T]) -> T:
    try:
        return await job
    except (KeyboardInterrupt, SystemExit) as stop:
        raise Stopped(stop) from stop


class OffLoop:
    """An event loop served by a daemon thread; :meth:`submit` runs a coroutine there and
    returns a future the calling loop can await; :meth:`close` cancels what is left, runs a
    last coroutine there (closing clients bound to that loop), and stops the thread."""

    def __init__(self, name: str = "ragcard-scoring") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def submit(self, job: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """Run ``job`` on the off-loop thread; a future of the calling (running) loop."""
        done = asyncio.run_coroutine_threadsafe(_guarded(job), self._loop)
        return asyncio.wrap_future(done)

    def close(self, last: Callable[[], Awaitable[Any]] | None = None) -> None:
        """Cancel every job still running, await ``last()`` on the loop, stop and join."""
        if not self._thread.is_alive():
            self._loop.close()
            return

        async def wind_down() -> None:
            this = asyncio.current_task()
            jobs = [task for task in asyncio.all_tasks() if task is not this]
            for task in jobs:
                task.cancel()
            await asyncio.gather(*jobs, return_exceptions=True)
            if last is not None:
                await last()

        try:
            asyncio.run_coroutine_threadsafe(wind_down(), self._loop).result()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


def unwrap(error: BaseException) -> BaseException:
    """The interrupt a :class:`Stopped` carries, or ``error`` itself."""
    return error.original if isinstance(error, Stopped) else error
