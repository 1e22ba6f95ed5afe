"""Provides the one-line search language: a pure parser from text to a typed query.

Syntax (also the help text): bare words, ``"phrases"``, ``prefix*``, ``a OR b``,
``-word`` / ``-"phrase"`` / ``-kind:tool`` (negation), and qualifiers::

    kind:user|assistant|tool|system|agent|snapshot|session   tool:NAME    agent:NAME   session:ID
    type:N   model:NAME   tag:KEY   tag:KEY=VALUE   meta.KEY:VALUE   error:true
    stop:refused|cut_off|interrupted   has:reasoning|image|snapshot|children|server_tools
    outcome:ok|failed|skipped|cancelled|interrupted|aborted   is:steering|resume|goal
    since:2d|12h|30m|2026-11-01   before:...   tokens:>50k   dur:>30s   in:session|subtree
    pinned:true|false   label:NAME   note:TEXT   (the notes file: see zett_browser.index.notes_filter)

Any input either parses into a :class:`Query` or raises :class:`QueryError` whose
message names the bad token. Free text never reaches FTS5 as syntax: the search turns
each :class:`Term` into a quoted string it builds itself (:func:`fts_string`).
A ``word:value`` shaped like a qualifier (a key of two or more letters, a value that starts
with neither ``/`` nor ``:``) whose key is none is an error naming it: ``foo:bar`` is
surely a typo of one. Other words with a colon are searched as text (URLs, ``std::move``,
``12:30``, ``C:\\dir``), and so is any quoted one (``"foo:bar"``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from ..model.frozen import field, frozen

KINDS = ("system", "user", "assistant", "tool", "agent", "snapshot", "session")
STOPS = {"refused": ("refusal",), "cut_off": ("max_output", "context_full"), "interrupted": ("interrupted", "paused")}
HAS = ("reasoning", "image", "snapshot", "children", "server_tools")
#: How a tool call ended (``model.outcomes.Outcome`` values) and the row marks of ``is:``.
OUTCOMES = ("ok", "failed", "skipped", "cancelled", "interrupted", "aborted")
IS = ("steering", "resume", "goal")
NAMED = ("tool", "agent", "session", "model")
_UNITS = {"k": 1_000, "m": 1_000_000}
_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_KEY = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")
_COMPARE = re.compile(r"^(>=|<=|>|<|=)?(\d+(?:\.\d+)?)([A-Za-z]*)$")
MAX_TERMS = 32
#: ``key:value`` that reads as a qualifier (and so must be one): see the module docstring.
_QUALIFIER_SHAPE = re.compile(r"^[A-Za-z][A-Za-z_]{1,30}:[^/:]")
#: Every qualifier key (``meta.KEY`` aside); another ``word:rest`` is searched as text.
QUALIFIERS = (
    "kind",
    "tag",
    "error",
    "stop",
    "has",
    "outcome",
    "is",
    "since",
    "before",
    "tokens",
    "dur",
    "in",
    "type",
    "pinned",
    "label",
    "note",
    *NAMED,
)
#: The syntax in a few lines, for help screens.
HELP = """words, "a phrase", prefix*, a OR b, -word (negation), and qualifiers:
  kind:user|assistant|tool|system|agent|snapshot|session  tool:NAME  agent:NAME  session:ID  type:N
  model:NAME (NAME* for a prefix)  tag:KEY  tag:KEY=VALUE  meta.KEY:VALUE  error:true
  stop:refused|cut_off|interrupted  has:reasoning|image|snapshot|children|server_tools
  outcome:ok|failed|skipped|cancelled|interrupted|aborted  is:steering|resume|goal
  since:2d|12h|2026-11-01  before:...  tokens:>50k  dur:>30s  in:session|subtree  (-qualifier negates)
  pinned:true|false  label:NAME (NAME* for a prefix)  note:TEXT  (your pins, labels and notes)"""
MAX_LENGTH = 2000


class QueryError(ValueError):
    """A query that cannot be run; the message is one line naming the bad token."""


@frozen
class Term:
    """A word or phrase of free text; ``prefix`` matches words starting with its last token."""

    text: str
    prefix: bool = False


@frozen
class Filter:
    """One qualifier: ``name`` is the qualifier, ``value`` its typed value."""

    name: str
    value: object
    negated: bool = False


@frozen
class Query:
    """A parsed query: all ``groups`` must match (each is an OR of terms), no ``excluded``."""

    groups: tuple[tuple[Term, ...], ...] = ()
    excluded: tuple[Term, ...] = ()
    filters: tuple[Filter, ...] = ()
    source: str = field(default="", compare=False)

    @property
    def empty(self) -> bool:
        """Whether the query selects everything (nothing was given)."""
        return not (self.groups or self.excluded or self.filters)


def fts_string(term: Term) -> str:
    """The FTS5 expression for one term: always a quoted string, never operators."""
    # FTS5 reads a NUL as the end of the expression ("unterminated string"): drop it.
    quoted = '"' + term.text.replace("\x00", " ").replace('"', '""') + '"'
    return quoted + "*" if term.prefix else quoted


def _searchable(text: str) -> bool:
    return any(char.isalnum() for char in text)


def _split(source: str) -> list[str]:
    """Split into tokens on whitespace; double quotes group (``-"a b"``, ``tool:"x y"``)."""
    tokens: list[str] = []
    current: list[str] = []
    quoted = False
    for char in source:
        if char == '"':
            quoted = not quoted
            current.append(char)
        elif char.isspace() and not quoted:
            if current:
                tokens.append("".join(current))
                current = []
        else:
            current.append(char)
    if quoted:
        raise QueryError(f"unclosed quote in {''.join(current)[:40]!r}")
    if current:
        tokens.append("".join(current))
    return tokens


def _unquote(value: str) -> str:
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value.replace('"', "")


def _term(token: str) -> Term:
    prefix = token.endswith("*")
    text = _unquote(token.rstrip("*") if prefix else token)
    if not _searchable(text):
        raise QueryError(f"{token[:40]!r} has no letters or digits to search for")
    return Term(text=text, prefix=prefix)


def _count(token: str, value: str, units: dict[str, int | float]) -> tuple[str, float]:
    match = _COMPARE.match(value)
    if match is None or match.group(3).lower() not in units:
        names = ", ".join(sorted(unit for unit in units if unit))
        raise QueryError(f"{token[:40]!r}: expected a number like >50{next(iter(sorted(units)))} (units: {names})")
    op = match.group(1) or ">="
    return op, float(match.group(2)) * units[match.group(3).lower()]


def _when(token: str, value: str, now: datetime) -> datetime:
    relative = re.match(r"^(\d{1,6})(m|h|d|w)$", value)
    try:
        if relative:
            return now - timedelta(seconds=int(relative.group(1)) * _SECONDS[relative.group(2)])
        moment = datetime.fromisoformat(value)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except ValueError:
        raise QueryError(f"{token[:40]!r}: expected a date like 2026-11-01 or an age like 2d, 12h, 30m") from None
    except OverflowError:
        # An age reaching back before year 1, or a time whose UTC moment falls outside years 1-9999.
        raise QueryError(f"{token[:40]!r}: out of range (dates run from year 1 to 9999)") from None


def _choice(token: str, value: str, choices: tuple[str, ...]) -> str:
    if value.lower() not in choices:
        raise QueryError(f"{token[:40]!r}: expected one of {'|'.join(choices)}")
    return value.lower()


def _filter(token: str, key: str, value: str, now: datetime) -> Filter | None:
    """The qualifier ``key:value``, or None when ``key`` is no qualifier (then it is text)."""
    if key.startswith("meta.") and len(key) > 5:
        name = key[5:]
        if not _KEY.match(name):
            raise QueryError(f"{token[:40]!r}: a metadata key has letters, digits, _ . - only")
        return Filter("meta", (name, value))
    if key not in QUALIFIERS:
        if _QUALIFIER_SHAPE.match(token):
            name = token.partition(":")[0]
            raise QueryError(f'unknown qualifier {name[:40] + ":"!r} (to search the text, quote it: "{token[:40]}")')
        return None
    if not value and key in ("pinned", "label", "note"):
        return None  # "note:" alone is a word of prose, searched as text
    if not value:
        raise QueryError(f"{token[:40]!r}: {key}: needs a value")
    if key == "kind":
        return Filter(key, _choice(token, value, KINDS))
    if key in NAMED:
        return Filter(key, value)
    if key == "type":
        if not re.fullmatch(r"\d{1,9}", value):
            raise QueryError(f"{token[:40]!r}: type: needs a whole number")
        return Filter(key, int(value))
    if key == "tag":
        name, _, wanted = value.partition("=")
        if not _KEY.match(name):
            raise QueryError(f"{token[:40]!r}: a tag key has letters, digits, _ . - only")
        return Filter(key, (name, wanted if "=" in value else None))
    if key == "error":
        return Filter(key, _choice(token, value, ("true", "false")) == "true")
    if key == "stop":
        return Filter(key, STOPS[_choice(token, value, tuple(STOPS))])
    if key == "has":
        return Filter(key, _choice(token, value, HAS))
    if key == "outcome":
        return Filter(key, _choice(token, value, OUTCOMES))
    if key == "is":
        return Filter(key, _choice(token, value, IS))
    if key in ("since", "before"):
        return Filter(key, _when(token, value, now))
    if key == "pinned":
        return Filter(key, _choice(token, value, ("true", "false")) == "true")
    if key in ("label", "note"):
        return Filter(key, value)
    if key == "tokens":
        return Filter(key, _count(token, value, {"": 1, **_UNITS}))
    if key == "dur":
        return Filter(key, _count(token, value, {"": 1, **_SECONDS}))
    return Filter(key, _choice(token, value, ("session", "subtree")))


def _qualifier(token: str, now: datetime) -> Filter | None:
    key, sep, value = token.partition(":")
    if not sep or not key or '"' in key:
        return None
    return _filter(token, key if key.startswith("meta.") else key.lower(), _unquote(value), now)


def parse(source: str, *, now: datetime | None = None) -> Query:
    """Parse one line of query text.

    Raises:
        QueryError: The line cannot be a query; the message names the bad token.
    """
    if len(source) > MAX_LENGTH:
        raise QueryError(f"the query is longer than {MAX_LENGTH} characters")
    moment = now or datetime.now(UTC)
    groups: list[list[Term]] = []
    excluded: list[Term] = []
    filters: list[Filter] = []
    joining = False
    last_filter: str | None = None  # the token before, when it was a qualifier
    for token in _split(source):
        if token == "OR":
            if last_filter is not None and (not groups or joining):
                raise QueryError(f"OR joins words, not the qualifier {last_filter[:40]!r} (qualifiers all apply)")
            if not groups or joining:
                raise QueryError("OR needs a word on each side")
            joining = True
            continue
        negated = token.startswith("-") and len(token) > 1 and token[1] != "-"
        body = token[1:] if negated else token
        found = _qualifier(body, moment)
        if found is not None:
            if joining:
                raise QueryError(f"OR joins words, not the qualifier {token[:40]!r}")
            filters.append(Filter(found.name, found.value, negated))
            last_filter = token
            continue
        last_filter = None
        term = _term(body)
        if negated:
            if joining:
                raise QueryError(f"OR joins words, not the negation {token[:40]!r}")
            excluded.append(term)
        elif joining:
            groups[-1].append(term)
            joining = False
        else:
            groups.append([term])
    if joining:
        raise QueryError("OR needs a word on each side")
    if sum(len(group) for group in groups) + len(excluded) > MAX_TERMS:
        raise QueryError(f"more than {MAX_TERMS} words to search for")
    return Query(tuple(tuple(group) for group in groups), tuple(excluded), tuple(filters), source)
