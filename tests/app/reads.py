"""Counting what a service reads from its store: the tests that a path reads nothing first."""

from __future__ import annotations

import pytest

from app.service import MatchService
from domain.recorded import RecordedEvent


def counting_reads(service: MatchService, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The match ids the service's store is read for from now on (until ``monkeypatch`` undoes
    it)."""
    reads: list[str] = []
    read = service.store.read

    def counted(match_id: str, *args: object, **kwargs: object) -> list[RecordedEvent]:
        reads.append(match_id)
        return read(match_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(service.store, "read", counted)
    return reads
