"""Provides ``--redact``: common secrets replaced before anything is written.

A session shared with a colleague or pasted into an issue often carries what a tool read:
API keys, tokens, a database URL with its password, a private key. Each pattern below
replaces the secret itself (keeping what tells a reader what it was, such as ``Bearer``
or the URL's user name) with :data:`MARK`, and the redactor counts the replacements so the
CLI can say how many it made.

The patterns never match a backslash or a double quote inside a secret, so redacting the
stored JSON text of a message (the JSON export) leaves valid JSON; a PEM block in JSON is
one string with ``\\n`` escapes, matched from its BEGIN line to its END line whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARK = "[REDACTED]"
#: Where a token may start: not inside a word, or right after a JSON escape such as ``\n``
#: (in the stored JSON text a line break is a backslash and an ``n``, a word character).
_START = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf]))"

#: (pattern, replacement). Group 1, when present, is kept in front of the mark.
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        # PEM private keys (RSA, EC, OPENSSH, ENCRYPTED ...), the whole block.
        # Never across an unescaped double quote: in JSON text the block is one string.
        (r'-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[^"\\]|\\.)*?-----END [A-Z0-9 ]*PRIVATE KEY-----', MARK),
        # OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-ant-...
        (_START + r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}", MARK),
        # AWS access key ids.
        (_START + r"(?:AKIA|ASIA)[0-9A-Z]{16}\b", MARK),
        # GitHub tokens (classic and fine-grained).
        (_START + r"gh[pousr]_[A-Za-z0-9]{30,}", MARK),
        (_START + r"github_pat_[A-Za-z0-9_]{20,}", MARK),
        # Slack tokens, Google API keys.
        (_START + r"xox[abprs]-[A-Za-z0-9\-]{10,}", MARK),
        (_START + r"AIza[0-9A-Za-z_\-]{35}", MARK),
        # Authorization headers: Bearer and Basic credentials.
        ("(?i)" + _START + r"(bearer\s+)[A-Za-z0-9._~+/\-]{8,}=*", r"\1" + MARK),
        ("(?i)" + _START + r"(basic\s+)[A-Za-z0-9+/]{12,}={0,2}", r"\1" + MARK),
        # Passwords in URLs: scheme://user:password@host.
        (r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"\\]*:)[^\s/@\"\\]+(@)", r"\1" + MARK + r"\2"),
        # Secrets in query strings: ?password=..., &token=..., &api_key=...
        (
            r"(?i)([?&](?:password|passwd|pwd|pass|token|access_token|refresh_token|api_key|apikey|secret|"
            r"client_secret|key|auth)=)[^&\s\"'#\\]+",
            r"\1" + MARK,
        ),
    )
)


@dataclass
class Redactor:
    """Replaces secrets in text and counts what it replaced (``enabled=False``: a no-op)."""

    enabled: bool = True
    count: int = field(default=0)

    def __call__(self, text: str, *, counted: bool = True) -> str:
        """``text`` with every secret replaced; ``counted=False`` for a copy of text already counted."""
        if not self.enabled or not text:
            return text
        for pattern, replacement in PATTERNS:
            text, found = pattern.subn(replacement, text)
            if counted:
                self.count += found
        return text
