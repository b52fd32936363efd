"""Every way a request can be refused by the rules, each its own type under one base class."""

from __future__ import annotations


class BasraError(Exception):
    """Base class of every domain error; ``code`` is a stable machine-readable name."""

    code = "basra_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownCardError(BasraError):
    """The text is not a card (R1)."""

    code = "unknown_card"

    def __init__(self, text: str) -> None:
        super().__init__(f"{text!r} is not a card; write rank then suit, e.g. 7D, 10H, QS")
        self.text = text


class UnknownRulesetError(BasraError):
    """The rule set name is not one of the five."""

    code = "unknown_ruleset"


class InvalidSeatCountError(BasraError):
    """Only 2 seats, or 4 in two partnerships, are offered (R2)."""

    code = "invalid_seat_count"


class InvalidTargetError(BasraError):
    """A table's target must be a whole number from 1 to 1000 (R22)."""

    code = "invalid_target"


class InvalidSeatError(BasraError):
    """The seat number is not a seat of this match."""

    code = "invalid_seat"


class SeatTakenError(BasraError):
    """The seat already has a player or a bot."""

    code = "seat_taken"


class MatchNotStartedError(BasraError):
    """The match is still waiting for seats to be taken."""

    code = "match_not_started"


class MatchEndedError(BasraError):
    """The match has ended; nothing more can be played."""

    code = "match_ended"


class MatchAlreadyCreatedError(BasraError):
    """A match stream can be created only once."""

    code = "match_exists"


class NotYourTurnError(BasraError):
    """Only the seat on turn may play (R3)."""

    code = "not_your_turn"


class CardNotInHandError(BasraError):
    """The seat does not hold that card (R13: any card in the hand, and only those)."""

    code = "card_not_in_hand"


class InvalidSecretError(BasraError):
    """A match secret must be exactly 32 bytes (FAIRNESS.md)."""

    code = "invalid_secret"


class InvalidClientSeedError(BasraError):
    """A client seed is at most 64 bytes of UTF-8 (FAIRNESS.md)."""

    code = "invalid_client_seed"


class UnseededMatchError(BasraError):
    """An imported match without its secret cannot deal further rounds."""

    code = "unseeded_match"


class InvalidEventError(BasraError):
    """An event does not follow from the rules at its position in the stream."""

    code = "invalid_event"
