"""Support agents, the support access trail and feed tickets, over the support streams.

Streams: ``support-agents`` (every agent added or revoked), ``support-access:NAME`` (what
agent NAME was shown, one record per request) and ``ticket:HASH`` (one ticket: issued, then
redeemed at most once). Every check reads the store, so a revoked agent or a spent ticket is
refused at once by every process sharing it.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final, TypeVar

import msgspec

from app.errors import (
    AgentExistsError,
    ConflictError,
    InvalidAgentNameError,
    TicketExpiredError,
    TicketUsedError,
    TicketWrongMatchError,
    UnknownAgentError,
    UnknownTicketError,
)
from app.store.access_store import AccessStore
from app.store.match_store import MatchStore
from domain.access import (
    ENV_AGENT,
    AgentAdded,
    AgentRevoked,
    AnyAccessEvent,
    SupportAccessed,
    TicketIssued,
    TicketRedeemed,
    is_agent_name,
)
from domain.times import utc_micros, utc_text_ms

AGENTS_STREAM: Final = "support-agents"
"""The stream of every agent added or revoked."""

TICKET_SECONDS: Final = 60
"""How long a ticket may wait before it opens its feed."""

APPEND_TRIES: Final = 20
"""How often a record is retried when another process appended to the same stream first."""

T = TypeVar("T")

Clock = Callable[[], datetime]
"""Now, as an aware datetime (tests pass their own)."""


def utc_now() -> datetime:
    """The wall clock in UTC."""
    return datetime.now(UTC)


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(when: datetime) -> int:
    """Microseconds since the Unix epoch of an aware ``datetime``."""
    return (when - _EPOCH) // timedelta(microseconds=1)


def _iso(when: datetime) -> str:
    return utc_text_ms(_micros(when))


class Agent(msgspec.Struct, frozen=True):
    """A named support agent: when added and, if so, when revoked."""

    name: str
    added: str
    revoked: str | None = None
    token_hash: str = ""

    @property
    def active(self) -> bool:
        """True until revoked."""
        return self.revoked is None


class AccessRecord(msgspec.Struct, frozen=True):
    """One support request that was shown hidden data."""

    at: str
    agent: str
    match_id: str
    what: str
    request_id: str


class TicketGrant(msgspec.Struct, frozen=True):
    """Who a redeemed ticket speaks for: a seat of the match, or support (``agent`` set)."""

    match_id: str
    seat: int
    caused_by: str
    agent: str | None
    credential: str | None = None
    """The id of the credential that asked for the ticket (checked again when redeemed)."""


def ticket_stream(token_hash: str) -> str:
    """The stream of the ticket whose SHA-256 is ``token_hash``."""
    return f"ticket:{token_hash}"


class AccessService:
    """Agents, the access trail and tickets of one store."""

    def __init__(self, store: MatchStore, clock: Clock = utc_now) -> None:
        self.streams = AccessStore(store)
        self.clock = clock

    # -- agents ------------------------------------------------------------------------------

    def agents(self) -> list[Agent]:
        """Every agent ever added, in the order they were added."""
        return _fold(self.streams.read(AGENTS_STREAM))

    def add_agent(self, name: str, token_hash: str) -> Agent:
        """Record a new agent with its token's hash."""
        if not is_agent_name(name):
            raise InvalidAgentNameError(
                f"an agent name is 1 to 32 of a-z, 0-9, '_' and '-', a letter first, and not"
                f" {ENV_AGENT!r}: {name[:40]!r}"
            )
        return self._retry(lambda: self._add(name, token_hash))

    def _add(self, name: str, token_hash: str) -> Agent:
        events = self.streams.read(AGENTS_STREAM)
        if any(isinstance(e, AgentAdded) and e.name == name for e in events):
            raise AgentExistsError(f"agent {name!r} already exists (names are never reused)")
        at = _iso(self.clock())
        self.streams.append(AGENTS_STREAM, len(events), [AgentAdded(name, token_hash, at)])
        return Agent(name, at, None, token_hash)

    def revoke_agent(self, name: str) -> Agent:
        """Revoke an active agent: its token fails from now on, in every process."""
        return self._retry(lambda: self._revoke(name))

    def _revoke(self, name: str) -> Agent:
        events = self.streams.read(AGENTS_STREAM)
        agent = next((a for a in _fold(events) if a.name == name), None)
        if agent is None or not agent.active:
            raise UnknownAgentError(f"no active agent {name[:40]!r}")
        at = _iso(self.clock())
        self.streams.append(AGENTS_STREAM, len(events), [AgentRevoked(name, at)])
        return msgspec.structs.replace(agent, revoked=at)

    def agent_named(self, name: str) -> Agent | None:
        """The agent ``name`` (active or revoked), read from the store; None if never added."""
        return next((a for a in self.agents() if a.name == name), None)

    def agent_of(self, token_hash: str) -> Agent | None:
        """The agent whose token has this hash (active or revoked), read from the store."""
        for agent in self.agents():
            if hmac.compare_digest(agent.token_hash, token_hash):
                return agent
        return None

    # -- the access trail --------------------------------------------------------------------

    def record_access(self, agent: str, match_id: str, what: str, request_id: str) -> None:
        """Append a record of what ``agent`` is about to be shown (before it is shown)."""
        stream = f"support-access:{agent}"

        def append() -> None:
            after = self.streams.last_seq(stream)
            at = _iso(self.clock())
            self.streams.append(
                stream, after, [SupportAccessed(agent, match_id, what, at, request_id)]
            )

        self._retry(append)

    def access_log(
        self, agent: str | None = None, match_id: str | None = None
    ) -> list[AccessRecord]:
        """The records of ``agent`` (else of every agent, ``env`` included) on ``match_id`` (else
        every match), newest first."""
        names = [agent] if agent is not None else [ENV_AGENT, *(a.name for a in self.agents())]
        records = [
            AccessRecord(e.at, e.agent, e.match_id, e.what, e.request_id)
            for name in names
            for e in self.streams.read(f"support-access:{name}")
            if isinstance(e, SupportAccessed) and (match_id is None or e.match_id == match_id)
        ]
        records.sort(key=lambda r: (r.at, r.request_id), reverse=True)
        return records

    # -- tickets -----------------------------------------------------------------------------

    def issue_ticket(
        self,
        token_hash: str,
        match_id: str,
        seat: int,
        caused_by: str,
        agent: str | None,
        credential: str | None = None,
    ) -> str:
        """Record a new ticket (by its hash) for one feed of ``match_id``, asked for by the
        credential ``credential`` (an id, never the token); returns its expiry."""
        now = self.clock()
        expires = _iso(now + timedelta(seconds=TICKET_SECONDS))
        issued = TicketIssued(match_id, seat, caused_by, expires, _iso(now), agent, credential)
        self.streams.append(ticket_stream(token_hash), 0, [issued])
        return expires

    def redeem_ticket(self, token_hash: str, match_id: str, request_id: str) -> TicketGrant:
        """Spend the ticket on one feed of ``match_id``: at most once, in any process."""
        stream = ticket_stream(token_hash)
        events = self.streams.read(stream)
        if not events or not isinstance(events[0], TicketIssued):
            raise UnknownTicketError("the ticket is not valid")
        issued = events[0]
        if issued.match_id != match_id:
            raise TicketWrongMatchError("the ticket is for another match's feed")
        if len(events) > 1:
            raise TicketUsedError("the ticket was already used (one feed per ticket)")
        now = self.clock()
        if _micros(now) >= utc_micros(issued.expires):
            raise TicketExpiredError(f"the ticket expired (good for {TICKET_SECONDS} s)")
        try:
            # The redemption is appended at seq 2: of two processes, only one can store it.
            self.streams.append(stream, 1, [TicketRedeemed(_iso(now), request_id)])
        except ConflictError:
            raise TicketUsedError("the ticket was already used (one feed per ticket)") from None
        return TicketGrant(
            issued.match_id, issued.seat, issued.caused_by, issued.agent, issued.credential
        )

    @staticmethod
    def _retry(attempt: Callable[[], T]) -> T:
        """Run ``attempt`` again while another process appends to the same stream first."""
        for _ in range(APPEND_TRIES - 1):
            try:
                return attempt()
            except ConflictError:
                continue
        return attempt()


def _fold(events: Sequence[AnyAccessEvent]) -> list[Agent]:
    """The agents the facts of the agents stream describe, in the order they were added."""
    found: dict[str, Agent] = {}
    for event in events:
        if isinstance(event, AgentAdded):
            found[event.name] = Agent(event.name, event.at, None, event.token_hash)
        elif isinstance(event, AgentRevoked) and event.name in found:
            found[event.name] = msgspec.structs.replace(found[event.name], revoked=event.at)
    return list(found.values())
