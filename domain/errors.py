"""The root of every project error, and the rules' refusals, each its own type.

Every error of the project is a ``BasraError`` with a stable ``code``, and is one of four causes,
each its own base class: ``RulesRefusalError`` (here: the rules refuse the request),
``RequestError`` (here, shared by every layer: what was asked for does not exist or does not fit),
``app.errors.StoreFaultError`` (the event store failed or refused a write) and
``replays.errors.ReplayDataError`` (a replay file or recorded stream is not a readable match).
Catch the cause you mean; the HTTP status and CLI exit of every class are in one table each
(``app.api.errors.HTTP_STATUS``, ``cli.errors.EXIT_CODE``).
"""

from __future__ import annotations


class BasraError(Exception):
    """Root of every project error; never raised itself. ``code`` is a stable machine name."""

    code = "basra_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RulesRefusalError(BasraError):
    """Cause: the rules refuse this request (and only that); never raised itself."""

    code = "rules_refusal"


class RequestError(BasraError):
    """Cause: what was asked for does not exist or does not fit; never raised itself."""

    code = "request_error"


class UnknownCardError(RulesRefusalError):
    """The text is not a card (R1)."""

    code = "unknown_card"

    def __init__(self, text: str) -> None:
        super().__init__(f"{text!r} is not a card; write rank then suit, e.g. 7D, 10H, QS")
        self.text = text


class UnknownRulesetError(RulesRefusalError):
    """The rule set name is not one of the five."""

    code = "unknown_ruleset"


class InvalidSeatCountError(RulesRefusalError):
    """Only 2 seats, or 4 in two partnerships, are offered (R2)."""

    code = "invalid_seat_count"


class InvalidTargetError(RulesRefusalError):
    """A table's target must be a whole number from 1 to 1000 (R22)."""

    code = "invalid_target"


class InvalidSeatError(RulesRefusalError):
    """The seat number is not a seat of this match."""

    code = "invalid_seat"


class SeatTakenError(RulesRefusalError):
    """The seat already has a player or a bot."""

    code = "seat_taken"


class MatchNotStartedError(RulesRefusalError):
    """The match is still waiting for seats to be taken."""

    code = "match_not_started"


class MatchEndedError(RulesRefusalError):
    """The match has ended; nothing more can be played."""

    code = "match_ended"


class MatchAlreadyCreatedError(RulesRefusalError):
    """A match stream can be created only once."""

    code = "match_exists"


class NotYourTurnError(RulesRefusalError):
    """Only the seat on turn may play (R3)."""

    code = "not_your_turn"


class CardNotInHandError(RulesRefusalError):
    """The seat does not hold that card (R13: any card in the hand, and only those)."""

    code = "card_not_in_hand"


class InvalidSecretError(RulesRefusalError):
    """A match secret must be exactly 32 bytes (docs/fairness.md)."""

    code = "invalid_secret"


class InvalidClientSeedError(RulesRefusalError):
    """A client seed is at most 64 bytes of UTF-8 (docs/fairness.md)."""

    code = "invalid_client_seed"


class UnseededMatchError(RulesRefusalError):
    """An imported match without its secret cannot deal further rounds."""

    code = "unseeded_match"


class InvalidEventError(RulesRefusalError):
    """An event does not follow from the rules at its position in the stream."""

    code = "invalid_event"


class InvalidNameError(RulesRefusalError):
    """A seat name is 1 to 64 characters once trimmed."""

    code = "invalid_name"


class PlayerSeatedError(RulesRefusalError):
    """One player holds at most one seat of a match."""

    code = "player_seated"


class PlayerNameErasedError(RulesRefusalError):
    """The player's name is erased already."""

    code = "name_erased"


class UnknownBotKindError(RulesRefusalError):
    """The bot kind is not one the server can play (easy, random or strong)."""

    code = "unknown_bot_kind"


class InvalidBotBudgetError(RulesRefusalError):
    """The strong bot's budget is not a whole number of sampled deals from 1 to 4096."""

    code = "invalid_bot_budget"


class UnknownCommandError(RulesRefusalError):
    """The rules have no such command."""

    code = "unknown_command"


class InvalidTurnSecondsError(RulesRefusalError):
    """A table's turn time is a whole number of seconds from 5 to 600; the server's from 1 (R25)."""

    code = "invalid_turn_seconds"


class StaleDeadlineError(RulesRefusalError):
    """The clock fired for a deadline no longer in force: the seat played, or the match moved on."""

    code = "stale_deadline"


class DeadlineNotReachedError(RulesRefusalError):
    """The clock fired before the deadline of the seat on turn (R25)."""

    code = "deadline_not_reached"


class TurnExpiredError(RulesRefusalError):
    """The seat's deadline has passed: the clock plays or forfeits for it (R25)."""

    code = "turn_expired"


class MatchNotWaitingError(RulesRefusalError):
    """Only a table still waiting for players can be closed as abandoned."""

    code = "match_not_waiting"


class MatchNotEndedError(RulesRefusalError):
    """A rematch follows only a match that has ended."""

    code = "match_not_ended"


class RematchExistsError(RulesRefusalError):
    """The match has its rematch already."""

    code = "rematch_exists"


class SeatReservedError(RulesRefusalError):
    """A rematch seat is kept for the registered player who held it in the ended match."""

    code = "seat_reserved"


class InvalidReservationError(RulesRefusalError):
    """A rematch's kept seats must name a player per seat at most, never a bot's seat."""

    code = "invalid_reservation"
