"""Provides the diff of two snapshot summaries and "what compaction dropped", as pure functions.

No toolkit and no store. :func:`side_by_side` pairs the two summaries' lines with
``difflib`` (changed lines also get their changed words); :func:`dropped_terms` lists the
identifiers, numbers and paths found in the Raw Log range the newer summary absorbed or in
the older summary but nowhere in the newer one. Text stays as stored here: the view
cleans every string (``text.clean``) before it reaches the screen.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Terms of each kind listed at most (a 100,000-message range holds many).
TERM_LIMIT = 200

_PATH = re.compile(r"(?<![\w/.~-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+")
#: A number with an optional short unit (``1,500``, ``0.5s``, ``150ms``, ``95%``).
_NUMBER = re.compile(r"(?<![\w.])\d[\d_,]*(?:\.\d+)?(?:[A-Za-z%]{1,3})?(?![\w])")
#: snake_case, dotted.names, camelCase, CONSTANTS, kebab-ids with digits: words a summary
#: must keep verbatim to be useful, unlike plain words.
_IDENTIFIER = re.compile(
    r"(?<![\w./-])(?:[A-Za-z_][A-Za-z0-9]*(?:[_.][A-Za-z0-9_]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9_]{2,}"
    r"|[A-Za-z]+-?\d[\w-]*)(?![\w/])"
)


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One side-by-side line: ``tag`` is ``equal``, ``replace``, ``delete`` or ``insert``.

    ``left``/``right`` are None where that side has no line; ``left_changed`` and
    ``right_changed`` are (start, end) character spans of changed words in a replaced line.
    """

    tag: str
    left: str | None
    right: str | None
    left_changed: tuple[tuple[int, int], ...] = ()
    right_changed: tuple[tuple[int, int], ...] = ()


def _sentences(text: str) -> list[str]:
    """Lines of a summary; a long paragraph is split after its sentences so a diff can pair them."""
    lines = []
    for line in text.splitlines() or [""]:
        if len(line) <= 120:
            lines.append(line)
            continue
        lines.extend(part for part in re.split(r"(?<=[.;!?])\s+", line) if part)
    return lines


def _word_spans(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in re.finditer(r"\S+", text)]


def changed_words(old: str, new: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Character spans of the words that differ between two lines (old's, new's)."""
    old_spans, new_spans = _word_spans(old), _word_spans(new)
    old_words = [old[a:b] for a, b in old_spans]
    new_words = [new[a:b] for a, b in new_spans]
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        left.extend(old_spans[i1:i2])
        right.extend(new_spans[j1:j2])
    return tuple(left), tuple(right)


def side_by_side(old: str, new: str) -> list[DiffLine]:
    """The two summaries' lines paired, with what changed marked."""
    a, b = _sentences(old), _sentences(new)
    lines: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines.extend(DiffLine("equal", x, y) for x, y in zip(a[i1:i2], b[j1:j2], strict=True))
        elif tag == "delete":
            lines.extend(DiffLine("delete", x, None) for x in a[i1:i2])
        elif tag == "insert":
            lines.extend(DiffLine("insert", None, y) for y in b[j1:j2])
        else:
            olds, news = a[i1:i2], b[j1:j2]
            for index in range(max(len(olds), len(news))):
                x = olds[index] if index < len(olds) else None
                y = news[index] if index < len(news) else None
                spans = changed_words(x, y) if x is not None and y is not None else ((), ())
                lines.append(DiffLine("replace", x, y, spans[0], spans[1]))
    return lines


@dataclass(frozen=True, slots=True)
class Dropped:
    """Terms in the absorbed range or the older summary that the newer summary lacks."""

    identifiers: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.identifiers) + len(self.numbers) + len(self.paths)


def _unique(found: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for term in found:
        seen.setdefault(term.rstrip(".,"), None)
    return [term for term in seen if term]


def terms(text: str) -> tuple[list[str], list[str], list[str]]:
    """The identifiers, numbers and paths of ``text``, each once, in order of appearance."""
    paths = _unique(match.group() for match in _PATH.finditer(text))
    inside = {part for path in paths for part in re.split(r"[/]", path)}
    identifiers = _unique(m.group() for m in _IDENTIFIER.finditer(text))
    identifiers = [term for term in identifiers if term not in inside and not term.replace(".", "").isdigit()]
    numbers = _unique(match.group() for match in _NUMBER.finditer(text))
    return identifiers, numbers, paths


def dropped_terms(absorbed: str, old_summary: str, new_summary: str, *, limit: int = TERM_LIMIT) -> Dropped:
    """What compaction dropped: terms of ``absorbed`` or ``old_summary`` absent from ``new_summary``.

    A term counts as kept when it appears anywhere in the newer summary's text (as a
    substring: ``src/a.py`` is kept by ``see src/a.py:12``).
    """
    identifiers, numbers, paths = terms(old_summary + "\n" + absorbed)

    def lost(found: list[str]) -> list[str]:
        return [term for term in found if term not in new_summary][:limit]

    return Dropped(identifiers=lost(identifiers), numbers=lost(numbers), paths=lost(paths))
