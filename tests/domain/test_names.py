"""Seat names: shown to everyone as what they are, never as a bot's or an erased player's."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import InvalidNameError
from domain.names import MAX_NAME_LENGTH, bot_name, seat_name

# Default_Ignorable_Code_Point as DerivedCoreProperties.txt defines it, computed here from
# Python's own Unicode data rather than copied from domain/:
# Other_Default_Ignorable_Code_Point + Cf + Variation_Selector - White_Space - FFF9..FFFB
# - 13430..1343F - Prepended_Concatenation_Mark.
_OTHER_IGNORABLE = [
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000),
    (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF),
    (0xE01F0, 0xE0FFF),
]
_VARIATION_SELECTORS = [(0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF)]
_PREPENDED_MARKS = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F}
_PREPENDED_MARKS |= {0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD}


def _in(ranges: list[tuple[int, int]], code: int) -> bool:
    return any(low <= code <= high for low, high in ranges)


def _ignorable(code: int) -> bool:
    char = chr(code)
    return (
        _in(_OTHER_IGNORABLE + _VARIATION_SELECTORS, code) or unicodedata.category(char) == "Cf"
    ) and not (
        char.isspace()
        or 0xFFF9 <= code <= 0xFFFB
        or 0x13430 <= code <= 0x1343F
        or code in _PREPENDED_MARKS
    )


DEFAULT_IGNORABLE = [chr(c) for c in range(0x110000) if _ignorable(c)]


def test_the_default_ignorable_code_points_are_unicodes_4174() -> None:
    # Unicode 14.0 through 15.1 give the same set, of 4,174 code points
    assert len(DEFAULT_IGNORABLE) == 4174


@pytest.mark.parametrize(
    "text",
    [
        "easy bot",
        "random bot",
        "strong bot",
        "Easy Bot",
        "BOT",
        "my\tbot",
        "\uff42\uff4f\uff54",  # fullwidth
        "x\u202ey",
        "a\x00b",
        # invisible and filler characters
        "easy bot\u3164",  # HANGUL FILLER
        "\u115f",  # HANGUL CHOSEONG FILLER
        "Amal\u1160",  # HANGUL JUNGSEONG FILLER
        "\uffa0Amal",  # HALFWIDTH HANGUL FILLER
        "\u2800",  # BRAILLE PATTERN BLANK
        "Amal\u2800Amal",
        "\ufe0f",  # VARIATION SELECTOR-16
        "a\u034fb",  # COMBINING GRAPHEME JOINER
        "a\u180eb",  # MONGOLIAN VOWEL SEPARATOR
        "a\u17b5b",  # KHMER VOWEL INHERENT AA
        "Amal\U000e0041",  # TAG LATIN CAPITAL LETTER A
        "Amal\U000e0100",  # VARIATION SELECTOR-17
        "Am\u00a0al",  # NO-BREAK SPACE
        "Am\u2003al",  # EM SPACE
        "Am\u3000al",  # IDEOGRAPHIC SPACE
        "Am\U0001d159al",  # MUSICAL SYMBOL NULL NOTEHEAD
        # posing as a bot: small capitals, Cyrillic, Greek, mathematical letters, digits
        "easy \u0299\u1d0f\u1d1b",
        "easy b\u043et",  # Cyrillic o
        "\u0412\u041e\u0422",  # Cyrillic capitals В О Т
        "\u0392\u039f\u03a4",  # Greek capitals Β Ο Τ
        "\U0001d41b\U0001d428\U0001d42d",  # mathematical bold
        "easy b0t",
        "easy bo\u0301t",  # a mark on a letter
        "easy-bot",
        "Amal (bot)",
        "random  bot!",
        # posing as an erased player
        "deleted player",
        "Deleted Player",
        "DELETED   PLAYER",
        "deleted-player",
        "d\u0435l\u0435t\u0435d pl\u0430y\u0435r",  # Cyrillic е, а
        "\u1d05\u1d07\u029f\u1d07\u1d1b\u1d07\u1d05 \u1d18\u029f\u1d00\u028f\u1d07\u0280",
        "deIeted pIayer",  # capital I for l
        "\uff44\uff45\uff4c\uff45\uff54\uff45\uff44 \uff50\uff4c\uff41\uff59\uff45\uff52",
    ],
)
def test_names_that_hide_characters_or_pose_as_bots_or_erased_players_are_refused(
    text: str,
) -> None:
    with pytest.raises(InvalidNameError):
        seat_name(text)


@pytest.mark.parametrize(
    "text",
    [
        "Zoë Abbot",
        "Robotnik",
        "bot fan",
        "Bottom",
        "أمل",
        "Zoë 🂡",
        "Фёдор",
        "Δήμητρα",
        "山田太郎",
        "김민준",
        "deleted",
        "player one",
        "a deleted player's friend",
        "Noor  A.",
        "👍🏽",
    ],
)
def test_a_name_is_trimmed_and_kept_as_written(text: str) -> None:
    assert seat_name(f"  {text} ") == text


def test_every_default_ignorable_code_point_is_refused_anywhere_in_a_name() -> None:
    for char in DEFAULT_IGNORABLE:
        with pytest.raises(InvalidNameError):
            seat_name(f"Am{char}al")


@given(st.text(max_size=20), st.sampled_from(DEFAULT_IGNORABLE), st.text(max_size=20))
def test_a_name_holding_a_default_ignorable_code_point_is_refused(
    before: str, hidden: str, after: str
) -> None:
    with pytest.raises(InvalidNameError):
        seat_name(before + hidden + after)


# Letters that pass for the letters of the reserved names: small capitals, Cyrillic, Greek,
# Cherokee and Lisu look-alikes, fullwidth and mathematical forms, digits.
_LOOKALIKES = {
    "a": "aAаАαΑᴀａ𝐚𝒂",
    "b": "bBʙВвΒβᏴｂ𝐛ᵇ",
    "d": "dDԁᴅᎠꓓｄ𝐝ⅾ",
    "e": "eEеЕεΕᴇᎬｅ𝐞",
    "l": "lLʟӏӀIІΙ1|ｌ𝐥ℓⅼ",
    "o": "oOоОοΟσᴏ0０ｏ𝐨ℴօ",
    "p": "pPрРρΡᴘᏢｐ𝐩",
    "r": "rRгʀᏒｒ𝐫",
    "t": "tTтТτΤᴛᎢｔ𝐭",
    "y": "yYуУүγʏᎩｙ𝐲",
}


@st.composite
def _posing_names(draw: st.DrawFn) -> str:
    """A bot's name or the erased-player placeholder, letter by letter as a look-alike."""
    kind = draw(st.sampled_from(["easy", "random", "strong", "Amal"]))
    reserved = draw(st.sampled_from(["bot", bot_name(kind), "deleted player"]))
    spaces = st.text(alphabet=" ", min_size=1, max_size=3)
    return "".join(
        draw(spaces) if c == " " else draw(st.sampled_from(_LOOKALIKES.get(c, c))) for c in reserved
    )


@given(_posing_names())
def test_a_bots_name_or_the_erased_placeholder_in_look_alike_letters_is_refused(
    name: str,
) -> None:
    with pytest.raises(InvalidNameError):
        seat_name(name)


def _within_bounds(text: str) -> bool:
    return 1 <= len(text.strip()) <= MAX_NAME_LENGTH


@given(st.text(max_size=80))
def test_an_accepted_name_stays_accepted_after_nfkc_and_case_folding(text: str) -> None:
    try:
        name = seat_name(text)
    except InvalidNameError:
        return
    assert 1 <= len(name) <= MAX_NAME_LENGTH
    assert all(unicodedata.category(c)[0] != "C" for c in name)
    assert seat_name(name) == name  # recording it again changes nothing
    # the same name normalised or case-folded (as a display or a search may show it) is
    # still a person's name: no fold turns it into a bot's or the erased placeholder
    for shown in (
        unicodedata.normalize("NFKC", name),
        name.casefold(),
        unicodedata.normalize("NFKC", name.casefold()),
    ):
        if _within_bounds(shown):
            seat_name(shown)
