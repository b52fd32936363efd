"""The API's abuse limits as settings: what each one allows per client address, and defaults.

Written ``NAME=COUNT/UNIT`` (``players=20/hour``), ``feeds=COUNT`` (feeds open at once) or
``NAME=off``; names and defaults are in docs/api.md, "CORS and limits". Every limit is kept by
each API process on its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final, Literal, get_args

Unit = Literal["second", "minute", "hour", "day"]
"""The windows a rate is counted over (Litestar's rate-limit units)."""

SECONDS: Final[dict[Unit, int]] = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
"""The length of each window."""


@dataclass(frozen=True)
class Rate:
    """At most ``count`` in each window of one ``unit``."""

    count: int
    unit: Unit

    def __str__(self) -> str:
        return f"{self.count}/{self.unit}"


@dataclass(frozen=True)
class Limits:
    """Per client address: players registered, matches created, wrong tokens, feeds open.

    ``None`` is no limit.
    """

    players: Rate | None = None
    matches: Rate | None = None
    wrong_tokens: Rate | None = None
    feeds: int | None = None

    def describe(self) -> str:
        """The limits as ``BASRA_RATE_LIMITS`` would write them."""
        return ",".join(
            f"{name}={'off' if value is None else value}"
            for name, value in (
                ("players", self.players),
                ("matches", self.matches),
                ("wrong_tokens", self.wrong_tokens),
                ("feeds", self.feeds),
            )
        )


DEFAULT_LIMITS: Final = Limits(
    players=Rate(20, "hour"),
    matches=Rate(60, "minute"),
    wrong_tokens=Rate(20, "minute"),
    feeds=32,
)
"""What a deployment gets unless it says otherwise (docs/api.md, "CORS and limits")."""

NO_LIMITS: Final = Limits()
"""Every limit off (tests that are not about limits, and the load benchmarks)."""

RATE_NAMES: Final = ("players", "matches", "wrong_tokens")
"""The limits written ``COUNT/UNIT``."""


def _count(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1 or len(text) > 9:
        raise ValueError(f"{what} needs a whole number of at least 1, not {text!r}")
    return int(text)


def _rate(name: str, text: str) -> Rate:
    count, slash, unit = text.partition("/")
    if not slash or unit not in get_args(Unit):
        raise ValueError(
            f"{name} is written COUNT/UNIT (second, minute, hour or day), not {text!r}"
        )
    return Rate(_count(count, name), unit)  # type: ignore[arg-type]  # checked just above


def parse_limits(items: Iterable[str], base: Limits = DEFAULT_LIMITS) -> Limits:
    """``base`` with each ``NAME=VALUE`` of ``items`` applied; ValueError names a bad one."""
    limits = base
    for item in items:
        name, equals, value = item.strip().partition("=")
        name, value = name.strip(), value.strip()
        if not equals or name not in (*RATE_NAMES, "feeds"):
            raise ValueError(
                f"a limit is written NAME=VALUE with NAME one of players, matches, "
                f"wrong_tokens, feeds; not {item!r}"
            )
        if value == "off":
            limits = replace(limits, **{name: None})
        elif name == "feeds":
            limits = replace(limits, feeds=_count(value, name))
        elif name == "players":
            limits = replace(limits, players=_rate(name, value))
        elif name == "matches":
            limits = replace(limits, matches=_rate(name, value))
        else:
            limits = replace(limits, wrong_tokens=_rate(name, value))
    return limits
