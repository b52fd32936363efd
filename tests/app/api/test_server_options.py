"""``basra serve``'s choice of server, HTTP parser and event loop, checked before anything opens."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from app.api.server import ServeError, ServeOptions, _uvicorn_options, check_options
from cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(
    "options",
    [
        ServeOptions(),
        ServeOptions(http="h11", loop="asyncio"),
        ServeOptions(http="httptools", loop="uvloop"),
        ServeOptions(server="granian", loop="asyncio"),
    ],
)
def test_the_servers_parsers_and_loops_it_can_run_are_accepted(options: ServeOptions) -> None:
    check_options(options)  # no error


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ServeOptions(server="hypercorn"), "unknown server"),
        (ServeOptions(http="h2"), "--http is auto, httptools or h11"),
        (ServeOptions(loop="trio"), "--loop is auto, uvloop or asyncio"),
        (ServeOptions(server="granian", http="h11"), "granian parses HTTP itself"),
    ],
)
def test_a_server_parser_or_loop_it_cannot_run_is_refused(
    options: ServeOptions, message: str
) -> None:
    with pytest.raises(ServeError, match=message):
        check_options(options)


def test_uvicorn_is_given_the_chosen_parser_and_loop() -> None:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    from app.api.edges.connections import ConnectionGuard

    given = _uvicorn_options(ServeOptions(http="h11", loop="asyncio"))

    # the chosen parser's protocol, with the guard against idle connections around it
    assert issubclass(given["http"], H11Protocol)
    assert issubclass(given["http"], ConnectionGuard)
    assert given["loop"] == "asyncio"


def test_the_default_parser_and_loop_are_the_c_ones_installed_with_the_project() -> None:
    # auto picks them when importable; they are dependencies, so a plain install has them.
    pytest.importorskip("uvloop")
    import httptools  # noqa: F401
    from uvicorn.config import Config

    config = Config(app=lambda *_: None, **_uvicorn_options(ServeOptions()))
    config.load()

    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    assert issubclass(config.http_protocol_class, HttpToolsProtocol)
    assert config.http_protocol_class.__name__ == "GuardedHttpToolsProtocol"


def test_an_unknown_loop_is_one_line_on_the_command_line() -> None:
    result = runner.invoke(app, ["serve", "--loop", "trio", "--port", "0"])

    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: --loop is auto, uvloop or asyncio, not 'trio'"
    ]
