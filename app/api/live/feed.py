"""The SSE feed of one viewer: the backlog after ``Last-Event-ID``, then events as appended.

Each message is one replay-file line (``domain.recorded.event_line``) redacted for the
viewer, with ``id:`` = ``seq``. The feed reads from the store whatever it has not sent, so a
client that reconnects with ``Last-Event-ID`` gets everything after it, once, also after a
restart; the broker only says when to look.

The end: a feed opened on a match that had already ended sends what is stored and ends. A feed
that was open when the match ended stays open after ``match_ended`` for the rematch: it ends
right after ``rematch_created`` (sent live, so the client can follow the link), or after
``rematch_wait_seconds`` without one (``BASRA_REMATCH_WAIT_SECONDS``), keep-alives between.

Each message also carries ``after``, the table right after its event (app.api.table.after): the feed
folds the stream from its start once when it opens, then evolves that state by each event it
sends, so a resumed feed gets the same ``after`` for every event it replays (but ``now`` and
``connected``, which are as of the message's first writing on this process). The feeds of one
match share that work (app.api.live.lines): the table after an event is folded once per process
and its message encoded once per viewer class, not once per feed.

Connected now (app.runtime.presence): a feed opened as a seat connects that seat while it is
open; whenever the match's flags change, the feed sends ``event: presence`` with ``data:
{"connected": [...], "now": ...}`` and no ``id`` (not an event of the match: resuming with
``Last-Event-ID`` is unaffected).

A client that stops reading is cut off (app.runtime.broker.Subscription): once 1,000 events or
about 1 MB wait unsent for it, its feed ends and it resumes with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator

from litestar.response import ServerSentEventMessage

from app.api.edges.credentials import RECHECK_SECONDS, revocable, still_holds
from app.api.edges.errors import InvalidValueError
from app.api.live.lines import MessageCache
from app.api.table.after import after_of, presence_line
from app.runtime.broker import EventBroker, Subscription
from app.runtime.runtime import ApiRuntime
from app.service import MatchService
from domain.events import MatchEnded, RematchCreated
from domain.evolve import evolve, fold
from domain.recorded import RecordedEvent
from domain.state import MatchState

RETRY_MS = 2000
"""How long a client waits before reconnecting (the SSE ``retry:`` field)."""

_CACHES: weakref.WeakKeyDictionary[EventBroker, MessageCache] = weakref.WeakKeyDictionary()


def messages_of(broker: EventBroker) -> MessageCache:
    """The shared messages of the feeds over ``broker`` (one per process and store)."""
    found = _CACHES.get(broker)
    if found is None:
        found = _CACHES[broker] = MessageCache()
    return found


def _contiguous(batches: list[list[RecordedEvent]], last: int) -> list[RecordedEvent] | None:
    """The pushed events right after ``last``, or None when the store must be read instead."""
    out: list[RecordedEvent] = []
    expected = last + 1
    for batch in batches:
        if not batch:
            return None  # "look in the store": news from another process
        for recorded in batch:
            if recorded.seq < expected:
                continue
            if recorded.seq != expected:
                return None
            out.append(recorded)
            expected += 1
    return out


def _state_and_stream(
    service: MatchService, match_id: str
) -> tuple[MatchState, list[RecordedEvent]]:
    """The match's state and its whole stream (a store thread's call)."""
    return service.load(match_id), service.events(match_id)


async def open_feed(
    runtime: ApiRuntime, match_id: str, viewer: int, after: int, credential: str | None = None
) -> AsyncIterator[ServerSentEventMessage]:
    """Subscribe and read the backlog now (so an unknown match is a 404, not a broken stream).

    ``credential``: the id of the credential the feed was opened with (app.api.edges.credentials); a
    feed opened with one that can be revoked checks it every ``RECHECK_SECONDS`` and ends once
    it no longer holds (an agent revoked, a player's token replaced), on any process.
    """
    # Subscribe before reading the backlog: an append in between is then pushed, not lost.
    subscription = runtime.broker.subscribe(match_id)
    try:
        # One call on a store thread for both: a table's feeds open as it is set up, three
        # or five at once, and each hop to a thread costs the loop.
        state, stream = await runtime.offload(_state_and_stream, runtime.service, match_id)
        if after > state.events:
            raise InvalidValueError(
                f"Last-Event-ID {after} is past the match's last seq {state.events}"
            )
    except BaseException:
        subscription.close()
        raise
    # The state at ``after``: where each message's ``after`` is evolved from.
    # Feeds opened at the same point share that state (one fold, one copy in memory).
    cache = messages_of(runtime.broker)
    shared = cache.state_after(match_id, after) if after else None
    if shared is not None:
        start = shared[0]
    else:
        start = fold(r.event for r in stream if r.seq <= after)
        if after:
            chain = stream[after - 1].chain if len(stream) >= after else None
            cache.keep_state(match_id, start, after_of(start, runtime.service.clock(), chain))
    backlog = [r for r in stream if r.seq > after]
    # A feed opened after the end does not wait for a rematch: the stored events are all.
    return _feed(runtime, subscription, viewer, start, backlog, state.status == "ended", credential)


async def _feed(
    runtime: ApiRuntime,
    subscription: Subscription,
    viewer: int,
    state: MatchState,
    backlog: list[RecordedEvent],
    opened_ended: bool,
    credential: str | None = None,
) -> AsyncIterator[ServerSentEventMessage]:
    """Every event after ``state``'s last seq that ``viewer`` (a seat, SUPPORT or EVERYONE)
    may see, live, each with the table after it; then, if the match ended while the feed was
    open, its ``rematch_created`` when it comes within the rematch wait."""
    match_id = subscription.match_id
    clock = runtime.service.clock
    cache = messages_of(runtime.broker)
    loop = asyncio.get_running_loop()
    ended = opened_ended
    rematch_until: float | None = None  # when the wait for a rematch gives up (loop time)
    recheck = revocable(credential)
    next_check = loop.time() + RECHECK_SECONDS
    quiet_since: float | None = None  # since when nothing was sent (for the keep-alive)
    presence = runtime.presence  # who is connected now (docs/api.md, "Connected now")
    presence.feed_opened(match_id, viewer)  # a seat's feed connects its seat
    try:
        shown = await presence.seats(match_id)  # the flags the client was last sent
        last = state.events
        pending = backlog
        yield ServerSentEventMessage(data=None, comment="basra events", retry=RETRY_MS)
        while True:
            # R23: hidden fields open only once the match has ended.
            ended = ended or any(isinstance(r.event, MatchEnded) for r in pending)
            for recorded in pending:
                if recorded.seq <= last:
                    continue
                if recorded.seq != last + 1:
                    break  # a gap cannot come from the store; read it again below
                shared = cache.state_after(match_id, recorded.seq)
                if shared is None:
                    state = evolve(state, recorded.event)
                    after = after_of(state, clock(), recorded.chain, presence.known(match_id))
                    cache.keep_state(match_id, state, after)
                else:
                    state, after = shared
                # The flags this message carries (made by the first feed here to send it): a
                # change since then is sent as a presence message when the feed is idle.
                shown = frozenset(seat for seat, on in enumerate(after.connected) if on)
                message = cache.message(match_id, recorded, viewer, ended, after)
                subscription.line_bytes = len(message.raw)
                yield message
                last = recorded.seq
                if isinstance(recorded.event, RematchCreated):
                    return  # the last event a match can have
                if isinstance(recorded.event, MatchEnded) and rematch_until is None:
                    rematch_until = loop.time() + runtime.settings.rematch_wait_seconds
            else:
                if presence.known(match_id) != shown:
                    shown = presence.known(match_id)  # no id: not an event of the match
                    line = presence_line(state, shown, clock())
                    yield ServerSentEventMessage(data=line.decode(), event="presence")
                if runtime.broker.closing:
                    return  # a stopping server ends the feed; the client resumes elsewhere
                if quiet_since is None:
                    quiet_since = loop.time()
                wait = quiet_since + runtime.settings.keepalive_seconds - loop.time()
                if ended:
                    if opened_ended or rematch_until is None:
                        return
                    left = rematch_until - loop.time()
                    if left <= 0:
                        return  # no rematch within the wait: the feed is done
                    wait = min(wait, left)
                if recheck:
                    wait = max(0.0, min(wait, next_check - loop.time()))
                batches = await subscription.next(wait)
                if runtime.broker.closing or subscription.overflowed:
                    return  # stopping, or the client left too much unsent: it resumes
                if recheck and loop.time() >= next_check:
                    if not await runtime.call(still_holds, runtime, credential):
                        return  # revoked or replaced: the feed closes (docs/api.md, "access")
                    next_check = loop.time() + RECHECK_SECONDS
                if batches is None:
                    pending = []
                    if loop.time() - quiet_since < runtime.settings.keepalive_seconds:
                        continue  # woken only to check the credential: nothing to send yet
                    yield ServerSentEventMessage(data=None, comment="keepalive")
                    quiet_since = None
                    continue
                quiet_since = None
                pushed = _contiguous(batches, last)
                if pushed is not None:
                    pending = pushed
                    continue
            pending = await runtime.offload(runtime.service.events, match_id, last)
    finally:
        subscription.close()
        presence.feed_closed(match_id, viewer)
