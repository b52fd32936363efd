"""Support agents, their access trail and feed tickets, as facts (docs/api.md, "Support agents").

These streams live beside the match streams but are not part of any match: an agent is
added and revoked, each look at hidden data is recorded, and a ticket is issued once and
redeemed at most once. Times are ISO 8601 strings given by the caller (no clock here).
"""

from __future__ import annotations

import re
from typing import Final, TypeAlias

import msgspec

ENV_AGENT: Final = "env"
"""The agent name of the environment's ``BASRA_SUPPORT_TOKEN``; no added agent may take it."""

AGENT_NAME: Final = re.compile(r"[a-z][a-z0-9_-]{0,31}")
"""An agent's name: 1 to 32 of lower-case ASCII letters, digits, ``_`` and ``-``, a letter first."""


class AccessEvent(msgspec.Struct, frozen=True, tag_field="type"):
    """A fact of the support streams; never recorded itself."""


class AgentAdded(AccessEvent, frozen=True, tag="agent_added"):
    """A named support agent was added; only its token's SHA-256 is kept."""

    name: str
    token_hash: str
    at: str


class AgentRevoked(AccessEvent, frozen=True, tag="agent_revoked"):
    """A support agent was revoked: its token stops working at once."""

    name: str
    at: str


class SupportAccessed(AccessEvent, frozen=True, tag="support_accessed"):
    """An agent was shown hidden data of a match (``what``: a short kind, e.g. ``view``)."""

    agent: str
    match_id: str
    what: str
    at: str
    request_id: str


class TicketIssued(AccessEvent, frozen=True, tag="ticket_issued"):
    """One feed of ``match_id`` as a seat (or support: ``agent``), until ``expires``."""

    match_id: str
    seat: int
    caused_by: str
    expires: str
    at: str
    agent: str | None = None
    # Which credential asked for it, by an id and never the token (app.api.edges.credentials): the
    # ticket is only as good as that credential when it is redeemed. None: recorded before.
    credential: str | None = None


class TicketRedeemed(AccessEvent, frozen=True, tag="ticket_redeemed"):
    """The ticket opened its one feed; it is spent."""

    at: str
    request_id: str


AnyAccessEvent: TypeAlias = (
    AgentAdded | AgentRevoked | SupportAccessed | TicketIssued | TicketRedeemed
)
"""Every fact of the support streams."""

ACCESS_EVENT_TYPES: Final = (
    AgentAdded,
    AgentRevoked,
    SupportAccessed,
    TicketIssued,
    TicketRedeemed,
)
"""The classes of ``AnyAccessEvent``."""


def is_agent_name(name: str) -> bool:
    """True for a well-formed agent name other than the reserved ``env``."""
    return name != ENV_AGENT and AGENT_NAME.fullmatch(name) is not None
