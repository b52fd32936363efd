"""Turning a checked replay file into the stream to store under a new match id."""

from __future__ import annotations

from msgspec.structs import replace

from domain.chain import sealed_hash
from domain.events import MatchCreated
from domain.recorded import RecordedEvent
from replays.replay_reader import ReplayFile

IMPORT_CAUSE = "import"
"""``caused_by`` of an imported event whose file does not say who caused it."""


def imported_stream(replay: ReplayFile, match_id: str) -> list[RecordedEvent]:
    """The events to store for ``replay`` as match ``match_id``.

    Only the id changes: ``match_created`` keeps the id the match was first created under as
    ``origin``, so its commitment can still be checked (docs/fairness.md). ``at``, ``caused_by`` and
    ``request_id`` are kept; an event with no ``caused_by`` is marked as caused by the import.
    ``chain`` and ``sealed`` are kept, so the match keeps the chain of its file.
    """
    first = replay.events[0].event
    assert isinstance(first, MatchCreated)
    origin = first.origin
    if origin is None and first.match_id != match_id:
        origin = first.match_id
    created = replace(first, match_id=match_id, origin=origin)
    stream: list[RecordedEvent] = []
    for item in replay.events:
        event = created if item.seq == 1 else item.event
        cause = item.caused_by if item.caused_by is not None else IMPORT_CAUSE
        # A chained line keeps the hash of its support-only fields as the file had them: the
        # cause the import adds, and a player's name as the file showed it, stay outside.
        sealed = item.sealed or (sealed_hash(item) if item.chain is not None else None)
        stream.append(replace(item, event=event, caused_by=cause, sealed=sealed))
    return stream
