"""The API's settings, read once from the environment when the app is built."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.api.limits_config import DEFAULT_LIMITS, Limits, parse_limits

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
    replay file) on threads; ``auto`` is inline on SQLite and threads on PostgreSQL.
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

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """``BASRA_SUPPORT_TOKEN``, ``BASRA_TEST_MODE=1``, ``BASRA_API_THREADS``,
        ``BASRA_API_STORE_CALLS`` (``auto``, ``inline`` or ``threads``), ``BASRA_CORS_ORIGINS``,
        ``BASRA_TRUSTED_PROXIES`` and ``BASRA_RATE_LIMITS`` (docs/api.md, "CORS and limits")."""
        env = os.environ if environ is None else environ
        token = env.get("BASRA_SUPPORT_TOKEN") or None
        return cls(
            support_token=token,
            test_mode=env.get("BASRA_TEST_MODE", "") in ("1", "true", "yes"),
            store_threads=int(env.get("BASRA_API_THREADS") or 8),
            store_calls=env.get("BASRA_API_STORE_CALLS") or "auto",
            cors_origins=split_list(env.get("BASRA_CORS_ORIGINS", "")),
            trusted_proxies=split_list(env.get("BASRA_TRUSTED_PROXIES", "")),
            limits=parse_limits(split_list(env.get("BASRA_RATE_LIMITS", ""))),
        )
