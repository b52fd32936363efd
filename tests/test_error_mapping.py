"""Errors by cause: every error class has one cause and is mapped to an HTTP status and an exit.

The classes are found by walking ``BasraError``'s subclasses after importing every module of
the four packages, so a class added later without a mapping fails here.
"""

from __future__ import annotations

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
from app.api.error_handlers import EXCEPTION_HANDLERS
from app.api.errors import HTTP_STATUS, ApiError, status_of
from app.api.settings import ApiSettings
from app.errors import ConflictError, StoreFaultError, StoreUnavailableError
from app.service import MatchService
from cli.errors import EX_SOFTWARE, EXIT_CODE, exit_code_of
from domain.errors import BasraError, RequestError, RulesRefusalError, SeatTakenError
from replays.errors import ReplayDataError, StreamError
from tests.stored_rows import write_raw_row

CAUSES = (RulesRefusalError, RequestError, StoreFaultError, ReplayDataError)
"""The four causes: every concrete error class is under exactly one."""

ABSTRACT = {BasraError, *CAUSES, ApiError}
"""The bases, never raised themselves."""

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
        if cls.__module__.split(".")[0] in {"domain", "replays", "app", "cli"}:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


CLASSES = _project_classes()
CONCRETE = sorted((c for c in CLASSES if c not in ABSTRACT), key=lambda c: c.__qualname__)


def test_the_walk_finds_every_layer() -> None:
    # given every module imported, then classes of all four packages are found
    modules = {c.__module__.split(".")[0] for c in CONCRETE}
    assert modules >= {"domain", "app", "replays"}
    assert len(CONCRETE) >= 40


@pytest.mark.parametrize("cls", CONCRETE, ids=lambda c: c.__qualname__)
def test_every_error_class_has_one_cause_its_own_code_and_both_mappings(
    cls: type[BasraError],
) -> None:
    # then it is under exactly one cause, names its own code, and both tables map it
    assert sum(issubclass(cls, cause) for cause in CAUSES) == 1, cls.__mro__
    assert "code" in vars(cls), f"{cls.__qualname__} has no code of its own"
    assert cls in EXIT_CODE, f"{cls.__qualname__} has no exit status in cli.errors.EXIT_CODE"
    if not cls.__module__.startswith("cli."):  # the API cannot import the command line
        assert cls in HTTP_STATUS, f"{cls.__qualname__} has no status in HTTP_STATUS"


def test_codes_are_unique() -> None:
    codes = [c.code for c in CLASSES]
    assert len(codes) == len(set(codes))


def test_rules_refusals_come_only_from_the_rules() -> None:
    # the rules-refusal base means "the rules refuse this", and nothing else
    refusals = [c for c in CONCRETE if issubclass(c, RulesRefusalError)]
    assert refusals and all(c.__module__ == "domain.errors" for c in refusals)


def test_the_tables_hold_only_concrete_classes_and_have_no_default() -> None:
    # given a new class under a mapped one, that neither table lists
    class LaterSeatError(SeatTakenError):
        code = "later_seat"

    error = LaterSeatError("x")
    # then neither table answers for it through its parent
    assert status_of(error) is None
    assert exit_code_of(error) == EX_SOFTWARE
    assert not ABSTRACT & (set(HTTP_STATUS) | set(EXIT_CODE))
    assert all(400 <= status <= 599 for status in HTTP_STATUS.values())
    assert all(0 < code < 126 for code in EXIT_CODE.values())


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
    # then the rules refuse it with the status the table gives
    assert _error(response) == (HTTP_STATUS[SeatTakenError], "seat_taken") == (409, "seat_taken")


def test_http_a_request_error(api: TestClient[Litestar]) -> None:
    response = api.get("/matches/m-nowhere")
    assert _error(response) == (404, "match_not_found")


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
    # then the store's refusal to append is 409 conflict, as the table says
    assert _error(response) == (HTTP_STATUS[ConflictError], "conflict") == (409, "conflict")


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


def test_http_an_unmapped_class_is_a_500_not_a_guess() -> None:
    class LaterSeatError(SeatTakenError):
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
