"""Stub until the fastdec branch is merged: the strict stdlib message decoder declines everything.

``decode_fast(payload)`` returns the message :func:`~.codec.decode_message_leniently`
would return, or None when it cannot be sure; this stub always says None, so the
start-up reader declines every page that decodes a message. Take main's module on merge.
"""

from __future__ import annotations

from typing import Any


def decode_fast(payload: object) -> Any:
    """Always None: not sure (the real decoder comes from the fastdec branch)."""
    return None
