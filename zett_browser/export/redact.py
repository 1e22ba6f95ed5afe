"""Provides ``--redact``: common secrets replaced before anything is written.

A session shared with a colleague or pasted into an issue often carries what a tool read:
API keys, tokens, a database URL with its password, a private key. Each pattern below
replaces the secret itself (keeping what tells a reader what it was, such as ``Bearer``
or the URL's user name) with :data:`MARK`, and the redactor counts the replacements so the
CLI can say how many it made.

The patterns never match a backslash or a double quote inside a secret, so redacting the
stored JSON text of a message (the JSON export) leaves valid JSON; a PEM block in JSON is
one string with ``\\n`` escapes, matched from its BEGIN line to its END line whole.

Redacting takes time linear in the text (10 MB of hex in well under 2 s:
``benchmarks/redact_bench.py``). No pattern can start again and again inside one long run:
a URL's scheme starts only where a run of scheme characters starts (it used to be tried
from every letter of a run, each try scanning the run to its end: 1 MB of letters and
digits took minutes), and a PEM block that finds no END before its string ends is not
tried again from a BEGIN inside that same stretch (:func:`_private_keys`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARK = "[REDACTED]"


def _token(prefix: str, width: int) -> str:
    """``prefix`` (``width`` characters long) where a token may start: not inside a word, or
    right after a JSON escape such as ``\\n`` (in the stored JSON text a line break is a
    backslash and an ``n``, a word character).

    The condition is a look-behind placed after the prefix, so each pattern starts with its
    prefix and the regular expression engine skips ahead to it (a look-behind first is tried
    at every position: six times slower on text without any token).
    """
    return rf"{prefix}(?:(?<![A-Za-z0-9_].{{{width}}})|(?<=\\[nrtbf].{{{width}}}))"


#: (pattern, replacement). Group 1, when present, is kept in front of the mark.
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        # OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-ant-...
        (_token("sk-", 3) + r"(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}", MARK),
        # AWS access key ids.
        (_token("(?:AKIA|ASIA)", 4) + r"[0-9A-Z]{16}\b", MARK),
        # GitHub tokens (classic and fine-grained).
        (_token("gh[pousr]_", 4) + r"[A-Za-z0-9]{30,}", MARK),
        (_token("github_pat_", 11) + r"[A-Za-z0-9_]{20,}", MARK),
        # Slack tokens, Google API keys.
        (_token("xox[abprs]-", 5) + r"[A-Za-z0-9\-]{10,}", MARK),
        (_token("AIza", 4) + r"[0-9A-Za-z_\-]{35}", MARK),
        # Authorization headers: Bearer and Basic credentials.
        ("(?i)(" + _token("bearer", 6) + r"\s+)[A-Za-z0-9._~+/\-]{8,}=*", r"\1" + MARK),
        ("(?i)(" + _token("basic", 5) + r"\s+)[A-Za-z0-9+/]{12,}={0,2}", r"\1" + MARK),
        # Passwords in URLs: scheme://user:password@host. The scheme starts at its first letter,
        # but the match at the start of the run of scheme characters holding it (kept): tried
        # only there, never again from every letter of a long run.
        (
            r"(?<![A-Za-z0-9+.\-])([0-9+.\-]*[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"\\]*:)[^\s/@\"\\]+(@)",
            r"\1" + MARK + r"\2",
        ),
        # Secrets in query strings: ?password=..., &token=..., &api_key=...
        (
            r"(?i)([?&](?:password|passwd|pwd|pass|token|access_token|refresh_token|api_key|apikey|secret|"
            r"client_secret|key|auth)=)[^&\s\"'#\\]+",
            r"\1" + MARK,
        ),
    )
)


#: PEM private keys (RSA, EC, OPENSSH, ENCRYPTED ...), the whole block. Never across an
#: unescaped double quote: in JSON text the block is one string.
PRIVATE_KEY = re.compile(r'-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[^"\\]|\\.)*?-----END [A-Z0-9 ]*PRIVATE KEY-----')
_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")
#: A block's body up to where it must stop: an unescaped double quote, a backslash before a
#: line break, or the end (each character is read one way only: no backtracking).
_BODY = re.compile(r'(?:[^"\\]|\\.)*')


def _private_keys(text: str) -> tuple[str, int]:
    """``PRIVATE_KEY.subn(MARK, text)``, in linear time.

    ``subn`` tries the pattern again at every BEGIN line, and one that finds no END scans
    to where its string stops: thousands of BEGIN lines without an END cost quadratic
    time. A BEGIN line inside that stretch would stop at the same place (its body is the
    rest of the first one's, read the same way), so the search goes on after it instead.
    """
    pieces: list[str] = []
    count = done = position = 0
    while (begin := _BEGIN.search(text, position)) is not None:
        block = PRIVATE_KEY.match(text, begin.start())
        if block is None:
            stop = _BODY.match(text, begin.end())
            position = max(stop.end() if stop else begin.end(), begin.start() + 1)
            continue
        pieces.append(text[done : block.start()])
        pieces.append(MARK)
        count += 1
        done = position = block.end()
    if not count:
        return text, 0
    pieces.append(text[done:])
    return "".join(pieces), count


@dataclass
class Redactor:
    """Replaces secrets in text and counts what it replaced (``enabled=False``: a no-op)."""

    enabled: bool = True
    count: int = field(default=0)

    def __call__(self, text: str, *, counted: bool = True) -> str:
        """``text`` with every secret replaced; ``counted=False`` for a copy of text already counted."""
        if not self.enabled or not text:
            return text
        text, total = _private_keys(text)
        for pattern, replacement in PATTERNS:
            text, found = pattern.subn(replacement, text)
            total += found
        if counted:
            self.count += total
        return text
