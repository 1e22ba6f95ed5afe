"""Provides what a typed session-id prefix names, without SQL: the match record and the range's upper bound.

Kept apart from :mod:`.prefix` (which runs the query through the storage) so that the
stdlib readers (:mod:`.quickcontext`) bind the same bounds without loading SQLAlchemy.
"""

from __future__ import annotations

from ..model.frozen import frozen

#: Candidates read for an ambiguous prefix (one more tells that there are more).
MAX_CANDIDATES = 8
_MAX_CODE_POINT = 0x10FFFF


@frozen
class PrefixMatch:
    """The sessions a prefix names.

    Attributes:
        prefix: What was typed.
        candidates: Matching ids in id order, at most ``limit`` (the full id alone when it
            matched exactly).
        more: Whether more ids than ``candidates`` match.
    """

    prefix: str
    candidates: tuple[str, ...]
    more: bool = False

    @property
    def session_id(self) -> str | None:
        """The one session the prefix names, or None (none, or several)."""
        return self.candidates[0] if len(self.candidates) == 1 and not self.more else None


def upper_bound(prefix: str) -> str | None:
    """The smallest string greater than every string that starts with ``prefix`` (None: none)."""
    chars = list(prefix)
    while chars:
        last = ord(chars.pop())
        if last < _MAX_CODE_POINT:
            return "".join(chars) + chr(last + 1)
    return None


__all__ = ["MAX_CANDIDATES", "PrefixMatch", "upper_bound"]
