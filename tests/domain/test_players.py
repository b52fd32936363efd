"""Players in the domain: names, a player's stream folded, one seat per match, names by id."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.commands import CreateMatch, TakeSeat
from domain.decide import decide
from domain.errors import InvalidNameError, PlayerNameErasedError, PlayerSeatedError
from domain.evolve import fold
from domain.players import (
    DELETED_NAME,
    PlayerEvent,
    PlayerNameErased,
    PlayerRegistered,
    PlayerRenamed,
    PlayerTokenRotated,
    erase_name,
    fold_player,
    player_name,
    register,
    resolve_names,
)
from domain.state import INITIAL_STATE


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "x" * 33,
        "a\u202eb",
        "tab\there",
        "Random Bot",
        "Amal\u3164",
        "\ufe0f",
        "strong \u0299\u1d0f\u1d1b",
        "deleted player",
    ],
)
def test_a_name_out_of_bounds_is_refused(text: str) -> None:
    with pytest.raises(InvalidNameError):
        player_name(text)


def test_a_name_of_32_characters_is_kept_trimmed() -> None:
    assert player_name(f"  {'n' * 32}  ") == "n" * 32


_CHANGES = st.lists(
    st.one_of(
        st.builds(PlayerRenamed, name=st.sampled_from(["Noor", "Amal", "Sami"])),
        st.builds(
            PlayerTokenRotated, token_hash=st.text("0123456789abcdef", min_size=64, max_size=64)
        ),
        st.just(PlayerNameErased()),
    ),
    max_size=12,
)


@given(_CHANGES)
def test_a_player_is_the_last_name_and_token_of_their_stream(changes: list[PlayerEvent]) -> None:
    events = [register("p-01", "Amal", "0" * 64), *changes]

    player = fold_player(events)

    assert player is not None and player.version == len(events)
    names = [e for e in events if not isinstance(e, PlayerTokenRotated)]
    last = names[-1]
    expected = last.name if isinstance(last, PlayerRegistered | PlayerRenamed) else None
    assert player.name == expected
    assert player.shown_name == (expected or DELETED_NAME)
    tokens = [e.token_hash for e in events if isinstance(e, PlayerRegistered | PlayerTokenRotated)]
    assert player.token_hash == tokens[-1]


def test_an_erased_name_cannot_be_erased_again() -> None:
    player = fold_player([register("p-01", "Amal", "0" * 64), PlayerNameErased()])
    assert player is not None

    with pytest.raises(PlayerNameErasedError):
        erase_name(player)


def test_one_player_cannot_take_two_seats_of_one_match() -> None:
    state = fold(decide(INITIAL_STATE, CreateMatch("m-1", "classic", 4, b"\x01" * 32)))
    state = fold(decide(state, TakeSeat(0, "Amal", player_id="p-01")), state)

    with pytest.raises(PlayerSeatedError):
        decide(state, TakeSeat(2, "Amal", player_id="p-01"))
    assert decide(state, TakeSeat(2, "Noor", player_id="p-02"))


def test_names_are_shown_by_player_id_and_erased_ones_as_deleted() -> None:
    state = fold(decide(INITIAL_STATE, CreateMatch("m-1", "classic", 4, b"\x01" * 32)))
    state = fold(decide(state, TakeSeat(0, "Amal", player_id="p-01")), state)
    state = fold(decide(state, TakeSeat(1, "Sami")), state)

    shown = resolve_names(state, {"p-01": "Noor"})
    erased = resolve_names(state, {})

    assert shown.names[:2] == ("Noor", "Sami")
    assert erased.names[:2] == (DELETED_NAME, "Sami")
