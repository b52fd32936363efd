"""A rematch's kept seats are a recorded fact the rules enforce; the server's own turn time (R25).

A rematch offers the players of the ended match their seats again: its ``match_created``
names, seat by seat, the registered player each seat is kept for (``reserved``), and ``decide``
refuses that seat to anyone else (``seat_reserved``), so a replay, ``verify`` and an import
check it like any other rule. The turn time a table names for itself is 5-600 seconds; the one
a server gives tables that name none may be as short as 1 second.
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.commands import CreateMatch, TakeSeat
from domain.decide import decide
from domain.errors import InvalidReservationError, InvalidTurnSecondsError, SeatReservedError
from domain.events import MatchCreated, SeatTaken
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.state import INITIAL_STATE, MatchState
from domain.times import utc_text
from replays.audit import audit

T0 = 1_800_000_000_000
"""A fixed server time (Unix epoch ms)."""

PLAYERS = ("p-amal", "p-badr", "p-chadi", "p-dina")


def _run(state: MatchState, command: object) -> MatchState:
    for event in decide(state, command):  # type: ignore[arg-type]
        state = evolve(state, event)
    return state


def _rematch(
    seats: int = 2, kept: tuple[str | None, ...] | None = None, bots: tuple[int, ...] = ()
) -> CreateMatch:
    kept = kept if kept is not None else PLAYERS[:seats]
    return CreateMatch(
        match_id="m-again",
        ruleset="classic",
        seats=seats,
        secret=secret_from_text_seed("rematch-seats"),
        bots=bots,
        turn_seconds=30,
        rematch_of="m-first",
        reserved=kept,
    )


def test_a_rematch_records_the_kept_seats_on_match_created() -> None:
    # given a rematch of a 4-seat match where seats 0 and 2 were registered players'
    command = _rematch(4, ("p-amal", None, "p-chadi", None))
    # when it is created
    created = decide(INITIAL_STATE, command)[0]
    # then match_created names them by seat, and the state keeps them for the whole match
    assert isinstance(created, MatchCreated)
    assert created.reserved == ("p-amal", None, "p-chadi", None)
    state = evolve(INITIAL_STATE, created)
    assert state.setup is not None and state.setup.reserved == created.reserved


def test_nothing_kept_leaves_the_field_out_of_the_line() -> None:
    created = decide(INITIAL_STATE, _rematch(2, (None, None)))[0]
    assert isinstance(created, MatchCreated)
    assert created.reserved is msgspec.UNSET
    assert b"reserved" not in msgspec.json.encode(created)


def test_a_stranger_is_refused_a_kept_seat_and_its_player_takes_it() -> None:
    # given a 2-seat rematch keeping seat 0 for p-amal and seat 1 for p-badr
    state = _run(INITIAL_STATE, _rematch(2))
    # when someone else asks for seat 0: a stranger by name, or another registered player
    for stranger in (None, "p-zaid", "p-badr"):
        with pytest.raises(SeatReservedError):
            decide(state, TakeSeat(0, "Zaid", player_id=stranger, now_us=T0 * 1000))
    # then the player it is kept for takes it
    taken = decide(state, TakeSeat(0, "Amal", player_id="p-amal", now_us=T0 * 1000))[0]
    assert isinstance(taken, SeatTaken) and taken.player_id == "p-amal"


def test_a_seat_not_kept_is_open_to_anyone() -> None:
    state = _run(INITIAL_STATE, _rematch(2, ("p-amal", None)))
    taken = decide(state, TakeSeat(1, "Zaid", now_us=T0 * 1000))[0]
    assert isinstance(taken, SeatTaken) and taken.seat == 1


@pytest.mark.parametrize(
    ("kept", "bots", "rematch_of"),
    [
        (("p-amal",), (), "m-first"),  # one entry for two seats
        (("p-amal", "p-amal"), (), "m-first"),  # one player twice
        (("p-amal", "p-badr"), (1,), "m-first"),  # a bot's seat kept
        (("p-amal", None), (), None),  # not a rematch
    ],
)
def test_malformed_kept_seats_are_refused(
    kept: tuple[str | None, ...], bots: tuple[int, ...], rematch_of: str | None
) -> None:
    command = msgspec.structs.replace(_rematch(2, kept, bots), rematch_of=rematch_of)
    with pytest.raises(InvalidReservationError):
        decide(INITIAL_STATE, command)


def _recorded(state: MatchState, commands: list[object]) -> list[RecordedEvent]:
    out: list[RecordedEvent] = []
    for command in commands:
        cause = "server"
        if isinstance(command, TakeSeat):
            cause = f"seat:{command.seat}/token:{command.token_id}"
        for event in decide(state, command):  # type: ignore[arg-type]
            state = evolve(state, event)
            out.append(
                RecordedEvent(seq=len(out) + 1, at=utc_text(T0), event=event, caused_by=cause)
            )
    return out


def test_verify_refuses_a_stranger_recorded_in_a_kept_seat() -> None:
    # given a rematch whose kept seats were taken by their players: it verifies
    stream = _recorded(
        INITIAL_STATE,
        [
            _rematch(2),
            TakeSeat(0, "Amal", token_id="t0", player_id="p-amal", now_us=T0 * 1000),
            TakeSeat(1, "Badr", token_id="t1", player_id="p-badr", now_us=T0 * 1000),
        ],
    )
    assert audit(stream).ok, audit(stream).divergence
    # when the line of seat 1 is rewritten to a stranger's
    taken = stream[2].event
    assert isinstance(taken, SeatTaken)
    forged = [
        *stream[:2],
        msgspec.structs.replace(
            stream[2], event=msgspec.structs.replace(taken, player_id="p-zaid")
        ),
        *stream[3:],
    ]
    # then verify stops there, naming the kept seat
    report = audit(forged)
    assert report.divergence is not None
    assert report.divergence.seq == 3
    assert "kept for the player" in report.divergence.explanation


@settings(max_examples=60, deadline=None)
@given(
    kept=st.lists(st.sampled_from((None, *PLAYERS)), min_size=4, max_size=4, unique=False),
    seat=st.integers(0, 3),
    asker=st.sampled_from((None, *PLAYERS, "p-zaid")),
)
def test_a_kept_seat_goes_to_its_player_alone(
    kept: list[str | None], seat: int, asker: str | None
) -> None:
    # invariant: whoever asks for a seat of a rematch gets it exactly when it is kept for them
    # or kept for nobody
    named = [pid for pid in kept if pid is not None]
    command = _rematch(4, tuple(kept))
    if len(set(named)) != len(named):
        with pytest.raises(InvalidReservationError):
            decide(INITIAL_STATE, command)
        return
    state = _run(INITIAL_STATE, command)
    ask = TakeSeat(seat, "Someone", player_id=asker, now_us=T0 * 1000)
    if kept[seat] is None or kept[seat] == asker:
        assert isinstance(decide(state, ask)[0], SeatTaken)
    else:
        with pytest.raises(SeatReservedError):
            decide(state, ask)


# -- R25: the table's own turn time and the server's --------------------------------------------


def _created(**fields: object) -> MatchState:
    command = CreateMatch("m", "classic", 2, secret_from_text_seed("t"), **fields)  # type: ignore[arg-type]
    return _run(INITIAL_STATE, command)


@pytest.mark.parametrize("seconds", [1, 2, 600])
def test_r25_a_server_turn_time_from_1_to_600_is_recorded(seconds: int) -> None:
    state = _created(server_turn_seconds=seconds)
    assert state.setup is not None and state.setup.turn_seconds == seconds


@pytest.mark.parametrize("seconds", [0, -1, 601])
def test_r25_a_server_turn_time_out_of_range_is_refused(seconds: int) -> None:
    with pytest.raises(InvalidTurnSecondsError, match="server's"):
        _created(server_turn_seconds=seconds)


@pytest.mark.parametrize("seconds", [1, 4])
def test_r25_a_table_cannot_name_a_turn_shorter_than_5_seconds(seconds: int) -> None:
    # given a server whose own turn time is 1 second
    # when a table asks for a turn shorter than 5 seconds, then it is refused
    with pytest.raises(InvalidTurnSecondsError, match="a table's"):
        _created(turn_seconds=seconds, server_turn_seconds=1)


def test_r25_a_table_s_own_turn_time_wins_over_the_server_s() -> None:
    state = _created(turn_seconds=45, server_turn_seconds=1)
    assert state.setup is not None and state.setup.turn_seconds == 45


def test_r25_a_one_second_table_verifies() -> None:
    # given a table recorded with the server's 1-second turn, both seats taken
    stream = _recorded(
        INITIAL_STATE,
        [
            CreateMatch("m-1s", "classic", 2, secret_from_text_seed("1s"), server_turn_seconds=1),
            TakeSeat(0, "Amal", token_id="t0", now_us=T0 * 1000),
            TakeSeat(1, "Badr", token_id="t1", now_us=T0 * 1000),
        ],
    )
    # then verify accepts its turn time and the first deadline one second after the seats
    report = audit(stream)
    assert report.ok, report.divergence
