"""The one cleaning path: what terminals would act on or hide is made visible, real text stays."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from rich.cells import cell_len

from zett_browser.text import _SUSPECT, clean, one_line


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]0;PWNED\x07", "␛]0;PWNED␇"),
        ("\x1b]52;c;aGk=\x07", "␛]52;c;aGk=␇"),
        ("\x9b2J", "\\u009b2J"),
        ("a\x00b\x7fc", "a␀b␡c"),
        ("tab\there", "tab    here"),
        ("line\nbreak", "line\nbreak"),
    ],
)
def test_controls_become_placeholders(raw: str, shown: str) -> None:
    assert clean(raw) == shown


@pytest.mark.parametrize(
    "char",
    ["\u061c", "\u2028", "\u2029", "\ufeff", "\u200b", "\u200e", "\u200f", "\u202a", "\u202e", "\u2060", "\u2064"]
    + ["\u2066", "\u2069", "\u206a", "\u206f", "\ufff9", "\ufffb", "\u180e", "\U000e0001", "\U000e0041"],
)
def test_invisible_format_characters_become_visible(char: str) -> None:
    shown = clean(f"ab{char}cd")
    assert char not in shown
    assert f"\\u{ord(char):04x}" in shown


def test_every_format_character_is_covered() -> None:
    """The hard-coded class covers every Cf character Python knows (and U+2028/2029)."""
    missing = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cf", "Zl", "Zp", "Cs") and not _SUSPECT.match(chr(code))
    ]
    assert missing == []


def test_soft_hyphen_is_shown() -> None:
    """Most terminals draw U+00AD as nothing (some as a hyphen): it can hide a break in a word."""
    assert clean("co\u00adop") == "co\\u00adop"


@pytest.mark.parametrize(
    "text",
    [
        "👨\u200d👩\u200d👧\u200d👦",  # family: emoji joined by ZWJ
        "❤️\u200d🔥",  # heart on fire: VS16 then ZWJ
        "👩🏽\u200d💻",  # skin tone modifier then ZWJ
        "می\u200cخواهم",  # Persian: ZWNJ between letters
        "क्\u200dष",  # Devanagari: ZWJ after a virama (a mark)
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # the Scottish flag
    ],
)
def test_joiners_in_real_text_are_kept(text: str) -> None:
    assert clean(text) == text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("adm\u200din", "adm\\u200din"),  # between ASCII letters: only hides
        ("\u200dstart", "\\u200dstart"),
        ("end\u200c", "end\\u200c"),
        ("می \u200cخواهم", "می \\u200cخواهم"),  # after a space
        ("👍\u200d.", "👍\\u200d."),
        ("\U000e0041\U000e0042", "\\ue0041\\ue0042"),  # tags smuggling hidden ASCII
        ("🏴\U000e0041", "🏴\\ue0041"),  # tags after a flag, never cancelled
    ],
)
def test_joiners_and_tags_elsewhere_are_shown(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_lone_surrogate_becomes_replacement_one_cell_wide() -> None:
    raw = "ab\ud800cd\udfffe"
    shown = clean(raw)
    assert shown == "ab\ufffdcd\ufffde"
    assert cell_len(shown) == len(shown)
    shown.encode("utf-8")  # would raise on a surrogate


def test_cleaned_text_has_nothing_a_terminal_acts_on() -> None:
    every = "".join(chr(code) for code in range(0x10000) if not 0xD800 <= code <= 0xDFFF) + "\ud800"
    shown = clean(every)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u202e\u2066\ufeff\ud800-\udfff]", shown)


def test_non_strings_are_cleaned_too() -> None:
    assert clean(12) == "12"
    assert clean(b"\x1b") == "b'\\x1b'"


def test_one_line() -> None:
    assert one_line("a\nb\x1b") == "a ⏎ b␛"
    assert one_line("x" * 100, 10) == "x" * 9 + "…"
    assert one_line("x" * 10, 10) == "x" * 10


def test_huge_text_is_cleaned_in_slices_with_the_same_result() -> None:
    from zett_browser.text import SLICE

    line = "x\x1b 👨\u200d👩 \u202e\tend\n"
    text = line * (2 * SLICE // len(line) + 3)
    assert clean(text) == clean(line) * (len(text) // len(line))
    one_line_text = "\x1b" * (SLICE * 2 + 5)
    assert clean(one_line_text) == "␛" * len(one_line_text)


def test_one_line_cleans_only_what_it_shows() -> None:
    assert one_line("a" * 80, 80) == "a" * 80
    assert one_line("a" * 81, 80) == "a" * 79 + "…"
    assert one_line("\x1b" * 10_000_000, 5) == "␛␛␛␛…"
    assert one_line("ab\n", 4) == "ab …"
    assert one_line("👨\u200d👩", 3) == "👨\u200d👩"
