"""Seat names: shown to everyone as what they are, never as a bot's."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import InvalidNameError
from domain.names import MAX_NAME_LENGTH, seat_name


@pytest.mark.parametrize(
    "text",
    [
        "easy bot",
        "random bot",
        "Easy Bot",
        "BOT",
        "my\tbot",
        "\uff42\uff4f\uff54",
        "x\u202ey",
        "a\x00b",
    ],
)
def test_names_that_pose_as_bots_or_hide_characters_are_refused(text: str) -> None:
    with pytest.raises(InvalidNameError):
        seat_name(text)


def test_a_name_is_trimmed_and_kept_as_written() -> None:
    assert seat_name("  Zoë Abbot ") == "Zoë Abbot"


@given(st.text(max_size=80))
def test_an_accepted_name_is_visible_text_of_a_person(text: str) -> None:
    try:
        name = seat_name(text)
    except InvalidNameError:
        return
    assert 1 <= len(name) <= MAX_NAME_LENGTH
    assert all(unicodedata.category(c)[0] != "C" for c in name)
    assert unicodedata.normalize("NFKC", name).casefold().split()[-1] != "bot"
    assert seat_name(name) == name  # recording it again changes nothing
