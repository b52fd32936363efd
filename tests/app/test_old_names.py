"""A store written under the earlier name rule: its matches still verify, continue and list,
and its players keep their names; only names given from now on meet the rule of now.

``tests/data/old_names.db`` (tests/data/old_names.md) holds people seated and players
registered under names the rule now refuses: fillers, a variation selector, a grapheme joiner,
small capitals posing as a bot, the erased-player placeholder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.readmodels.models import ReadModels
from app.service import MatchService
from app.service.players import PlayerService
from domain.chain import first_break
from domain.errors import InvalidNameError
from domain.events import MatchCreated
from domain.fairness import secret_from_text_seed
from domain.players import DELETED_NAME
from replays.audit import audit
from tests.migrated import migrated_copy

FIXTURE = Path(__file__).parent.parent / "data" / "old_names.db"
IDS = ["old-names-people", "old-names-fillers", "old-names-player", "old-names-erased"]
SELECTOR = "p-" + "1" * 32  # registered as "\ufe0f"
NOOR = "p-" + "2" * 32  # registered as "Noor", erased since
PEOPLE = ["easy bot\u3164", "easy \u0299\u1d0f\u1d1b", "deleted player", "a\u034fb"]


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[MatchService]:
    """A migrated copy of the store written under the earlier name rule (never the fixture
    itself)."""
    copy = migrated_copy(FIXTURE.name, tmp_path / "old_names.db")
    service = MatchService.open(copy)
    yield service
    service.close()


def verifies(service: MatchService, match_id: str) -> bool:
    """Whether the stored match verifies: every event from the rules, the chain unbroken."""
    stream = service.events(match_id)
    created = stream[0].event
    assert isinstance(created, MatchCreated) and created.secret is not None
    return audit(stream).ok and first_break(stream, bytes.fromhex(created.secret)) is None


def test_every_match_recorded_under_the_earlier_rule_verifies(old_store: MatchService) -> None:
    assert old_store.match_ids() == IDS
    for match_id in IDS:
        assert verifies(old_store, match_id), match_id
    assert old_store.load("old-names-people").names == tuple(PEOPLE)
    assert old_store.load("old-names-fillers").names == ("\u115f", "\u2800")


def test_a_match_of_old_names_plays_on_and_still_verifies(old_store: MatchService) -> None:
    # given the match of two fillers, still in play
    state = old_store.load("old-names-fillers")
    assert state.status == "playing" and state.turn is not None
    # when the seat on turn plays on
    old_store.play_card("old-names-fillers", state.turn, state.hands[state.turn][0])
    # then the stream, old seats and new play, still verifies
    assert verifies(old_store, "old-names-fillers")


def test_the_read_models_list_the_old_names_as_recorded(
    old_store: MatchService, tmp_path: Path
) -> None:
    read = ReadModels(tmp_path / "read.sqlite3", old_store.store)
    read.catch_up()
    rows = {r.match_id: r for r in read.matches()}
    assert rows["old-names-people"].players == PEOPLE
    assert rows["old-names-player"].players == ["\ufe0f", "easy bot"]
    # a registered player's seat shows the player's name now, looked up by id
    assert rows["old-names-erased"].player_ids[0] == NOOR
    assert read.shown_names([SELECTOR, NOOR]) == {SELECTOR: "\ufe0f", NOOR: DELETED_NAME}
    assert all(r.problem is None for r in rows.values())
    read.close()


def test_a_player_registered_under_an_old_name_keeps_it_and_still_sits(
    old_store: MatchService,
) -> None:
    # given the player registered as a lone variation selector before the rule changed
    players = PlayerService(old_store.store)
    player = players.load(SELECTOR)
    assert player is not None and player.name == "\ufe0f"
    old_store.create_match(
        ruleset="classic", seats=2, match_id="m-next", secret=secret_from_text_seed("next")
    )

    # when the player takes a seat, under the name their own stream records
    old_store.take_seat("m-next", 0, player.shown_name, player_id=player.player_id)

    # then the seat is theirs, and the match verifies
    assert old_store.load("m-next").player_ids[0] == SELECTOR
    assert verifies(old_store, "m-next")


def test_a_player_whose_name_is_erased_still_sits(old_store: MatchService) -> None:
    players = PlayerService(old_store.store)
    noor = players.load(NOOR)
    assert noor is not None and noor.shown_name == DELETED_NAME
    old_store.create_match(
        ruleset="classic", seats=2, match_id="m-noor", secret=secret_from_text_seed("noor")
    )

    old_store.take_seat("m-noor", 1, noor.shown_name, player_id=noor.player_id)

    assert old_store.load("m-noor").names[1] == DELETED_NAME
    assert verifies(old_store, "m-noor")


def test_an_old_name_is_not_given_again(old_store: MatchService) -> None:
    # given the old store and a new table in it
    players = PlayerService(old_store.store)
    old_store.create_match(
        ruleset="classic", seats=2, match_id="m-new", secret=secret_from_text_seed("new")
    )
    before = old_store.store.last_seq("m-new")
    player = players.load(SELECTOR)
    assert player is not None
    for name in [*PEOPLE, "\u115f", "\u2800", "\ufe0f"]:
        # when anyone asks for a seat, a registration or a rename under an old name
        with pytest.raises(InvalidNameError):
            old_store.take_seat("m-new", 0, name)
        with pytest.raises(InvalidNameError):
            players.register(name, "cd" * 32)
        with pytest.raises(InvalidNameError):
            players.rename(player, name)
    # then nothing is recorded, and the old player's name stays as it was
    assert old_store.store.last_seq("m-new") == before
    assert players.load(SELECTOR) == player
