"""The rated pool's sweep in one server process: pairs waiting players whose windows came to
overlap, though neither page asks at that moment (docs/api.md, "Rated pool").

An asyncio task started and stopped with the app's lifespan, like the turn clock. Every
``SWEEP_SECONDS`` it runs ``PoolService.sweep_all`` on a store thread. The sweep decides on the
pools as stored and records each pairing with the same one append at the pool's next seq as a
player's request, so with several processes sweeping each pairing happens once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from app.service.pool import SWEEP_SECONDS, PoolService

log = logging.getLogger("basra.pool")

Offload = Callable[..., Awaitable[Any]]
"""Runs a store call on the runtime's store threads (``ApiRuntime.offload``)."""


class PoolSweep:
    """Sweeps the pools every ``every`` seconds while started."""

    def __init__(self, pool: PoolService, offload: Offload, every: float = SWEEP_SECONDS) -> None:
        self.pool = pool
        self.offload = offload
        self.every = every
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start sweeping (once)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pool-sweep")

    async def stop(self) -> None:
        """Stop sweeping; a sweep under way is let finish on its thread."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.offload(self.pool.sweep_all)
            except asyncio.CancelledError:
                raise
            except Exception:  # a store that is down now is tried again at the next sweep
                log.warning("the pool sweep failed; trying again", exc_info=True)
