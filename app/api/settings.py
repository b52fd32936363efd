"""The API's settings, read once from the environment when the app is built."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

MAX_BODY_BYTES = 16 * 1024
"""The largest request body accepted; every body of this API is far smaller."""


@dataclass(frozen=True)
class ApiSettings:
    """Support token, test mode and the knobs of live events and worker threads."""

    support_token: str | None = None
    test_mode: bool = False
    max_body_bytes: int = MAX_BODY_BYTES
    keepalive_seconds: float = 15.0
    follow_every_seconds: float = 0.5
    store_threads: int = 8

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """``BASRA_SUPPORT_TOKEN``, ``BASRA_TEST_MODE=1`` and ``BASRA_API_THREADS``."""
        env = os.environ if environ is None else environ
        token = env.get("BASRA_SUPPORT_TOKEN") or None
        return cls(
            support_token=token,
            test_mode=env.get("BASRA_TEST_MODE", "") in ("1", "true", "yes"),
            store_threads=int(env.get("BASRA_API_THREADS") or 8),
        )
