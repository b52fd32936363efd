"""Presence for support: when each seat's live feed connected and dropped (docs/support.md).

The live route wraps the feed's generator: the connection is recorded when the stream starts
sending, the drop when it ends for any reason (the client left, the network dropped, the match
ended), in a ``finally``; a feed ended by the server stopping records no drop (the store may
be closing under it; the client's next connection, to any process, is recorded). Spectators'
feeds are not recorded (nobody to tell apart); support's
are, as seat ``-1``. Only support reads these records; players see the public "connected now"
flag alone.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import TypeVar

from app.runtime.runtime import ApiRuntime
from domain.desk import FeedConnected, FeedDropped
from domain.errors import BasraError

log = logging.getLogger("basra.api")

M = TypeVar("M")


async def _keep(runtime: ApiRuntime, event: FeedConnected | FeedDropped) -> None:
    try:
        await runtime.call(runtime.desk_records.record_presence, event)
    except BasraError as error:  # presence is evidence, never a reason to break a feed
        log.warning("presence could not be kept: %s", error.message)


async def with_presence(
    runtime: ApiRuntime, match_id: str, seat: int, principal: str, stream: AsyncIterator[M]
) -> AsyncIterator[M]:
    """``stream``, with its connection and its drop recorded for support."""
    await _keep(runtime, FeedConnected(time.time_ns() // 1000, match_id, seat, principal))
    try:
        async for message in stream:
            yield message
    finally:
        if not runtime.broker.closing:
            await _keep(runtime, FeedDropped(time.time_ns() // 1000, match_id, seat, principal))
