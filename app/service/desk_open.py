"""The support desk's two services over one store (the API's runtime and the command line)."""

from __future__ import annotations

from collections.abc import Callable

from app.service.desk import DeskService
from app.service.desk_records import DeskRecords
from app.service.players import PlayerService
from app.store.desk_store import DeskStore
from app.store.match_store import MatchStore


def open_desk(
    store: MatchStore, players: PlayerService, on_voids: Callable[[], object] | None = None
) -> tuple[DeskRecords, DeskService]:
    """The desk's records and its service; ``on_voids`` brings the results up to date after a
    void or restore."""
    desk = DeskStore(store)
    return DeskRecords(desk), DeskService(desk, players, on_voids=on_voids)
