"""The golden table of errors: every raisable error class's HTTP status, ``code`` and exit status.

Each row was generated once from the code as it stood before errors were mapped by cause (two
tables by exact class, ``HTTP_STATUS`` and ``EXIT_CODE``) and is kept here as literal data: the
live mapping must give every row exactly, so regrouping the classes cannot move a status
unnoticed. A row is ``(module.qualname, HTTP status, code, exit status)``; the HTTP status is
None for a class only the command line raises (the API never meets it). The bases (the causes,
their sub-causes, ``ApiError``), never raised themselves, have no row; every other class of the
tree must have one.

Changed on purpose since the rows were generated, and only these:

- ``domain.errors.UnknownCardError`` (``unknown_card``, a card text that is not a card, such as
  ``"ZZ"`` played or previewed) is a bad syntax (``BadSyntaxError``, a ``RequestError``) instead
  of a rules refusal: HTTP 422 -> 400; exit status 1 -> 1 (unchanged); code unchanged.
- ``InvalidOptionError`` moved from ``cli.shell`` to ``cli.errors`` (same status, code, exit).
- ``app.errors.StoreNotMigratedError`` (a store of an earlier build's form, to be migrated
  with ``basra store migrate``) is new: a store fault, 503 and exit 69 as its cause gives.
- ``app.api.errors.InvalidCursorError`` is now ``app.readmodels.cursors.BadCursorError``, raised by
  the read models' paging itself (same status 400, code ``invalid_cursor``, exit 1).
- Added with the classes brought into the tree, none of which the API or the command line
  mapped before: ``app.api.server.ServeError`` and
  ``app.api.edges.collector.CollectorSettingError`` (request errors; ``basra serve`` exits 1 for
  them, as it did when they were ``ValueError``).
- The API's HTTP edges moved into ``app.api.edges``: the rows of ``app.api.errors`` and
  ``app.api.collector`` now read ``app.api.edges.errors`` and ``app.api.edges.collector``. Only
  their module path changed; every status, code and exit status is as generated.
- Added with devices of a player (linking codes): ``app.errors.InvalidLinkCodeError``,
  ``app.errors.LinkingPausedError``, ``domain.errors.UnknownDeviceError``,
  ``domain.errors.OwnDeviceError`` and ``domain.errors.TooManyDevicesError``, and with the
  rated pool ``domain.errors.AlreadySeatedError``, as their causes give.
- Added with the support desk (docs/support.md): ``reason_required``, ``invalid_report``,
  ``invalid_action``, ``already_suspended``, ``case_not_found``, ``account_suspended``,
  ``not_a_reporter``, ``agent_only``, ``report_limit`` (429) and the console's ``bad_origin``.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import app
import cli
import domain
import replays
from app.api.edges.errors import status_of
from cli.errors import exit_code_of
from domain.errors import BasraError

PACKAGES = ("domain", "replays", "app", "cli")

GOLDEN: tuple[tuple[str, int | None, str, int], ...] = (
    ("app.api.edges.collector.CollectorSettingError", 400, "invalid_collector_setting", 1),  # added
    ("app.api.edges.errors.BodyTooLargeError", 413, "body_too_large", 1),
    ("app.api.edges.errors.IdempotencyKeyReusedError", 422, "idempotency_key_reused", 1),
    ("app.api.edges.errors.InvalidFilterError", 400, "invalid_filter", 1),
    ("app.api.edges.errors.InvalidHeaderError", 400, "invalid_header", 1),
    ("app.api.edges.errors.InvalidValueError", 422, "invalid_value", 1),
    ("app.api.edges.errors.MalformedJsonError", 400, "malformed_json", 1),
    ("app.api.edges.errors.MethodNotAllowedError", 405, "method_not_allowed", 1),
    ("app.api.edges.errors.MissingBodyError", 400, "missing_body", 1),
    ("app.api.edges.errors.MissingFieldError", 422, "missing_field", 1),
    ("app.api.edges.errors.MissingTokenError", 401, "missing_token", 1),
    ("app.api.edges.errors.OverloadedError", 503, "overloaded", 75),
    ("app.api.edges.errors.RateLimitedError", 429, "rate_limited", 75),
    ("app.api.edges.errors.RouteNotFoundError", 404, "not_found", 1),
    ("app.api.edges.errors.SeatOnlyError", 403, "seat_only", 1),
    ("app.api.edges.errors.SeedRefusedError", 403, "seed_refused", 1),
    ("app.api.edges.errors.SpectatorsRefusedError", 403, "spectators_refused", 1),
    ("app.api.edges.errors.SupportOnlyError", 403, "support_only", 1),
    ("app.api.edges.errors.TokenInQueryError", 401, "token_in_query", 1),
    ("app.api.edges.errors.UnknownFieldError", 422, "unknown_field", 1),
    ("app.api.edges.errors.UnknownTokenError", 401, "unknown_token", 1),
    ("app.api.edges.errors.WrongMatchError", 403, "wrong_match", 1),
    ("app.api.edges.errors.WrongSeatError", 403, "wrong_seat", 1),
    ("app.api.edges.errors.WrongTypeError", 422, "wrong_type", 1),
    ("app.api.server.ServeError", 400, "cannot_serve", 1),  # added
    ("app.errors.AgentExistsError", 409, "agent_exists", 1),
    ("app.errors.ReasonRequiredError", 422, "reason_required", 1),
    ("app.errors.InvalidReportError", 422, "invalid_report", 1),
    ("app.errors.InvalidActionError", 422, "invalid_action", 1),
    ("app.errors.AlreadySuspendedError", 409, "already_suspended", 1),
    ("app.errors.CaseNotFoundError", 404, "case_not_found", 1),
    ("app.errors.AccountSuspendedError", 403, "account_suspended", 1),
    ("app.errors.NotAReporterError", 403, "not_a_reporter", 1),
    ("app.errors.AgentOnlyError", 403, "agent_only", 1),
    ("app.errors.ReportLimitError", 429, "report_limit", 1),
    ("app.api.support.desk.CsrfError", 403, "bad_origin", 1),
    ("app.errors.AgentRevokedError", 401, "agent_revoked", 1),
    ("app.errors.ConflictError", 409, "conflict", 75),
    ("app.errors.CorruptEventError", 500, "corrupt_event", 65),
    ("app.errors.InvalidAgentNameError", 422, "invalid_agent_name", 1),
    ("app.errors.MatchNotFoundError", 404, "match_not_found", 1),
    ("app.errors.NotAPlayerError", 404, "not_a_player", 1),
    ("app.errors.PlayerNotFoundError", 404, "player_not_found", 1),
    ("app.errors.StoreMissingError", 503, "store_missing", 1),
    ("app.errors.StoreUnavailableError", 503, "store_unavailable", 69),
    ("app.errors.TicketExpiredError", 401, "ticket_expired", 1),
    ("app.errors.TicketUsedError", 401, "ticket_used", 1),
    ("app.errors.TicketWrongMatchError", 403, "ticket_wrong_match", 1),
    ("app.readmodels.cursors.BadCursorError", 400, "invalid_cursor", 1),  # moved
    ("app.errors.StoreNotMigratedError", 503, "store_not_migrated", 69),  # added
    ("app.errors.UnknownAgentError", 404, "unknown_agent", 1),
    ("app.errors.UnknownTicketError", 401, "unknown_ticket", 1),
    ("app.errors.InvalidLinkCodeError", 401, "invalid_link_code", 1),  # added
    ("app.errors.LinkingPausedError", 403, "linking_paused", 1),  # added
    ("cli.errors.InvalidOptionError", None, "invalid_option", 2),  # was cli.shell's
    ("domain.errors.CardNotInHandError", 422, "card_not_in_hand", 1),
    ("domain.errors.DeadlineNotReachedError", 409, "deadline_not_reached", 1),
    ("domain.errors.InvalidBotBudgetError", 422, "invalid_bot_budget", 1),
    ("domain.errors.InvalidClientSeedError", 422, "invalid_client_seed", 1),
    ("domain.errors.InvalidEventError", 422, "invalid_event", 1),
    ("domain.errors.InvalidNameError", 422, "invalid_name", 1),
    ("domain.errors.InvalidReservationError", 422, "invalid_reservation", 1),
    ("domain.errors.InvalidSeatCountError", 422, "invalid_seat_count", 1),
    ("domain.errors.InvalidSeatError", 422, "invalid_seat", 1),
    ("domain.errors.InvalidSecretError", 422, "invalid_secret", 1),
    ("domain.errors.InvalidTargetError", 422, "invalid_target", 1),
    ("domain.errors.InvalidTurnSecondsError", 422, "invalid_turn_seconds", 1),
    ("domain.errors.MatchAlreadyCreatedError", 409, "match_exists", 1),
    ("domain.errors.MatchEndedError", 409, "match_ended", 1),
    ("domain.errors.MatchNotEndedError", 409, "match_not_ended", 1),
    ("domain.errors.MatchNotStartedError", 409, "match_not_started", 1),
    ("domain.errors.MatchNotWaitingError", 409, "match_not_waiting", 1),
    ("domain.errors.NotYourTurnError", 409, "not_your_turn", 1),
    ("domain.errors.PlayerNameErasedError", 409, "name_erased", 1),
    ("domain.errors.PlayerSeatedError", 409, "player_seated", 1),
    ("domain.errors.RematchExistsError", 409, "rematch_exists", 1),
    ("domain.errors.SeatReservedError", 403, "seat_reserved", 1),
    ("domain.errors.SeatTakenError", 409, "seat_taken", 1),
    ("domain.errors.StaleDeadlineError", 409, "stale_deadline", 1),
    ("domain.errors.TurnExpiredError", 409, "turn_expired", 1),
    ("domain.errors.UnknownBotKindError", 422, "unknown_bot_kind", 1),
    ("domain.errors.UnknownDeviceError", 404, "unknown_device", 1),  # added
    ("domain.errors.OwnDeviceError", 409, "own_device", 1),  # added
    ("domain.errors.TooManyDevicesError", 409, "too_many_devices", 1),  # added
    ("domain.errors.AlreadySeatedError", 409, "already_seated", 1),  # added
    ("domain.errors.UnknownCardError", 400, "unknown_card", 1),  # was 422: a bad syntax now
    ("domain.errors.UnknownCommandError", 422, "unknown_command", 1),
    ("domain.errors.UnknownRulesetError", 422, "unknown_ruleset", 1),
    ("domain.errors.UnseededMatchError", 409, "unseeded_match", 1),
    ("replays.errors.InvalidReceiptsError", 422, "invalid_receipts", 1),
    ("replays.errors.ReplayFileError", 422, "invalid_replay", 1),
    ("replays.errors.StepOutOfRangeError", 422, "step_out_of_range", 1),
    ("replays.errors.StreamError", 422, "invalid_stream", 1),
    ("replays.errors.UnknownViewerError", 422, "unknown_viewer", 1),
)
"""(class, HTTP status, code, exit status) of every error class that can be raised."""


def _class(name: str) -> type[BasraError]:
    module, _, qualname = name.rpartition(".")
    cls = getattr(importlib.import_module(module), qualname)
    assert isinstance(cls, type) and issubclass(cls, BasraError), name
    return cls


def _raisable_classes() -> set[str]:
    """Every class of the tree defined in the project that has no subclass there (not a base)."""
    for package in (domain, replays, app, cli):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)

    def ours(cls: type) -> bool:
        return cls.__module__.split(".")[0] in PACKAGES

    found: set[str] = set()
    todo: list[type[BasraError]] = [BasraError]
    while todo:
        cls = todo.pop()
        below = [sub for sub in cls.__subclasses__() if ours(sub)]
        if ours(cls) and not below:
            found.add(f"{cls.__module__}.{cls.__qualname__}")
        todo.extend(below)
    return found


def test_every_raisable_class_has_a_golden_row() -> None:
    # given every module imported, then the leaves of the tree are exactly the golden rows
    assert _raisable_classes() == {row[0] for row in GOLDEN}


@pytest.mark.parametrize(("name", "status", "code", "exit_status"), GOLDEN, ids=lambda v: str(v))
def test_the_mapping_gives_the_golden_row(
    name: str, status: int | None, code: str, exit_status: int
) -> None:
    # given the class, when it is mapped as an error of that class
    cls = _class(name)
    error = cls.__new__(cls)  # the mapping reads the class only; no message is needed
    # then its code, HTTP status and exit status are the recorded ones
    assert cls.code == code
    if status is None:
        assert cls.__module__.startswith("cli."), f"{name}: only the command line's have no status"
    else:
        assert status_of(error) == status
    assert exit_code_of(error) == exit_status
