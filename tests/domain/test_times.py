"""The one text form of an instant (domain/times.py): record times, deadlines, and support's
millisecond records, written and read back the same everywhere."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.times import canonical_micros, utc_micros, utc_text_ms, utc_text_us

# 0001-01-01 to 9999-12-31, as microseconds from the Unix epoch
FIRST_US = -62_135_596_800_000_000
LAST_US = 253_402_300_799_999_999


@given(st.integers(FIRST_US, LAST_US))
def test_a_record_time_reads_back_to_the_same_instant_and_is_in_the_one_form(us: int) -> None:
    # given any instant of the years 1-9999, when written as a record time
    text = utc_text_us(us)
    # then it reads back to the instant, and is the canonical form
    assert len(text) == 27 and text.endswith("Z")
    assert utc_micros(text) == us
    assert canonical_micros(text) == us


def test_support_records_are_cut_to_the_millisecond() -> None:
    # given an instant with microseconds, when written as support's record time
    # then the microseconds are cut off, not rounded
    us = utc_micros("2030-01-01T00:00:00.123999Z")
    assert utc_text_ms(us) == "2030-01-01T00:00:00.123Z"


def test_only_the_exact_form_of_a_real_instant_is_canonical() -> None:
    # given texts that are not exactly a real instant in the one form, then none is canonical
    for text in [
        "2026-02-30T00:00:00.000000Z",  # no such day
        "0000-01-01T00:00:00.000000Z",  # before year 1
        "2026-01-01T24:00:00.000000Z",
        "2026-01-01 00:00:00.000000Z",
        "2026-01-01T00:00:00.12345Z",
        "2026-01-01T00:00:00.000000+00:00",
    ]:
        assert canonical_micros(text) is None, text
    assert canonical_micros("2026-02-28T23:59:59.999999Z") is not None
