"""Refused commands on a match kept as evidence for support (docs/support.md).

An ``after_exception`` hook of the app: when a command on a match (a ``POST``/``PATCH``/
``DELETE`` under ``/matches/{id}``) is refused by the rules (a late play's ``turn_expired``, not
this seat's turn, a card not in hand, a seat taken, leaving an ended match) or as stale
(``conflict``), and its caller proves to be a seat, a player or an agent, the refusal is kept
(app.service.desk_records) with when it arrived (µs), who, the request id, the code and the state
it met: seq, whose turn, the deadline in force and by how much it was missed. A refusal whose
caller cannot be authenticated is only counted, in ``/metrics``; so are 429s and 503s (by status,
in the request histogram).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from litestar.types import Scope
from prometheus_client import Counter

from app.api.edges.auth import authenticate
from app.api.edges.metrics import request_id_of
from app.errors import ConflictError
from app.runtime.runtime import ApiRuntime
from domain.desk import CommandRefused
from domain.errors import BasraError, RulesRefusalError, TurnExpiredError
from domain.times import utc_micros

log = logging.getLogger("basra.api")

UNRECORDED: Final = Counter(
    "basra_refusals_unrecorded_total",
    "Refused commands on a match not kept for support: the caller could not be authenticated.",
    ["code"],
)

_COMMANDS: Final = frozenset({"POST", "PATCH", "DELETE", "PUT"})


def _refused(exc: Exception) -> bool:
    return isinstance(exc, RulesRefusalError | ConflictError)


async def keep_refusal(exc: Exception, scope: Scope) -> None:
    """The app's ``after_exception`` hook: keep a refused command on a match for support."""
    if (
        str(scope.get("type")) != "http"
        or scope.get("method") not in _COMMANDS
        or not _refused(exc)
    ):
        return
    match_id = (scope.get("path_params") or {}).get("match_id")
    if not isinstance(match_id, str):
        return
    arrived_us = time.time_ns() // 1000
    app: Any = scope.get("app")
    runtime: ApiRuntime | None = getattr(getattr(app, "state", None), "runtime", None)
    if runtime is None:
        return
    code = exc.code if isinstance(exc, BasraError) else "refused"
    headers = dict(scope.get("headers") or ())
    raw = headers.get(b"authorization")
    try:
        authorization = raw.decode("latin-1") if raw is not None else None
        who = await authenticate(runtime, authorization, match_id)
    except BasraError:
        UNRECORDED.labels(code).inc()
        return
    try:
        await runtime.call(
            _keep,
            runtime,
            exc,
            match_id,
            who.caused_by,
            who.seat,
            code,
            str(scope.get("basra_request_id") or request_id_of(scope)),
            arrived_us,
            str(scope.get("path_template", "")),
        )
    except BasraError as error:  # the record is evidence, never the answer: the refusal stands
        log.warning("a refused command could not be kept: %s", error.message)


def _keep(
    runtime: ApiRuntime,
    exc: Exception,
    match_id: str,
    principal: str,
    seat: int,
    code: str,
    request_id: str,
    arrived_us: int,
    route: str,
) -> None:
    state = runtime.service.load(match_id)
    deadline = state.deadline
    late_us: int | None = None
    if isinstance(exc, TurnExpiredError) and exc.deadline is not None:
        deadline = exc.deadline
        arrived_us = exc.arrived_us if exc.arrived_us is not None else arrived_us
    if deadline is not None and arrived_us >= utc_micros(deadline):
        late_us = arrived_us - utc_micros(deadline)
    refused = CommandRefused(
        at_us=arrived_us,
        match_id=match_id,
        principal=principal,
        seat=seat if seat >= 0 else None,
        request_id=request_id,
        route=route,
        code=code,
        seq=state.events,
        turn=state.turn,
        deadline=deadline,
        late_us=late_us,
    )
    runtime.desk_records.record_refusal(refused)
