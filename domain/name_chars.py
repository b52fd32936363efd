"""The Unicode data of the name rule: characters that show as nothing, and letters that pass for
the Latin letters of a reserved name (docs/rules.md, "seat names").

Python's ``unicodedata`` has neither the Default_Ignorable_Code_Point property nor the
confusables table, so both are written out here.
"""

from __future__ import annotations

from typing import Final

DEFAULT_IGNORABLE_RANGES: Final = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ, AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE, (NON-)JOINER, LEFT-TO-RIGHT and RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # bidirectional embeddings and overrides
    (0x2060, 0x206F),  # WORD JOINER, invisible operators, bidirectional isolates, ...
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT controls
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    (0xE0000, 0xE0FFF),  # tags, VARIATION SELECTOR-17..256, reserved
)
"""Unicode's Default_Ignorable_Code_Point, 4,174 code points, as DerivedCoreProperties.txt of
Unicode 14.0.0 (the data of Python 3.11's ``unicodedata``) lists them; 15.0 and 15.1 list the
same. Its definition: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector - White_Space
- FFF9..FFFB - 13430..1343F - Prepended_Concatenation_Mark. These are the characters a renderer
draws as nothing: a name holding one shows as another name."""

DEFAULT_IGNORABLE: Final = frozenset(
    chr(code) for low, high in DEFAULT_IGNORABLE_RANGES for code in range(low, high + 1)
)
"""Every default-ignorable code point, as a character."""

BLANK_SYMBOLS: Final = frozenset({"\u2800", "\U0001d159"})
"""Symbols drawn as an empty cell, not ignorable but blank all the same: BRAILLE PATTERN BLANK
and MUSICAL SYMBOL NULL NOTEHEAD."""

CAPITAL_LOOKALIKES: Final = {
    "I": "l",  # LATIN CAPITAL LETTER I
    "\u0399": "l",  # GREEK CAPITAL LETTER IOTA
    "\u0406": "l",  # CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I
    "\u04c0": "l",  # CYRILLIC LETTER PALOCHKA
}
"""Capitals that pass for a small ``l`` but whose own small letter does not: folded before the
case is."""

_SMALL_CAPITALS: Final = {
    "\u1d00": "a",
    "\u0299": "b",
    "\u1d04": "c",
    "\u1d05": "d",
    "\u1d07": "e",
    "\ua730": "f",
    "\u0262": "g",
    "\u029c": "h",
    "\u026a": "i",
    "\u1d0a": "j",
    "\u1d0b": "k",
    "\u029f": "l",
    "\u1d0d": "m",
    "\u0274": "n",
    "\u1d0f": "o",
    "\u1d18": "p",
    "\ua7af": "q",
    "\u0280": "r",
    "\ua731": "s",
    "\u1d1b": "t",
    "\u1d1c": "u",
    "\u1d20": "v",
    "\u1d21": "w",
    "\u028f": "y",
    "\u1d22": "z",
}

_SCRIPT_LOOKALIKES: Final = {
    # a
    "\u0430": "a",  # CYRILLIC SMALL LETTER A
    "\u03b1": "a",  # GREEK SMALL LETTER ALPHA (and capital Alpha, case-folded)
    "\u0251": "a",  # LATIN SMALL LETTER ALPHA
    "\u237a": "a",  # APL FUNCTIONAL SYMBOL ALPHA
    # b
    "\u0432": "b",  # CYRILLIC SMALL LETTER VE (capital Ve, case-folded)
    "\u03b2": "b",  # GREEK SMALL LETTER BETA (capital Beta, case-folded)
    "\u044c": "b",  # CYRILLIC SMALL LETTER SOFT SIGN
    "\u0185": "b",  # LATIN SMALL LETTER TONE SIX
    "\u13f4": "b",  # CHEROKEE LETTER YV
    "\u15af": "b",  # CANADIAN SYLLABICS AIVILIK B
    # c
    "\u0441": "c",  # CYRILLIC SMALL LETTER ES
    "\u03f2": "c",  # GREEK LUNATE SIGMA SYMBOL
    # d
    "\u0501": "d",  # CYRILLIC SMALL LETTER KOMI DE
    "\u13a0": "d",  # CHEROKEE LETTER A
    "\ua4d3": "d",  # LISU LETTER DA
    # e
    "\u0435": "e",  # CYRILLIC SMALL LETTER IE
    "\u03b5": "e",  # GREEK SMALL LETTER EPSILON (capital Epsilon, case-folded)
    "\u04bd": "e",  # CYRILLIC SMALL LETTER ABKHASIAN CHE
    "\u13ac": "e",  # CHEROKEE LETTER GV
    "\u212e": "e",  # ESTIMATED SYMBOL
    # h, i, j, k, m, s, x: the rest of the Cyrillic and Greek look-alikes
    "\u04bb": "h",  # CYRILLIC SMALL LETTER SHHA
    "\u043d": "h",  # CYRILLIC SMALL LETTER EN (capital En, case-folded)
    "\u0456": "i",  # CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
    "\u03b9": "i",  # GREEK SMALL LETTER IOTA
    "\u0458": "j",  # CYRILLIC SMALL LETTER JE
    "\u043a": "k",  # CYRILLIC SMALL LETTER KA
    "\u03ba": "k",  # GREEK SMALL LETTER KAPPA
    "\u043c": "m",  # CYRILLIC SMALL LETTER EM
    "\u0455": "s",  # CYRILLIC SMALL LETTER DZE
    "\u0445": "x",  # CYRILLIC SMALL LETTER HA
    "\u03c7": "x",  # GREEK SMALL LETTER CHI
    # l
    "\u04cf": "l",  # CYRILLIC SMALL LETTER PALOCHKA
    "\u01c0": "l",  # LATIN LETTER DENTAL CLICK
    "|": "l",
    "1": "l",
    "\ua4e1": "l",  # LISU LETTER LA
    # o
    "\u043e": "o",  # CYRILLIC SMALL LETTER O
    "\u03bf": "o",  # GREEK SMALL LETTER OMICRON
    "\u03c3": "o",  # GREEK SMALL LETTER SIGMA
    "\u0585": "o",  # ARMENIAN SMALL LETTER OH
    "\u2c9f": "o",  # COPTIC SMALL LETTER O
    "\ua4f3": "o",  # LISU LETTER O
    "0": "o",
    "\u0966": "o",  # DEVANAGARI DIGIT ZERO
    "\u09e6": "o",  # BENGALI DIGIT ZERO
    "\u0a66": "o",  # GURMUKHI DIGIT ZERO
    "\u0ae6": "o",  # GUJARATI DIGIT ZERO
    "\u0ce6": "o",  # KANNADA DIGIT ZERO
    "\u0e50": "o",  # THAI DIGIT ZERO
    "\u0ed0": "o",  # LAO DIGIT ZERO
    "\u1040": "o",  # MYANMAR DIGIT ZERO
    # p
    "\u0440": "p",  # CYRILLIC SMALL LETTER ER
    "\u03c1": "p",  # GREEK SMALL LETTER RHO
    "\u13e2": "p",  # CHEROKEE LETTER TLV
    "\u2ca3": "p",  # COPTIC SMALL LETTER RO
    "\ua4d1": "p",  # LISU LETTER PA
    # r
    "\u0433": "r",  # CYRILLIC SMALL LETTER GHE
    "\u13d2": "r",  # CHEROKEE LETTER SV
    "\ua4e3": "r",  # LISU LETTER ZHA
    # t
    "\u0442": "t",  # CYRILLIC SMALL LETTER TE (capital Te, case-folded)
    "\u03c4": "t",  # GREEK SMALL LETTER TAU
    "\u13a2": "t",  # CHEROKEE LETTER I
    "\ua4d4": "t",  # LISU LETTER TA
    # y
    "\u0443": "y",  # CYRILLIC SMALL LETTER U
    "\u04af": "y",  # CYRILLIC SMALL LETTER STRAIGHT U
    "\u03b3": "y",  # GREEK SMALL LETTER GAMMA
    "\u03c5": "y",  # GREEK SMALL LETTER UPSILON (capital Upsilon, case-folded)
    "\u0263": "y",  # LATIN SMALL LETTER GAMMA
    "\u13a9": "y",  # CHEROKEE LETTER GI
    "\ua4ec": "y",  # LISU LETTER YA
}

LOOKALIKES: Final = {**_SMALL_CAPITALS, **_SCRIPT_LOOKALIKES}
"""Characters of case-folded NFKC text that pass for a Latin letter, each with that letter: the
small capitals, and the Cyrillic, Greek, Cherokee, Lisu and other letters and the digits used to
spell a bot's name or the erased-player placeholder in look-alikes. Fullwidth, mathematical,
circled and modifier letters need no entry: NFKC makes them Latin first. A small part of
Unicode's confusables (UTS #39), enough for the names that are reserved."""
