"""Judging a new table (R2, R22, R25, docs/bots.md): its seats, target, bots, clock and kept
seats, and the first round dealt at once when every seat is a bot."""

from __future__ import annotations

from typing import Final

import msgspec

from domain.bot_kinds import BOT_BUDGET, BOT_KINDS, DEFAULT_BUDGET, LOGIC_VERSION
from domain.commands import CreateMatch
from domain.dealing import open_round
from domain.errors import (
    InvalidBotBudgetError,
    InvalidReservationError,
    InvalidSeatCountError,
    InvalidSeatError,
    InvalidTargetError,
    InvalidTurnSecondsError,
    MatchAlreadyCreatedError,
    UnknownBotKindError,
)
from domain.events import Event, MatchCreated
from domain.fairness import check_client_seed, check_secret, commitment, deal_key, first_dealer
from domain.rulesets import ruleset
from domain.state import MatchState

SEAT_COUNTS: Final = (2, 4)
"""R2: two seats, or four in two partnerships."""

TURN_SECONDS: Final = (5, 600)
"""R25: the shortest and longest turn time a table can be given, in seconds."""

SERVER_TURN_SECONDS: Final = (1, 600)
"""R25: the shortest and longest turn time a server may give tables that name none."""


def judge_create(state: MatchState, cmd: CreateMatch) -> tuple[Event, ...]:
    """The table ``cmd`` asks for, checked; dealt at once when every seat is a bot."""
    if state.setup is not None:
        raise MatchAlreadyCreatedError(f"match {state.setup.match_id} already exists")
    rules = ruleset(cmd.ruleset)
    if cmd.seats not in SEAT_COUNTS:
        raise InvalidSeatCountError(f"a table has 2 or 4 seats, not {cmd.seats}")
    target = rules.default_target if cmd.target is None else cmd.target
    if isinstance(target, bool) or not 1 <= target <= 1000:
        raise InvalidTargetError(f"the target must be a whole number from 1 to 1000, not {target}")
    if len(set(cmd.bots)) != len(cmd.bots) or any(not 0 <= s < cmd.seats for s in cmd.bots):
        raise InvalidSeatError(f"bot seats must be distinct seats 0..{cmd.seats - 1}")
    bot_kinds, bot_budget = _check_bots(cmd)
    secret = check_secret(cmd.secret)
    seeds = cmd.client_seeds if cmd.client_seeds is not None else ("",) * cmd.seats
    if len(seeds) != cmd.seats:
        raise InvalidSeatCountError(f"{len(seeds)} client seeds for {cmd.seats} seats")
    for seed in seeds:
        check_client_seed(seed)
    created = MatchCreated(
        match_id=cmd.match_id,
        ruleset=rules.name,
        seats=cmd.seats,
        target=target,
        secret=secret.hex(),
        client_seeds=tuple(seeds),
        commitment=commitment(cmd.match_id, secret),
        bots=tuple(sorted(cmd.bots)),
        bot_kind=cmd.bot_kind,
        bot_kinds=bot_kinds,
        bot_budget=bot_budget,
        bot_logic=msgspec.UNSET if isinstance(bot_budget, msgspec.UnsetType) else LOGIC_VERSION,
        turn_seconds=_turn_seconds_of(cmd),
        private=True if cmd.private else msgspec.UNSET,
        spectators=False if not cmd.spectators else msgspec.UNSET,
        rematch_of=msgspec.UNSET if cmd.rematch_of is None else cmd.rematch_of,
        reserved=_check_reserved(cmd),
        paired=msgspec.UNSET if cmd.paired is None else cmd.paired,
    )
    if len(cmd.bots) < cmd.seats:
        return (created,)
    key = deal_key(secret, seeds)
    opened = open_round(rules, cmd.seats, key, 1, first_dealer(key, cmd.seats))
    # Every seat is a bot: no person is ever on turn, so no deadline is set.
    return (created, *opened)


def _check_bots(
    cmd: CreateMatch,
) -> tuple[dict[str, str] | msgspec.UnsetType, int | msgspec.UnsetType]:
    """The bot kinds by seat where they differ from ``bot_kind``, and the strong bot's budget:
    recorded whenever a strong bot plays, so its picks repeat whatever the default becomes."""
    per_seat = cmd.bot_kinds or {}
    for kind in (cmd.bot_kind, *per_seat.values()):
        if kind not in BOT_KINDS:
            raise UnknownBotKindError(f"unknown bot kind {kind!r}; choose {', '.join(BOT_KINDS)}")
    if any(seat not in cmd.bots for seat in per_seat):
        raise InvalidSeatError("a bot kind is given for a seat that no bot plays")
    differ = {str(s): k for s, k in sorted(per_seat.items()) if k != cmd.bot_kind}
    strong = any(per_seat.get(s, cmd.bot_kind) == "strong" for s in cmd.bots)
    budget = cmd.bot_budget
    low, high = BOT_BUDGET
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int) or not low <= budget <= high
    ):
        raise InvalidBotBudgetError(
            f"the strong bot's budget is a whole number of deals from {low} to {high}, not {budget}"
        )
    recorded: int | msgspec.UnsetType = msgspec.UNSET
    if strong:
        recorded = DEFAULT_BUDGET if budget is None else budget
    return (differ or msgspec.UNSET), recorded


def _turn_seconds_of(cmd: CreateMatch) -> int | msgspec.UnsetType:
    """R25: the table's own turn time (5-600), else the server's (1-600); UNSET: no clock."""
    if cmd.turn_seconds is not None:
        return _check_turn_seconds(cmd.turn_seconds, TURN_SECONDS, "a table's")
    if cmd.server_turn_seconds is not None:
        return _check_turn_seconds(cmd.server_turn_seconds, SERVER_TURN_SECONDS, "the server's")
    return msgspec.UNSET


def _check_turn_seconds(seconds: int, bounds: tuple[int, int], whose: str) -> int:
    """R25: a turn time within ``bounds``, in whole seconds."""
    low, high = bounds
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not low <= seconds <= high:
        raise InvalidTurnSecondsError(
            f"{whose} turn time must be a whole number of seconds from {low} to {high},"
            f" not {seconds}"
        )
    return seconds


def _check_reserved(cmd: CreateMatch) -> tuple[str | None, ...] | msgspec.UnsetType:
    """A rematch's kept seats: one entry per seat, a player at most once, no bot seat kept."""
    kept = cmd.reserved
    if kept is None or all(pid is None for pid in kept):
        return msgspec.UNSET  # nothing kept: left out of the line
    named = [pid for pid in kept if pid is not None]
    if len(kept) != cmd.seats or len(set(named)) != len(named):
        raise InvalidReservationError(
            f"kept seats name each player once, one entry for each of the {cmd.seats} seats"
        )
    if any(pid is not None and seat in cmd.bots for seat, pid in enumerate(kept)):
        raise InvalidReservationError("a bot's seat cannot be kept for a player")
    if cmd.rematch_of is None and cmd.paired is None:
        raise InvalidReservationError(
            "only a rematch or a pairing keeps seats for the players before"
        )
    return tuple(kept)
