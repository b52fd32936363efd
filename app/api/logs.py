"""No token is ever written to a log: a filter on the servers' loggers blanks them out.

Access logs write each request line as it came, query string included, so a seat's
``?access_token=`` (the one route an EventSource reaches without headers) would land there in
full. The filter rewrites every record of the access and error loggers before it is written.
"""

from __future__ import annotations

import logging
import re
from typing import Final

REDACTED: Final = "[redacted]"
"""What a token is replaced with."""

_SECRETS: Final = (
    re.compile(r"(?i)((?:^|[?&;\s])(?:access_token|ticket)=)[^&;\s\"]*"),
    re.compile(r"(?i)(\bbearer\s+)[^\s\"',;]+"),
    # A token that says what it is by its prefix (app.api.tokens): all but the prefix goes,
    # dotted parts included (a player token is player_PLAYER_ID.SECRET, a seat token
    # seat_MATCH.SEAT.TOKEN_ID.SECRET), so no secret survives after a dot.
    re.compile(r"(\b(?:player|seat|agent|ticket)_)(?:[\w-]+\.)*[\w-]{20,}(?:\.[\w-]+)*"),
    # A seat token issued before prefixes (MATCH.SEAT.TOKEN_ID.SECRET): its secret part goes.
    re.compile(r"(\b[\w-]+\.\d\.[0-9a-f]{8}\.)[\w-]{20,}"),
)
"""A token or ticket in a query string, one in an Authorization value, a seat token's secret,
and any prefixed token (``player_``, ``seat_``, ``agent_``, ``ticket_``) wherever it appears."""

LOGGERS: Final = ("uvicorn.access", "uvicorn.error", "granian.access", "granian", "basra.api")
"""The loggers a serving process writes requests and errors to."""


def redact(text: str) -> str:
    """``text`` with every token replaced by ``[redacted]``."""
    for pattern in _SECRETS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


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
    """Put the filter on every logger of a serving process (after logging is configured)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
