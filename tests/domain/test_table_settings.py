"""The one reading of match_created's absent fields (events.table_settings), which the state,
the audit and the server's listings all take."""

from __future__ import annotations

from domain.events import MatchCreated, TableSettings, table_settings
from domain.evolve import fold


def _created(**fields: object) -> MatchCreated:
    return MatchCreated(
        match_id="m1",
        ruleset="classic",
        seats=4,
        target=101,
        secret=None,
        client_seeds=("",) * 4,
        commitment=None,
        bots=(1, 3),
        **fields,  # type: ignore[arg-type]
    )


def test_a_line_recorded_before_the_settings_reads_as_their_defaults() -> None:
    # given a match_created that leaves every setting out of its line
    # when its settings are read, then each is its default
    assert table_settings(_created()) == TableSettings(
        turn_seconds=None,
        private=False,
        spectators=True,
        rematch_of=None,
        bot_kinds=(),
        bot_budget=None,
        bot_logic=1,
        reserved=(),
    )


def test_recorded_settings_are_read_as_recorded_and_the_state_takes_the_same_reading() -> None:
    # given a match_created that records every setting
    created = _created(
        turn_seconds=30,
        private=True,
        spectators=False,
        rematch_of="m0",
        bot_kinds={"3": "strong", "1": "random"},
        bot_budget=16,
        bot_logic=2,
        reserved=("p0", None, "p2", None),
    )
    # when read, and when folded into a state
    settings = table_settings(created)
    setup = fold([created]).setup
    # then the bot kinds are in seat order, and the state's setup holds the same values
    assert settings.bot_kinds == ((1, "random"), (3, "strong"))
    assert setup is not None
    assert (
        setup.turn_seconds,
        setup.private,
        setup.spectators,
        setup.rematch_of,
        setup.bot_kinds,
        setup.bot_budget,
        setup.bot_logic,
        setup.reserved,
    ) == (30, True, False, "m0", settings.bot_kinds, 16, 2, ("p0", None, "p2", None))
