"""Errors by cause: every error class has one cause, and its HTTP status and exit from it.

The classes are found by walking ``BasraError``'s subclasses after importing every module of
the four packages, so a class added later outside the causes fails here. Each class's own
status and exit are in the golden table (tests/test_error_golden.py); here, that they come
from the causes and sub-causes, through the classes' bases.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar import Litestar, get
from litestar.testing import TestClient
from typer.testing import CliRunner, Result

import app
import cli
import domain
import replays
from app.api.app import create_app
from app.api.edges.error_handlers import EXCEPTION_HANDLERS
from app.api.edges.errors import (
    ApiError,
    BodyTooLargeError,
    MethodNotAllowedError,
    OverloadedError,
    RateLimitedError,
    status_of,
)
from app.api.settings import ApiSettings
from app.errors import (
    ConflictError,
    CorruptEventError,
    ReportLimitError,
    StoreFaultError,
    StoreMissingError,
    StoreUnavailableError,
)
from app.service import MatchService
from cli.errors import EX_SOFTWARE, InvalidOptionError, exit_code_of
from domain.errors import (
    AlreadyExistsError,
    BadSyntaxError,
    BasraError,
    DoesNotFitError,
    ForbiddenError,
    NotAllowedError,
    NotFoundError,
    NotNowError,
    NotYoursError,
    RequestError,
    RulesRefusalError,
    SeatTakenError,
    UnauthenticatedError,
    UnknownCardError,
)
from replays.errors import ReplayDataError, StreamError
from tests.stored_rows import write_raw_row

CAUSES = (RulesRefusalError, RequestError, StoreFaultError, ReplayDataError)
"""The four causes: every concrete error class is under exactly one."""

SUB_CAUSES = (
    NotNowError,
    NotYoursError,
    NotAllowedError,
    NotFoundError,
    BadSyntaxError,
    DoesNotFitError,
    UnauthenticatedError,
    ForbiddenError,
    AlreadyExistsError,
)
"""The sub-causes: a concrete class is under at most one."""

ABSTRACT = {BasraError, *CAUSES, *SUB_CAUSES, ApiError}
"""The bases, never raised themselves."""

OWN_STATUS = {
    BodyTooLargeError: (413, None),
    MethodNotAllowedError: (405, None),
    RateLimitedError: (429, 75),
    OverloadedError: (503, 75),
    ReportLimitError: (429, None),
    StoreMissingError: (503, None),
    ConflictError: (409, 75),
    CorruptEventError: (500, 65),
    InvalidOptionError: (None, 2),
}
"""The only concrete classes that set a status of their own (HTTP, exit), where their cause's
answer is not theirs; every other class inherits both. ``ReportLimitError`` (10 reports a player
a day) is a request error answered 429, as the limit it is. ``OverloadedError`` (a process shedding
load) is a request the client may send again later: 503 with ``Retry-After``, exit 75."""

ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def _import_everything() -> None:
    for package in (domain, replays, app, cli):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)


def _project_classes() -> list[type[BasraError]]:
    """Every subclass of BasraError defined in the project's packages, bases included."""
    _import_everything()
    found: list[type[BasraError]] = []
    todo: list[type[BasraError]] = [BasraError]
    while todo:
        cls = todo.pop()
        if cls.__module__.split(".")[0] in {"domain", "replays", "app", "cli"} and cls not in found:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


CLASSES = _project_classes()
CONCRETE = sorted((c for c in CLASSES if c not in ABSTRACT), key=lambda c: c.__qualname__)


def _status(cls: type[BasraError]) -> int | None:
    return status_of(cls.__new__(cls))  # the mapping reads the class only


def _exit(cls: type[BasraError]) -> int:
    return exit_code_of(cls.__new__(cls))


def test_the_walk_finds_every_layer() -> None:
    # given every module imported, then classes of all four packages are found
    modules = {c.__module__.split(".")[0] for c in CONCRETE}
    assert modules == {"domain", "app", "replays", "cli"}
    assert len(CONCRETE) >= 70


@pytest.mark.parametrize("cls", CONCRETE, ids=lambda c: c.__qualname__)
def test_every_error_class_has_one_cause_its_own_code_and_both_statuses(
    cls: type[BasraError],
) -> None:
    # then it is under exactly one cause and at most one sub-cause, names its own code, and
    # has an HTTP status and an exit status from them
    assert sum(issubclass(cls, cause) for cause in CAUSES) == 1, cls.__mro__
    assert sum(issubclass(cls, sub) for sub in SUB_CAUSES) <= 1, cls.__mro__
    assert "code" in vars(cls), f"{cls.__qualname__} has no code of its own"
    assert _exit(cls) != EX_SOFTWARE
    assert 0 < _exit(cls) < 126
    status = _status(cls)
    assert status is not None and 400 <= status <= 599


@pytest.mark.parametrize("cls", CONCRETE, ids=lambda c: c.__qualname__)
def test_statuses_are_set_by_causes_and_inherited(cls: type[BasraError]) -> None:
    # a class sets a status of its own only where its cause's is not its answer
    own = (vars(cls).get("http_status"), vars(cls).get("exit_status"))
    assert own == OWN_STATUS.get(cls, (None, None))
    for attribute, value in zip(("http_status", "exit_status"), own, strict=True):
        if value is not None:  # then it differs from what its bases give
            assert value != getattr(cls.__mro__[1], attribute), cls.__qualname__


def test_every_cause_and_sub_cause_carries_its_statuses() -> None:
    # a cause sets both; a sub-cause sets its HTTP status (its exit is its cause's)
    for cause in CAUSES:
        assert {"http_status", "exit_status"} <= set(vars(cause)), cause.__qualname__
    for sub in SUB_CAUSES:
        assert "http_status" in vars(sub), sub.__qualname__
    assert {c.__qualname__: c.http_status for c in (*CAUSES, *SUB_CAUSES)} == {
        "RulesRefusalError": 422,
        "NotNowError": 409,
        "NotYoursError": 403,
        "NotAllowedError": 422,
        "RequestError": 400,
        "NotFoundError": 404,
        "BadSyntaxError": 400,
        "DoesNotFitError": 422,
        "UnauthenticatedError": 401,
        "ForbiddenError": 403,
        "AlreadyExistsError": 409,
        "StoreFaultError": 503,
        "ReplayDataError": 422,
    }


def test_codes_are_unique() -> None:
    codes = [c.code for c in CLASSES]
    assert len(codes) == len(set(codes))


def test_rules_refusals_come_only_from_the_rules() -> None:
    # the rules-refusal base means "the rules refuse this", and nothing else
    refusals = [c for c in CONCRETE if issubclass(c, RulesRefusalError)]
    assert refusals and all(c.__module__ == "domain.errors" for c in refusals)
    # and a card text that is not a card is not asked of the rules: it cannot be read
    assert issubclass(UnknownCardError, BadSyntaxError)
    assert not issubclass(UnknownCardError, RulesRefusalError)


def test_a_new_class_answers_as_its_cause() -> None:
    # given a new class under a refusal of "not now", that sets no status of its own
    class LaterSeatError(SeatTakenError):
        code = "later_seat"

    error = LaterSeatError("x")
    # then it is answered as its cause is, through its bases
    assert (status_of(error), exit_code_of(error)) == (409, 1)


def test_a_class_under_no_cause_has_no_status() -> None:
    # given a class under the root alone (a bug), then neither mapping guesses
    class Uncaused(BasraError):
        code = "uncaused"

    assert status_of(Uncaused("x")) is None
    assert exit_code_of(Uncaused("x")) == EX_SOFTWARE


def test_the_command_line_errors_import_no_other_command_line_module() -> None:
    # cli.shell reads the exit statuses from cli.errors: cli.errors must not import it back
    tree = ast.parse(Path(cli.__path__[0], "errors.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m and m.split(".")[0] == "cli"}


# -- one example per cause, through a real request and a real command ---------------------------


@pytest.fixture
def api(tmp_path: Path) -> Iterator[TestClient[Litestar]]:
    """The real API on a fresh SQLite file, in test mode (text seeds accepted)."""
    service = MatchService.open(tmp_path / "api.db")
    with TestClient(create_app(service, settings=ApiSettings(test_mode=True))) as client:
        yield client
    service.close()


def _error(response: object) -> tuple[int, str]:
    status = response.status_code  # type: ignore[attr-defined]
    return status, response.json()["error"]["code"]  # type: ignore[attr-defined]


def test_http_a_rules_refusal(api: TestClient[Litestar]) -> None:
    # given a match with seat 1 played by a bot, when a person asks for seat 1
    match_id = api.post("/matches", json={"ruleset": "classic", "seats": 2, "bots": [1]}).json()[
        "match_id"
    ]
    response = api.post(f"/matches/{match_id}/seats/1", json={"name": "Amal"})
    # then the rules refuse it "not now", with that sub-cause's status
    assert _error(response) == (NotNowError.http_status, "seat_taken") == (409, "seat_taken")


def test_http_a_request_error(api: TestClient[Litestar]) -> None:
    response = api.get("/matches/m-nowhere")
    assert _error(response) == (404, "match_not_found")


@pytest.mark.parametrize("route", ["plays", "preview"])
def test_http_a_card_text_that_is_not_a_card_is_bad_syntax(
    api: TestClient[Litestar], route: str
) -> None:
    # given a seated match, when "ZZ" is played or previewed
    match_id = api.post("/matches", json={"ruleset": "classic", "seats": 2, "bots": [1]}).json()[
        "match_id"
    ]
    token = api.post(f"/matches/{match_id}/seats/0", json={"name": "Amal"}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    response = api.post(f"/matches/{match_id}/{route}", json={"card": "ZZ"}, headers=headers)
    # then it is a bad syntax (400), no longer a rules refusal (422), with the same code
    assert _error(response) == (BadSyntaxError.http_status, "unknown_card") == (400, "unknown_card")


def test_http_a_store_fault(api: TestClient[Litestar]) -> None:
    # given a seated match, when a play names a seq the stream has moved past
    match_id = api.post(
        "/matches", json={"ruleset": "classic", "seats": 2, "bots": [1], "seed": "m"}
    ).json()["match_id"]
    token = api.post(f"/matches/{match_id}/seats/0", json={"name": "Amal"}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    view = api.get(f"/matches/{match_id}/view", headers=headers).json()
    body = {"card": view["hand"][0], "seq": 0}
    response = api.post(f"/matches/{match_id}/plays", json=body, headers=headers)
    # then the store's refusal to append is 409 conflict
    assert _error(response) == (ConflictError.http_status, "conflict") == (409, "conflict")


def _raising(error: Exception) -> Litestar:
    """A one-route app with the API's exception handlers whose route raises ``error``."""

    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise error

    return Litestar([boom], exception_handlers=EXCEPTION_HANDLERS)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (StreamError("the match has no events"), 422, "invalid_stream"),
        (StoreUnavailableError("the event store is unavailable"), 503, "store_unavailable"),
    ],
)
def test_http_replay_data_and_an_outage_through_the_handlers(
    error: BasraError, status: int, code: str
) -> None:
    # no route of the API reads a replay file or can take the database away at will: the
    # handlers answer a request whose route raises one
    with TestClient(_raising(error)) as client:
        response = client.get("/boom")
    assert _error(response) == (status, code)
    assert response.json()["error"]["message"] == error.message


def test_http_a_class_under_no_cause_is_a_500_not_a_guess() -> None:
    class LaterSeatError(BasraError):
        code = "later_seat"

    with TestClient(_raising(LaterSeatError("seat 1 is taken"))) as client:
        response = client.get("/boom")
    assert _error(response) == (500, "internal_error")
    assert "seat 1" not in response.text


def _run(*args: str) -> Result:
    from cli.common import app as basra  # every command is registered: all of cli is imported above

    return CliRunner().invoke(basra, list(args), env=ISOLATED)


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, str]:
    """A SQLite store with one finished bot match; its id."""
    path = tmp_path / "basra.db"
    result = _run(
        "simulate", "--ruleset", "classic", "--seats", "2", "--seed", "e", "--db", str(path)
    )
    assert result.exit_code == 0, result.stderr
    return path, result.stdout.split()[0]


def _one_line(result: Result, status: int, start: str) -> None:
    assert result.exit_code == status, result.stderr
    assert result.stderr.startswith(f"error: {start}") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output


def test_cli_a_rules_refusal(tmp_path: Path) -> None:
    result = _run(
        "simulate", "--ruleset", "nope", "--seats", "2", "--db", str(tmp_path / "basra.db")
    )
    _one_line(result, 1, "")
    assert "nope" in result.stderr


def test_cli_a_request_error(db: tuple[Path, str]) -> None:
    _one_line(_run("replay", "m-nowhere", "--db", str(db[0])), 1, "no match 'm-nowhere'")


def test_cli_a_store_fault(db: tuple[Path, str]) -> None:
    # given a stored event that can no longer be read
    path, match_id = db
    with sqlite3.connect(path) as connection:
        write_raw_row(connection, match_id, 2, b"{not json")
    # when the match is replayed, then the store fault exits 65 (the stored data is damaged)
    result = _run("replay", match_id, "--step", "3", "--db", str(path))
    _one_line(result, 65, f"match {match_id}: stored event seq 2 cannot be read")


def test_cli_replay_data(tmp_path: Path, db: tuple[Path, str]) -> None:
    # given a replay file whose second line is not an event
    path, match_id = db
    exported = tmp_path / "m.jsonl"
    assert _run("export", match_id, "--db", str(path), "--output", str(exported)).exit_code == 0
    lines = exported.read_text().splitlines()
    lines[1] = json.dumps({"seq": 1})
    exported.write_text("\n".join(lines) + "\n")
    # when it is imported, then it is refused at that line, exit 1
    result = _run("import", str(exported), "--db", str(path))
    _one_line(result, 1, "line 2: ")
