"""``basra verify`` of one stream: its hash chain, then a client's receipts, then the rules.

The chain is checked first (domain.chain): any stored field changed after it was recorded
breaks it at that event's seq, kind ``chain``. Receipts (``{"seq", "chain"}`` as every play
response, view and feed message carries them) are checked next: a receipt the stored stream
does not pass through is reported with kind ``receipt``, naming it. The rules come last
(replays.audit). The result is what ``basra verify --json`` prints and what
``GET /matches/{id}/verification`` returns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

import msgspec

from domain.chain import chain_status, first_break
from domain.events import MatchCreated
from domain.recorded import RecordedEvent
from replays.audit_bots import BotPlays
from replays.audit_trail import TimeInversion
from replays.divergence import Divergence
from replays.errors import InvalidReceiptsError

_HEX64: Final = re.compile(r"[0-9a-f]{64}")


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """The chain head a client was given after an event: its seq and chain link."""

    seq: int
    chain: str


class Verification(msgspec.Struct, frozen=True, kw_only=True):
    """One match verified: clean or its first divergence, and what was checked.

    ``chain`` is ``chained`` (every link recomputed), ``unchained`` (a stream recorded before
    the chain or imported without one) or ``unchecked`` (the secret is not known, so the
    links cannot be recomputed); ``receipts`` is how many receipts were checked; ``bot_plays``
    how many bot plays were re-derived, by kind (``replays.audit_bots.BotPlays``);
    ``inverted_times`` the record times that go backwards inside the intact chain, each a
    known fault of earlier builds and not a divergence (``replays.audit_trail.TimeInversion``).
    """

    match_id: str
    ok: bool
    events: int
    seeded: bool
    chain: str
    receipts: int = 0
    divergence: Divergence | None
    bot_plays: BotPlays = msgspec.field(default_factory=BotPlays)
    inverted_times: tuple[TimeInversion, ...] = ()


def parse_receipts(data: bytes | Sequence[Any], match_id: str) -> list[Receipt]:
    """Receipts from a file of JSON lines (or a decoded list): each ``{"seq", "chain"}``, and
    ``match_id`` when given must be this match's; InvalidReceiptsError names the first bad one."""
    if isinstance(data, bytes | bytearray):
        items: list[Any] = []
        for number, line in enumerate(bytes(data).splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append((number, msgspec.json.decode(line)))
            except msgspec.DecodeError as error:
                raise InvalidReceiptsError(number, f"not valid JSON ({error})") from None
    else:
        items = list(enumerate(data, 1))
    receipts: list[Receipt] = []
    for number, raw in items:
        if not isinstance(raw, dict):
            raise InvalidReceiptsError(number, 'a receipt is an object {"seq", "chain"}')
        named = raw.get("match_id")
        if named is not None and named != match_id:
            raise InvalidReceiptsError(
                number, f"the receipt is for match {named!r}, not {match_id!r}"
            )
        seq, link = raw.get("seq"), raw.get("chain")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise InvalidReceiptsError(number, '"seq" is a whole number from 1')
        if not isinstance(link, str) or not _HEX64.fullmatch(link):
            raise InvalidReceiptsError(number, '"chain" is a SHA-256 in 64 lowercase hex digits')
        receipts.append(Receipt(seq=seq, chain=link))
    if not receipts:
        raise InvalidReceiptsError(1, "there is no receipt to check")
    return receipts


def chain_divergence(events: Sequence[RecordedEvent]) -> tuple[str, Divergence | None]:
    """The stream's chain status and its first broken link, as a divergence of kind ``chain``."""
    status = chain_status(events)
    if status != "chained":
        return status, None
    created = events[0].event
    assert isinstance(created, MatchCreated) and created.secret is not None
    broken = first_break(events, bytes.fromhex(created.secret))
    if broken is None:
        return status, None
    return status, Divergence(seq=broken.seq, kind="chain", explanation=broken.reason)


def receipt_divergence(
    events: Sequence[RecordedEvent], receipts: Sequence[Receipt]
) -> Divergence | None:
    """The first receipt the stored stream does not pass through, as kind ``receipt``."""
    links = {item.seq: item.chain for item in events}
    for receipt in receipts:
        stored = links.get(receipt.seq, "")
        if stored == receipt.chain:
            continue
        given = f"the receipt {{seq {receipt.seq}, chain {receipt.chain[:16]}…}}"
        if receipt.seq not in links:
            why = f"the stored stream has no seq {receipt.seq}: it ends at seq {len(events)}"
        elif stored is None:
            why = f"the stored event at seq {receipt.seq} carries no chain link"
        else:
            why = f"the stored chain at seq {receipt.seq} is {stored[:16]}…"
        return Divergence(
            seq=receipt.seq,
            kind="receipt",
            explanation=f"{given} contradicts the stored stream: {why}",
        )
    return None


def verify_stream(
    match_id: str, events: Sequence[RecordedEvent], receipts: Sequence[Receipt] = ()
) -> Verification:
    """The chain, the receipts, then the rules; the first divergence found is the one given."""
    from replays.audit import audit  # the rules engine, loaded only when verifying

    status, divergence = chain_divergence(events) if events else ("unchained", None)
    if divergence is None and receipts:
        divergence = receipt_divergence(events, receipts)
    intact = status == "chained" and divergence is None
    report = audit(events, chain_intact=intact)
    if divergence is None:
        divergence = report.divergence
    return Verification(
        match_id=match_id,
        ok=divergence is None,
        events=report.events,
        seeded=report.seeded,
        chain=status,
        receipts=len(receipts),
        divergence=divergence,
        bot_plays=report.bot_plays,
        inverted_times=report.inverted_times,
    )
