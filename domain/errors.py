"""The root of every project error, its causes and their sub-causes, and the rules' refusals.

Every error of the project is a ``BasraError`` with a stable ``code``, and is one of four causes,
each its own base class: ``RulesRefusalError`` (here: the rules refuse the request),
``RequestError`` (here, shared by every layer: what was asked for does not exist, cannot be
read, does not fit, or is not the asker's to ask), ``app.errors.StoreFaultError`` (the event
store failed or refused a write) and ``replays.errors.ReplayDataError`` (a replay file or
recorded stream is not a readable match). A cause is divided into sub-causes where the answer
differs: the rules refuse a thing not now (``NotNowError``), not to this player
(``NotYoursError``) or never (``NotAllowedError``); a request names nothing (``NotFoundError``),
cannot be read (``BadSyntaxError``), does not fit (``DoesNotFitError``), comes from no one known
(``UnauthenticatedError``), from someone who may not (``ForbiddenError``), or would make a second
of a thing made once (``AlreadyExistsError``).

A cause or sub-cause carries its HTTP status (``http_status``) and command-line exit status
(``exit_status``) as class attributes, which every class under it inherits through its bases;
``app.api.edges.errors.status_of`` and ``cli.errors.exit_code_of`` read them. Catch the cause (or
sub-cause) you mean.
"""

from __future__ import annotations

from typing import ClassVar, Final

REFUSED: Final = 1
"""Exit status of a command refused by the rules or for its input: nothing was changed."""


class BasraError(Exception):
    """Root of every project error; never raised itself. ``code`` is a stable machine name."""

    code = "basra_error"

    http_status: ClassVar[int | None] = None
    """The HTTP status of the cause this class is under; None under no cause (a bug, a 500)."""

    exit_status: ClassVar[int | None] = None
    """The command line's exit status of the cause this class is under; None under no cause."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RulesRefusalError(BasraError):
    """Cause: the rules refuse this request (and only that); never raised itself."""

    code = "rules_refusal"
    http_status = 422
    exit_status = REFUSED


class NotNowError(RulesRefusalError):
    """Sub-cause: the rules refuse it in this state or at this time (the seat, turn, match or
    clock has moved on, or not yet); never raised itself."""

    code = "not_now"
    http_status = 409


class NotYoursError(RulesRefusalError):
    """Sub-cause: the rules keep this for another player; never raised itself."""

    code = "not_yours"
    http_status = 403


class NotAllowedError(RulesRefusalError):
    """Sub-cause: the rules never allow this, whatever the state; never raised itself."""

    code = "not_allowed"
    http_status = 422


class RequestError(BasraError):
    """Cause: what was asked for does not exist, cannot be read or does not fit; never raised
    itself."""

    code = "request_error"
    http_status = 400
    exit_status = REFUSED


class NotFoundError(RequestError):
    """Sub-cause: the request names a thing (a match, player, agent, route) that is not there;
    never raised itself."""

    code = "not_found_error"
    http_status = 404


class BadSyntaxError(RequestError):
    """Sub-cause: a part of the request cannot be read as what it should be (JSON, a header, a
    cursor, a card); never raised itself."""

    code = "bad_syntax"
    http_status = 400


class DoesNotFitError(RequestError):
    """Sub-cause: the request is read, but does not fit (a field, a value, a step, a viewer);
    never raised itself."""

    code = "does_not_fit"
    http_status = 422


class UnauthenticatedError(RequestError):
    """Sub-cause: no credential, or one this server does not know (any more); never raised
    itself."""

    code = "unauthenticated"
    http_status = 401


class ForbiddenError(RequestError):
    """Sub-cause: the credential is known, but not for this (another match, seat, or role);
    never raised itself."""

    code = "forbidden"
    http_status = 403


class AlreadyExistsError(RequestError):
    """Sub-cause: the request would make again a thing that is made once; never raised
    itself."""

    code = "already_exists"
    http_status = 409


class UnknownCardError(BadSyntaxError):
    """The text is not a card (R1): it cannot be read, so no rule is asked (a bad syntax)."""

    code = "unknown_card"

    def __init__(self, text: str) -> None:
        super().__init__(f"{text!r} is not a card; write rank then suit, e.g. 7D, 10H, QS")
        self.text = text


class UnknownRulesetError(NotAllowedError):
    """The rule set name is not one of the five."""

    code = "unknown_ruleset"


class InvalidSeatCountError(NotAllowedError):
    """Only 2 seats, or 4 in two partnerships, are offered (R2)."""

    code = "invalid_seat_count"


class InvalidTargetError(NotAllowedError):
    """A table's target must be a whole number from 1 to 1000 (R22)."""

    code = "invalid_target"


class InvalidSeatError(NotAllowedError):
    """The seat number is not a seat of this match."""

    code = "invalid_seat"


class SeatTakenError(NotNowError):
    """The seat already has a player or a bot."""

    code = "seat_taken"


class MatchNotStartedError(NotNowError):
    """The match is still waiting for seats to be taken."""

    code = "match_not_started"


class MatchEndedError(NotNowError):
    """The match has ended; nothing more can be played."""

    code = "match_ended"


class MatchAlreadyCreatedError(NotNowError):
    """A match stream can be created only once."""

    code = "match_exists"


class NotYourTurnError(NotNowError):
    """Only the seat on turn may play (R3)."""

    code = "not_your_turn"


class CardNotInHandError(NotAllowedError):
    """The seat does not hold that card (R13: any card in the hand, and only those)."""

    code = "card_not_in_hand"


class InvalidSecretError(NotAllowedError):
    """A match secret must be exactly 32 bytes (docs/fairness.md)."""

    code = "invalid_secret"


class InvalidClientSeedError(NotAllowedError):
    """A client seed is at most 64 bytes of UTF-8 (docs/fairness.md)."""

    code = "invalid_client_seed"


class UnseededMatchError(NotNowError):
    """An imported match without its secret cannot deal further rounds."""

    code = "unseeded_match"


class InvalidEventError(NotAllowedError):
    """An event does not follow from the rules at its position in the stream."""

    code = "invalid_event"


class InvalidNameError(NotAllowedError):
    """A seat name is 1 to 64 characters once trimmed."""

    code = "invalid_name"


class PlayerSeatedError(NotNowError):
    """One player holds at most one seat of a match."""

    code = "player_seated"


class PlayerNameErasedError(NotNowError):
    """The player's name is erased already."""

    code = "name_erased"


class UnknownBotKindError(NotAllowedError):
    """The bot kind is not one the server can play (easy, random or strong)."""

    code = "unknown_bot_kind"


class InvalidBotBudgetError(NotAllowedError):
    """The strong bot's budget is not a whole number of sampled deals from 1 to 4096."""

    code = "invalid_bot_budget"


class UnknownCommandError(NotAllowedError):
    """The rules have no such command."""

    code = "unknown_command"


class InvalidTurnSecondsError(NotAllowedError):
    """A table's turn time is a whole number of seconds from 5 to 600; the server's from 1 (R25)."""

    code = "invalid_turn_seconds"


class StaleDeadlineError(NotNowError):
    """The clock fired for a deadline no longer in force: the seat played, or the match moved on."""

    code = "stale_deadline"


class DeadlineNotReachedError(NotNowError):
    """The clock fired before the deadline of the seat on turn (R25)."""

    code = "deadline_not_reached"


class TurnExpiredError(NotNowError):
    """The seat's deadline has passed: the clock plays or forfeits for it (R25)."""

    code = "turn_expired"
    deadline: str | None = None
    """The deadline the play missed."""
    arrived_us: int | None = None
    """When the play arrived (µs since the epoch)."""


class MatchNotWaitingError(NotNowError):
    """Only a table still waiting for players can be closed as abandoned."""

    code = "match_not_waiting"


class MatchNotEndedError(NotNowError):
    """A rematch follows only a match that has ended."""

    code = "match_not_ended"


class RematchExistsError(NotNowError):
    """The match has its rematch already."""

    code = "rematch_exists"


class SeatReservedError(NotYoursError):
    """A rematch seat is kept for the registered player who held it in the ended match."""

    code = "seat_reserved"


class InvalidReservationError(NotAllowedError):
    """A rematch's kept seats must name a player per seat at most, never a bot's seat."""

    code = "invalid_reservation"


class UnknownDeviceError(NotFoundError):
    """The player has no device of that id (never had one, or it was revoked)."""

    code = "unknown_device"


class OwnDeviceError(NotNowError):
    """A device may revoke another device of the player, never itself."""

    code = "own_device"


class TooManyDevicesError(NotNowError):
    """A player holds tokens on at most 20 devices at once: revoke one first."""

    code = "too_many_devices"


class AlreadySeatedError(NotNowError):
    """A player seated at a live table (waiting or playing) does not wait in the rated pool."""

    code = "already_seated"
