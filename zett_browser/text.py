"""Provides the one cleaning path for untrusted text, free of any UI toolkit.

Message content, titles, ids, tool names, arguments, metadata, tags, store paths and
error messages come from models, tools, other programs or the user's file system.
Terminals act on ESC and C1 control characters, so every such string goes through
:func:`clean` before it is shown in the app, printed by the CLI, or exported. The widgets
wrap the result in Rich ``Text`` built from the plain string (``widgets/safe.py``), never
parsed as markup.

What :func:`clean` changes, and why:

- C0/C1 control characters (all but newline and tab) become visible placeholders
  (``␛``, ``␀`` ... from the Control Pictures block, ``\\u0085`` for C1): terminals act on
  them (OSC 0/8/52, CSI, 8-bit CSI).
- Invisible format characters (Unicode category Cf: bidi embeddings, overrides and
  isolates, U+061C, zero-width space, word joiner, BOM U+FEFF, interlinear annotation,
  the invisible "tag" characters U+E0000 block used to smuggle hidden text to models) and
  the line/paragraph separators U+2028/U+2029 become ``\\uXXXX``: they reorder or hide
  what is shown, and terminals disagree on their width, which shifts rows.
- Exceptions that real text needs, kept as they are:
  ZWJ (U+200D) and ZWNJ (U+200C) between two non-ASCII letters, marks or symbols
  (emoji sequences such as 👨‍👩‍👧, Persian ``می‌خواهم``, Indic conjuncts); elsewhere (next
  to ASCII, spaces, punctuation or a line end) they only hide something and are shown.
  Tag characters after a black flag U+1F3F4 up to the cancel tag (subdivision flags 🏴󠁧󠁢󠁳󠁣󠁴󠁿).
- Other characters that draw nothing or a blank become ``\\uXXXX`` too: the soft hyphen
  U+00AD (most terminals draw nothing, some a hyphen), the combining grapheme
  joiner U+034F, the Khmer inherent vowels U+17B4/U+17B5, the Hangul fillers U+115F, U+1160,
  U+3164, U+FFA0 and the blank Braille pattern U+2800: each can pass for a space or for
  nothing, hiding text or making two names look the same.
- A lone surrogate (JSON can carry ``\\ud800``) becomes U+FFFD, one cell like the
  placeholder the terminal would otherwise guess at.
- A tab becomes four spaces (terminals expand tabs to their own stops).

Most text has none of these characters; one regular expression scan finds the rare ones
(a 100 KB string costs well under a millisecond when it is clean).
"""

from __future__ import annotations

import json
import re
import unicodedata

#: Everything :func:`clean` may change. The Cf ranges are Unicode 14's (Python 3.11);
#: ``tests/unit/test_text.py`` checks them against ``unicodedata``. The blank characters that
#: are no format characters (U+00AD ... U+FFA0) are listed first, after the controls.
_BMP = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0"
    "\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff"
)
_ASTRAL = (
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_SUSPECT = re.compile(f"[{_BMP}{_ASTRAL}]")

#: Faster classes for the common cases, chosen per string: pure ASCII (about five times
#: faster than the full class), and text without astral characters (a class of BMP
#: characters only is matched from a bitmap, about five times faster than one with
#: astral ranges; finding out there is no astral character costs a fraction of that).
_SUSPECT_ASCII = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_SUSPECT_BMP = re.compile(f"[{_BMP}]")
_ANY_ASTRAL = re.compile("[\U00010000-\U0010ffff]")

_JOINERS = ("\u200c", "\u200d")
_BLACK_FLAG = "\U0001f3f4"
_TAG_FIRST, _TAG_CANCEL = 0xE0020, 0xE007F
#: Tags in a flag sequence at most (subdivision codes such as ``gbsct`` have 3-6), so a
#: long run of tags costs linear time, not quadratic.
_FLAG_TAGS = 8


def _joins(char: str) -> bool:
    """Whether a joiner next to ``char`` can be part of real text (not ASCII, not space)."""
    if char < "\x80":
        return False
    category = unicodedata.category(char)
    return category[0] in "LM" or category in ("So", "Sk")


def _in_flag(text: str, position: int) -> bool:
    """Whether the tag character at ``position`` belongs to a flag: 🏴 tags... cancel-tag."""
    start = position
    while start > 0 and position - start < _FLAG_TAGS and _TAG_FIRST <= ord(text[start - 1]) <= _TAG_CANCEL:
        start -= 1
    if start == 0 or text[start - 1] != _BLACK_FLAG:
        return False
    end = position
    while end < len(text) and end - start < _FLAG_TAGS and _TAG_FIRST <= ord(text[end]) < _TAG_CANCEL:
        end += 1
    return end < len(text) and ord(text[end]) == _TAG_CANCEL


def _placeholder(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ ␁ ... ␟
    if code == 0x7F:
        return "␡"
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    text, position = match.string, match.start()
    if char in _JOINERS:
        if 0 < position < len(text) - 1 and _joins(text[position - 1]) and _joins(text[position + 1]):
            return char
    elif _TAG_FIRST <= code <= _TAG_CANCEL and _in_flag(text, position):
        return char
    return f"\\u{code:04x}"


#: Text longer than this is cleaned a slice at a time, cut after a newline (where no
#: joiner or flag is kept anyway), so a 50 MB message cleaned in a worker thread lets the
#: UI thread run between slices instead of waiting ~130 ms for one regular-expression call.
SLICE = 1_000_000


def _clean(text: str) -> str:
    if "\t" in text:
        text = text.replace("\t", "    ")
    if text.isascii():
        pattern = _SUSPECT_ASCII
    else:
        pattern = _SUSPECT if _ANY_ASTRAL.search(text) else _SUSPECT_BMP
    return pattern.sub(_placeholder, text)


def clean(value: object) -> str:
    """A string with every control and invisible format character made visible."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= SLICE:
        return _clean(text)
    pieces, start = [], 0
    while start < len(text):
        # After a newline past SLICE; one huge line is cut at SLICE (a joiner exactly there
        # would then show as a placeholder: harmless).
        end = text.find("\n", start + SLICE, start + 2 * SLICE) + 1 or min(len(text), start + SLICE)
        pieces.append(_clean(text[start:end]))
        start = end
    return "".join(pieces)


def one_line(value: object, limit: int = 80) -> str:
    """A cleaned single-line preview, cut to ``limit`` characters."""
    raw = value if isinstance(value, str) else str(value)
    # Cleaning only expands text, so a prefix (plus one character of context for a
    # joiner) is enough: a 10 MB summary's one-line preview costs what 80 characters cost.
    text = clean(raw[: limit + 1]).replace("\n", " ⏎ ")
    return text if len(text) <= limit and len(raw) <= limit else text[: limit - 1] + "…"


def paste_safe(text: str, *, lines: bool = True) -> bool:
    """Whether ``text`` can go on the clipboard as it is: pasted into a shell, it only types.

    Nothing :func:`clean` would change (no ESC, so no ``ESC[201~`` ending a bracketed paste;
    no C0/C1 control, tab, bidi or invisible character) and, unless ``lines``, no line break
    (a pasted newline runs what came before it where bracketed paste is off).
    """
    return (lines or "\n" not in text) and clean(text) == text


def safe_json(value: object, *, indent: int | None = None) -> str:
    """``value`` as JSON text that is safe to print: pure ASCII.

    ``json.dumps`` escapes C0 controls only; with ``ensure_ascii`` every other character
    outside ASCII is a ``\\uXXXX`` escape too, so 8-bit C1 controls (``\\u009b``: CSI),
    bidi overrides and invisible characters of store text reach no terminal raw, while a
    JSON reader gets the exact text back. Every JSON the CLI prints goes through here.
    """
    return json.dumps(value, ensure_ascii=True, indent=indent)
