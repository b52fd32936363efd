"""Verifying a stored match over HTTP: what ``basra verify`` says, with receipts if given.

Anyone may ask once the match has ended; before the end only support may, because a
divergence's explanation can name cards a seat may not see (R23).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from app.api.edges.errors import MissingTokenError, SupportOnlyError
from app.service import MatchService
from domain.events import MatchEnded
from replays.verification import Receipt, Verification, parse_receipts, verify_stream


class ReceiptBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One receipt as a play response, a view or a feed message gave it (``after``)."""

    seq: Annotated[int, msgspec.Meta(ge=1, description="the seq the receipt was given after")]
    chain: Annotated[
        str,
        msgspec.Meta(pattern="^[0-9a-f]{64}$", description="the chain link after that seq"),
    ]
    match_id: Annotated[
        str | None,
        msgspec.Meta(description="the match it was given in, as a receipt line may keep it"),
    ] = None


class VerificationRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /matches/{id}/verification``: the receipts a client kept, to check on the stream."""

    receipts: Annotated[list[ReceiptBody], msgspec.Meta(min_length=1, max_length=10000)]


def verification(
    service: MatchService,
    match_id: str,
    support: bool | None,
    receipts: list[ReceiptBody] | None = None,
) -> Verification:
    """``basra verify`` of the stored match (``support``: None for an anonymous caller)."""
    events = service.events(match_id)
    ended = any(isinstance(r.event, MatchEnded) for r in events)
    if not ended and support is None:
        raise MissingTokenError(
            "this route needs an 'Authorization: Bearer TOKEN' header until the match has ended"
        )
    if not ended and not support:
        raise SupportOnlyError("only support may verify a match before it has ended")
    checked: list[Receipt] = []
    if receipts:
        # A receipt naming another match is refused (422 invalid_receipts).
        checked = parse_receipts(msgspec.to_builtins(receipts), match_id)
    return verify_stream(match_id, events, checked)
