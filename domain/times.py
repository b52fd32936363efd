"""Instants as values (R25): the one place UTC instants are written as text and read back.

The rules never read a clock: the server passes ``now_us`` (Unix epoch microseconds, the
precision of a record time) in a command, and deadlines are written in the same form as a
recorded event's ``at``
(``YYYY-MM-DDTHH:MM:SS.ffffffZ``, docs/replay-format.md). Support's records (agents, the
access trail, tickets) are written to the millisecond (``YYYY-MM-DDTHH:MM:SS.fffZ``). The
calendar sums are done on whole numbers (the proleptic Gregorian calendar, as UTC counts it,
without leap seconds).
"""

from __future__ import annotations

import re
from typing import Final

_TEXT: Final = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?Z")
_DAY_US: Final = 86_400_000_000


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to the date y-m-d."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    """The date (y, m, d) ``z`` days after 1970-01-01."""
    z += 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


def utc_text(ms: int) -> str:
    """The instant ``ms`` milliseconds after the Unix epoch, as UTC text with microseconds."""
    return utc_text_us(ms * 1000)


def utc_text_us(micros: int) -> str:
    """The instant ``micros`` microseconds after the Unix epoch, as UTC text."""
    days, us = divmod(micros, _DAY_US)
    y, m, d = _civil_from_days(days)
    seconds, micro = divmod(us, 1_000_000)
    hh, rest = divmod(seconds, 3600)
    mm, ss = divmod(rest, 60)
    return f"{y:04d}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{micro:06d}Z"


def utc_text_ms(micros: int) -> str:
    """The instant ``micros`` microseconds after the Unix epoch as UTC text to the millisecond
    (the microseconds cut off): the form of support's records."""
    return utc_text_us(micros)[:23] + "Z"


def canonical_micros(text: str) -> int | None:
    """Microseconds since the Unix epoch of ``text`` when it is a real instant of the years
    0001-9999 written exactly in the one form, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; else None."""
    if len(text) != 27 or text.startswith("0000"):
        return None
    try:
        micros = utc_micros(text)
    except ValueError:
        return None
    return micros if utc_text_us(micros) == text else None


def utc_micros(text: str) -> int:
    """Microseconds since the Unix epoch of a UTC text instant (ValueError if not one)."""
    found = _TEXT.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a UTC instant such as 2026-01-02T03:04:05.000000Z")
    y, m, d, hh, mm, ss = (int(part) for part in found.groups()[:6])
    if not (1 <= m <= 12 and 1 <= d <= 31 and hh < 24 and mm < 60 and ss < 60):
        raise ValueError(f"{text!r} is not a UTC instant")
    micro = int((found.group(7) or "0").ljust(6, "0"))
    days = _days_from_civil(y, m, d)
    return days * _DAY_US + ((hh * 60 + mm) * 60 + ss) * 1_000_000 + micro


def reached(now_us: int, deadline: str) -> bool:
    """True when the instant ``now_us`` (epoch microseconds) is at or after ``deadline``."""
    return now_us >= utc_micros(deadline)


def after_seconds(now_us: int, seconds: int) -> str:
    """The UTC text ``seconds`` after ``now_us``: a turn's deadline, exact to the microsecond,
    so a turn is never a fraction of a millisecond short of its full time (R25)."""
    return utc_text_us(now_us + seconds * 1_000_000)


def later(first: str, second: str | None) -> str:
    """The later of two UTC text instants (``first`` when ``second`` is None or unreadable)."""
    if second is None:
        return first
    try:
        return second if utc_micros(second) > utc_micros(first) else first
    except ValueError:
        return first
