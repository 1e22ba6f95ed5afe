"""Provides type-ahead for the Raw Log while another page is read: keys wait for the new page.

After ``:1120 enter``, ``G``, a search hit or ``o`` the Raw Log reads another page. A key
typed meanwhile (``x``, ``j``, ``enter``) means the message jumped to, not the one the
cursor was on before the read: it waits and runs once the page is shown, or once the read
failed or was given up. Each held key is handed back exactly once, in the order typed,
through the app as if typed again (so it reaches whatever has focus then, and waits again
if it asks for another page itself).

Keys that move focus, open another screen or quit (``escape``, ``q``, ``tab``, ``:``, ``/``…)
are never held: nobody waits on a slow store to leave. At most :data:`LIMIT` keys wait; past
that, keys are dropped rather than replayed late.

Each wait has a token: only the read that asked last releases the keys (a read cancelled by
a newer one does not), and the view releases them anyway after a time limit, so a read that
never ends cannot keep them.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events

#: Keys that act at once even while a page is awaited.
PASS_THROUGH = frozenset(
    {
        "escape",
        "q",
        "ctrl+c",
        "ctrl+q",
        "tab",
        "shift+tab",
        "ctrl+p",
        "f1",
        "question_mark",
        "colon",
        "slash",
        "t",
        "i",
        "left_square_bracket",
        "right_square_bracket",
    }
)
#: At most this many keys wait.
LIMIT = 16
#: Seconds keys typed while a page is read wait at most (then they apply to what is shown).
HOLD_LIMIT_S = 5.0


class TypeAhead:
    """Holds the keys typed while a page is awaited and hands them back once it is shown.

    Args:
        replay: Delivers a key again as if typed (the app's ``post_message``).
        set_timer: Runs a callable after some seconds (the view's ``set_timer``): keys
            wait at most :data:`HOLD_LIMIT_S` for a page.
    """

    def __init__(
        self, replay: Callable[[events.Key], object], set_timer: Callable[[float, Callable[[], None]], object]
    ) -> None:
        self._replay = replay
        self._set_timer = set_timer
        self._token = 0
        self._keys: list[tuple[str, str | None]] = []
        #: A page is awaited: keys wait.
        self.awaiting = False

    def start(self) -> int:
        """A page was asked for: hold keys from now on. Returns the wait's token."""
        self._token += 1
        self.awaiting = True
        token = self._token
        self._set_timer(HOLD_LIMIT_S, lambda: self.release(token))
        return token

    def take(self, event: events.Key) -> bool:
        """Hold ``event`` when a page is awaited; True when it was held (stop it)."""
        if not self.awaiting or event.key in PASS_THROUGH:
            return False
        if len(self._keys) < LIMIT:
            self._keys.append((event.key, event.character))
        return True

    def release(self, token: int | None = None) -> None:
        """The page asked for with ``token`` is shown (or could not be read): hand the held
        keys back, in order. A stale token (a newer page is awaited) changes nothing;
        None releases whatever waits."""
        if token is not None and token != self._token:
            return
        self.awaiting = False
        keys, self._keys = self._keys, []
        for key, character in keys:
            self._replay(events.Key(key, character))
