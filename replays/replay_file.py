"""The replay file, ``basra-replay`` version 1 (docs/replay-format.md): a header, then events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from domain.events import EVENT_ENCODER, MatchCreated, MatchEnded, SeatTaken
from domain.recorded import RecordedEvent, event_line
from domain.redaction import SUPPORT

FORMAT = "basra-replay"
"""The ``format`` field of a replay file's header."""

VERSION = 1
"""The version of the replay file format written here."""


class ReplayHeader(msgspec.Struct, frozen=True, kw_only=True):
    """The first line of a replay file."""

    format: str = FORMAT
    version: int = VERSION
    match_id: str
    ruleset: str
    seats: int
    target: int
    seed: str | None
    client_seeds: tuple[str, ...] = ()
    commitment: str | None = None
    players: tuple[str | None, ...] = ()
    bots: tuple[int, ...] = ()
    origin: str | None = None


def seated_client_seeds(recorded: Iterable[RecordedEvent]) -> tuple[str, ...]:
    """Every seat's client seed: ``match_created``'s, each replaced by the seed its seat gave
    when taken (docs/fairness.md)."""
    seeds: list[str] = []
    for item in recorded:
        event = item.event
        if isinstance(event, MatchCreated):
            seeds = list(event.client_seeds)
        elif (
            isinstance(event, SeatTaken)
            and isinstance(event.client_seed, str)
            and 0 <= event.seat < len(seeds)
        ):
            seeds[event.seat] = event.client_seed
    return tuple(seeds)


def header_for(
    created: MatchCreated,
    players: Sequence[str | None],
    revealed: bool,
    client_seeds: Sequence[str] | None = None,
) -> ReplayHeader:
    """The header of a match's file; ``seed`` only once the match has ended (R23);
    ``client_seeds`` the seats' (``match_created``'s when not given)."""
    return ReplayHeader(
        match_id=created.match_id,
        ruleset=created.ruleset,
        seats=created.seats,
        target=created.target,
        seed=created.secret if revealed else None,
        client_seeds=created.client_seeds if client_seeds is None else tuple(client_seeds),
        commitment=created.commitment,
        players=tuple(players),
        bots=created.bots,
        origin=created.origin,
    )


def write_replay(
    recorded: Iterable[RecordedEvent], players: Sequence[str | None], viewer: int = SUPPORT
) -> bytes:
    """The whole replay file for ``viewer`` (a seat or SUPPORT): everything once the match ended."""
    events = list(recorded)
    if not events or not isinstance(events[0].event, MatchCreated):
        raise ValueError("a match stream starts with match_created")
    revealed = any(isinstance(r.event, MatchEnded) for r in events)
    header = header_for(events[0].event, players, revealed, seated_client_seeds(events))
    lines = [EVENT_ENCODER.encode(header)]
    lines.extend(event_line(r, viewer, revealed) for r in events)
    return b"\n".join(lines) + b"\n"
