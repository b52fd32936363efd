"""No token is ever written to a log: a filter on the servers' loggers blanks them out.

Access logs write each request line as it came, query string included, so a seat's
``?access_token=`` (the one route an EventSource reaches without headers) would land there in
full. The filter rewrites every record of the access and error loggers before it is written.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from typing import Any, Final
from urllib.parse import quote, quote_plus, unquote, unquote_plus

REDACTED: Final = "[redacted]"
"""What a token is replaced with."""

SUPPORT_TOKEN_ENV: Final = "BASRA_SUPPORT_TOKEN"
"""Where a serving process finds the support token (app.api.settings reads the same)."""

_SECRETS: Final = (
    re.compile(r"(?i)((?:^|[?&;\s])(?:access_token|ticket)=)[^&;\s\"]*"),
    re.compile(r"(?i)(\bbearer\s+)[^\s\"',;]+"),
    # A token that says what it is by its prefix (app.api.edges.tokens): all but the prefix goes,
    # dotted parts included (a player token is player_PLAYER_ID.SECRET, a seat token
    # seat_MATCH.SEAT.TOKEN_ID.SECRET), so no secret survives after a dot.
    re.compile(r"(\b(?:player|seat|agent|ticket)_)(?:[\w-]+\.)*[\w-]{20,}(?:\.[\w-]+)*"),
    # A seat token issued before prefixes (MATCH.SEAT.TOKEN_ID.SECRET): its secret part goes.
    re.compile(r"(\b[\w-]+\.\d\.[0-9a-f]{8}\.)[\w-]{20,}"),
)
"""A token or ticket in a query string, one in an Authorization value, a seat token's secret,
and any prefixed token (``player_``, ``seat_``, ``agent_``, ``ticket_``) wherever it appears."""

LOGGERS: Final = (
    "uvicorn.access",
    "uvicorn.error",
    "granian.access",
    "granian",
    "basra.api",
    "basra.api.requests",
)
"""The loggers a serving process writes requests and errors to."""


CREDENTIAL_PARAMETERS: Final = frozenset({"access_token", "ticket"})
"""Query parameters that carry a credential, by their decoded name (docs/api.md, "access")."""

_TARGET: Final = re.compile(r"[^\s\"'<>]*[/?%][^\s\"'<>]*")
"""A run of text that may be a request target (a path, a query, percent-encoding)."""

_TOKEN_SHAPE: Final = (_SECRETS[2], _SECRETS[3])
"""The shapes of issued tokens (prefixed, and seat tokens from before prefixes)."""

_configured: list[str] = []
"""Values configured on the server that are credentials (the support token), and their
percent-encoded spellings: blanked wherever they appear."""


def _looks_issued(value: str) -> bool:
    """True when ``value`` (decoded, trimmed) has an issued token's shape."""
    token = value.strip()
    return any(pattern.search(token) for pattern in _TOKEN_SHAPE) or token in _configured


def _redact_target(match: re.Match[str]) -> str:
    """A request target with a credential's value blanked in every parameter whose decoded
    name carries one, and every path segment or value that decodes to an issued token."""
    target = match.group(0)
    path, mark, query = target.partition("?")
    segments = path.split("/")
    path = "/".join(REDACTED if _looks_issued(unquote(s)) else s for s in segments)
    if not mark:
        return path
    pairs = []
    for pair in re.split(r"([&;])", query):
        name, equals, value = pair.partition("=")
        decoded = unquote_plus(name).strip().lower()
        if equals and (decoded in CREDENTIAL_PARAMETERS or _looks_issued(unquote_plus(value))):
            pairs.append(f"{name}={REDACTED}")
        else:
            pairs.append(pair)
    return path + mark + "".join(pairs)


def redact(text: str) -> str:
    """``text`` with every token replaced by ``[redacted]``: tokens by their shape, credential
    parameters by their decoded name, path segments that decode to a token, and the server's
    configured support token in any spelling."""
    for secret in _configured:
        text = text.replace(secret, REDACTED)
    text = _TARGET.sub(_redact_target, text)
    for pattern in _SECRETS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def configure_redaction(support_token: str | None) -> None:
    """Blank the server's support token (``BASRA_SUPPORT_TOKEN``) wherever it appears, as it
    is and percent-encoded, in every log line of this process."""
    spellings: set[str] = set()
    if support_token:
        spellings = {support_token, quote(support_token, safe=""), quote_plus(support_token)}
        spellings |= {s.lower() for s in spellings if "%" in s}
    _configured[:] = sorted(spellings, key=len, reverse=True)


def _clean(value: object) -> object:
    return redact(value) if isinstance(value, str) else value


class RedactTokens(logging.Filter):
    """Blanks out tokens in a record's message and arguments; lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` in place."""
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, dict):
            record.args = {key: _clean(value) for key, value in record.args.items()}
        elif isinstance(record.args, tuple):
            record.args = tuple(_clean(value) for value in record.args)
        return True


_FILTER: Final = RedactTokens()


def redact_server_logs() -> None:
    """Put the filter on every logger of a serving process (after logging is configured), with
    the support token of its environment blanked too."""
    configure_redaction(os.environ.get(SUPPORT_TOKEN_ENV))
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


LOG_FORMATS: Final = ("text", "json")
"""What ``basra serve --log-format`` takes."""

LOG_FORMAT_ENV: Final = "BASRA_LOG_FORMAT"
"""Where the chosen format reaches worker processes."""


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and a request's own fields.

    The message and every text field pass through ``redact`` here as well as through the
    loggers' filter, so a handler that missed the filter still writes no token.
    """

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line (no newline inside it)."""
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "pid": record.process,
            "message": redact(record.getMessage()),
        }
        fields = getattr(record, "request", None)
        if isinstance(fields, dict):
            line.update({key: _clean(value) for key, value in fields.items()})
        if record.exc_info:
            line["error"] = redact(self.formatException(record.exc_info))
        return json.dumps(line, separators=(",", ":"), default=str)


def log_config(log_format: str, level: str = "info") -> dict[str, Any] | None:
    """The ``logging.config`` dict of a serving process; None keeps the server's own (text).

    ``json``: every record of the server's and the API's loggers as a JSON line on stderr,
    with one line per request (``basra.api.requests``) carrying its request id.
    """
    if log_format not in LOG_FORMATS:
        raise ValueError(f"the log format is text or json, not {log_format!r}")
    if log_format == "text":
        return None
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    named = {"handlers": ["json"], "level": level.upper(), "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "app.api.edges.logs.JsonLines"}},
        "handlers": {"json": handler},
        "loggers": {
            "uvicorn": named,
            "uvicorn.error": {"level": level.upper()},
            # the request lines replace the server's access lines
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            "granian": named,
            "granian.access": {"handlers": [], "level": "WARNING", "propagate": False},
            "basra": named,
            "basra.api.requests": {"level": "INFO"},
        },
    }
