"""The API's settings, read once from the environment when the app is built."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

MAX_BODY_BYTES = 16 * 1024
"""The largest request body accepted; every body of this API is far smaller."""


@dataclass(frozen=True)
class ApiSettings:
    """Support token, test mode and the knobs of live events and store calls.

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

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """``BASRA_SUPPORT_TOKEN``, ``BASRA_TEST_MODE=1``, ``BASRA_API_THREADS`` and
        ``BASRA_API_STORE_CALLS`` (``auto``, ``inline`` or ``threads``)."""
        env = os.environ if environ is None else environ
        token = env.get("BASRA_SUPPORT_TOKEN") or None
        return cls(
            support_token=token,
            test_mode=env.get("BASRA_TEST_MODE", "") in ("1", "true", "yes"),
            store_threads=int(env.get("BASRA_API_THREADS") or 8),
            store_calls=env.get("BASRA_API_STORE_CALLS") or "auto",
        )
