"""Linking codes over the shared store: spent once under races, counted once, expiring.

Each store handle stands for another API process (its own connections); the race runs on every
store kind (PostgreSQL when ``BASRA_TEST_POSTGRES`` is set).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.errors import InvalidLinkCodeError
from app.service.links import LinkService
from app.service.players import PlayerService
from app.store.match_store import MatchStore
from domain.links import CODE_SECONDS, MAX_MISSES, DeviceSeen, seen_stream

ROOT = Path(__file__).resolve().parents[2]


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _service(store: MatchStore, clock: _Clock | None = None) -> LinkService:
    players = PlayerService(store, clock or _Clock())
    return LinkService(store, players, clock or _Clock())


def _race(code: str, one: LinkService, two: LinkService) -> tuple[list[str], list[str]]:
    """Two threads spending ``code`` at the same moment, one through each handle: who won and
    who was refused."""
    won: list[str] = []
    refused: list[str] = []
    barrier = threading.Barrier(2)

    def spend(links: LinkService, name: str) -> None:
        barrier.wait()
        try:
            links.redeem_player(code)
            won.append(name)
        except InvalidLinkCodeError:
            refused.append(name)

    threads = [
        threading.Thread(target=spend, args=(links, name))
        for links, name in ((one, "one"), (two, "two"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return won, refused


def test_a_code_raced_by_two_handles_is_spent_by_exactly_one(
    store: MatchStore, other_store: MatchStore
) -> None:
    one, two = _service(store), _service(other_store)
    player = one.players.register("Noor", "0" * 64)
    for round_ in range(5):
        code = one.issue(player, "d1").code
        won, refused = _race(code, one, two)
        # exactly one handle spent it; the other got the one refusal there is
        assert len(won) == 1 and len(refused) == 1, (round_, won, refused)


def test_wrong_codes_are_counted_once_across_handles(
    store: MatchStore, other_store: MatchStore
) -> None:
    clock = _Clock()
    one, two = _service(store, clock), _service(other_store, clock)
    player = one.players.register("Noor", "0" * 64)
    code = one.issue(player, "d1").code
    for k in range(MAX_MISSES):
        with pytest.raises(InvalidLinkCodeError):
            (one if k % 2 else two).redeem_player("ZZZZZZZZ" if code != "ZZZZZZZZ" else "YYYYYYYY")
    hour = clock.now.strftime("%Y-%m-%dT%H")
    assert one.misses(player.player_id, hour) == two.misses(player.player_id, hour) == MAX_MISSES
    with pytest.raises(InvalidLinkCodeError):
        two.redeem_player(code)
    # when the hour ends, a fresh code works again
    clock.now += timedelta(hours=1)
    assert one.redeem_player(one.issue(player, "d1").code) == player.player_id


def test_an_expired_code_is_refused_and_counted(store: MatchStore) -> None:
    clock = _Clock()
    links = _service(store, clock)
    player = links.players.register("Noor", "0" * 64)
    code = links.issue(player, "d1").code
    clock.now += timedelta(seconds=CODE_SECONDS)
    with pytest.raises(InvalidLinkCodeError):
        links.redeem_player(code)
    assert links.misses(player.player_id, clock.now.strftime("%Y-%m-%dT%H")) == 1


def test_last_used_is_written_at_most_once_an_hour(
    store: MatchStore, other_store: MatchStore
) -> None:
    clock = _Clock()
    one, two = _service(store, clock), _service(other_store, clock)
    for _ in range(3):
        one.seen("p-aa", "d1")
        two.seen("p-aa", "d1")
    clock.now += timedelta(minutes=59)
    one.seen("p-aa", "d1")
    clock.now += timedelta(minutes=2)
    two.seen("p-aa", "d1")
    events = one.streams.read(seen_stream("p-aa", "d1"))
    assert events == [DeviceSeen("2026-12-04T20"), DeviceSeen("2026-12-04T21")]
    assert one.last_used("p-aa", "d1") == "2026-12-04T21"


SCRIPT = r"""
import json, sys, threading
from pathlib import Path
sys.path.insert(0, sys.argv[1])
sys.setswitchinterval(1e-6)
from app.config import StoreConfig
from app.service.links import LinkService
from app.service.players import PlayerService
from app.store.match_store import MatchStore
from domain.links import seen_stream

store = MatchStore.open(StoreConfig(kind="sqlite", sqlite_path=Path(sys.argv[2])))
links = LinkService(store, PlayerService(store))
errors = []

def use(thread):
    try:
        for k in range(200):
            links.seen(f"p-{k % 5:02x}", "d1")
    except Exception as error:
        errors.append(repr(error))

threads = [threading.Thread(target=use, args=(t,)) for t in range(6)]
for t in threads: t.start()
for t in threads: t.join()
counts = {f"p-{k:02x}": len(links.streams.read(seen_stream(f"p-{k:02x}", "d1"))) for k in range(5)}
print(json.dumps({"errors": errors, "counts": counts}))
"""


def test_six_threads_noting_use_write_one_fact_per_device(tmp_path: Path) -> None:
    # given six threads noting the same five devices' use, in a fresh interpreter
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path / "basra.db")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # then nothing failed and each device has one fact for this hour
    assert result["errors"] == []
    assert result["counts"] == {f"p-{k:02x}": 1 for k in range(5)}
