"""The API's settings, read once from the environment when the app is built."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from app.api.edges.limits_config import DEFAULT_LIMITS, Limits, parse_limits
from app.config import StoreKind
from domain.pool import PoolWindow

TURN_SECONDS = 120
"""R25: the turn time of a table created without one (``--turn-seconds``)."""

WAITING_MINUTES = 30.0
"""How long a table may wait for players before it is closed (``--waiting-minutes``)."""

REMATCH_WAIT_SECONDS = 120.0
"""How long a feed open at a match's end waits for its rematch (``BASRA_REMATCH_WAIT_SECONDS``)."""

PRESENCE_FOLLOW_SECONDS = 1.0
"""How often a process reads the other processes' presence rows
(``BASRA_PRESENCE_FOLLOW_SECONDS``)."""

PRESENCE_BEAT_SECONDS = 5.0
"""How often a process refreshes its presence rows (``BASRA_PRESENCE_BEAT_SECONDS``)."""

PRESENCE_EXPIRY_SECONDS = 30.0
"""A presence row whose beat is older counts as gone: its process crashed
(``BASRA_PRESENCE_EXPIRY_SECONDS``)."""
SHED_LAG_MS = 250.0
"""The event loop's lag (ms) past which a process sheds new work (``BASRA_SHED_LAG_MS``)."""

SHED_WAIT_MS: Final[Mapping[StoreKind, float]] = {"sqlite": 0.5, "postgres": 2.0, "memory": 2.0}
"""By store, the median wait (ms) of the last second's store calls for a thread past which a
process admits new tables more slowly, and refuses spectator feeds and lobby reads once it lasts
a second (``BASRA_SHED_WAIT_MS`` sets one for every store; 0: never for this): its calls queue,
and the tables already playing wait with them (app/api/edges/admission.py; docs/deploy.md,
"Shedding load"). On SQLite a call is a local read or a grouped commit, and 0.5 ms of queueing
already lengthens the playing tables' slowest plays; on PostgreSQL every call waits on the
network and on other processes' commits, and a process past 0.5 ms still holds all its tables
(docs/performance.md, "Capacity at human pace")."""

SHED_LATENCY_MS: Final[Mapping[StoreKind, float]] = {
    "sqlite": 5.0,
    "postgres": 10.0,
    "memory": 0.0,
}
"""By store, the median time (ms) to answer a request, over half a second, past which a process
serving requests concurrently admits new tables more slowly, and refuses spectator feeds and lobby
reads once it lasts a second, even when under twice its floor (``BASRA_SHED_LATENCY_MS`` sets one
for every store; 0: never for this, floor included): its requests wait for each other, and the
tables already playing with them (app/api/edges/admission.py; docs/deploy.md, "Shedding load").
On SQLite a request that waits for nothing takes 1.5-3 ms, and a median past 5 ms is a standing
queue (the same target as a router's CoDel); on PostgreSQL every play also waits for the network
and a commit shared with other processes. Off on the in-memory store, which tests use: its times
say nothing of a deployment (docs/performance.md, "Capacity at human pace")."""

SHED_CPU = 0.9
"""The share of one core past which a process serving requests concurrently counts as full and
admits new tables more slowly (``BASRA_SHED_CPU``; 0: never for this;
app/api/edges/admission.py; docs/deploy.md, "Shedding load")."""

MAX_BODY_BYTES = 16 * 1024
"""The largest request body accepted; every body of this API is far smaller."""


def split_list(text: str) -> tuple[str, ...]:
    """A list written in one environment variable: separated by commas or white space."""
    return tuple(part for part in text.replace(",", " ").split() if part)


@dataclass(frozen=True)
class ApiSettings:
    """Support token, test mode, the knobs of live events and store calls, CORS and limits.

    ``store_calls``: ``threads`` runs every store call on a worker thread; ``inline`` runs short
    ones (commands, views, previews) on the event loop and only long reads (a feed's backlog, a
    replay file) on threads; ``auto`` is inline on the in-memory store only (tests) and threads
    on SQLite and PostgreSQL (app/runtime/runtime.py says why).
    """

    support_token: str | None = None
    test_mode: bool = False
    max_body_bytes: int = MAX_BODY_BYTES
    keepalive_seconds: float = 15.0
    follow_every_seconds: float = 0.5
    store_threads: int = 8
    store_calls: str = "auto"
    cors_origins: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ()
    limits: Limits = field(default_factory=lambda: DEFAULT_LIMITS)
    turn_seconds: int = TURN_SECONDS
    waiting_minutes: float = WAITING_MINUTES
    test_clock: tuple[int, float] | None = None
    # How long a feed that saw its match end stays open for a rematch_created (docs/api.md).
    rematch_wait_seconds: float = REMATCH_WAIT_SECONDS
    # Who is connected now (docs/api.md, "Connected now"): app/runtime/presence.py.
    presence_follow_seconds: float = PRESENCE_FOLLOW_SECONDS
    presence_beat_seconds: float = PRESENCE_BEAT_SECONDS
    presence_expiry_seconds: float = PRESENCE_EXPIRY_SECONDS
    # Shedding (app.api.edges.shedding): the event loop's lag past which a process refuses new
    # tables, spectator feeds and lobby reads (0: never for lag), and the open feeds past which
    # it does (0: no cap).
    shed_lag_ms: float = SHED_LAG_MS
    shed_wait_ms: float | None = None  # the store calls' median wait that slows admission
    shed_cpu: float = SHED_CPU  # the share of a core that does
    shed_latency_ms: float | None = None  # the median time a request that does
    max_feeds: int = 0
    # The rated pool's rating window: START, STEP, EVERY seconds, WIDEST (docs/api.md).
    pool_window: PoolWindow = field(default_factory=PoolWindow)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """``BASRA_SUPPORT_TOKEN``, ``BASRA_TEST_MODE=1``, ``BASRA_API_THREADS``,
        ``BASRA_API_STORE_CALLS`` (``auto``, ``inline`` or ``threads``), ``BASRA_CORS_ORIGINS``,
        ``BASRA_TRUSTED_PROXIES`` and ``BASRA_RATE_LIMITS`` (docs/api.md, "CORS and limits"),
        ``BASRA_TURN_SECONDS`` and ``BASRA_WAITING_MINUTES`` (docs/api.md, "The turn clock"),
        ``BASRA_PRESENCE_FOLLOW_SECONDS``, ``BASRA_PRESENCE_BEAT_SECONDS`` and
        ``BASRA_PRESENCE_EXPIRY_SECONDS`` (docs/api.md, "Connected now"),
        ``BASRA_SHED_LAG_MS``, ``BASRA_SHED_WAIT_MS``, ``BASRA_SHED_CPU``,
        ``BASRA_SHED_LATENCY_MS`` and ``BASRA_MAX_FEEDS`` (docs/deploy.md, "Shedding load"),
        ``BASRA_POOL_WINDOW`` (docs/api.md, "Rated pool")."""
        env = os.environ if environ is None else environ
        token = env.get("BASRA_SUPPORT_TOKEN") or None
        test_mode = env.get("BASRA_TEST_MODE", "") in ("1", "true", "yes")
        return cls(
            support_token=token,
            test_mode=test_mode,
            store_threads=int(env.get("BASRA_API_THREADS") or 8),
            store_calls=env.get("BASRA_API_STORE_CALLS") or "auto",
            cors_origins=split_list(env.get("BASRA_CORS_ORIGINS", "")),
            trusted_proxies=split_list(env.get("BASRA_TRUSTED_PROXIES", "")),
            limits=parse_limits(split_list(env.get("BASRA_RATE_LIMITS", ""))),
            turn_seconds=turn_seconds(env.get("BASRA_TURN_SECONDS") or str(TURN_SECONDS)),
            waiting_minutes=waiting_minutes(
                env.get("BASRA_WAITING_MINUTES") or str(WAITING_MINUTES)
            ),
            test_clock=parse_test_clock(env.get("BASRA_TEST_CLOCK", "")) if test_mode else None,
            rematch_wait_seconds=float(
                env.get("BASRA_REMATCH_WAIT_SECONDS") or REMATCH_WAIT_SECONDS
            ),
            presence_follow_seconds=seconds(
                "BASRA_PRESENCE_FOLLOW_SECONDS", env, PRESENCE_FOLLOW_SECONDS
            ),
            presence_beat_seconds=seconds(
                "BASRA_PRESENCE_BEAT_SECONDS", env, PRESENCE_BEAT_SECONDS
            ),
            presence_expiry_seconds=seconds(
                "BASRA_PRESENCE_EXPIRY_SECONDS", env, PRESENCE_EXPIRY_SECONDS
            ),
            shed_lag_ms=float(env.get("BASRA_SHED_LAG_MS") or SHED_LAG_MS),
            shed_wait_ms=optional_float(env.get("BASRA_SHED_WAIT_MS")),
            shed_cpu=float(env.get("BASRA_SHED_CPU") or SHED_CPU),
            shed_latency_ms=optional_float(env.get("BASRA_SHED_LATENCY_MS")),
            max_feeds=int(env.get("BASRA_MAX_FEEDS") or 0),
            pool_window=parse_pool_window(env.get("BASRA_POOL_WINDOW", "")),
        ).checked()

    def shed_wait_ms_on(self, kind: StoreKind) -> float:
        """The store calls' median wait (ms) that makes a process on a store of ``kind`` full:
        ``BASRA_SHED_WAIT_MS`` when set, else that store's own (``SHED_WAIT_MS``)."""
        return SHED_WAIT_MS[kind] if self.shed_wait_ms is None else self.shed_wait_ms

    def shed_latency_ms_on(self, kind: StoreKind) -> float:
        """The median time (ms) to answer a request that makes a process on a store of ``kind``
        full: ``BASRA_SHED_LATENCY_MS`` when set, else that store's own (``SHED_LATENCY_MS``)."""
        return SHED_LATENCY_MS[kind] if self.shed_latency_ms is None else self.shed_latency_ms

    def checked(self) -> ApiSettings:
        """These settings, or ValueError when they contradict each other: a presence heartbeat
        must come more often than its expiry, or live processes would count as gone."""
        if self.presence_beat_seconds >= self.presence_expiry_seconds:
            raise ValueError(
                f"BASRA_PRESENCE_BEAT_SECONDS ({self.presence_beat_seconds}) must be below"
                f" BASRA_PRESENCE_EXPIRY_SECONDS ({self.presence_expiry_seconds})"
            )
        return self


def optional_float(text: str | None) -> float | None:
    """A number set in an environment variable, or None when it is unset or empty."""
    return float(text) if text else None


def parse_pool_window(text: str) -> PoolWindow:
    """``START,STEP,EVERY,WIDEST`` (points, points, seconds, points), e.g. ``100,50,5,500``;
    empty for those defaults; ValueError otherwise."""
    if not text.strip():
        return PoolWindow()
    parts = split_list(text)
    try:
        start, step, every, widest = int(parts[0]), int(parts[1]), float(parts[2]), int(parts[3])
    except (ValueError, IndexError):
        raise ValueError(f"BASRA_POOL_WINDOW is START,STEP,EVERY,WIDEST, not {text!r}") from None
    if len(parts) != 4 or start < 0 or step < 0 or every <= 0 or widest < start:
        raise ValueError(f"BASRA_POOL_WINDOW is START,STEP,EVERY,WIDEST, not {text!r}")
    return PoolWindow(start, step, every, widest)


def parse_test_clock(text: str) -> tuple[int, float] | None:
    """``ANCHOR_MS*SPEED`` (test mode only): the service's clock runs SPEED times faster than the
    wall clock after the Unix epoch millisecond ANCHOR_MS; empty for the wall clock."""
    if not text:
        return None
    anchor, _, speed = text.partition("*")
    try:
        return int(anchor), float(speed)
    except ValueError:
        raise ValueError(f"BASRA_TEST_CLOCK is ANCHOR_MS*SPEED, not {text!r}") from None


def turn_seconds(text: str) -> int:
    """The server's turn time in whole seconds, 1 to 600 (R25: a table's own is 5 to 600);
    ValueError otherwise."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 600:
        raise ValueError(f"the server's turn time is 1 to 600 whole seconds, not {text!r}")
    return value


def waiting_minutes(text: str) -> float:
    """A waiting period in minutes, above 0 (fractions allowed, e.g. 0.02 for 1.2 s)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise ValueError(f"the waiting time is a number of minutes above 0, not {text!r}")
    return value


def seconds(name: str, env: Mapping[str, str], default: float) -> float:
    """A number of seconds above 0 from the variable ``name`` (``default`` when unset)."""
    text = env.get(name) or str(default)
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} is a number of seconds above 0, not {text!r}")
    return value
